// SPDX-License-Identifier: MIT
/*
 * The input record: pieces of tool output and dumps recognised and joined
 * into the facts of one device; what is missing is named, and the answer is
 * given under a stated assumption.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

#define HAVE(in, f)	(((in)->have >> (f)) & 1)

static const char *const field_names[AWR_IF__COUNT] = {
	[AWR_IF_MDTS] = "MDTS", [AWR_IF_AWUN] = "AWUN", [AWR_IF_AWUPF] = "AWUPF",
	[AWR_IF_ACWU] = "ACWU", [AWR_IF_NSZE] = "NSZE", [AWR_IF_NSFEAT] = "NSFEAT",
	[AWR_IF_NLBAF] = "NLBAF", [AWR_IF_FLBAS] = "FLBAS", [AWR_IF_NAWUN] = "NAWUN",
	[AWR_IF_NAWUPF] = "NAWUPF", [AWR_IF_NACWU] = "NACWU", [AWR_IF_NABSN] = "NABSN",
	[AWR_IF_NABO] = "NABO", [AWR_IF_NABSPF] = "NABSPF", [AWR_IF_NOIOB] = "NOIOB",
	[AWR_IF_LBAF] = "the LBA format",
	[AWR_IF_VPD_BL] = "the Block Limits VPD page",
	[AWR_IF_MAX_XFER] = "Maximum transfer length",
	[AWR_IF_MATL] = "Maximum atomic transfer length",
	[AWR_IF_ATOMIC_ALIGN] = "Atomic alignment",
	[AWR_IF_ATOMIC_GRAN] = "Atomic transfer length granularity",
	[AWR_IF_MATL_BNDRY] = "Maximum atomic transfer length with atomic boundary",
	[AWR_IF_MAX_BNDRY] = "Maximum atomic boundary size",
	[AWR_IF_LBS] = "the logical block size",
	[AWR_IF_PBS] = "the physical block size",
	[AWR_IF_VID] = "VID", [AWR_IF_MODEL] = "MN", [AWR_IF_NTWPU] = "NTWPU",
	[AWR_IF_NTWPG] = "NTWPG", [AWR_IF_NTWPB] = "NTWPB",
};

const char *awr_input_field_name(enum awr_input_field f)
{
	return (unsigned int)f < AWR_IF__COUNT ? field_names[f] : "?";
}

static const char *const format_names[] = {
	"nvme-cli", "nvme-cli -H", "nvme-cli -o json", "sg_vpd -p bl", "sg_readcap", "dump",
	"elided",
};

const char *awr_input_format_name(unsigned int format)
{
	for (unsigned int i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (format == 1U << i)
			return format_names[i];
	return NULL;
}

void awr_input_init(struct awr_input *in)
{
	memset(in, 0, sizeof(*in));
	in->scsi.write_atomic16 = -1;
	in->lbaf_in_use = -1;
}

/* --- text helpers ------------------------------------------------------- */

bool awr__text_line(const char **pos, const char *end, struct awr__line *l)
{
	const char *nl;

	if (*pos >= end)
		return false;
	l->p = *pos;
	nl = memchr(*pos, '\n', (size_t)(end - *pos));
	l->end = nl ? nl : end;
	*pos = nl ? nl + 1 : end;
	if (l->end > l->p && l->end[-1] == '\r')
		l->end--;
	return true;
}

void awr__text_blank(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

static int digit(char c, unsigned int base)
{
	int v = c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;

	return v < (int)base ? v : -1;
}

bool awr__text_number(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	unsigned int base = 10;
	uint64_t x = 0;
	int d;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && digit(p[2], 16) >= 0) {
		base = 16;
		p += 2;
	}
	if (p >= end || digit(*p, base) < 0)
		return false;
	for (; p < end && (d = digit(*p, base)) >= 0; p++) {
		if (x > (UINT64_MAX - (uint64_t)d) / base)
			return false;
		x = x * base + (uint64_t)d;
	}
	*v = x;
	*pp = p;
	return true;
}

