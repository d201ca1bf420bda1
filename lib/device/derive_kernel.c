// SPDX-License-Identifier: MIT
/*
 * The device view per kernel release: what the chosen kernel (the running
 * one unless told) derives, the release ranges of the kernel rules table
 * whose answer differs, and a finding at each release where the limits
 * change. Pure functions of the decoded data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "kernel.h"

/*
 * A multipath head node gets atomic limits only where the kernel stacks its
 * paths' (drivers/nvme/host/multipath.c, 6.15 and 6.14.10); before, it reads 0.
 */
static int derive_for(const struct awr_device *d, uint32_t kernel, struct awr_device_limits *out)
{
	if (d->type == AWR_DEVICE_NVME && d->mpath_head &&
	    !awr_kernel_has(kernel, AWR_KRULE_NVME_MPATH_HEAD)) {
		memset(out, 0, sizeof(*out));
		return d->nvme.have_ns ? 0 : -EINVAL;
	}
	if (d->type == AWR_DEVICE_NVME)
		return awr_nvme_derive(&d->nvme, kernel, &d->caps, out);
	/* the running kernel holds no Block Limits page of the disk: sd sets nothing
	 * (device_io.c) */
	if (d->scsi_kernel_no_vpd && kernel == awr_kernel_running()) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return awr_scsi_derive(&d->scsi, kernel, &d->caps, out);
}

static bool same_limits(const struct awr_device_limits *a, const struct awr_device_limits *b)
{
	return a->supported == b->supported && a->unit_min == b->unit_min &&
	       a->unit_max == b->unit_max && a->max_bytes == b->max_bytes &&
	       a->boundary == b->boundary;
}

/* "6.11", and for the last release of a range "6.19" or "+" when it is open. */
static void range_label(char *buf, size_t len, uint32_t first, uint32_t last)
{
	char a[16], b[16];

	awr_kernel_format(first - AWR_KERNEL_PATCH(first), a, sizeof(a));
	if (AWR_KERNEL_MAJOR(last) == 999)
		snprintf(buf, len, "%s+", a);
	else if (first / 1000 == last / 1000)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s-%s", a,
			 awr_kernel_format(last - AWR_KERNEL_PATCH(last), b, sizeof(b)));
}

/* Ranges whose answer differs from d->kder; neighbours with one answer are merged. */
static void differing_ranges(struct awr_device *d)
{
	bool open = false;
	uint32_t last = 0;

	d->nr_ranges = 0;
	for (unsigned int i = 0; i < awr_kernel_nr_ranges(); i++) {
		const struct awr_kernel_range *r = awr_kernel_range(i);
		struct awr_device_limits l;
		unsigned int n = d->nr_ranges;

		if (derive_for(d, r->first, &l) || same_limits(&l, &d->kder)) {
			open = false;
			continue;
		}
		if (open && same_limits(&l, &d->ranges[n - 1].l)) {
			last = r->last;
			range_label(d->ranges[n - 1].label, sizeof(d->ranges[n - 1].label),
				    d->ranges[n - 1].first, last);
			continue;
		}
		if (n >= sizeof(d->ranges) / sizeof(d->ranges[0]))
			break;
		d->ranges[n].first = r->first;
		d->ranges[n].l = l;
		last = r->last;
		range_label(d->ranges[n].label, sizeof(d->ranges[n].label), r->first, last);
		d->nr_ranges++;
		open = true;
	}
}

static const char *describe(const struct awr_device *d, const struct awr_device_limits *l,
			    char *buf, size_t len)
{
	uint32_t lbs = d->type == AWR_DEVICE_NVME ? d->nvme.lba_size : d->scsi.logical_block_size;
	char a[32], b[32];

	if (!l->supported)
		snprintf(buf, len, "atomic writes are off");
	else if (l->unit_max == lbs && l->unit_min == lbs)
		snprintf(buf, len, "this %s writes one block (%s) atomically",
			 d->type == AWR_DEVICE_NVME ? "namespace" : "device",
			 awr_format_size(lbs, a, sizeof(a)));
	else
		snprintf(buf, len, "atomic writes are %s..%s",
			 awr_format_size(l->unit_min, a, sizeof(a)),
			 awr_format_size(l->unit_max, b, sizeof(b)));
	return buf;
}

