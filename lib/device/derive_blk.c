// SPDX-License-Identifier: MIT
/*
 * The block layer's part (block/blk-settings.c, 6.11+): validate the limits a
 * driver sets, then cap them by what one bio is guaranteed to carry
 * (max_segments, max_hw_sectors). Pure functions on values.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "kernel.h"

#define BIO_MAX_VECS	256

/* A finding of the device view (every derivation adds them; device.c only reads them). */
void awr__dev_finding(struct awr_device *d, enum awr__finding_key key, const char *fmt, ...)
{
	va_list ap;

	if (d->assumed & awr__finding_reads(awr__findings[key].id))
		return;		/* it would state an assumed field as read */
	va_start(ap, fmt);
	awr__finding_vadd(d->findings, &d->nr_findings, AWR_MAX_FINDINGS, key, fmt, ap);
	va_end(ap);
}

/*
 * blk_validate_atomic_write_limits() of @kernel (block/blk-settings.c):
 * 6.11 checks hw_max, then with a boundary chunk_sectors % boundary and a
 * power-of-two boundary; 6.13 adds the unit sanity checks and hw_max <=
 * boundary; 6.17 (6.15.10, 6.16.1) refuses hw_max above chunk_sectors; 6.18
 * accepts a boundary and a chunk that are multiples of each other either way.
 * Compared in 512-byte sectors, as the kernel does.
 */
static const char *blk_reject(const struct awr_device_limits *l, uint64_t chunk_bytes,
			      uint32_t kernel)
{
	bool sane = awr_kernel_has(kernel, AWR_KRULE_BLK_SANITY);
	uint64_t chunk = chunk_bytes >> 9, bsect = l->hw_boundary >> 9;

	if (!l->hw_max)
		return "the driver set no atomic write maximum";
	if (sane && !awr_is_pow2(l->hw_unit_min))
		return "the minimum unit is not a power of two";
	if (sane && !awr_is_pow2(l->hw_unit_max))
		return "the maximum unit is not a power of two";
	if (sane && l->hw_unit_min > l->hw_unit_max)
		return "the minimum unit exceeds the maximum unit";
	if (sane && l->hw_unit_max > l->hw_max)
		return "the maximum unit exceeds the device maximum";
	if (chunk && awr_kernel_has(kernel, AWR_KRULE_CHUNK_LIMIT) && (l->hw_max >> 9) > chunk)
		return "chunk_sectors is smaller than the device maximum";
	if (!bsect)
		return NULL;
	if (sane && l->hw_max > l->hw_boundary)
		return "the boundary is smaller than the device maximum";
	if (awr_kernel_has(kernel, AWR_KRULE_BOUNDARY_CHUNK_EITHER) ?
	    (chunk && chunk % bsect && bsect % chunk) : chunk % bsect)
		return "chunk_sectors and the boundary are not multiples of each other";
	if (!awr_is_pow2(bsect))
		return "the boundary is not a power of two";
	return NULL;
}

/* Bytes one bio is guaranteed to hold: the first and last segment may be a block only. */
static uint64_t guaranteed_bio(uint32_t max_segments, uint32_t lbs, uint32_t page)
{
	uint64_t segs = max_segments < BIO_MAX_VECS ? max_segments : BIO_MAX_VECS;
	uint64_t len = (segs < 2 ? segs : 2) * lbs;

	return segs > 2 ? len + (segs - 2) * page : len;
}

static uint32_t min_u32(uint64_t a, uint64_t b)
{
	return (uint32_t)(a < b ? a : b);
}

/*
 * Returns NULL, or why the block layer of @kernel turns atomic writes off
 * (all limits 0). blk_atomic_writes_update_limits() is the same from 6.11 on.
 */
const char *awr__blk_finish(struct awr_device_limits *l, const struct awr_queue_caps *caps,
			    uint32_t lbs, uint32_t kernel)
{
	const char *why = blk_reject(l, caps ? caps->chunk_bytes : 0, kernel);
	uint32_t page;
	uint64_t limit, hw_bytes, bio;

	l->supported = false;
	l->unit_min = l->unit_max = l->max_bytes = l->boundary = 0;
	l->capped = caps && caps->max_segments && caps->max_hw_bytes;
	if (why)
		return why;
	l->supported = true;
	l->boundary = l->hw_boundary;
	if (!l->capped) {
		l->unit_min = l->hw_unit_min;
		l->unit_max = l->hw_unit_max;
		l->max_bytes = l->hw_max;
		return NULL;
	}
	page = caps->page_size ? caps->page_size : (uint32_t)sysconf(_SC_PAGESIZE);
	hw_bytes = caps->max_hw_bytes & ~511ULL;
	bio = guaranteed_bio(caps->max_segments, lbs, page);
	limit = awr__pow2_down(hw_bytes < bio ? hw_bytes : bio);
	l->max_bytes = min_u32(l->hw_max, hw_bytes);
	l->unit_min = min_u32(l->hw_unit_min, limit);
	l->unit_max = min_u32(l->hw_unit_max, limit);
	return NULL;
}

/* Findings about the block layer's part, shared by NVMe and SCSI. */
void awr__blk_findings(struct awr_device *d, const struct awr_device_limits *l, uint32_t lbs)
{
	const struct awr_queue_caps *c = &d->caps;
	const char *why;
	struct awr_device_limits tmp = *l;

	if (!l->hw_max)
		return;
	why = awr__blk_finish(&tmp, &(struct awr_queue_caps){ .chunk_bytes = d->chunk_bytes },
			      lbs, d->kernel);
	if (why) {
		awr__dev_finding(d, AWR_FIND(block_layer_rejects), why, l->hw_unit_min,
				 l->hw_unit_max, l->hw_max, l->hw_boundary, d->chunk_bytes);
		return;
	}
	if (!l->capped) {
		awr__dev_finding(d, AWR_FIND(block_caps_unknown));
		return;
	}
	if (l->unit_max < l->hw_unit_max)
		awr__dev_finding(d, AWR_FIND(block_caps_unit_max),
				 l->hw_unit_max, l->unit_max, c->max_segments, c->max_hw_bytes);
	if (l->max_bytes < l->hw_max)
		awr__dev_finding(d, AWR_FIND(block_caps_max_bytes),
				 l->hw_max, l->max_bytes);
}