bool awr__text_elided(const struct awr__line *l)
{
	const char *p = l->p, *e = l->end;

	awr__text_blank(&p, e);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return (e - p == 5 && !memcmp(p, "[...]", 5)) || (e - p == 3 && !memcmp(p, "...", 3)) ||
	       (e - p == 3 && !memcmp(p, "\xe2\x80\xa6", 3)) ||
	       (e - p == 5 && !memcmp(p, "[\xe2\x80\xa6]", 5));
}

/* --- fields ------------------------------------------------------------- */

/* Where a field lives and its width. */
static void *field_ptr(struct awr_input *in, enum awr_input_field f, unsigned int *bits)
{
	struct awr_nvme_id *n = &in->nvme;
	struct awr_scsi_id *s = &in->scsi;

	*bits = 16;
	switch (f) {
	case AWR_IF_MDTS: *bits = 8; return &n->mdts;
	case AWR_IF_AWUN: return &n->awun;
	case AWR_IF_AWUPF: return &n->awupf;
	case AWR_IF_ACWU: return &n->acwu;
	case AWR_IF_NSZE: *bits = 64; return &n->nsze;
	case AWR_IF_NSFEAT: *bits = 8; return &n->nsfeat;
	case AWR_IF_NLBAF: *bits = 8; return &n->nlbaf;
	case AWR_IF_FLBAS: *bits = 8; return &n->flbas;
	case AWR_IF_NAWUN: return &n->nawun;
	case AWR_IF_NAWUPF: return &n->nawupf;
	case AWR_IF_NACWU: return &n->nacwu;
	case AWR_IF_NABSN: return &n->nabsn;
	case AWR_IF_NABO: return &n->nabo;
	case AWR_IF_NABSPF: return &n->nabspf;
	case AWR_IF_NOIOB: return &n->noiob;
	case AWR_IF_LBAF: *bits = 32; return &n->lba_size;
	case AWR_IF_MAX_XFER: *bits = 32; return &s->max_transfer_length;
	case AWR_IF_MATL: *bits = 32; return &s->max_atomic_transfer_length;
	case AWR_IF_ATOMIC_ALIGN: *bits = 32; return &s->atomic_alignment;
	case AWR_IF_ATOMIC_GRAN: *bits = 32; return &s->atomic_granularity;
	case AWR_IF_MATL_BNDRY: *bits = 32; return &s->max_atomic_transfer_length_with_boundary;
	case AWR_IF_MAX_BNDRY: *bits = 32; return &s->max_atomic_boundary_size;
	case AWR_IF_LBS: *bits = 32; return &s->logical_block_size;
	case AWR_IF_PBS: *bits = 32; return &s->physical_block_size;
	case AWR_IF_VID: return &n->vid;
	case AWR_IF_MODEL: *bits = 8; return &n->model;
	case AWR_IF_NTWPU: return &n->ntwpu;
	case AWR_IF_NTWPG: return &n->ntwpg;
	case AWR_IF_NTWPB: *bits = 32; return &n->ntwpb;
	default: return NULL;
	}
}

static uint64_t field_get(void *p, unsigned int bits)
{
	switch (bits) {
	case 8: return *(uint8_t *)p;
	case 16: return *(uint16_t *)p;
	case 32: return *(uint32_t *)p;
	default: return *(uint64_t *)p;
	}
}

uint64_t awr__input_value(const struct awr_input *in, enum awr_input_field f)
{
	unsigned int bits;
	void *p = field_ptr((struct awr_input *)in, f, &bits);

	return p ? field_get(p, bits) : 0;
}

static void field_put(void *p, unsigned int bits, uint64_t v)
{
	switch (bits) {
	case 8: *(uint8_t *)p = (uint8_t)v; break;
	case 16: *(uint16_t *)p = (uint16_t)v; break;
	case 32: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = v;
	}
}

