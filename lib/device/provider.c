// SPDX-License-Identifier: MIT
/*
 * What a cloud provider states about its disks' torn writes, kept beside what
 * Linux derives (which it never changes: the kernel reads none of it).
 *
 * AWS ("Check Amazon EC2 instance support for torn write prevention", EC2 user
 * guide): EBS volumes on Nitro instances and the instance store of some
 * I-family instances publish, in the Identify Namespace vendor-specific data
 * (bytes 4095:384), at its offsets 256:257 NTWPU (unit), 258:259 NTWPG
 * (granularity: sizes NTWPG x n <= NTWPU, offsets aligned to NTWPG) and
 * 260:263 NTWPB (boundary, 0 none), all 0's based logical blocks. The
 * controller is Amazon's by its PCI vendor 0x1d0f (Identify Controller VID)
 * and its model ("Amazon Elastic Block Store", "Amazon EC2 NVMe Instance
 * Storage"); another vendor's bytes there are its own.
 * Azure ("Prevent torn writes with Azure managed disks"): 8 and 16 KiB aligned
 * writes on NVMe managed disks, reported as NAWUPF/NABSPF, which Linux reads.
 * Google ("About Hyperdisk", "Optimize Hyperdisk performance"): built-in torn
 * write protection, with no field a host can read.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

static const char *model_words(uint8_t kind)
{
	switch (kind) {
	case AWR_NVME_MODEL_AWS_EBS: return "Amazon Elastic Block Store";
	case AWR_NVME_MODEL_AWS_INSTANCE: return "Amazon EC2 NVMe Instance Storage";
	case AWR_NVME_MODEL_AZURE: return "an Azure NVMe disk";
	case AWR_NVME_MODEL_GCP: return "nvme_card (Google Compute Engine)";
	default: return "another model";
	}
}

static bool have(const struct awr_nvme_id *id, unsigned int bit)
{
	return id->vendor_have & bit;
}

static bool aws_model(uint8_t m)
{
	return m == AWR_NVME_MODEL_AWS_EBS || m == AWR_NVME_MODEL_AWS_INSTANCE;
}

/* Amazon's controller: the PCI vendor decides when read, else the model */
static bool amazon(const struct awr_nvme_id *id)
{
	if (have(id, AWR_NVME_HAVE_VID))
		return id->vid == AWR_NVME_VID_AMAZON;
	return have(id, AWR_NVME_HAVE_MODEL) && aws_model(id->model);
}

static bool ntwp_nonzero(const struct awr_nvme_id *id)
{
	return have(id, AWR_NVME_HAVE_NTWP) && (id->ntwpu || id->ntwpg || id->ntwpb);
}

static void known_by(const struct awr_nvme_id *id, char *buf, size_t len)
{
	char v[40] = "PCI vendor not in the input", m[64] = "model not in the input";

	if (have(id, AWR_NVME_HAVE_VID))
		snprintf(v, sizeof(v), "PCI vendor 0x%04x", id->vid);
	if (have(id, AWR_NVME_HAVE_MODEL))
		snprintf(m, sizeof(m), "model %s", model_words(id->model));
	snprintf(buf, len, "%s, %s", v, m);
}

static uint64_t blocks0(uint64_t v, uint32_t lbs)
{
	return (v + 1) * lbs;
}

/* Bytes in the 32-bit fields: a size past 4 GiB (no write has one) is held as 2 GiB, never more */
static uint32_t bytes32(uint64_t v)
{
	return v > UINT32_MAX ? 0x80000000U : (uint32_t)v;
}

