// SPDX-License-Identifier: MIT
/*
 * What a device writes atomically, judged from its decoded data alone (pure
 * functions, no I/O): the checks of the passthrough engines.
 *
 * NVMe: a Write is untorn across power failure when it holds at most
 * (NAWUPF+1) blocks (NSFEAT bit 1 set and NAWUPF non-zero) or else the
 * controller's (AWUPF+1) blocks, and crosses no power-fail boundary of
 * (NABSPF+1) blocks counted from LBA NABO (NSFEAT bit 1 set).
 * SCSI: WRITE ATOMIC(16) within the Block Limits VPD.
 */
#include <errno.h>
#include <inttypes.h>

#include "device/device.h"
#include "device/nvme_format.h"
#include "decide/decide.h"

#define NSFEAT_NSABP	(1U << 1)

/* Whole blocks at a block-aligned offset, within @nr_blocks (0: unknown). */
int awr__pt_check_blocks(size_t len, uint64_t offset, uint32_t bs, uint64_t nr_blocks,
			 struct awr_verdict *v)
{
	if (!len || len % bs)
		return awr__pt_verdict(
			v, AWR_RULE_DEVICE_LIMIT,
			"length %zu is not a whole number of %" PRIu32 "-byte blocks", len, bs);
	if (offset % bs)
		return awr__pt_verdict(v, AWR_RULE_MISALIGNED,
				       "offset %" PRIu64 " is not a multiple of the %" PRIu32
				       "-byte block",
				       offset, bs);
	if (nr_blocks && offset / bs + len / bs > nr_blocks)
		return awr__pt_verdict(v, AWR_RULE_PAST_END,
				       "the write ends past the device's %" PRIu64 " blocks",
				       nr_blocks);
	return 0;
}

/* Boundary region of an LBA: LBAs below NABO form region 0. */
static uint64_t region(uint64_t lba, uint64_t nabo, uint64_t size)
{
	return lba < nabo ? 0 : 1 + (lba - nabo) / size;
}

int awr__nvme_pt_check(const struct awr_nvme_id *id, size_t len, uint64_t offset,
		       struct awr_verdict *v)
{
	bool ns = id->nsfeat & NSFEAT_NSABP;
	bool ns_unit = ns && id->nawupf;	/* NAWUPF 0: the controller's AWUPF applies */
	uint64_t bs = id->lba_size, unit = (ns_unit ? id->nawupf : id->awupf) + 1ULL;
	uint64_t bndry = ns && id->nabspf ? id->nabspf + 1ULL : 0;
	uint64_t slba = offset / bs, nlb = len / bs;
	int ret;

	if (!id->have_ns || !id->lba_size || (!ns_unit && !id->have_ctrl))
		return -EINVAL;
	ret = awr__pt_check_blocks(len, offset, id->lba_size, id->nsze, v);
	if (ret)
		return ret;
	if (nlb > unit)
		return awr__pt_verdict(v, AWR_RULE_TOO_LARGE,
				       "length %zu (%" PRIu64 " blocks) exceeds the device's "
				       "power-fail atomic unit %s+1 = %" PRIu64 " blocks (%" PRIu64
				       " bytes)",
				       len, nlb, ns_unit ? "NAWUPF" : "AWUPF", unit, unit * bs);
	if (bndry && region(slba, id->nabo, bndry) != region(slba + nlb - 1, id->nabo, bndry))
		return awr__pt_verdict(v, AWR_RULE_CROSSES_BOUNDARY,
				       "blocks %" PRIu64 "..%" PRIu64 " cross a power-fail atomic "
				       "boundary (every %" PRIu64 " blocks from LBA %u)",
				       slba, slba + nlb - 1, bndry, id->nabo);
	return awr__pt_verdict(v, AWR_RULE_OK,
			       "the write of %zu bytes at %" PRIu64 " is atomic on the device", len,
			       offset);
}

/*
 * A Write to a format with metadata carries MS bytes per block besides the
 * data: at the end of each block in the data buffer (extended LBA: the data
 * length counts them) or in a separate metadata buffer; protection
 * information lives in that metadata and the device checks it. The engine
 * sends data only, so such a format would get a wrong length, a missing
 * buffer or a PI check failure: refused until it is supported.
 */