int awr__input_set(struct awr_input *in, enum awr_input_field f, uint64_t v)
{
	unsigned int bits;
	void *p;

	if ((unsigned int)f >= AWR_IF__COUNT)
		return -EINVAL;
	if (f == AWR_IF_VPD_BL) {
		in->have |= 1ULL << f;
		return 0;
	}
	p = field_ptr(in, f, &bits);
	if (!p || (bits < 64 && v >> bits))
		return -EINVAL;
	if (HAVE(in, f) && field_get(p, bits) != v) {
		if (!in->conflict) {	/* named by the caller: the field, both values, the line */
			uint64_t old = field_get(p, bits);

			in->conflict = (uint32_t)f + 1;
			in->conflict_line = in->line;
			in->conflict_first[0] = (uint32_t)old;
			in->conflict_first[1] = (uint32_t)(old >> 32);
			in->conflict_second[0] = (uint32_t)v;
			in->conflict_second[1] = (uint32_t)(v >> 32);
		}
		return -EINVAL;
	}
	if (HAVE(in, f))
		return 0;
	field_put(p, bits, v);
	in->have |= 1ULL << f;
	return 0;
}

/* The controller's model ('m'), serial ('s') or firmware ('f'), where the record has none yet */
void awr__input_ident(struct awr_input *in, char key, const char *s, size_t n)
{
	struct awr_nvme_id *id = &in->nvme;
	char *dst = key == 'm' ? id->mn : key == 's' ? id->sn : id->fr;
	size_t cap = key == 'm' ? sizeof(id->mn) : key == 's' ? sizeof(id->sn) : sizeof(id->fr);

	if (!dst[0])
		awr__ident_copy(dst, cap, s, n);
}

/* FNV-1a of the serial number without its padding: two readings of one controller match */
void awr__input_sn(struct awr_input *in, const char *sn, size_t n)
{
	uint32_t h = 2166136261U;

	awr__input_ident(in, 's', sn, n);
	while (n && (*sn == ' ' || *sn == '"'))
		sn++, n--;
	while (n && (sn[n - 1] == ' ' || sn[n - 1] == '"' || sn[n - 1] == ','))
		n--;
	if (!n || in->sn_hash)
		return;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)sn[i]) * 16777619U;
	in->sn_hash = h ? h : 1;
}

int awr__input_lbaf(struct awr_input *in, uint64_t i, uint64_t size, bool in_use)
{
	if (i >= 64 || !awr_is_pow2(size) || size < 512 || size > (1ULL << 31))
		return -EINVAL;
	if (in->lbaf_size[i] && in->lbaf_size[i] != size)
		return -EINVAL;
	in->lbaf_size[i] = (uint32_t)size;
	if (in_use) {
		if (in->lbaf_in_use >= 0 && in->lbaf_in_use != (int)i)
			return -EINVAL;
		in->lbaf_in_use = (int)i;
	}
	return 0;
}

/* --- dumps ------------------------------------------------------------------ */

static int set_all(struct awr_input *in, const struct awr_input *from,
		   const enum awr_input_field *f, size_t n)
{
	unsigned int bits;
	int ret;

	for (size_t i = 0; i < n; i++) {
		void *p = field_ptr((struct awr_input *)from, f[i], &bits);

		ret = awr__input_set(in, f[i], field_get(p, bits));
		if (ret)
			return ret;
	}
	return 0;
}