static void aws_statement(struct awr_device *d, struct awr_provider_atomic *p)
{
	const struct awr_nvme_id *id = &d->nvme;
	uint32_t lbs = id->lba_size;

	snprintf(p->provider, sizeof(p->provider), "AWS");
	p->readable = true;
	if (!have(id, AWR_NVME_HAVE_NTWP)) {
		snprintf(p->source, sizeof(p->source), "NTWPU/NTWPG/NTWPB not in the input: nvme "
						       "id-ns -v "
			 "or -b has them (-o json prints vs[] as text and loses them)");
		return;
	}
	if (!ntwp_nonzero(id)) {
		snprintf(p->source, sizeof(p->source), "NTWPU, NTWPG, NTWPB are 0: no torn write "
						       "prevention "
			 "reported on this volume or instance");
		return;
	}
	if (!lbs || (d->assumed & (1ULL << AWR_IF_LBAF))) {
		snprintf(p->source, sizeof(p->source),
			 "NTWPU %u, NTWPG %u, NTWPB %" PRIu32 " are in blocks, and "
			 "the LBA format is not in the input",
			 id->ntwpu, id->ntwpg, id->ntwpb);
		return;
	}
	p->read = true;
	p->unit = bytes32(blocks0(id->ntwpu, lbs));
	p->granularity = bytes32(blocks0(id->ntwpg, lbs));
	p->boundary = id->ntwpb ? bytes32(blocks0(id->ntwpb, lbs)) : 0;
	snprintf(p->source, sizeof(p->source),
		 "Identify Namespace vendor-specific bytes 256:263: "
		 "NTWPU %u, "
		 "NTWPG %u, NTWPB %" PRIu32 " (0's based blocks of %" PRIu32 " bytes)",
		 id->ntwpu, id->ntwpg, id->ntwpb, lbs);
}

void awr__provider_derive(struct awr_device *d)
{
	const struct awr_nvme_id *id = &d->nvme;
	struct awr_provider_atomic *p = &d->provider;

	memset(p, 0, sizeof(*p));
	d->have_provider = false;
	if (d->type != AWR_DEVICE_NVME)
		return;
	if (amazon(id)) {
		aws_statement(d, p);
	} else if (have(id, AWR_NVME_HAVE_MODEL) && id->model == AWR_NVME_MODEL_AZURE) {
		snprintf(p->provider, sizeof(p->provider), "Azure");
		p->readable = true;
		snprintf(p->source, sizeof(p->source), "NAWUPF/NABSPF of the namespace, which "
						       "Linux 6.13+ reads "
			 "itself: the kernel's derivation is the provider's statement");
	} else if (have(id, AWR_NVME_HAVE_MODEL) && id->model == AWR_NVME_MODEL_GCP) {
		snprintf(p->provider, sizeof(p->provider), "Google Cloud");
		snprintf(p->source, sizeof(p->source), "Google states built-in torn write "
						       "protection for "
			 "Hyperdisk, but the disk publishes no field a host can read: awr cannot "
			 "read it");
	} else {
		return;
	}
	known_by(id, p->known_by, sizeof(p->known_by));
	d->have_provider = true;
}

bool awr__provider_covers(const struct awr_device *d, uint32_t page, char *why, size_t len)
{
	const struct awr_provider_atomic *p = awr_device_provider(d);

	if (!p || !p->read || !page) {
		snprintf(why, len, "%s", p ? p->source : "no provider statement");
		return false;
	}
	if (page % p->granularity) {
		snprintf(why, len, "the %" PRIu32 "-byte page is not a multiple of %s's "
						  "granularity NTWPG "
			 "(%" PRIu32 " bytes)", page, p->provider, p->granularity);
		return false;
	}
	if (page > p->unit) {
		snprintf(why, len,
			 "the %" PRIu32 "-byte page exceeds %s's unit NTWPU (%" PRIu32 " bytes)",
			 page, p->provider, p->unit);
		return false;
	}
	if (p->boundary && p->boundary % page) {
		snprintf(why, len,
			 "%s's boundary NTWPB (%" PRIu32 " bytes) is not a multiple of "
			 "the %" PRIu32 "-byte page: an aligned page can cross it",
			 p->provider, p->boundary, page);
		return false;
	}
	snprintf(why, len, "%s states that writes of a multiple of %" PRIu32 " bytes up to %" PRIu32
		 " bytes, aligned%s, are never torn (%s; %s)", p->provider, p->granularity, p->unit,
		 p->boundary ? " and within its boundary" : "", p->known_by, p->source);
	return true;
}