int awr__nvme_pt_format(const struct awr__nvme_format *f, struct awr_verdict *v)
{
	if (!f->ms && !f->pi_type)
		return 0;
	if (!f->pi_type)
		return awr__pt_verdict(v, AWR_RULE_UNSUPPORTED,
				       "LBA format %u has MS %u (metadata bytes per block, %s), PI "
				       "off: NVMe passthrough writes data only; formats with "
				       "metadata are not supported",
				       f->index, f->ms,
				       f->extended ? "extended LBA" : "separate buffer");
	return awr__pt_verdict(v, AWR_RULE_UNSUPPORTED,
			       "LBA format %u has MS %u (metadata bytes per block, %s), PI type %u "
			       "(DPS 0x%02x): NVMe passthrough writes data only; formats with "
			       "metadata or PI are not supported",
			       f->index, f->ms, f->extended ? "extended LBA" : "separate buffer",
			       f->pi_type, f->dps);
}

/*
 * ATOMIC BOUNDARY 0 makes the whole transfer one atomic operation, bounded by
 * the MAXIMUM ATOMIC TRANSFER LENGTH. A device that reports only the maximum
 * with boundary (0 without) gets the same meaning as sd sends it: a boundary
 * of the whole transfer length.
 */
uint32_t awr__scsi_boundary(const struct awr_scsi_id *s, uint64_t nlb, uint32_t boundary)
{
	if (boundary || s->max_atomic_transfer_length)
		return boundary;
	return (uint32_t)nlb;
}

int awr__scsi_pt_shape(const struct awr_scsi_id *s, size_t len, uint64_t offset,
		       struct awr_verdict *v)
{
	uint32_t bs = s->logical_block_size;
	int ret;

	if (!bs)
		return -EINVAL;
	ret = awr__pt_check_blocks(len, offset, bs, s->nr_blocks, v);
	if (!ret && len / bs > 0xffff)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_LIMIT,
				       "%zu blocks exceed the 65535 a WRITE ATOMIC(16) can carry",
				       len / bs);
	return ret;
}

static int check_vpd(const struct awr_scsi_id *s, uint64_t lba, uint64_t nlb, uint32_t boundary,
		     struct awr_verdict *v)
{
	uint32_t max = boundary ? s->max_atomic_transfer_length_with_boundary
				: s->max_atomic_transfer_length;

	if (s->atomic_granularity && nlb % s->atomic_granularity)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_LIMIT,
				       "%" PRIu64 " blocks is not a multiple of the atomic "
						  "transfer length granularity %" PRIu32,
				       nlb, s->atomic_granularity);
	if (s->atomic_alignment && lba % s->atomic_alignment)
		return awr__pt_verdict(v, AWR_RULE_MISALIGNED,
				       "LBA %" PRIu64
				       " is not a multiple of the atomic alignment %" PRIu32
				       " blocks",
				       lba, s->atomic_alignment);
	if (nlb > max)
		return awr__pt_verdict(v, AWR_RULE_TOO_LARGE,
				       "%" PRIu64 " blocks exceed the maximum atomic transfer "
						  "length%s %" PRIu32,
				       nlb, boundary ? " with boundary" : "", max);
	if (boundary && boundary > s->max_atomic_boundary_size)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_LIMIT,
				       "atomic boundary %" PRIu32 " blocks exceeds the maximum "
								  "atomic boundary size %" PRIu32,
				       boundary, s->max_atomic_boundary_size);
	return 0;
}

int awr__scsi_pt_check(const struct awr_scsi_id *s, size_t len, uint64_t offset, uint32_t boundary,
		       struct awr_verdict *v)
{
	uint32_t bs = s->logical_block_size;
	int ret;

	/* REPORT SUPPORTED OPERATION CODES is not asked: sd does not ask it either, and
	 * some devices (scsi_debug in 6.12) execute WRITE ATOMIC(16) without listing it */
	if (!s->vpd_has_atomic ||
	    (!s->max_atomic_transfer_length && !s->max_atomic_transfer_length_with_boundary))
		return awr__pt_verdict(v, AWR_RULE_UNSUPPORTED,
				       "the device does not support atomic writes: its Block "
				       "Limits VPD reports no atomic transfer length");
	ret = awr__scsi_pt_shape(s, len, offset, v);
	if (!ret)
		ret = check_vpd(s, offset / bs, len / bs, awr__scsi_boundary(s, len / bs, boundary),
				v);
	if (!ret)
		awr__pt_verdict(v, AWR_RULE_OK,
				"WRITE ATOMIC(16) of %zu bytes at %" PRIu64
				" is within the device's limits",
				len, offset);
	return ret;
}