static int add_dump(const uint8_t *b, size_t n, struct awr_input *in)
{
	static const enum awr_input_field ctrl[] = {
		AWR_IF_MDTS, AWR_IF_AWUN, AWR_IF_AWUPF, AWR_IF_ACWU, AWR_IF_VID, AWR_IF_MODEL };
	static const enum awr_input_field ns[] = {
		AWR_IF_NSZE, AWR_IF_NSFEAT, AWR_IF_NLBAF, AWR_IF_FLBAS, AWR_IF_NAWUN, AWR_IF_NAWUPF,
		AWR_IF_NACWU, AWR_IF_NABSN, AWR_IF_NABO, AWR_IF_NABSPF, AWR_IF_NOIOB, AWR_IF_LBAF,
		AWR_IF_NTWPU, AWR_IF_NTWPG, AWR_IF_NTWPB };
	static const enum awr_input_field vpd[] = {
		AWR_IF_MAX_XFER, AWR_IF_MATL, AWR_IF_ATOMIC_ALIGN, AWR_IF_ATOMIC_GRAN,
		AWR_IF_MATL_BNDRY, AWR_IF_MAX_BNDRY };
	struct awr_input t;
	int ret;

	awr_input_init(&t);
	switch (awr__dump_kind(b, n)) {
	case AWR_DUMP_NVME_CTRL:
		ret = awr_nvme_decode_ctrl(b, n, &t.nvme);
		if (!ret) {
			awr__input_sn(in, (const char *)b + 4, 20);
			awr__input_ident(in, 'm', t.nvme.mn, strlen(t.nvme.mn));
			awr__input_ident(in, 'f', t.nvme.fr, strlen(t.nvme.fr));
		}
		return ret ? ret : set_all(in, &t, ctrl, sizeof(ctrl) / sizeof(ctrl[0]));
	case AWR_DUMP_NVME_NS:
		ret = awr_nvme_decode_ns(b, n, &t.nvme);
		if (ret)
			return ret;
		in->nvme.nsid = in->nvme.nsid ? in->nvme.nsid : t.nvme.nsid;
		return set_all(in, &t, ns, sizeof(ns) / sizeof(ns[0]));
	case AWR_DUMP_SCSI_BL:
		ret = awr_scsi_decode_bl_vpd(b, n, &t.scsi);
		if (ret)
			return ret;
		in->scsi.vpd_page_length = t.scsi.vpd_page_length;
		ret = awr__input_set(in, AWR_IF_VPD_BL, 1);
		if (t.scsi.vpd_has_atomic)
			ret = set_all(in, &t, vpd, sizeof(vpd) / sizeof(vpd[0]));
		else
			ret = awr__input_set(in, AWR_IF_MAX_XFER, t.scsi.max_transfer_length);
		return ret;
	default:
		return -ENOMSG;
	}
}

static void resolve_lbaf(struct awr_input *in);

/* Hex text after a title line ("Block limits VPD page (SBC)" of sg_vpd -H). */
static ssize_t parse_dump(const char *s, size_t len, uint8_t *out, size_t cap)
{
	ssize_t n = awr_dump_parse(s, len, out, cap);
	const char *nl;

	if (n > 0 || !(nl = memchr(s, '\n', len)))
		return n;
	nl++;
	return awr_dump_parse(nl, len - (size_t)(nl - s), out, cap);
}

/* " 00     00 b0 00 3c ..." or "0000: 00 b0 ...": an offset column, then hex pairs. */
static bool hex_line(const struct awr__line *l)
{
	const char *p = l->p, *q;

	awr__text_blank(&p, l->end);
	for (q = p; q < l->end && digit(*q, 16) >= 0; q++)
		;
	if (q == p || q - p > 12)
		return false;
	if (q < l->end && *q == ':')
		q++;
	else if (l->end - q < 2 || q[0] != ' ' || q[1] != ' ')
		return false;
	awr__text_blank(&q, l->end);
	return l->end - q >= 2 && digit(q[0], 16) >= 0 && digit(q[1], 16) >= 0 &&
	       (l->end - q == 2 || q[2] == ' ');
}

/* Hex dumps inside text (sg_vpd -H beside sg_readcap output): each run of hex lines. */
static int add_hex_runs(const char *s, size_t len, struct awr_input *in)
{
	const char *pos = s, *end = s + len, *start = NULL, *stop = NULL;
	struct awr__line l;
	uint8_t page[8192];
	ssize_t n;
	int ret;

	for (bool more = true; more;) {
		more = awr__text_line(&pos, end, &l);
		if (more && hex_line(&l)) {
			start = start ? start : l.p;
			stop = l.end;
			continue;
		}
		if (!start)
			continue;
		n = awr_dump_parse(start, (size_t)(stop - start), page, sizeof(page));
		start = NULL;
		if (n <= 0)
			continue;
		ret = add_dump(page, (size_t)n, in);
		if (ret && ret != -ENOMSG)
			return ret;
		if (!ret)
			in->formats |= AWR_INPUT_DUMP;
	}
	return 0;
}