static const char *limits_short(const struct awr_device_limits *l, char *buf, size_t len)
{
	char a[32], b[32];

	if (!l->supported)
		snprintf(buf, len, "off");
	else if (l->unit_min == l->unit_max)
		snprintf(buf, len, "%s", awr_format_size(l->unit_max, a, sizeof(a)));
	else
		snprintf(buf, len, "%s..%s", awr_format_size(l->unit_min, a, sizeof(a)),
			 awr_format_size(l->unit_max, b, sizeof(b)));
	return buf;
}

/* Why the answer changes where range @i starts: the rule of the table that starts there. */
static void reason(const struct awr_device *d, uint32_t first, char *buf, size_t len)
{
	char c[32], m[32], since[64];

	if (first == AWR_KERNEL(7, 0, 0))
		snprintf(buf, len, "AWUPF is ignored");
	else if (first == AWR_KERNEL(6, 15, 0) && d->mpath_head)
		snprintf(buf, len,
			 "the multipath head node stacks its paths' limits (also 6.14.10)");
	else if (first == AWR_KERNEL(6, 17, 0))
		snprintf(buf, len,
			 "chunk_sectors (%s) is smaller than the device maximum (%s): "
			 "rule %s, from %s",
			 awr_format_size(d->chunk_bytes, c, sizeof(c)),
			 awr_format_size(d->kder.hw_max ? d->kder.hw_max : d->derived.hw_max, m,
					 sizeof(m)),
			 awr_kernel_rule_name(AWR_KRULE_CHUNK_LIMIT),
			 awr_kernel_rule_since(AWR_KRULE_CHUNK_LIMIT, since, sizeof(since)));
	else if (first == AWR_KERNEL(6, 18, 0))
		snprintf(buf, len, "%s", awr_kernel_rule_text(AWR_KRULE_BOUNDARY_CHUNK_EITHER));
	else
		snprintf(buf, len, "%s", awr_kernel_rule_text(AWR_KRULE_BLK_SANITY));
}

/* One finding per release where the derived limits change. */
static void change_findings(struct awr_device *d)
{
	struct awr_device_limits prev = { 0 }, cur;
	bool have_prev = false;
	char now[96], before[48], why[192], v[16];

	for (unsigned int i = 0; i < awr_kernel_nr_ranges(); i++) {
		const struct awr_kernel_range *r = awr_kernel_range(i);

		if (derive_for(d, r->first, &cur)) {
			have_prev = false;
			continue;
		}
		if (have_prev && !same_limits(&prev, &cur)) {
			reason(d, r->first, why, sizeof(why));
			awr__dev_finding(d, AWR_FIND(kernel_limits_change),
					 awr_kernel_format(r->first, v, sizeof(v)),
					 describe(d, &cur, now, sizeof(now)), why,
					 limits_short(&prev, before, sizeof(before)));
		}
		prev = cur;
		have_prev = true;
	}
}

void awr__kernel_findings(struct awr_device *d)
{
	char v[16];

	if (!awr_kernel_has(d->kernel, AWR_KRULE_ATOMIC_WRITES))
		awr__dev_finding(d, AWR_FIND(kernel_too_old_device),
				 awr_kernel_format(d->kernel, v, sizeof(v)));
	else if (d->mpath_head && !awr_kernel_has(d->kernel, AWR_KRULE_NVME_MPATH_HEAD))
		awr__dev_finding(d, AWR_FIND(nvme_head_no_limits),
				 d->disk, awr_kernel_format(d->kernel, v, sizeof(v)));
	else if (d->scsi_kernel_no_vpd && d->kernel == awr_kernel_running())
		awr__dev_finding(d, AWR_FIND(scsi_kernel_no_vpd),
				 d->disk);
	change_findings(d);
}

/* this kernel's derivation and the differing ranges (device.c calls it before the findings) */
void awr__device_derive_kernel(struct awr_device *d)
{
	d->kernel = awr__kernel_or_running(d->kernel_asked);
	d->chunk_bytes = d->caps.chunk_bytes;
	if (!d->chunk_bytes && d->type == AWR_DEVICE_NVME && d->nvme.have_ns)
		d->chunk_bytes = awr__nvme_noiob_chunk(&d->nvme);
	d->nr_ranges = 0;
	if (derive_for(d, d->kernel, &d->kder)) {
		memset(&d->kder, 0, sizeof(d->kder));
		return;
	}
	differing_ranges(d);
}
