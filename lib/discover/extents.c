// SPDX-License-Identifier: MIT
/*
 * Discovery source: the extent map (FS_IOC_FIEMAP) of a file, judged against an
 * atomic unit, and the filesystem's rule for which path an atomic write takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "discover/discover.h"

#define BATCH 256


/*
 * Call @fn for every extent of [start, start + len), in file order, as
 * FIEMAP reports them (FIEMAP_FLAG_SYNC: delayed allocations are written
 * first). Return 0, a negative errno, or @fn's non-zero return.
 */
static int fiemap_walk(int fd, uint64_t start, uint64_t len,
		       int (*fn)(const struct fiemap_extent *fe, void *arg), void *arg)
{
	size_t sz = sizeof(struct fiemap) + BATCH * sizeof(struct fiemap_extent);
	struct fiemap *fm = malloc(sz);
	uint64_t end = len > UINT64_MAX - start ? UINT64_MAX : start + len;
	int ret = 0;
	bool last = false;

	if (!fm)
		return -ENOMEM;
	while (!last && start < end) {
		memset(fm, 0, sz);
		fm->fm_start = start;
		fm->fm_length = end - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			ret = errno == ENOTTY ? -EOPNOTSUPP : -errno;
			break;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (unsigned int i = 0; i < fm->fm_mapped_extents && !ret; i++) {
			const struct fiemap_extent *fe = &fm->fm_extents[i];

			ret = fn(fe, arg);
			last = fe->fe_flags & FIEMAP_EXTENT_LAST;
			start = fe->fe_logical + fe->fe_length;
		}
		if (ret)
			break;
	}
	free(fm);
	return ret;
}