int awr_input_add(const void *buf, size_t len, struct awr_input *in)
{
	const char *s = buf, *pos = s;
	struct awr__line l;
	uint8_t *page;
	ssize_t n;
	int r;

	if (!buf || !in)
		return -EINVAL;
	in->line = 0;
	r = awr__nvme_json(s, len, in);
	if (!r)
		r = awr__nvme_text(s, len, in);
	if (!r)
		r = awr__scsi_text(s, len, in);
	in->line = 0;
	if (r > 0) {
		r = add_hex_runs(s, len, in);
		if (r)
			return r;
		resolve_lbaf(in);
		while (awr__text_line(&pos, s + len, &l))
			if (awr__text_elided(&l))
				in->formats |= AWR_INPUT_ELIDED;
		return 0;
	}
	if (r < 0)
		return r;
	page = calloc(1, 8192);
	if (!page)
		return -ENOMEM;
	n = parse_dump(s, len, page, 8192);
	r = n < 0 ? -ENOMSG : add_dump(page, (size_t)n, in);
	free(page);
	if (!r)
		in->formats |= AWR_INPUT_DUMP;
	return r;
}

/* --- what is missing, and the answer under an assumption -------------------- */

struct gap {
	char names[256];
	char assume[256];
	unsigned int n;
};

static void gap_add(struct gap *g, const char *name, const char *assumption)
{
	size_t len = strlen(g->names);

	/* "A", "A and B", "A, B and C": rewrite the last " and " as ", " */
	if (g->n >= 2) {
		char *and = strstr(g->names, " and ");

		while (and && strstr(and + 1, " and "))
			and = strstr(and + 1, " and ");
		if (and) {
			memmove(and + 2, and + 5, strlen(and + 5) + 1);
			memcpy(and, ", ", 2);
			len = strlen(g->names);
		}
	}
	snprintf(g->names + len, sizeof(g->names) - len, "%s%s", g->n ? " and " : "", name);
	if (assumption) {
		len = strlen(g->assume);
		snprintf(g->assume + len, sizeof(g->assume) - len, "%s%s",
			 *g->assume ? " and " : "", assumption);
	}
	g->n++;
}

/* The in-use format's size from FLBAS (bits 3:0, 6:5) or the "(in use)" mark. */
static void resolve_lbaf(struct awr_input *in)
{
	int idx = -1;

	if (HAVE(in, AWR_IF_LBAF))
		return;
	if (HAVE(in, AWR_IF_FLBAS))
		idx = (in->nvme.flbas & 0x0f) | ((in->nvme.flbas & 0x60) >> 1);
	else if (in->lbaf_in_use >= 0)
		idx = in->lbaf_in_use;
	if (idx >= 0 && idx < 64 && in->lbaf_size[idx])
		awr__input_set(in, AWR_IF_LBAF, in->lbaf_size[idx]);
	if (HAVE(in, AWR_IF_FLBAS) && !HAVE(in, AWR_IF_LBAF))
		in->nvme.lbaf_index = (uint8_t)idx;
}

