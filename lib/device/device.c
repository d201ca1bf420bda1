// SPDX-License-Identifier: MIT
/* The device view handle: decoded fields, derived limits, findings; getters. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

struct awr_device *awr__device_new(enum awr_device_type type)
{
	struct awr_device *d = calloc(1, sizeof(*d));

	if (d) {
		d->type = type;
		d->scsi.write_atomic16 = -1;
	}
	return d;
}

void awr__device_derive(struct awr_device *d)
{
	d->nr_findings = 0;
	d->have_alt = false;
	awr__device_derive_kernel(d);
	if (d->type == AWR_DEVICE_NVME) {
		awr_nvme_derive(&d->nvme, 0, &d->caps, &d->derived);
		d->have_alt = d->nvme.have_ns && !((d->nvme.nsfeat & 2) && d->nvme.nawupf) &&
			      !d->nvme.nabo;
		if (d->have_alt)
			awr_nvme_derive(&d->nvme, AWR_NVME_IGNORE_AWUPF, &d->caps, &d->alt);
		awr__nvme_findings(d);
	} else {
		awr_scsi_derive(&d->scsi, &d->caps, &d->derived);
		awr__scsi_findings(d);
	}
	awr__kernel_findings(d);
}

int awr__caps_from_sysfs(const char *disk, struct awr_queue_caps *caps)
{
	char q[PATH_MAX];
	uint64_t segs = 0, kb = 0;
	int ret;

	memset(caps, 0, sizeof(*caps));
	if (!disk || !*disk)
		return -ENOENT;
	snprintf(q, sizeof(q), "%s/block/%s/queue", awr__sysfs_root(), disk);
	ret = awr__sysfs_read_u64(q, "max_segments", &segs);
	if (!ret)
		ret = awr__sysfs_read_u64(q, "max_hw_sectors_kb", &kb);
	if (ret || segs > UINT32_MAX)
		return ret ? ret : -ERANGE;
	caps->max_segments = (uint32_t)segs;
	caps->max_hw_bytes = kb * 1024;
	if (!awr__sysfs_read_u64(q, "chunk_sectors", &segs))
		caps->chunk_bytes = segs * 512;
	return 0;
}

static int device_from(enum awr_device_type type, const void *id, size_t len,
		       const struct awr_queue_caps *caps, struct awr_device **out)
{
	struct awr_device *d;

	if (!id || !out)
		return -EINVAL;
	d = awr__device_new(type);
	if (!d)
		return -ENOMEM;
	memcpy(type == AWR_DEVICE_NVME ? (void *)&d->nvme : (void *)&d->scsi, id, len);
	if (caps)
		d->caps = *caps;
	awr__device_derive(d);
	*out = d;
	return 0;
}

int awr_device_from_nvme(const struct awr_nvme_id *id, const struct awr_queue_caps *caps,
			 struct awr_device **out)
{
	return device_from(AWR_DEVICE_NVME, id, sizeof(*id), caps, out);
}

int awr_device_from_scsi(const struct awr_scsi_id *id, const struct awr_queue_caps *caps,
			 struct awr_device **out)
{
	return device_from(AWR_DEVICE_SCSI, id, sizeof(*id), caps, out);
}

void awr_device_free(struct awr_device *d)
{
	free(d);
}

enum awr_device_type awr_device_type(const struct awr_device *d)
{
	return d->type;
}

const char *awr_device_name(const struct awr_device *d)
{
	return d->name;
}

const char *awr_device_disk(const struct awr_device *d)
{
	return d->disk;
}

uint64_t awr_device_assumed(const struct awr_device *d)
{
	return d->assumed;
}

const struct awr_nvme_id *awr_device_nvme(const struct awr_device *d)
{
	return d->type == AWR_DEVICE_NVME ? &d->nvme : NULL;
}

const struct awr_scsi_id *awr_device_scsi(const struct awr_device *d)
{
	return d->type == AWR_DEVICE_SCSI ? &d->scsi : NULL;
}

const struct awr_device_limits *awr_device_derived(const struct awr_device *d)
{
	return &d->derived;
}

const struct awr_device_limits *awr_device_derived_alt(const struct awr_device *d)
{
	return d->have_alt ? &d->alt : NULL;
}

const struct awr_queue_caps *awr_device_caps(const struct awr_device *d)
{
	return &d->caps;
}

unsigned int awr_device_nr_findings(const struct awr_device *d)
{
	return d->nr_findings;
}

const struct awr_finding *awr_device_finding(const struct awr_device *d, unsigned int i)
{
	return i < d->nr_findings ? &d->findings[i] : NULL;
}

int awr_device_set_kernel(struct awr_device *d, uint32_t kernel)
{
	if (!d || (kernel && kernel < AWR_KERNEL(2, 0, 0)))
		return -EINVAL;
	d->kernel_asked = kernel;
	awr__device_derive(d);
	return 0;
}

uint32_t awr_device_kernel(const struct awr_device *d)
{
	return d->kernel;
}

const struct awr_device_limits *awr_device_derived_kernel(const struct awr_device *d)
{
	return &d->kder;
}

unsigned int awr_device_nr_kernel_ranges(const struct awr_device *d)
{
	return d->nr_ranges;
}

const struct awr_device_limits *awr_device_kernel_range(const struct awr_device *d, unsigned int i,
							const char **label)
{
	if (i >= d->nr_ranges)
		return NULL;
	if (label)
		*label = d->ranges[i].label;
	return &d->ranges[i].l;
}

uint64_t awr_device_chunk_bytes(const struct awr_device *d)
{
	return d->chunk_bytes;
}