static int add_range(struct awr_extent_report *r, unsigned int *cap, uint64_t off, uint64_t len)
{
	struct awr_range *m;

	if (!len)
		return 0;
	if (r->nr_misaligned) {
		struct awr_range *prev = &r->misaligned[r->nr_misaligned - 1];

		if (prev->offset + prev->length == off) {
			prev->length += len;
			return 0;
		}
	}
	if (r->nr_misaligned == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		m = realloc(r->misaligned, *cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		r->misaligned = m;
	}
	r->misaligned[r->nr_misaligned++] = (struct awr_range){ off, len };
	return 0;
}

struct report_ctx {
	struct awr_extent_report *r;
	unsigned int cap, mcap;
};

/*
 * The physical offset as the kernel judges its alignment: XFS tests the filesystem
 * block number (br_startblock: AG number in the high bits, the block within the AG in
 * the low ones) with IS_ALIGNED() in xfs_bmap_hw_atomic_write_possible()
 * (fs/xfs/xfs_iomap.c, 6.16 to 7.x), so the offset within the allocation group; an
 * XFS extent never crosses an AG. Elsewhere (ext4, a block device) the device offset.
 */
uint64_t awr__align_base(uint64_t physical, uint64_t ag_size)
{
	return ag_size ? physical % ag_size : physical;
}

/* The AG size of the XFS holding @fd, 0 on any other filesystem (the ioctl is XFS's). */
static uint64_t xfs_ag_size(int fd)
{
	struct awr_xfs_geom g;

	memset(&g, 0, sizeof(g));
	if (ioctl(fd, AWR_XFS_IOC_FSGEOMETRY, &g))
		return 0;
	return (uint64_t)g.agblocks * g.blocksize;
}

/*
 * One extent: the whole units inside it whose logical and physical offsets
 * agree modulo the unit count as aligned (an atomic write of one such unit is
 * one naturally aligned extent, the hardware path's condition; the physical
 * offset within its AG on XFS, awr__align_base()); the rest of the extent is a
 * misaligned range.
 */
static int report_extent(const struct fiemap_extent *fe, void *arg)
{
	struct report_ctx *c = arg;
	struct awr_extent_report *r = c->r;
	uint64_t u = r->unit, lo = fe->fe_logical, hi = lo + fe->fe_length;
	uint64_t first = (lo + u - 1) / u * u, last = hi / u * u;
	bool addr = !(fe->fe_flags & AWR_FIEMAP_NO_ADDRESS);
	uint64_t base = awr__align_base(fe->fe_physical, r->ag_size);
	bool phase = addr && (base % u) == (lo % u);
	struct awr_extent *e;
	int ret;

	if (r->nr_extents == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		e = realloc(r->extents, c->cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->extents = e;
	}
	e = &r->extents[r->nr_extents++];
	*e = (struct awr_extent){ lo, fe->fe_physical, fe->fe_length, fe->fe_flags,
				  addr && !(lo % u) && !(base % u) };
	r->total_bytes += fe->fe_length;
	if (!phase || last <= first)
		return add_range(r, &c->mcap, lo, fe->fe_length);
	r->aligned_bytes += last - first;
	ret = add_range(r, &c->mcap, lo, first - lo);
	return ret ? ret : add_range(r, &c->mcap, last, hi - last);
}

/*
 * Unit 0: awr_fs_default_unit() of the file's view, else its st_blksize. They differ where
 * st_blksize is not the allocation block: XFS mounted with largeio reports the stripe
 * width or allocsize (xfs_stat_blksize(), fs/xfs/xfs_iops.c, 6.18), a device with
 * hardware atomic writes gives its hardware maximum.
 */
static uint64_t default_unit(int fd, const struct stat *st)
{
	struct awr_fs_view v;

	return awr_fs_view_fd(fd, &v) ? (uint64_t)st->st_blksize : awr_fs_default_unit(&v);
}

int awr_extents_read(int fd, uint64_t unit, struct awr_extent_report **out)
{
	struct awr_extent_report *r;
	struct report_ctx c = { 0 };
	struct stat st;
	int ret;

	if (!out)
		return -EINVAL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (!unit)
		unit = default_unit(fd, &st);
	if (!awr_is_pow2(unit))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->unit = unit;
	r->file_size = st.st_size;
	r->ag_size = xfs_ag_size(fd);
	c.r = r;
	ret = fiemap_walk(fd, 0, UINT64_MAX, report_extent, &c);
	if (ret) {
		awr_extent_report_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int awr_extents_read_path(const char *path, uint64_t unit, struct awr_extent_report **out)
{
	int fd, ret;

	if (unit && !awr_is_pow2(unit))
		return awr__fail(-EINVAL, "unit %" PRIu64 " is not a power of two", unit);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		return awr__fail(ret, "cannot open %s: %s", path, strerror(-ret));
	}
	ret = awr_extents_read(fd, unit, out);
	close(fd);
	if (ret == -EINVAL)
		awr__fail(ret, "%s is not a regular file: extents are a file's", path);
	else if (ret == -EOPNOTSUPP)
		awr__fail(ret, "the filesystem of %s has no extent map (FIEMAP)", path);
	else if (ret)
		awr__fail(ret, "cannot read the extents of %s: %s", path, strerror(-ret));
	return ret;
}

void awr_extent_report_free(struct awr_extent_report *r)
{
	if (!r)
		return;
	free(r->extents);
	free(r->misaligned);
	free(r);
}

struct map_ctx {
	struct awr_unit_map *m;
	uint64_t next;		/* first byte not yet covered */
	bool gap;
};

static int map_extent(const struct fiemap_extent *fe, void *arg)
{
	struct map_ctx *c = arg;
	struct awr_unit_map *m = c->m;
	uint64_t lo = awr_max_u64(fe->fe_logical, m->offset);
	uint64_t hi = fe->fe_logical + fe->fe_length;

	if (hi > m->offset + m->length)
		hi = m->offset + m->length;
	if (hi <= lo)
		return 0;
	if (lo != c->next || (fe->fe_flags & AWR_FIEMAP_NO_ADDRESS))
		c->gap = true;
	c->next = hi;
	if (m->nr_parts == 8) {
		c->gap = true;
		return 1;
	}
	m->part[m->nr_parts++] = (struct awr_extent){lo, fe->fe_physical + (lo - fe->fe_logical),
						     hi - lo, fe->fe_flags, false};
	return 0;
}

int awr_unit_map_read(int fd, uint64_t offset, uint64_t length, struct awr_unit_map *out)
{
	struct map_ctx c = { out, offset, false };
	int ret;

	if (!out || !length)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->offset = offset;
	out->length = length;
	ret = fiemap_walk(fd, offset, length, map_extent, &c);
	if (ret < 0)
		return ret;
	out->mapped = !c.gap && c.next == offset + length;
	return 0;
}

/* Merge parts that continue each other both in the file and on the device. */
static unsigned int runs(const struct awr_unit_map *m, struct awr_extent *out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < m->nr_parts; i++) {
		const struct awr_extent *p = &m->part[i];

		if (n && out[n - 1].logical + out[n - 1].length == p->logical &&
		    out[n - 1].physical + out[n - 1].length == p->physical)
			out[n - 1].length += p->length;
		else
			out[n++] = *p;
	}
	return n;
}

/*
 * A write in place leaves every block where it was: the hardware path (XFS
 * xfs_direct_write_iomap_begin() maps the existing extent; ext4 and block
 * devices have no other path). The software path writes a new extent and
 * remaps it at completion (xfs_atomic_write_cow_iomap_begin(), then
 * xfs_reflink_end_atomic_cow(), fs/xfs/xfs_reflink.c, 6.16+), so the device
 * offset changes.
 */
enum awr_write_route awr_route_compare(const struct awr_unit_map *before,
				       const struct awr_unit_map *after)
{
	struct awr_extent a[8], b[8];
	unsigned int na, nb;

	if (!before || !after || !before->mapped || !after->mapped)
		return AWR_ROUTE_UNKNOWN;
	na = runs(before, a);
	nb = runs(after, b);
	if (na != nb)
		return AWR_ROUTE_SOFTWARE;
	for (unsigned int i = 0; i < na; i++)
		if (a[i].logical != b[i].logical || a[i].physical != b[i].physical ||
		    a[i].length != b[i].length)
			return AWR_ROUTE_SOFTWARE;
	return AWR_ROUTE_HARDWARE;
}

const char *awr_write_route_name(enum awr_write_route p)
{
	switch (p) {
	case AWR_ROUTE_HARDWARE:
		return "hardware";
	case AWR_ROUTE_SOFTWARE:
		return "software";
	case AWR_ROUTE_REFUSED:
		return "refused";
	default:
		return "unknown";
	}
}

static enum awr_write_route say(enum awr_write_route p, char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static enum awr_write_route say(enum awr_write_route p, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return p;
}

static const struct awr_extent *extent_at(const struct awr_extent_report *r, uint64_t off)
{
	for (unsigned int i = 0; r && i < r->nr_extents; i++)
		if (off >= r->extents[i].logical &&
		    off < r->extents[i].logical + r->extents[i].length)
			return &r->extents[i];
	return NULL;
}

/*
 * XFS (6.16+). xfs_file_dio_write_atomic() (fs/xfs/xfs_file.c) sends a write
 * longer than the device's atomic unit_max (bt_awu_max) straight to the
 * copy-on-write path; otherwise xfs_direct_write_iomap_begin()
 * (fs/xfs/xfs_iomap.c) returns -ENOPROTOOPT, and the write is retried on the
 * copy-on-write path, unless xfs_bmap_hw_atomic_write_possible() holds: one
 * extent spans the whole range (imap_spans_range()) and its start block is a
 * multiple of its length in blocks (IS_ALIGNED(br_startblock, br_blockcount));
 * br_startblock is the AG-relative block in the low bits, so the alignment is
 * judged within the allocation group. A hole longer than one block is never
 * written in place; shared (reflinked) blocks must be copied first.
 */
static enum awr_write_route predict_xfs(const struct awr_fs_view *fs,
					const struct awr_extent_report *r, uint64_t off,
					uint64_t len, char *why, size_t wl)
{
	const struct awr_extent *e = extent_at(r, off);
	uint64_t bs = fs->block_size ? fs->block_size : 4096, phys, blk;

	if (!fs->hardware_max)
		return say(AWR_ROUTE_SOFTWARE, why, wl, "the device below has no atomic write "
							"support: "
			   "XFS writes by copy-on-write");
	if (len > fs->hardware_max)
		return say(AWR_ROUTE_SOFTWARE, why, wl,
			   "%" PRIu64 " bytes is above the device's "
			   "atomic "
			   "unit_max %" PRIu64 ": XFS writes by copy-on-write",
			   len, fs->hardware_max);
	if (!e)
		return len <= bs ? say(AWR_ROUTE_HARDWARE, why, wl, "one unallocated block: "
								    "allocated "
				       "and written in place")
				 : say(AWR_ROUTE_SOFTWARE, why, wl, "the range is not allocated: "
								    "XFS "
				       "allocates more than one block by copy-on-write");
	if (e->flags & FIEMAP_EXTENT_SHARED)
		return say(AWR_ROUTE_SOFTWARE, why, wl, "the extent is shared (reflinked): it is "
							"copied");
	if (e->flags & AWR_FIEMAP_NO_ADDRESS)
		return say(AWR_ROUTE_UNKNOWN, why, wl, "the extent has no device address yet");
	if (off + len > e->logical + e->length)
		return say(AWR_ROUTE_SOFTWARE, why, wl, "the range crosses the end of the extent "
							"at "
			   "%" PRIu64 ": more than one extent", e->logical + e->length);
	phys = e->physical + (off - e->logical);
	blk = phys / bs;
	if (fs->ag_size)
		blk %= fs->ag_size / bs;
	if (blk % (len / bs ? len / bs : 1))
		return say(AWR_ROUTE_SOFTWARE, why, wl,
			   "the extent's block %" PRIu64 " (device byte "
			   "%" PRIu64 ") is not a multiple of the write's %" PRIu64 " blocks",
			   blk, phys, len / bs);
	return say(AWR_ROUTE_HARDWARE, why, wl, "one naturally aligned extent within the device's "
						"limit");
}

enum awr_write_route awr__route_predict(const struct awr_fs_view *fs,
					const struct awr_extent_report *r, uint64_t offset,
					uint64_t length, char *why, size_t why_len)
{
	if (!fs)
		return say(AWR_ROUTE_UNKNOWN, why, why_len, "no filesystem view");
	if (!fs->atomic)
		return say(AWR_ROUTE_REFUSED, why, why_len, "the kernel offers no atomic writes on "
							    "this file");
	if (!awr_is_pow2(length) || length < fs->unit_min || length > fs->unit_max ||
	    offset % length)
		return say(AWR_ROUTE_REFUSED, why, why_len,
			   "a write of %" PRIu64 " at %" PRIu64 " is not "
			   "a naturally aligned power of two from %u to %u",
			   length, offset, fs->unit_min, fs->unit_max);
	switch (fs->type) {
	case AWR_FS_BLOCK:
		return say(AWR_ROUTE_HARDWARE, why, why_len, "a block device writes atomically "
							     "itself");
	case AWR_FS_EXT4:
		/* ext4 has no software path (ext4_iomap_begin(), fs/ext4/inode.c, 6.16) */
		return say(AWR_ROUTE_HARDWARE, why, why_len,
			   "ext4 writes atomically only in place");
	case AWR_FS_XFS:
		return predict_xfs(fs, r, offset, length, why, why_len);
	default:
		return say(AWR_ROUTE_UNKNOWN, why, why_len, "the filesystem's path is not known");
	}
}

enum awr_write_route awr_route_predict(const struct awr_fs_view *fs,
				       const struct awr_extent_report *r, uint64_t offset,
				       uint64_t length)
{
	char why[192];
	enum awr_write_route route = awr__route_predict(fs, r, offset, length, why, sizeof(why));

	if (route == AWR_ROUTE_REFUSED || route == AWR_ROUTE_UNKNOWN)
		awr__fail(-EINVAL, "%s", why);
	return route;
}