static void nvme_fill(struct awr_input *in, struct gap *g)
{
	struct awr_nvme_id *id = &in->nvme;
	bool ns_fields;

	resolve_lbaf(in);
	if (!HAVE(in, AWR_IF_NSFEAT)) {
		gap_add(g, "NSFEAT", "the namespace uses the controller's fields");
		id->nsfeat = 0;
	}
	ns_fields = (id->nsfeat & 2) && HAVE(in, AWR_IF_NSFEAT);
	if (ns_fields && !HAVE(in, AWR_IF_NAWUPF)) {
		gap_add(g, "NAWUPF", "NAWUPF is 0 (the controller's AWUPF applies)");
		id->nawupf = 0;
	}
	ns_fields = ns_fields && id->nawupf;
	if (ns_fields && !HAVE(in, AWR_IF_NABSPF))
		gap_add(g, "NABSPF", "there is no power-fail boundary");
	if (!HAVE(in, AWR_IF_NABO) && HAVE(in, AWR_IF_NSFEAT))
		gap_add(g, "NABO", "NABO is 0");
	if (!HAVE(in, AWR_IF_LBAF)) {
		gap_add(g, "the LBA format", "4 KiB blocks");
		id->lba_size = 4096;
		id->lbads = 12;
	} else {
		id->lbads = (uint8_t)__builtin_ctz(id->lba_size);
	}
	if (!ns_fields && !HAVE(in, AWR_IF_AWUPF)) {
		gap_add(g, "AWUPF", "AWUPF is 0 (one block)");
		id->awupf = 0;
	}
	id->lbaf_index = (uint8_t)((id->flbas & 0x0f) | ((id->flbas & 0x60) >> 1));
	id->vendor_have = (HAVE(in, AWR_IF_VID) ? AWR_NVME_HAVE_VID : 0) |
			  (HAVE(in, AWR_IF_MODEL) ? AWR_NVME_HAVE_MODEL : 0) |
			  (HAVE(in, AWR_IF_NTWPU) && HAVE(in, AWR_IF_NTWPG) &&
			   HAVE(in, AWR_IF_NTWPB) ? AWR_NVME_HAVE_NTWP : 0);
	id->have_ctrl = true;
	id->have_ns = true;
}

static void scsi_fill(struct awr_input *in, struct gap *g)
{
	struct awr_scsi_id *id = &in->scsi;
	bool bndry;

	id->have_vpd = true;
	id->vpd_has_atomic = HAVE(in, AWR_IF_MATL) || HAVE(in, AWR_IF_MATL_BNDRY);
	if (!id->vpd_page_length)
		id->vpd_page_length = id->vpd_has_atomic ? AWR_SCSI_VPD_BL_ATOMIC_LEN : 0;
	if (!HAVE(in, AWR_IF_MATL))
		gap_add(g, "Maximum atomic transfer length", "the maximum atomic transfer length "
							     "is 0");
	bndry = !id->max_atomic_transfer_length;
	if (bndry && !HAVE(in, AWR_IF_MATL_BNDRY))
		gap_add(g, "Maximum atomic transfer length with atomic boundary",
			"the maximum with a boundary is 0");
	if (!HAVE(in, AWR_IF_ATOMIC_ALIGN))
		gap_add(g, "Atomic alignment", "there is no alignment");
	if (!HAVE(in, AWR_IF_ATOMIC_GRAN))
		gap_add(g, "Atomic transfer length granularity", "there is no granularity");
	if (!HAVE(in, AWR_IF_LBS)) {
		gap_add(g, "the logical block size (sg_readcap, --lbs)", "512-byte blocks");
		id->logical_block_size = 512;
	}
	if (!id->atomic_granularity && !HAVE(in, AWR_IF_PBS)) {
		gap_add(g, "the physical block size (sg_readcap -l, --pbs)",
			"the physical block is the logical one");
		id->physical_block_size = id->logical_block_size;
	}
}

static void answer(const struct awr_device *d, const struct gap *g, char *msg, size_t len)
{
	const struct awr_device_limits *l = &d->derived;
	char a[32], b[32];

	if (!g->n) {
		snprintf(msg, len, "%s", "");
		return;
	}
	if (l->supported)
		snprintf(msg, len, "%s %s missing: if %s, %s (atomic writes of %s..%s)", g->names,
			 g->n > 1 ? "are" : "is", *g->assume ? g->assume : "they are 0",
			 awr_format_size(l->unit_max, a, sizeof(a)),
			 awr_format_size(l->unit_min, b, sizeof(b)), a);
	else
		snprintf(msg, len, "%s %s missing: if %s, no atomic writes", g->names,
			 g->n > 1 ? "are" : "is", *g->assume ? g->assume : "they are 0");
}