static void aws_findings(struct awr_device *d)
{
	const struct awr_provider_atomic *p = &d->provider;
	const struct awr_device_limits *k = &d->kder;
	const struct awr_nvme_id *id = &d->nvme;
	char b[40] = "";

	if (!p->read) {
		awr__dev_finding(d, AWR_FIND(aws_torn_write_prevention_unread), p->source);
		return;
	}
	if (p->boundary)
		snprintf(b, sizeof(b), ", within %" PRIu32 "-byte boundaries", p->boundary);
	awr__dev_finding(d, AWR_FIND(aws_torn_write_prevention),
			 p->granularity, p->unit, b, id->ntwpu, id->ntwpg, id->ntwpb,
			 k->supported ? k->unit_min : 0, k->supported ? k->unit_max : 0);
	if (p->granularity > p->unit)
		awr__dev_finding(d, AWR_FIND(aws_ntwp_inconsistent), p->granularity, p->unit);
}

/* the vendor bytes of a controller that is not (or not known to be) Amazon's */
static void other_vendor_bytes(struct awr_device *d)
{
	const struct awr_nvme_id *id = &d->nvme;

	if (!ntwp_nonzero(id) || amazon(id))
		return;
	if (have(id, AWR_NVME_HAVE_VID) || have(id, AWR_NVME_HAVE_MODEL))
		awr__dev_finding(d, AWR_FIND(nvme_vendor_bytes_not_amazon),
				 id->vid);
	else
		awr__dev_finding(d, AWR_FIND(nvme_vendor_bytes_controller_unknown),
				 id->ntwpu, id->ntwpg, id->ntwpb);
}

void awr__provider_findings(struct awr_device *d)
{
	const struct awr_provider_atomic *p = &d->provider;
	const struct awr_nvme_id *id = &d->nvme;

	other_vendor_bytes(d);
	if (!d->have_provider)
		return;
	if (!strcmp(p->provider, "AWS"))
		aws_findings(d);
	else if (!strcmp(p->provider, "Azure"))
		awr__dev_finding(d, AWR_FIND(azure_nvme_atomic),
				 (id->nsfeat & 2) && id->nawupf
					 ? "Linux reads them, the "
					   "derived limits are Azure's"
					 : "this namespace reports no NAWUPF: "
					   "not offered here");
	else
		awr__dev_finding(d, AWR_FIND(provider_guarantee_unreadable), p->provider);
}

/*
 * Without identify data (not root, or the query failed): is @disk an Amazon volume by its sysfs,
 * the controller's model (block/DISK/device/model) and the PCI function's vendor
 * (.../device/vendor)?
 */
bool awr__provider_sysfs(const char *disk, char *known_by, size_t len)
{
	char dir[PATH_MAX], model[64] = "", vendor[16] = "";
	unsigned long vid = 0;
	uint8_t kind;

	snprintf(dir, sizeof(dir), "%s/block/%s/device", awr__sysfs_root(), disk);
	awr__sysfs_read_str(dir, "model", model, sizeof(model));
	if (!awr__sysfs_read_str(dir, "device/vendor", vendor, sizeof(vendor)))
		vid = strtoul(vendor, NULL, 16);
	kind = awr__nvme_model_kind(model, strlen(model));
	if (vid ? vid != AWR_NVME_VID_AMAZON : !aws_model(kind))
		return false;
	snprintf(known_by, len, "sysfs: PCI vendor %s, model %s", vendor[0] ? vendor : "not read",
		 model[0] ? model_words(kind) : "not read");
	return true;
}

const struct awr_provider_atomic *awr_device_provider(const struct awr_device *d)
{
	return d && d->have_provider ? &d->provider : NULL;
}
