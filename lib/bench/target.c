// SPDX-License-Identifier: MIT
/*
 * The target of awr_bench_run(): a new file laid out for the hardware path
 * (or written in full), a shorter one extended, a block device spanned; and
 * which pages of it a mode's writes moved on the device (FIEMAP).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench.h"

int awr__bench_say(char *buf, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return err;
}

/* Appends to the layout sentence. */
static void layout_add(struct awr_bench_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void layout_add(struct awr_bench_result *r, const char *fmt, ...)
{
	size_t n = strlen(r->layout);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->layout + n, sizeof(r->layout) - n, fmt, ap);
	va_end(ap);
}

/*
 * The span capped to what the filesystem has free: a quarter when pages
 * mode runs, whose store and naive doublewrite make two files of the span
 * beside it; half otherwise.
 */
static uint64_t cap_span(int fd, const struct awr_bench_opts *o, uint64_t size,
			 struct awr_bench_result *r)
{
	struct statvfs sv;
	uint64_t cap, free_bytes;
	char a[32], b[32];

	if (fstatvfs(fd, &sv))
		return size;
	free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	cap = free_bytes / ((o->modes & (1U << AWR_BENCH_PAGES)) ? 4 : 2) / o->unit * o->unit;
	if (cap && size > cap) {
		size = cap;
		layout_add(r, "span capped to %s (of %s free); ",
			   awr_format_size(cap, a, sizeof(a)),
			   awr_format_size(free_bytes, b, sizeof(b)));
	}
	return size;
}

/*
 * A new (empty) file: the span capped (cap_span()), then laid out for the
 * hardware path where the filesystem has one for the page size
 * (awr_prepare(): XFS places every page on an extent aligned within its AG,
 * ext4 preallocates). A sparse file's first write to a page allocates it,
 * which on XFS goes copy-on-write, so the atomic figures would measure
 * allocation instead of atomic writes. Without a hardware path the file is
 * written in full first, so that every mode overwrites pages that exist, as
 * a database does.
 */
static uint64_t lay_out_new(int fd, const struct awr_bench_opts *o, uint64_t size,
			    struct awr_bench_result *r)
{
	struct awr_prepare_result pr;
	struct awr_fs_view v;
	char a[32], b[32], c[32];

	size = cap_span(fd, o, size, r) / o->unit * o->unit;
	if (awr_fs_view_fd(fd, &v) || v.hardware_max < o->unit) {
		layout_add(r, "%s (no hardware path for this page size here)",
			   awr__bench_prefill(fd, size) ? "sparse: writing it in full failed" :
			   "written in full");
		return size;
	}
	memset(&pr, 0, sizeof(pr));
	if (awr_prepare(fd, size, o->unit, 0, &pr)) {
		if (ftruncate(fd, 0))
			return 0;
		layout_add(r, "%s (awr prepare refused: %.120s)", awr__bench_prefill(fd, size) ?
			   "sparse: writing it in full failed" : "written in full", pr.message);
		return size;
	}
	layout_add(r, "prepared: %s of %s on %s-aligned extents (the hardware path's placement)",
		   awr_format_size(pr.aligned_bytes, a, sizeof(a)),
		   awr_format_size(pr.total_bytes, b, sizeof(b)),
		   awr_format_size(o->unit, c, sizeof(c)));
	return size;
}

/*
 * A regular file is extended to the span (a new one laid out first); a block
 * device spans min(span, device). The file for direct writing in *f.
 */
int awr__bench_target(int fd, const struct awr_bench_opts *o, struct awr_file **f,
		      struct awr__bench_out *out)
{
	struct awr_bench_result *r = &out->r;
	uint64_t size = o->span;
	struct stat st;
	int ret;

	if (fstat(fd, &st))
		return awr__bench_say(r->message, sizeof(r->message), -errno,
				      "cannot examine the bench target: %s", strerror(errno));
	snprintf(r->layout, sizeof(r->layout), "%s",
		 S_ISREG(st.st_mode) ? "existing file" : "block device");
	if (S_ISREG(st.st_mode) && !st.st_size && !st.st_blocks) {
		r->layout[0] = '\0';
		size = lay_out_new(fd, o, size, r);
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < size && ftruncate(fd, (off_t)size))
		return awr__bench_say(r->message, sizeof(r->message), -errno,
				      "cannot extend the bench target to %" PRIu64 " bytes: %s",
				      size, strerror(errno));
	ret = awr_file_from_fd(fd, f);
	if (ret)
		return awr__bench_say(r->message, sizeof(r->message), ret,
				      "cannot use the bench target for direct writing: %s",
				      strerror(-ret));
	r->span = size;
	if (awr_file_limits(*f)->dev_size && awr_file_limits(*f)->dev_size < size)
		r->span = awr_file_limits(*f)->dev_size;
	return 0;
}

#define UNMAPPED (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_ENCODED | \
		  FIEMAP_EXTENT_DATA_INLINE)

/*
 * The device offset + 1 of each page of the data area (FIEMAP; 0: not
 * mapped), NULL for a block device.
 */
uint64_t *awr__bench_page_map(int fd, uint64_t unit, uint64_t npages)
{
	struct awr_extent_report *r = NULL;
	uint64_t *map, p;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || awr_extents_read(fd, unit, &r))
		return NULL;
	map = calloc(npages ? npages : 1, sizeof(*map));
	for (unsigned int i = 0; map && i < r->nr_extents; i++) {
		const struct awr_extent *e = &r->extents[i];

		if (e->flags & UNMAPPED)
			continue;
		for (p = (e->logical + unit - 1) / unit;
		     p < npages && (p + 1) * unit <= e->logical + e->length; p++)
			map[p] = e->physical + (p * unit - e->logical) + 1;
	}
	awr_extent_report_free(r);
	return map;
}

/*
 * A file written in full (1 MiB plain direct writes) and synced, through the
 * descriptor given: pages mode's scratch files through the one mkostemp()
 * gave (never opened again by its path, which another program could have
 * replaced by a symbolic link in between), and a new bench file.
 */
int awr__bench_prefill(int fd, uint64_t size)
{
	size_t chunk = 1U << 20;
	unsigned char *buf;
	int ret = 0;

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT))
		return -errno;
	if (posix_memalign((void **)&buf, 4096, chunk))
		return -ENOMEM;
	memset(buf, 0, chunk);
	for (uint64_t off = 0; off < size && !ret; off += chunk) {
		size_t len = size - off < chunk ? (size_t)(size - off) : chunk;

		if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len)
			ret = errno ? -errno : -EIO;
	}
	if (!ret && fdatasync(fd))
		ret = -errno;
	free(buf);
	return ret;
}