/* the NVMe vendor fields are read or unknown, never assumed */
#define VENDOR_FIELDS	(((1ULL << (AWR_IF_NTWPB + 1)) - 1) & ~((1ULL << AWR_IF_VID) - 1))
#define NVME_FIELDS	(((1ULL << (AWR_IF_LBAF + 1)) - 1) | VENDOR_FIELDS)
#define SCSI_FIELDS	(((1ULL << AWR_IF__COUNT) - 1) & ~NVME_FIELDS)

int awr_input_device(const struct awr_input *in, const struct awr_queue_caps *caps,
		     struct awr_device **out, char *missing, size_t len)
{
	struct awr_input t;
	struct gap g = { .n = 0 };
	bool nvme, scsi;
	int ret;

	if (!in || !out || !missing || !len)
		return -EINVAL;
	*missing = '\0';
	*out = NULL;
	nvme = in->have & NVME_FIELDS;
	scsi = in->have & SCSI_FIELDS;
	if (nvme && scsi)
		return -EINVAL;
	if (!nvme && !scsi)
		return -ENODATA;
	t = *in;
	if (nvme) {
		nvme_fill(&t, &g);
		ret = awr_device_from_nvme(&t.nvme, caps, out);
	} else {
		scsi_fill(&t, &g);
		ret = awr_device_from_scsi(&t.scsi, caps, out);
	}
	if (ret)
		return ret;
	/* what was not read is assumed: said so by the view, and no finding states it as read */
	(*out)->assumed = (nvme ? NVME_FIELDS & ~VENDOR_FIELDS : SCSI_FIELDS) & ~t.have;
	awr__device_derive(*out);
	answer(*out, &g, missing, len);
	return 0;
}

/* --- readings of one device before and after `nvme format` ------------------ */

static bool has_word(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	for (; p + n <= end; p++)
		if (!memcmp(p, w, n) && (p + n == end || p[n] == ' ' || p[n] == '\t'))
			return true;
	return false;
}

size_t awr_input_split(const void *buf, size_t len)
{
	const char *s = buf, *pos = s, *p;
	struct awr__line l;

	if (!buf)
		return 0;
	while (awr__text_line(&pos, s + len, &l)) {
		p = l.p;
		awr__text_blank(&p, l.end);
		if (has_word(p, l.end, "nvme format") ||
		    (l.end - p >= 28 && !memcmp(p, "Success formatting namespace", 28)))
			return (size_t)(pos - s);
	}
	return len;
}

uint64_t awr_input_update(struct awr_input *in, const struct awr_input *later)
{
	uint64_t changed = 0, v;
	unsigned int bits;
	void *p;

	if (!in || !later)
		return 0;
	for (int f = 0; f < AWR_IF__COUNT; f++) {
		if (!HAVE(later, f) || f == AWR_IF_VPD_BL)
			continue;
		p = field_ptr((struct awr_input *)later, f, &bits);
		v = field_get(p, bits);
		p = field_ptr(in, f, &bits);
		if (HAVE(in, f) && field_get(p, bits) != v)
			changed |= 1ULL << f;
		field_put(p, bits, v);
	}
	in->have |= later->have;
	in->formats |= later->formats;
	for (int i = 0; i < 64; i++)
		if (later->lbaf_size[i])
			in->lbaf_size[i] = later->lbaf_size[i];
	if (later->lbaf_in_use >= 0)
		in->lbaf_in_use = later->lbaf_in_use;
	in->nvme.nsid = later->nvme.nsid ? later->nvme.nsid : in->nvme.nsid;
	in->sn_hash = later->sn_hash ? later->sn_hash : in->sn_hash;
	if (later->nvme.mn[0])
		memcpy(in->nvme.mn, later->nvme.mn, sizeof(in->nvme.mn));
	if (later->nvme.fr[0])
		memcpy(in->nvme.fr, later->nvme.fr, sizeof(in->nvme.fr));
	if ((changed & (1ULL << AWR_IF_FLBAS)) && !HAVE(later, AWR_IF_LBAF)) {
		in->have &= ~(1ULL << AWR_IF_LBAF);
		resolve_lbaf(in);
	}
	return changed;
}
