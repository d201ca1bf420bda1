// SPDX-License-Identifier: MIT
/*
 * Aligned preallocation (awr_prepare): a new or empty file whose every unit
 * lies on one naturally aligned extent, so that its atomic writes can take the
 * hardware path.
 *
 * XFS places extents where free space is; an extent size hint aligns the file
 * offsets of allocations but not their device offsets (xfs_bmap_compute_alignments()
 * in fs/xfs/libxfs/xfs_bmap.c sets args->prod/mod from the hint, and physical
 * alignment only from the stripe unit). So on XFS with reflink the unit
 * placement is done here: zeros are written to a scratch range past the end of
 * the file, and the parts of its extents that start on a device offset that is
 * a multiple of the unit are cloned (FICLONERANGE) to the file's next unit
 * offsets; truncating the scratch range leaves them unshared. XFS clones only
 * written extents (xfs_reflink_remap_extent() skips unwritten ones), hence the
 * zeros. ext4 bigalloc clusters are aligned on the device by construction.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "discover/discover.h"

#define ZERO_BUF	(1U << 20)
#define CHUNK		(64ULL << 20)

static int result(struct awr_prepare_result *res, enum awr_prepare_refusal why, int err,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int result(struct awr_prepare_result *res, enum awr_prepare_refusal why, int err,
		  const char *fmt, ...)
{
	va_list ap;

	res->refusal = why;
	res->error = err;
	va_start(ap, fmt);
	vsnprintf(res->message, sizeof(res->message), fmt, ap);
	va_end(ap);
	if (err)	/* a refusal or a failure is the call's error too */
		awr__fail(err, "%s", res->message);
	return err;
}

static const char *sz(uint64_t v, char *buf)
{
	return awr_format_size(v, buf, 32);
}

/* The refusals, in the order a user fixes them, each with what to do. */
static int check(int fd, const struct awr_fs_view *v, uint64_t size, uint64_t unit,
		 struct awr_prepare_result *res)
{
	const char *ext4 = v->type != AWR_FS_EXT4 ? "" :
			   !v->bigalloc ? "; ext4 without bigalloc: one block" :
			   "; ext4: min(cluster, device unit_max)";
	char a[32], b[32];
	struct stat st;

	if (fstat(fd, &st))
		return result(res, AWR_PREPARE_FAILED, -errno, "cannot stat the file: %s",
			      strerror(errno));
	if (v->type != AWR_FS_XFS && v->type != AWR_FS_EXT4)
		return result(res, AWR_PREPARE_FS, -EOPNOTSUPP, "the file is on %s, not XFS or "
			      "ext4: prepare knows only their allocation rules; make the file on "
			      "XFS or ext4", v->type_name[0] ? v->type_name : "?");
	if (!v->atomic)
		return result(res, AWR_PREPARE_FS, -EOPNOTSUPP, "the kernel offers no atomic "
			      "writes on this file (XFS and ext4 files need Linux 6.13+): awr "
			      "probe says why");
	if (!awr_is_pow2(unit))
		return result(res, AWR_PREPARE_NOT_POW2, -EINVAL, "the unit %" PRIu64 " is not a "
			      "power of two: use one such as 16 KiB or 64 KiB", unit);
	if (unit < v->block_size || unit < v->unit_min)
		return result(res, AWR_PREPARE_UNIT_SMALL, -EINVAL, "the unit %s is below the "
			      "filesystem block: use a unit of at least %s", sz(unit, a),
			      sz(awr_max_u64(v->block_size, v->unit_min), b));
	if (unit > v->unit_max)
		return result(res, AWR_PREPARE_UNIT_FS, -EINVAL, "the unit %s is above what %s "
			      "writes atomically here (%s%s): use a unit of at most that",
			      sz(unit, a), v->type_name, sz(v->unit_max, b), ext4);
	if (v->hw_atomic && unit > v->hw_unit_max)
		return result(res, AWR_PREPARE_UNIT_DEVICE, -EINVAL, "the unit %s is above what "
			      "the device %s writes atomically (%s): its writes would never take "
			      "the hardware path; use a unit of at most that", sz(unit, a),
			      v->device, sz(v->hw_unit_max, b));
	if (!size || size % unit)
		return result(res, AWR_PREPARE_SIZE, -EINVAL, "the size %s is not a positive "
			      "multiple of the unit %s: round it to whole units",
			      awr__human_bytes(size, b, sizeof(b)), sz(unit, a));
	if (st.st_size || st.st_blocks)
		return result(res, AWR_PREPARE_HAS_DATA, -EEXIST, "the file holds data (%s, %s "
			      "allocated): prepare works only on a new or empty file; give a new "
			      "file", awr__human_bytes((uint64_t)st.st_size, a, sizeof(a)),
			      awr__human_bytes((uint64_t)st.st_blocks * 512, b, sizeof(b)));
	return 0;
}

