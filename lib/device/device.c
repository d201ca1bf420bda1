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

#define F(x)	(1ULL << AWR_IF_##x)

/* What each finding of derive_nvme.c / derive_scsi.c states as read (its message quotes or
 * tests these fields); one from fields a paste did not hold would present an assumption as a
 * reading. Findings about a field's absence (scsi_block_size_unknown, ...) are not listed. */
static const struct {
	const char *id;
	uint64_t reads;
} finding_reads[] = {
	{ "nvme_spec_awupf_above_awun", F(AWUN) | F(AWUPF) },
	{ "nvme_spec_nawun_below_awun", F(NSFEAT) | F(NAWUN) | F(AWUN) },
	{ "nvme_spec_nawupf_below_awupf", F(NSFEAT) | F(NAWUPF) | F(AWUPF) },
	{ "nvme_spec_nawupf_above_nawun", F(NSFEAT) | F(NAWUPF) | F(NAWUN) },
	{ "nvme_spec_nabsn_below_nawun", F(NSFEAT) | F(NABSN) | F(NAWUN) },
	{ "nvme_spec_nabspf_below_nawupf", F(NSFEAT) | F(NABSPF) | F(NAWUPF) },
	{ "nvme_spec_nabo_beyond_boundary", F(NSFEAT) | F(NABO) | F(NABSN) | F(NABSPF) },
	{ "nvme_awun_above_awupf", F(AWUN) | F(AWUPF) | F(LBAF) },
	{ "nvme_nawun_above_nawupf", F(NSFEAT) | F(NAWUN) | F(NAWUPF) | F(LBAF) },
	{ "nvme_flbas_high_bits", F(FLBAS) | F(NLBAF) },
	{ "nvme_nsfeat_mam", F(NSFEAT) },
	{ "nvme_nabo_nonzero", F(NABO) },
	{ "nvme_nsabp_clear", F(NSFEAT) | F(AWUPF) | F(LBAF) },
	{ "nvme_nawupf_zero", F(NSFEAT) | F(NAWUPF) | F(AWUPF) | F(LBAF) },
	{ "nvme_boundary_not_pow2", F(NSFEAT) | F(NAWUPF) | F(NABSPF) | F(LBAF) },
	{ "nvme_atomic_overflow", F(LBAF) },
	{ "nvme_awupf_ignored", F(AWUPF) | F(NSFEAT) | F(LBAF) },
	{ "nvme_single_block", F(NSFEAT) | F(AWUPF) | F(LBAF) },
	{ "kernel_limits_change", F(NSFEAT) | F(LBAF) | F(LBS) },
	{ "scsi_spec_matl_above_max_transfer", F(MATL) | F(MAX_XFER) },
	{ "scsi_spec_boundary_above_max", F(MATL_BNDRY) | F(MAX_BNDRY) },
	{ "scsi_granularity_not_pow2", F(ATOMIC_GRAN) },
	{ "scsi_granularity_mismatch", F(MATL) | F(MATL_BNDRY) | F(ATOMIC_GRAN) },
	{ "scsi_alignment_mismatch", F(MATL) | F(MATL_BNDRY) | F(ATOMIC_ALIGN) },
	{ "scsi_no_atomic", F(MATL) | F(MATL_BNDRY) },
	{ "scsi_boundary_mode", F(MATL) | F(MATL_BNDRY) | F(MAX_BNDRY) },
};

const char *awr__atomic_verdict(bool known, uint32_t unit_max, uint32_t lbs, bool misaligned)
{
	if (!known)
		return "unknown";
	if (!unit_max)
		return "none";
	if (unit_max <= lbs)
		return "single_block";
	return misaligned ? "misaligned" : "atomic";
}

uint64_t awr__finding_reads(const char *id)
{
	for (size_t i = 0; i < sizeof(finding_reads) / sizeof(finding_reads[0]); i++)
		if (!strcmp(finding_reads[i].id, id))
			return finding_reads[i].reads;
	return 0;
}

void awr__device_derive(struct awr_device *d)
{
	if (d->type == AWR_DEVICE_SCSI)
		snprintf(d->scsi_model, sizeof(d->scsi_model), "%s%s%s", d->scsi.vendor,
			 d->scsi.vendor[0] && d->scsi.product[0] ? " " : "", d->scsi.product);
	d->nr_findings = 0;
	d->have_alt = false;
	awr__device_derive_kernel(d);
	if (d->type == AWR_DEVICE_NVME) {
		awr_nvme_derive(&d->nvme, AWR_KERNEL(6, 18, 0), &d->caps, &d->derived);
		d->have_alt = d->nvme.have_ns && !((d->nvme.nsfeat & 2) && d->nvme.nawupf) &&
			      !d->nvme.nabo;
		if (d->have_alt)
			awr_nvme_derive(&d->nvme, AWR_KERNEL(7, 0, 0), &d->caps, &d->alt);
		awr__provider_derive(d);
		awr__nvme_findings(d);
		awr__provider_findings(d);
	} else {
		awr_scsi_derive(&d->scsi, AWR_KERNEL(6, 18, 0), &d->caps, &d->derived);
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

int awr_device_derive_at(const struct awr_device *d, uint32_t kernel,
			 struct awr_device_limits *out)
{
	if (d->type == AWR_DEVICE_NVME)
		return awr_nvme_derive(&d->nvme, kernel, &d->caps, out);
	return awr_scsi_derive(&d->scsi, kernel, &d->caps, out);
}

bool awr_device_awupf_answers(const struct awr_device *d, struct awr_device_limits *with,
			      struct awr_device_limits *without)
{
	if (d->type != AWR_DEVICE_NVME)
		return false;
	awr_device_derive_at(d, AWR_KERNEL(6, 18, 0), with);
	if (!d->have_alt)
		return false;
	awr_device_derive_at(d, AWR_KERNEL(7, 0, 0), without);
	return true;
}

const char *awr_nvme_model_name(int model)
{
	static const char *const names[] = {
		[AWR_NVME_MODEL_OTHER] = "other", [AWR_NVME_MODEL_AWS_EBS] = "aws_ebs",
		[AWR_NVME_MODEL_AWS_INSTANCE] = "aws_instance_storage",
		[AWR_NVME_MODEL_AZURE] = "azure", [AWR_NVME_MODEL_GCP] = "gcp",
	};

	return model >= 0 && (size_t)model < sizeof(names) / sizeof(names[0]) ? names[model] :
	       "other";
}

const char *awr_device_model(const struct awr_device *d)
{
	return d->type == AWR_DEVICE_NVME ? d->nvme.mn : d->scsi_model;
}

const char *awr_device_serial(const struct awr_device *d)
{
	return d->type == AWR_DEVICE_NVME ? d->nvme.sn : d->scsi.serial;
}

const char *awr_device_firmware(const struct awr_device *d)
{
	return d->type == AWR_DEVICE_NVME ? d->nvme.fr : d->scsi.revision;
}

const char *awr_device_verdict(const struct awr_device *d)
{
	const struct awr_device_limits *l = awr_device_derived(d);
	bool nvme = d->type == AWR_DEVICE_NVME;
	uint32_t lbs = nvme ? (d->nvme.have_ns ? d->nvme.lba_size : 0) : d->scsi.logical_block_size;

	return awr__atomic_verdict(lbs != 0, l->supported ? l->unit_max : 0, lbs, false);
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
	return &d->kder;
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
