// SPDX-License-Identifier: MIT
/*
 * sg3_utils' text as users paste it: `sg_vpd -p bl` (Block Limits VPD page,
 * "  Maximum atomic transfer length: 0x2000", values decimal or hex, with
 * or without "blocks" and a bracketed comment) and `sg_readcap [-l]`
 * ("   Logical block length=4096 bytes", "Logical blocks per physical block
 * exponent=0"). Names read in sg3_utils' decode_block_limits_vpd (sg_vpd.c
 * up to 1.45, sg_vpd_common.c from 1.46) and sg_readcap.c.
 *
 * sg3_utils 1.46..1.48 print a non-zero ATOMIC TRANSFER LENGTH GRANULARITY
 * under the name "Atomic alignment" (the label of the field before it; seen
 * with 1.48 on scsi_debug): a second "Atomic alignment" line is therefore
 * the granularity.
 */
#include <errno.h>
#include <string.h>

#include "input.h"

static const struct {
	const char *name;
	enum awr_input_field field;
} vpd_names[] = {
	{ "Maximum transfer length", AWR_IF_MAX_XFER },
	{ "Maximum atomic transfer length", AWR_IF_MATL },
	{ "Atomic alignment", AWR_IF_ATOMIC_ALIGN },
	{ "Atomic transfer length granularity", AWR_IF_ATOMIC_GRAN },
	{ "Maximum atomic transfer length with atomic boundary", AWR_IF_MATL_BNDRY },
	{ "Maximum atomic boundary size", AWR_IF_MAX_BNDRY },
	{ "Logical block length", AWR_IF_LBS },
};

#define NAME_EXPONENT	"Logical blocks per physical block exponent"
#define NAME_NR_BLOCKS	"Number of logical blocks"

static bool name_is(const char *p, size_t n, const char *name)
{
	return strlen(name) == n && !memcmp(p, name, n);
}

/* "  Name: value ..." or "   Name=value ...": the name and the value's start. */
static bool split(const struct awr__line *l, const char **name, size_t *n, const char **val)
{
	const char *p = l->p, *q;

	awr__text_blank(&p, l->end);
	for (q = p; q < l->end && *q != ':' && *q != '='; q++)
		;
	if (q >= l->end || q == p)
		return false;
	*name = p;
	*n = (size_t)(q - p);
	*val = q + 1;
	awr__text_blank(val, l->end);
	return true;
}

/* "Last LBA=16383 (0x3fff), Number of logical blocks=16384" */
static void nr_blocks(const struct awr__line *l, struct awr_input *in)
{
	size_t n = strlen(NAME_NR_BLOCKS);
	uint64_t v;

	for (const char *p = l->p; p + n < l->end; p++)
		if (!memcmp(p, NAME_NR_BLOCKS "=", n + 1)) {
			p += n + 1;
			if (awr__text_number(&p, l->end, &v))
				in->scsi.nr_blocks = v;
			return;
		}
}

static int vpd_line(const char *name, size_t n, const char *val, const char *end,
		    struct awr_input *in, uint64_t *exponent, bool *align_seen)
{
	uint64_t v;

	if (name_is(name, n, NAME_EXPONENT)) {
		if (!awr__text_number(&val, end, exponent) || *exponent > 16)
			return -EINVAL;
		return 1;
	}
	for (size_t i = 0; i < sizeof(vpd_names) / sizeof(vpd_names[0]); i++) {
		enum awr_input_field f = vpd_names[i].field;

		if (!name_is(name, n, vpd_names[i].name))
			continue;
		if (!awr__text_number(&val, end, &v))
			return -EINVAL;
		if (f == AWR_IF_ATOMIC_ALIGN && *align_seen)
			f = AWR_IF_ATOMIC_GRAN;	/* sg3_utils 1.46..1.48's label */
		if (f == AWR_IF_ATOMIC_ALIGN)
			*align_seen = true;
		return awr__input_set(in, f, v) ?: 1;
	}
	return 0;
}

int awr__scsi_text(const char *s, size_t len, struct awr_input *in)
{
	const char *pos = s, *end = s + len, *name, *val;
	uint64_t exponent = UINT64_MAX;
	bool align_seen = false, vpd = false, readcap = false;
	struct awr__line l;
	size_t n;
	int count = 0, r;

	in->line = 0;
	while (awr__text_line(&pos, end, &l)) {
		const char *p = l.p;

		in->line++;
		awr__text_blank(&p, l.end);
		if ((size_t)(l.end - p) >= 24 && !memcmp(p, "Block limits VPD page", 21))
			vpd = true;
		if ((size_t)(l.end - p) >= 21 && !memcmp(p, "Read Capacity results", 21))
			readcap = true;
		nr_blocks(&l, in);
		if (!split(&l, &name, &n, &val))
			continue;
		r = vpd_line(name, n, val, l.end, in, &exponent, &align_seen);
		if (r < 0)
			return r;
		count += r;
	}
	if (exponent != UINT64_MAX) {
		if (!(in->have & (1ULL << AWR_IF_LBS)))
			return -EINVAL;
		r = awr__input_set(in, AWR_IF_PBS,
				   (uint64_t)in->scsi.logical_block_size << exponent);
		if (r)
			return r;
	}
	if (in->have & (1ULL << AWR_IF_MATL | 1ULL << AWR_IF_MATL_BNDRY))
		vpd = true;
	if (vpd && count)
		r = awr__input_set(in, AWR_IF_VPD_BL, 1);
	if (vpd && count)
		in->formats |= AWR_INPUT_SG_VPD;
	if ((readcap || in->have & (1ULL << AWR_IF_LBS)) && count)
		in->formats |= AWR_INPUT_SG_READCAP;
	return count;
}
