// SPDX-License-Identifier: MIT
/*
 * What Linux derives from the SCSI Block Limits VPD (drivers/scsi/sd.c,
 * sd_config_atomic), and findings for each case that disables or narrows
 * atomic writes. Pure functions: no I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "device.h"
#include "kernel.h"

#define PI_TYPE2_P_TYPE	1	/* P_TYPE 001b: type 2 protection */

struct sd_atomic {
	uint64_t unit_min, unit_max, max;	/* blocks */
	bool boundary_mode;
	const char *off;			/* why sd leaves atomics off, or NULL */
};

static bool pi_type2(const struct awr_scsi_id *id)
{
	return id->have_capacity && id->prot_en && id->p_type == PI_TYPE2_P_TYPE;
}

static uint64_t blocks_per_physical(const struct awr_scsi_id *id)
{
	uint32_t pbs = id->physical_block_size ? id->physical_block_size : id->logical_block_size;

	return pbs >= id->logical_block_size ? pbs / id->logical_block_size : 1;
}

/* Mirrors sd_config_atomic: in blocks, with the reason when it stops. */
static void sd_compute(const struct awr_scsi_id *id, struct sd_atomic *s)
{
	uint32_t gran = id->atomic_granularity, align = id->atomic_alignment;

	memset(s, 0, sizeof(*s));
	if (!id->vpd_has_atomic || (!id->max_atomic_transfer_length &&
				    !id->max_atomic_transfer_length_with_boundary)) {
		s->off = "the device reports no atomic transfer length";
		return;
	}
	if (pi_type2(id)) {
		s->off = "T10 PI type 2 protection";
		return;
	}
	s->unit_min = awr__pow2_down(gran ? gran : blocks_per_physical(id));
	if (id->max_atomic_transfer_length) {
		s->max = id->max_atomic_transfer_length;
		s->unit_max = awr__pow2_down(id->max_atomic_transfer_length);
	} else {
		s->boundary_mode = true;
		s->max = id->max_atomic_transfer_length_with_boundary;
		s->unit_max = awr__pow2_down(id->max_atomic_boundary_size);
	}
	if (gran > 1 && ((s->unit_min > 1 && s->unit_min % gran) ||
			 (s->unit_max > 1 && s->unit_max % gran)))
		s->off = "a unit is not a multiple of the atomic granularity";
	else if (align > 1 && ((s->unit_min > 1 && s->unit_min % align) ||
			       (s->unit_max > 1 && s->unit_max % align)))
		s->off = "a unit is not a multiple of the atomic alignment";
}

/* sd_config_atomic() is the same from 6.11 to 7.x; the block layer is @kernel's. */
int awr_scsi_derive(const struct awr_scsi_id *id, uint32_t kernel,
		    const struct awr_queue_caps *caps, struct awr_device_limits *out)
{
	struct sd_atomic s;
	uint32_t lbs;

	if (!id || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	lbs = id->logical_block_size;
	if (!awr_is_pow2(lbs))
		return -EINVAL;
	if (!awr_kernel_has(awr__kernel_or_running(kernel), AWR_KRULE_ATOMIC_WRITES))
		return 0;	/* before 6.11: no atomic writes */
	sd_compute(id, &s);
	if (!s.off) {
		/* the kernel multiplies in 32 bits */
		out->hw_max = (uint32_t)(s.max * lbs);
		out->hw_unit_min = (uint32_t)(s.unit_min * lbs);
		out->hw_unit_max = (uint32_t)(s.unit_max * lbs);
		out->hw_boundary = 0;
	}
	awr__blk_finish(out, caps, lbs, awr__kernel_or_running(kernel));
	return 0;
}


static void vpd_findings(struct awr_device *d, const struct awr_scsi_id *id)
{
	if (!id->have_vpd) {
		awr__dev_finding(d, AWR_FIND(scsi_no_vpd));
		return;
	}
	if (!id->vpd_has_atomic) {
		awr__dev_finding(d, AWR_FIND(scsi_vpd_short),
				 id->vpd_page_length, AWR_SCSI_VPD_BL_ATOMIC_LEN);
		return;
	}
	if (id->max_transfer_length && id->max_atomic_transfer_length > id->max_transfer_length)
		awr__dev_finding(d, AWR_FIND(scsi_spec_matl_above_max_transfer),
				 id->max_atomic_transfer_length, id->max_transfer_length);
	if (id->max_atomic_transfer_length_with_boundary &&
	    id->max_atomic_boundary_size > id->max_atomic_transfer_length_with_boundary)
		awr__dev_finding(d, AWR_FIND(scsi_spec_boundary_above_max),
				 id->max_atomic_boundary_size,
				 id->max_atomic_transfer_length_with_boundary);
	if (id->atomic_granularity > 1 && !awr_is_pow2(id->atomic_granularity))
		awr__dev_finding(d, AWR_FIND(scsi_granularity_not_pow2),
				 id->atomic_granularity);
}

static void sd_findings(struct awr_device *d, const struct awr_scsi_id *id)
{
	struct sd_atomic s;

	sd_compute(id, &s);
	if (s.off && pi_type2(id))
		awr__dev_finding(d, AWR_FIND(scsi_pi_type2));
	else if (s.off && strstr(s.off, "granularity"))
		awr__dev_finding(d, AWR_FIND(scsi_granularity_mismatch),
				 s.unit_min, s.unit_max, id->atomic_granularity);
	else if (s.off && strstr(s.off, "alignment"))
		awr__dev_finding(d, AWR_FIND(scsi_alignment_mismatch),
				 s.unit_min, s.unit_max, id->atomic_alignment);
	else if (s.off)
		awr__dev_finding(d, AWR_FIND(scsi_no_atomic));
	if (!s.off && s.boundary_mode)
		awr__dev_finding(d, AWR_FIND(scsi_boundary_mode),
				 id->max_atomic_transfer_length_with_boundary,
				 id->max_atomic_boundary_size);
}

void awr__scsi_findings(struct awr_device *d)
{
	const struct awr_scsi_id *id = &d->scsi;

	vpd_findings(d, id);
	if (!awr_is_pow2(id->logical_block_size)) {
		awr__dev_finding(d, AWR_FIND(scsi_block_size_unknown));
		return;
	}
	if (!id->physical_block_size)
		awr__dev_finding(d, AWR_FIND(scsi_physical_block_size_unknown),
				 id->logical_block_size);
	if (!id->vpd_has_atomic)
		return;
	sd_findings(d, id);
	if (id->write_atomic16 == 0 && (id->max_atomic_transfer_length ||
					id->max_atomic_transfer_length_with_boundary))
		awr__dev_finding(d, AWR_FIND(scsi_write_atomic16_unsupported));
	awr__blk_findings(d, &d->kder, id->logical_block_size);
}