/* XFS: FS_IOC_FSSETXATTR with FS_XFLAG_EXTSIZE (xfs_ioctl_setattr_check_extsize(): no extents
 * yet). */
static int set_hint(int fd, uint64_t unit, struct awr_prepare_result *res)
{
	struct fsxattr fx;

	memset(&fx, 0, sizeof(fx));
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx))
		return result(res, AWR_PREPARE_FAILED, -errno, "FS_IOC_FSGETXATTR: %s",
			      strerror(errno));
	fx.fsx_xflags |= FS_XFLAG_EXTSIZE;
	fx.fsx_extsize = (uint32_t)unit;
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fx))
		return result(res, AWR_PREPARE_FAILED, -errno,
			      "setting the extent size hint %" PRIu64 ": %s", unit,
			      strerror(errno));
	res->extsize_hint = unit;
	return 0;
}

static int write_zeros(int fd, const void *zero, uint64_t off, uint64_t len)
{
	while (len) {
		size_t n = len < ZERO_BUF ? len : ZERO_BUF;
		ssize_t w = pwrite(fd, zero, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += w;
		len -= w;
	}
	return fdatasync(fd) ? -errno : 0;
}

/* Bytes from @phys to the next offset the kernel counts as aligned to @unit (awr__align_base()). */
static uint64_t to_aligned(uint64_t phys, uint64_t unit, uint64_t ag_size)
{
	return (unit - awr__align_base(phys, ag_size) % unit) % unit;
}

/* Clone every whole unit of the scratch range that starts on an aligned block to @*next. */
static int clone_aligned(int fd, const struct awr_extent_report *r, uint64_t scratch, uint64_t end,
			 uint64_t unit, uint64_t size, uint64_t *next)
{
	for (unsigned int i = 0; i < r->nr_extents && *next < size; i++) {
		const struct awr_extent *e = &r->extents[i];
		uint64_t lo = e->logical, hi = e->logical + e->length, s, n;
		struct file_clone_range fcr;

		if (lo < scratch || (e->flags & AWR_FIEMAP_NO_ADDRESS))
			continue;
		if (hi > end)
			hi = end;
		s = lo + to_aligned(e->physical, unit, r->ag_size);
		if (hi <= s)
			continue;
		n = (hi - s) / unit * unit;
		if (n > size - *next)
			n = size - *next;
		if (!n)
			continue;
		fcr = (struct file_clone_range){ .src_fd = fd, .src_offset = s, .src_length = n,
						 .dest_offset = *next };
		if (ioctl(fd, FICLONERANGE, &fcr))
			return -errno;
		*next += n;
	}
	return 0;
}

static int place_aligned(int fd, uint64_t size, uint64_t unit, struct awr_prepare_result *res)
{
	uint64_t next = 0, scratch = size;
	void *zero = NULL;
	int ret = 0;

	if (posix_memalign(&zero, 4096, ZERO_BUF))
		return result(res, AWR_PREPARE_FAILED, -ENOMEM, "out of memory");
	memset(zero, 0, ZERO_BUF);
	while (next < size && !ret) {
		uint64_t chunk = (size - next < CHUNK ? size - next : CHUNK) + unit, before = next;
		struct awr_extent_report *r = NULL;

		ret = write_zeros(fd, zero, scratch, chunk);
		if (!ret)
			ret = awr_extents_read(fd, unit, &r);
		if (!ret)
			ret = clone_aligned(fd, r, scratch, scratch + chunk, unit, size, &next);
		awr_extent_report_free(r);
		if (ftruncate(fd, (off_t)scratch) && !ret)
			ret = -errno;
		if (!ret && next == before)
			ret = -ENOSPC;
	}
	free(zero);
	if (ret)
		return result(res, AWR_PREPARE_FAILED, ret, "placing aligned units: %s%s",
			      strerror(-ret),
			      ret == -ENOSPC ? " (no free extent holds a whole aligned unit)" : "");
	return 0;
}

const char *awr_prepare_refusal_name(enum awr_prepare_refusal r)
{
	static const char *const names[] = {
		[AWR_PREPARE_OK] = "ok", [AWR_PREPARE_HAS_DATA] = "has_data",
		[AWR_PREPARE_NOT_POW2] = "not_pow2", [AWR_PREPARE_UNIT_SMALL] = "unit_small",
		[AWR_PREPARE_UNIT_FS] = "unit_fs", [AWR_PREPARE_UNIT_DEVICE] = "unit_device",
		[AWR_PREPARE_SIZE] = "size", [AWR_PREPARE_FS] = "filesystem",
		[AWR_PREPARE_FAILED] = "failed",
	};

	return (unsigned int)r < sizeof(names) / sizeof(names[0]) ? names[r] : "failed";
}

int awr_prepare(int fd, uint64_t size, uint64_t unit, unsigned int flags,
		struct awr_prepare_result *res)
{
	struct awr_extent_report *r;
	struct awr_fs_view v;
	char a[32], b[32], c[32], d[32];
	int ret;

	if (!res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	ret = awr_fs_view_fd(fd, &v);
	if (ret)
		return result(res, AWR_PREPARE_FAILED, ret, "cannot view the file's filesystem: %s",
			      strerror(-ret));
	ret = check(fd, &v, size, unit, res);
	if (ret)
		return ret;
	if (v.type == AWR_FS_XFS) {
		ret = set_hint(fd, unit, res);
		if (!ret && v.reflink && !(flags & AWR_PREPARE_HINT_ONLY))
			ret = place_aligned(fd, size, unit, res);
		else if (!ret && fallocate(fd, 0, 0, (off_t)size))
			ret = result(res, AWR_PREPARE_FAILED, -errno, "fallocate: %s",
				     strerror(errno));
	} else {
		res->cluster_size = v.cluster_size;
		if (fallocate(fd, 0, 0, (off_t)size))
			ret = result(res, AWR_PREPARE_FAILED, -errno, "fallocate: %s",
				     strerror(errno));
	}
	if (ret)
		return ret;
	ret = awr_extents_read(fd, unit, &r);
	if (ret)
		return result(res, AWR_PREPARE_FAILED, ret, "reading the extents: %s",
			      strerror(-ret));
	res->total_bytes = r->total_bytes;
	res->aligned_bytes = r->aligned_bytes;
	awr_extent_report_free(r);
	if (v.type == AWR_FS_XFS)
		result(res, AWR_PREPARE_OK, 0, "%s of %s in %s units on aligned extents; extent "
		       "size hint %s", sz(res->aligned_bytes, a), sz(res->total_bytes, b),
		       sz(unit, c), sz(unit, d));
	else
		result(res, AWR_PREPARE_OK, 0, "%s of %s in %s units on aligned extents; ext4 "
		       "writes atomically up to %s (%s)", sz(res->aligned_bytes, a),
		       sz(res->total_bytes, b), sz(unit, c), sz(v.unit_max, d), v.bigalloc ?
		       "the cluster or the device's unit_max" : "one block without bigalloc");
	return 0;
}
