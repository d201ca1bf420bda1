// SPDX-License-Identifier: MIT
/*
 * Validation across sources: the effective limits, and one finding per
 * disagreement between statx and sysfs, each explained in one sentence.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "private.h"
#include "discover/discover.h"

void awr__probe_finding(struct awr_probe *p, enum awr__finding_key key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	awr__finding_vadd(p->findings, &p->nr_findings, AWR_MAX_FINDINGS, key, fmt, ap);
	va_end(ap);
}

/* The running kernel's release (uname -r) into @release, and its version for the rules table. */
static uint32_t kernel_version(char *release, size_t len)
{
	struct utsname u;

	if (uname(&u))
		return 0;
	snprintf(release, len, "%s", u.release);
	return awr_kernel_running();
}

/*
 * Which files take atomic writes on the running kernel, said for it (not "6.13+" to a 6.18
 * reader): xfs_get_atomic_write_min() and ext4_init_atomic_write_bsize() (6.13) need the device
 * to write a filesystem block atomically; 6.16 adds XFS's copy-on-write path (reflink).
 */
const char *awr__fs_atomic_kernel(void)
{
	uint32_t k = awr_kernel_running();

	if (!awr_kernel_has(k, AWR_KRULE_FS_ONE_BLOCK))
		return "XFS and ext4 files take them from Linux 6.13, this kernel is older";
	if (!awr_kernel_has(k, AWR_KRULE_FS_LARGE))
		return "on this kernel XFS and ext4 take them where the device covers a block";
	return "on this kernel XFS and ext4 take them where the device covers a block, XFS with "
	       "reflink also by copy-on-write";
}

/* "16 KiB", "1.5 MiB": a size in the sentences, one buffer of @b per use in a call */
#define SZ(v, b) awr__human_bytes((v), (b), sizeof(b))

static const char *dev_name(const struct awr_sysfs_view *y)
{
	return y->partition[0] ? y->partition : y->disk;
}

static void limits_from_statx(struct awr_probe *p)
{
	const struct awr_statx_view *s = &p->statx;
	struct awr_limits *e = &p->effective;

	e->mem_align = s->dio_mem_align;
	e->offset_align = s->dio_offset_align;
	if (S_ISREG(s->mode))
		e->flags |= AWR_LIMITS_FILE;
	if (!s->atomic_reported || !s->unit_min)
		return;
	e->supported = true;
	e->unit_min = s->unit_min;
	e->unit_max = s->unit_max;
	e->segments_max = s->segments_max;
	e->unit_max_opt = s->unit_max_opt;
	e->max_bytes = s->unit_max;
	if (S_ISBLK(s->mode) && p->have_sysfs) {
		e->max_bytes = p->sysfs.max_bytes;
		e->boundary = p->sysfs.boundary;
		e->dev_size = p->sysfs.size ? p->sysfs.size : s->size;
		if (p->sysfs.read_only)
			e->flags |= AWR_LIMITS_READ_ONLY;
	}
}

/*
 * A file whose statx reports atomic writes that none of its writes would get: DAX (dax_iomap_rw()
 * has no atomic path: 6.17+ fails IOCB_ATOMIC with EIO and XFS reports none, but 6.16's reflink
 * XFS reported software atomics on DAX), and a file that takes no direct I/O (STATX_DIOALIGN with
 * a zero offset alignment: ext4_dio_alignment() is 0 for data=journal, a journalled file, inline
 * data and fs-verity, and ext4_dio_write_iter() then sends O_DIRECT writes, RWF_ATOMIC ones
 * included, through ext4_buffered_write_iter() as plain writes, read in 6.18.2 and 7.1.5). The
 * effective limits say no atomic writes; the finding says why the kernel would take them anyway.
 */
static bool file_writes_atomic(struct awr_probe *p)
{
	const struct awr_statx_view *s = &p->statx;

	if (s->attributes & STATX_ATTR_DAX) {
		awr__probe_finding(p, AWR_FIND(dax), s->unit_min, s->unit_max);
		return false;
	}
	if (s->dio_reported && !s->dio_offset_align) {
		awr__probe_finding(p, AWR_FIND(no_direct_io), s->unit_min, s->unit_max);
		return false;
	}
	return true;
}

