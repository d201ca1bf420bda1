// SPDX-License-Identifier: MIT
/*
 * Readings of one device: saved tool output split at `nvme format` into the
 * readings before and after it, the reading an answer uses, the fields that
 * changed between them and what the change means to a kernel.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

#define MAX_READINGS	8	/* readings of one device (nvme format between them) */

struct awr_readings {
	struct awr_input readings[MAX_READINGS];
	unsigned int nr;		/* begun; the last is empty after a closing `nvme format` */
	unsigned int used;		/* the reading picked, 1-based */
	struct awr_input in;		/* reading 1 with each later one over it, up to ->used */
	unsigned int nr_changes;
	struct awr_reading_change changes[MAX_READINGS * AWR_IF__COUNT];
	char missing[512];		/* awr_input_device()'s sentence */
	char meaning[1024];		/* awr_readings_meaning()'s */
};

int awr_readings_open(const char *const *paths, struct awr_readings **out)
{
	struct awr_readings *r;
	int ret = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	awr_input_init(&r->readings[0]);
	r->nr = 1;
	for (; paths && *paths && !ret; paths++)
		ret = awr__readings_add_file(r, *paths);
	if (ret) {
		awr_readings_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void awr_readings_free(struct awr_readings *r)
{
	free(r);
}

/* Why a piece of @name was refused; @base: the lines of @name before the piece. */
static int piece_error(const struct awr_input *in, const char *name, int ret, unsigned int base)
{
	uint64_t a = in->conflict_first[0] | (uint64_t)in->conflict_first[1] << 32;
	uint64_t b = in->conflict_second[0] | (uint64_t)in->conflict_second[1] << 32;
	char where[48] = "";

	if (ret == -ENOMSG)
		return awr__fail(ret, "%s is not recognised: give nvme-cli id-ctrl/id-ns output "
				 "(normal, -H or -o json), sg_vpd -p bl or sg_readcap text, or a "
				 "binary or hex Identify/Block Limits page (nvme id-ns -b, sg_vpd "
				 "-p bl -r)", name);
	if (ret == -EMSGSIZE)
		return awr__fail(ret, "%s holds a page too short for its kind (Identify Namespace "
				 "needs 4096 bytes)", name);
	if (!in->conflict)
		return awr__fail(ret, "%s has a malformed value (a number out of its field's "
				 "range)", name);
	if (in->conflict_line)
		snprintf(where, sizeof(where), " at line %u", in->conflict_line + base);
	return awr__fail(ret, "%s gives %s %" PRIu64 "%s, but %" PRIu64 " was read before "
			 "(earlier in it or in an earlier file): the input holds two devices' "
			 "output; paste one device's at a time (readings of one device before and "
			 "after `nvme format` are told apart by that command in the transcript)",
			 name, awr_input_field_name(in->conflict - 1), b, where, a);
}

static unsigned int lines(const char *s, size_t n)
{
	unsigned int nr = 0;

	for (size_t i = 0; i < n; i++)
		nr += s[i] == '\n';
	return nr;
}

/* One reading after another: a part ending with `nvme format` closes the current reading. */
int awr_readings_add(struct awr_readings *r, const void *buf, size_t len, const char *name)
{
	const char *raw = buf;
	unsigned int base = 0, recognised = 0;
	size_t off = 0, chunk;
	int ret = 0;

	if (!r || (!buf && len))
		return -EINVAL;
	name = name ? name : "the input";
	while (!ret && off < len) {
		struct awr_input *in = &r->readings[r->nr - 1];

		chunk = awr_input_split(raw + off, len - off);
		ret = awr_input_add(raw + off, chunk, in);
		if (ret == -ENOMSG && chunk < len)
			ret = 0;	/* a part without fields ("Success formatting ...") */
		else if (!ret)
			recognised++;
		if (ret)
			ret = piece_error(in, name, ret, base);
		base += lines(raw + off, chunk);
		off += chunk;
		if (!ret && off < len && in->have && r->nr < MAX_READINGS)
			awr_input_init(&r->readings[r->nr++]);
	}
	if (!ret && !recognised)
		ret = piece_error(&r->readings[0], name, -ENOMSG, 0);
	return ret;
}

unsigned int awr_readings_count(const struct awr_readings *r)
{
	return r ? r->nr - !r->readings[r->nr - 1].have : 0;
}

/* Every field whose value changed from one reading to the next. */
static void find_changes(struct awr_readings *r)
{
	struct awr_input merged = r->readings[0], before;
	struct awr_reading_change *c;
	uint64_t mask;

	r->nr_changes = 0;
	for (unsigned int i = 1; i < awr_readings_count(r); i++) {
		before = merged;
		mask = awr_input_update(&merged, &r->readings[i]);
		for (int f = 0; f < AWR_IF__COUNT; f++) {
			if (!((mask >> f) & 1))
				continue;
			c = &r->changes[r->nr_changes++];
			*c = (struct awr_reading_change){ f, i + 1, awr__input_value(&before, f),
							  awr__input_value(&merged, f) };
		}
	}
}

int awr_readings_pick(struct awr_readings *r, unsigned int n)
{
	unsigned int count = awr_readings_count(r);

	if (!r)
		return -EINVAL;
	if (n > count)
		return awr__fail(-ERANGE, "reading %u: the input holds %u reading%s (split at "
				 "`nvme format`)", n, count, count == 1 ? "" : "s");
	for (unsigned int i = 1; i < count; i++)
		if (r->readings[i].sn_hash && r->readings[0].sn_hash &&
		    r->readings[i].sn_hash != r->readings[0].sn_hash)
			return awr__fail(-EINVAL, "reading %u (after `nvme format`) is of "
					 "a controller with another serial number than reading 1: "
					 "the input holds two devices' output; paste one device's "
					 "at a time", i + 1);
	r->used = n ? n : count;
	r->in = r->readings[0];
	for (unsigned int i = 1; i < r->used; i++)
		awr_input_update(&r->in, &r->readings[i]);
	find_changes(r);
	return 0;
}

unsigned int awr_readings_used(const struct awr_readings *r)
{
	return r ? r->used : 0;
}

const struct awr_input *awr_readings_input(const struct awr_readings *r, unsigned int n)
{
	if (!r || n > awr_readings_count(r))
		return NULL;
	return n ? &r->readings[n - 1] : &r->in;
}

/* A block size the text lacks, as if read */
static void assume_size(struct awr_input *in, enum awr_input_field f, uint32_t v)
{
	if (!v || (in->have & (1ULL << f)))
		return;
	if (f == AWR_IF_LBS)
		in->scsi.logical_block_size = v;
	else
		in->scsi.physical_block_size = v;
	in->have |= 1ULL << f;
}

int awr_readings_device(struct awr_readings *r, const struct awr_queue_caps *caps, uint32_t lbs,
			uint32_t pbs, struct awr_device **out)
{
	int ret;

	if (!r || !out)
		return -EINVAL;
	assume_size(&r->in, AWR_IF_LBS, lbs);
	assume_size(&r->in, AWR_IF_PBS, pbs);
	ret = awr_input_device(&r->in, caps, out, r->missing, sizeof(r->missing));
	if (ret == -ENODATA)
		return awr__fail(ret, "the files hold no atomic write field (AWUPF, NAWUPF, the "
				 "Block Limits atomic fields)");
	if (ret == -EINVAL)
		return awr__fail(ret, "the files mix an NVMe device and a SCSI device: decode one "
				 "device at a time");
	return ret ? awr__fail(ret, "no device view: %s", strerror(-ret)) : 0;
}

const char *awr_readings_missing(const struct awr_readings *r)
{
	return r ? r->missing : "";
}

unsigned int awr_readings_nr_changes(const struct awr_readings *r)
{
	return r ? r->nr_changes : 0;
}

const struct awr_reading_change *awr_readings_change(const struct awr_readings *r,
						      unsigned int i)
{
	return r && i < r->nr_changes ? &r->changes[i] : NULL;
}

/*
 * What a pre-7.0 kernel keeps after AWUPF changed: drivers/nvme/host/core.c reads AWUPF once per
 * subsystem (nvme_init_subsystem(): subsys->awupf, when the subsystem is first seen) and
 * nvme_configure_atomic_write() multiplies it by the namespace's current block size.
 * 6.15.0-6.15.4 refused the namespace (8695f060a029), 6.15.5-6.15.7 the controller
 * (f46d273449ba, "inconsistent AWUPF, controller not added"); 1fc09f2961f5 (6.16-rc7, 6.15.8)
 * reverted both to subsys->awupf.
 */
static void awupf_kept(const struct awr_readings *r, const char *kv, char *buf, size_t len)
{
	const struct awr_nvme_id *first = &r->readings[0].nvme;
	const struct awr_nvme_id *last = &r->readings[awr_readings_count(r) - 1].nvme;
	uint64_t kept = (first->awupf + 1ULL) * last->lba_size;
	uint64_t now = (last->awupf + 1ULL) * last->lba_size;

	snprintf(buf, len, "AWUPF changed: kernel %s reads AWUPF once per NVMe subsystem, when it "
		 "is first seen (nvme_init_subsystem()), and multiplies it by the current block "
		 "size, so until the subsystem is made again (a reboot, or all its controllers "
		 "removed) it keeps AWUPF %u: %" PRIu64 " bytes on %u-byte blocks, where the drive "
		 "now states %" PRIu64 "%s (only where the namespace has no NAWUPF). Only "
		 "6.15.0-6.15.7 refused such a namespace or controller (\"inconsistent AWUPF, "
		 "controller not added\", f46d273449ba; reverted by 1fc09f2961f5). 7.0+ ignores "
		 "AWUPF.", kv, first->awupf, kept, last->lba_size, now,
		 kept > now ? ": sysfs claims more than the drive guarantees, trust the new "
		 "reading" : "");
}

/* What a change of AWUPF or of the LBA format means on each kernel (drivers/nvme/host/core.c). */
const char *awr_readings_meaning(struct awr_readings *r, uint32_t kernel)
{
	bool awupf = false, lbaf = false;
	uint32_t k = kernel ? kernel : awr_kernel_running();
	char v[16], *buf = r ? r->meaning : NULL;
	size_t n, len = sizeof(r->meaning);

	if (!r)
		return "";
	for (unsigned int i = 0; i < r->nr_changes; i++) {
		awupf |= r->changes[i].field == AWR_IF_AWUPF;
		lbaf |= r->changes[i].field == AWR_IF_LBAF || r->changes[i].field == AWR_IF_FLBAS;
	}
	*buf = '\0';
	if (lbaf)
		snprintf(buf, len, "the namespace was formatted with another block size: the "
			 "kernel takes the new format at the rescan after the format "
			 "(nvme_update_ns_info()), and its limits follow it. ");
	n = strlen(buf);
	awr_kernel_format(k, v, sizeof(v));
	if (awupf && awr_kernel_has(k, AWR_KRULE_NVME_NO_AWUPF))
		snprintf(buf + n, len - n, "AWUPF changed: kernel %s ignores AWUPF (7.0+, \"nvme: "
			 "stop using AWUPF\"), so the change alters nothing there.", v);
	else if (awupf)
		awupf_kept(r, v, buf + n, len - n);
	return buf;
}
