// SPDX-License-Identifier: MIT
/*
 * Discovery source: sysfs of the backing block device. A device number maps
 * through /sys/dev/block/MAJ:MIN; a partition's queue/ is its parent disk's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "private.h"
#include "discover/discover.h"

static void copy_name(char *dst, size_t len, const char *path)
{
	const char *base = strrchr(path, '/');

	awr__strcopy(dst, len, base ? base + 1 : path);
}

/*
 * queue_wc_show() prints "write back" when the queue has BLK_FEAT_WRITE_CACHE and not
 * BLK_FLAG_WRITE_CACHE_DISABLED, else "write through" (block/blk-sysfs.c, 6.11+; the same words
 * since 4.7).
 */
const char *awr_write_cache_name(enum awr_write_cache wc)
{
	if (wc == AWR_WRITE_CACHE_WRITE_BACK)
		return "write back";
	return wc == AWR_WRITE_CACHE_WRITE_THROUGH ? "write through" : NULL;
}

/*
 * queue/write_cache and queue/fua of a queue directory; queue_fua_show() prints 1 with
 * BLK_FEAT_FUA (block/blk-sysfs.c).
 */
static void read_cache(const char *q, enum awr_write_cache *wc, enum awr_fua *fua)
{
	char buf[32];
	uint64_t v;

	*wc = AWR_WRITE_CACHE_UNKNOWN;
	if (!awr__sysfs_read_str(q, "write_cache", buf, sizeof(buf))) {
		if (!strcmp(buf, "write back"))
			*wc = AWR_WRITE_CACHE_WRITE_BACK;
		else if (!strcmp(buf, "write through"))
			*wc = AWR_WRITE_CACHE_WRITE_THROUGH;
	}
	*fua = awr__sysfs_read_u64(q, "fua", &v) ? AWR_FUA_UNKNOWN : v ? AWR_FUA_YES : AWR_FUA_NO;
}

/* The same for a device named as in /sys/class/block ("dm-0"; "sda1": its disk's queue). */
void awr__sysfs_disk_cache(const char *name, enum awr_write_cache *wc, enum awr_fua *fua)
{
	char q[PATH_MAX];

	snprintf(q, sizeof(q), "%s/class/block/%s/queue", awr__sysfs_root(), name);
	if (access(q, F_OK))
		snprintf(q, sizeof(q), "%s/class/block/%s/../queue", awr__sysfs_root(), name);
	read_cache(q, wc, fua);
}

void awr__sysfs_read_queue(const char *disk, struct awr_sysfs_view *out)
{
	char q[PATH_MAX + 8];
	uint64_t v;

	snprintf(q, sizeof(q), "%s/queue", disk);
	out->has_atomic_attrs = !awr__sysfs_read_u64(q, "atomic_write_max_bytes", &v);
	out->max_bytes = awr__sysfs_read_u32(q, "atomic_write_max_bytes");
	out->unit_min = awr__sysfs_read_u32(q, "atomic_write_unit_min_bytes");
	out->unit_max = awr__sysfs_read_u32(q, "atomic_write_unit_max_bytes");
	out->boundary = awr__sysfs_read_u32(q, "atomic_write_boundary_bytes");
	out->logical_block_size = awr__sysfs_read_u32(q, "logical_block_size");
	out->physical_block_size = awr__sysfs_read_u32(q, "physical_block_size");
	out->max_hw_bytes = (uint64_t)awr__sysfs_read_u32(q, "max_hw_sectors_kb") * 1024;
	out->max_segments = awr__sysfs_read_u32(q, "max_segments");
	read_cache(q, &out->write_cache, &out->fua);
}

/*
 * The running kernel's check of a partition's start (awr__part_start_align(): the table's
 * AWR_KRULE_PART_HW_UNIT_MIN), with the driver's hw_unit_min when a device view gives it.
 */
void awr__sysfs_part_check(struct awr_sysfs_view *y, uint32_t hw_unit_min)
{
	y->part_align = awr__part_start_align(awr__kernel_or_running(0), y->unit_min, hw_unit_min,
					      y->boundary);
	y->part_aligned = !y->part_align || !(y->part_start % y->part_align);
}

static void read_partition(const char *part, struct awr_sysfs_view *out)
{
	uint64_t start = 0;

	awr__sysfs_read_u64(part, "start", &start);
	out->part_start = start * 512;
	awr__sysfs_part_check(out, 0);
}

int awr_sysfs_lookup(unsigned int major, unsigned int minor, struct awr_sysfs_view *out)
{
	char link[PATH_MAX], real[PATH_MAX], disk[PATH_MAX];
	uint64_t v, sectors = 0;
	bool is_part;
	char *slash;

	memset(out, 0, sizeof(*out));
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", awr__sysfs_root(), major, minor);
	if (!realpath(link, real))
		return errno == ENOENT ? -ENOENT : -errno;
	is_part = !awr__sysfs_read_u64(real, "partition", &v);
	snprintf(disk, sizeof(disk), "%s", real);
	if (is_part) {
		slash = strrchr(disk, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
		copy_name(out->partition, sizeof(out->partition), real);
	}
	copy_name(out->disk, sizeof(out->disk), disk);
	awr__sysfs_read_queue(disk, out);
	if (is_part)
		read_partition(real, out);
	else
		out->part_aligned = true;
	awr__sysfs_read_u64(real, "size", &sectors);
	out->size = sectors * 512;
	out->read_only = !awr__sysfs_read_u64(real, "ro", &v) && v;
	return 0;
}