static void explain_unsupported(struct awr_probe *p, uint32_t kver, const char *rel)
{
	const struct awr_statx_view *s = &p->statx;
	const struct awr_sysfs_view *y = p->have_sysfs ? &p->sysfs : NULL;
	bool dev_atomic = y && y->unit_max;

	if (!S_ISREG(s->mode) && !S_ISBLK(s->mode)) {
		awr__probe_finding(p, AWR_FIND(not_file_or_block));
		return;
	}
	if (kver && !awr_kernel_has(kver, AWR_KRULE_ATOMIC_WRITES)) {
		awr__probe_finding(p, AWR_FIND(kernel_too_old), rel);
		return;
	}
	if (y && !y->has_atomic_attrs)
		awr__probe_finding(p, AWR_FIND(kernel_too_old_sysfs), y->disk);
	if (y && y->partition[0] && dev_atomic && !y->part_aligned) {
		bool hw_min = awr_kernel_has(awr_kernel_running(), AWR_KRULE_PART_HW_UNIT_MIN);

		awr__probe_finding(p, AWR_FIND(partition_misaligned), y->partition, y->part_start,
				   y->part_align ? y->part_align :
				   (uint32_t)awr_max_u64(y->unit_min, y->boundary),
				   hw_min ? " as the driver sets it" : "", y->disk);
		return;
	}
	if (y && y->has_atomic_attrs && !dev_atomic)
		awr__probe_finding(p, AWR_FIND(device_no_atomic), y->disk);
	if (S_ISREG(s->mode) && dev_atomic && kver && !awr_kernel_has(kver, AWR_KRULE_FS_ONE_BLOCK))
		awr__probe_finding(p, AWR_FIND(fs_no_atomic_kernel), y->disk, y->unit_min,
				   y->unit_max, rel);
	else if (S_ISREG(s->mode) && dev_atomic)
		awr__probe_finding(p, AWR_FIND(fs_no_atomic_fs), y->disk, y->unit_min,
				   y->unit_max, awr__fs_atomic_kernel());
	else if (S_ISREG(s->mode))
		awr__probe_finding(p, AWR_FIND(fs_no_atomic_file));
	else if (S_ISBLK(s->mode) && dev_atomic)
		awr__probe_finding(p, AWR_FIND(statx_sysfs_disagree), dev_name(y), y->unit_min,
				   y->unit_max);
	if (!y && S_ISREG(s->mode))
		awr__probe_finding(p, AWR_FIND(no_block_device), s->dev_major, s->dev_minor);
}

static void explain_file(struct awr_probe *p)
{
	const struct awr_statx_view *s = &p->statx;
	const struct awr_sysfs_view *y = p->have_sysfs ? &p->sysfs : NULL;
	uint32_t hw = y ? y->unit_max : 0;
	char a[32], b[32];

	if (!s->unit_max_opt && !hw) {
		awr__probe_finding(p, AWR_FIND(software_path_only), SZ(s->unit_min, a),
				   SZ(s->unit_max, b));
		return;
	}
	if (s->unit_max_opt && s->unit_max_opt < s->unit_max)
		awr__probe_finding(p, AWR_FIND(hardware_path_limit), SZ(s->unit_max_opt, a),
				   SZ(s->unit_max, b));
	else if (!s->unit_max_opt && hw && s->unit_max > hw)
		awr__probe_finding(p, AWR_FIND(above_device_limit), SZ(s->unit_max, a), SZ(hw, b));
}

static void explain_block(struct awr_probe *p)
{
	const struct awr_statx_view *s = &p->statx;
	const struct awr_sysfs_view *y = &p->sysfs;
	char a[32], b[32];

	if (!p->have_sysfs)
		return;
	if (s->unit_min != y->unit_min || s->unit_max != y->unit_max)
		awr__probe_finding(p, AWR_FIND(statx_sysfs_mismatch), s->unit_min, s->unit_max,
				   y->disk, y->unit_min, y->unit_max);
	if (y->max_bytes > y->unit_max)
		awr__probe_finding(p, AWR_FIND(max_bytes_above_unit_max), SZ(y->max_bytes, a),
				   SZ(y->unit_max, b));
	if (y->boundary)
		awr__probe_finding(p, AWR_FIND(boundary), SZ(y->boundary, a));
}

void awr__derive_effective(struct awr_probe *p)
{
	char rel[128] = "";
	uint32_t kver = kernel_version(rel, sizeof(rel));

	memset(&p->effective, 0, sizeof(p->effective));
	awr__durability_findings(p);	/* first: the explanations of the limits end the list */
	limits_from_statx(p);
	if (p->effective.supported && S_ISREG(p->statx.mode) && !file_writes_atomic(p)) {
		p->effective.supported = false;
		p->effective.unit_min = p->effective.unit_max = p->effective.max_bytes = 0;
		p->effective.unit_max_opt = 0;
	} else if (!p->effective.supported)
		explain_unsupported(p, kver, rel);
	else if (S_ISREG(p->statx.mode))
		explain_file(p);
	else
		explain_block(p);
	if (!p->statx.dio_reported && (S_ISREG(p->statx.mode) || S_ISBLK(p->statx.mode)))
		awr__probe_finding(p, AWR_FIND(dio_alignment_unknown));
}
