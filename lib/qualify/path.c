// SPDX-License-Identifier: MIT
/*
 * The hardware_path check of qualification on a file: 16 KiB pages written at
 * aligned offsets of a prepared file (awr_prepare: every unit on an aligned
 * extent) must take the hardware path, as the extent map before and after each
 * write shows (awr_pwrite_route: in place, not remapped by copy-on-write).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover/discover.h"
#include "qualify.h"

#define PAGE	16384U
#define PAGES	8U
#define SPAN	(1ULL << 20)

/* Why the check cannot run here, or NULL. */
static const char *skip_reason(const struct awr__qctx *q, const struct awr_fs_view *v, char *buf,
			       size_t len)
{
	char a[32];

	if (q->r->block_device)
		return "a block device has no software path: the check is for files on XFS or ext4";
	if (!q->atomic_ok)
		return "discovery found no usable atomic writes";
	if (v->type != AWR_FS_XFS && v->type != AWR_FS_EXT4) {
		snprintf(buf, len, "the filesystem (%s) is not XFS or ext4: no rule for its path",
			 v->type_name[0] ? v->type_name : "unknown");
		return buf;
	}
	if (!v->hw_atomic) {
		snprintf(buf, len, "no hardware atomics below: the device %s has no atomic write "
			 "support, so every atomic write takes the software path",
			 v->device[0] ? v->device : "(none)");
		return buf;
	}
	if (v->hardware_max < PAGE) {
		snprintf(buf, len, "the hardware path ends at %s: 16 KiB pages cannot take it",
			 awr_format_size(v->hardware_max, a, sizeof(a)));
		return buf;
	}
	return NULL;
}

/* A prepared scratch file (O_TMPFILE in the target's directory), opened O_DIRECT. */
static int prepared_file(const struct awr__qctx *q, struct awr_file **f,
			 struct awr_prepare_result *res)
{
	int fd = open(q->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), dfd, ret;

	if (fd < 0)
		return -errno;
	ret = awr_prepare(fd, SPAN, PAGE, 0, res);
	dfd = ret ? ret : awr__reopen(fd, O_RDWR | O_DIRECT);
	close(fd);
	if (dfd < 0)
		return dfd;
	ret = awr_file_adopt(dfd, f);
	if (ret)
		close(dfd);
	return ret;
}

/* PAGES pages at aligned offsets; 0, or -1 with the failure in @why. */
static int write_pages(struct awr_file *f, void *buf, struct awr_qualify_hw_path *h,
		       char *first, size_t flen, char *why, size_t len)
{
	struct awr_verdict vd;
	enum awr_write_route p;
	char o[32];

	for (unsigned int i = 0; i < PAGES; i++) {
		uint64_t off = (uint64_t)i * (SPAN / PAGES);	/* aligned, spread over the file */

		if (awr_pwrite_route(f, buf, PAGE, off, AWR_WRITE_DSYNC, &vd, &p) < 0) {
			snprintf(why, len, "the atomic write of 16 KiB at %s failed: %s",
				 awr_format_size(off, o, sizeof(o)), vd.message);
			return -1;
		}
		h->count[p]++;
		if (p != AWR_ROUTE_HARDWARE && !first[0])
			snprintf(first, flen, "the first at %s took the %s path",
				 awr_format_size(off, o, sizeof(o)), awr_write_route_name(p));
	}
	h->pages = PAGES;
	h->ran = true;
	return 0;
}

static void judge(struct awr_qualify_check *c, const struct awr_qualify_hw_path *h,
		  const char *first)
{
	uint64_t hw = h->count[AWR_ROUTE_HARDWARE];

	if (hw == PAGES)
		awr__q_set(c, AWR_QUALIFY_PASS, "%u 16 KiB pages at aligned offsets of a prepared "
			   "file were written in place (their extents did not move): the hardware "
			   "path", PAGES);
	else
		awr__q_set(c, AWR_QUALIFY_FAIL, "%" PRIu64 " of %u 16 KiB pages at aligned "
			   "offsets of a prepared file did not take the hardware path (%" PRIu64
			   " software, %" PRIu64 " unknown); %s", PAGES - hw, PAGES,
			   h->count[AWR_ROUTE_SOFTWARE], h->count[AWR_ROUTE_UNKNOWN], first);
}

void awr__q_hw_path(struct awr__qctx *q, struct awr_qualify_check *c)
{
	struct awr_qualify_hw_path *h = &q->r->hw_path;
	struct awr_prepare_result res = { 0 };
	struct awr_file *f = NULL;
	struct awr_fs_view v;
	char why[256], first[160] = "";
	void *buf = NULL;
	const char *skip;
	int ret;

	ret = q->r->block_device ? 0 : awr_fs_view_fd(q->fd, &v);
	skip = ret ? "the filesystem view could not be read" : skip_reason(q, &v, why, sizeof(why));
	if (skip) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "%s", skip);
		return;
	}
	ret = prepared_file(q, &f, &res);
	if (ret == -EINVAL && res.refusal != AWR_PREPARE_OK && res.refusal != AWR_PREPARE_FAILED) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "16 KiB pages cannot be prepared here: %s",
			   res.message);
		return;
	}
	if (ret || posix_memalign(&buf, 4096, PAGE)) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "cannot prepare a scratch file in %s: %s", q->dir,
			   ret ? res.message[0] ? res.message : strerror(-ret) : "out of memory");
		awr_file_close(f);
		return;
	}
	memset(buf, 0xa5, PAGE);
	h->prepared_aligned_bytes = res.aligned_bytes;
	if (write_pages(f, buf, h, first, sizeof(first), why, sizeof(why)))
		awr__q_set(c, AWR_QUALIFY_FAIL, "%s", why);
	else
		judge(c, h, first);
	free(buf);
	awr_file_close(f);
}

#define MAP_RANGES_MAX	256U	/* ranges listed in the report's map (the byte counts cover all) */

static void map_range(struct awr_qualify_extent_map *m, uint64_t off, uint64_t len,
		      enum awr_write_route p, unsigned int extents)
{
	if (m->nr_ranges++ < MAP_RANGES_MAX)
		m->ranges[m->nr_listed++] = (struct awr_qualify_range){ off, len, p, extents };
}

/* Runs of adjacent extents taking the same path, a hole ending a run. */
static void map_runs(struct awr_qualify_extent_map *m, const struct awr_fs_view *v,
		     const struct awr_extent_report *r)
{
	enum awr_write_route run = AWR_ROUTE_UNKNOWN;
	uint64_t off = 0, len = 0;
	unsigned int in_run = 0;

	for (unsigned int i = 0; i <= r->nr_extents; i++) {
		const struct awr_extent *e = i < r->nr_extents ? &r->extents[i] : NULL;
		enum awr_write_route p = AWR_ROUTE_UNKNOWN;

		if (e)
			p = awr__route_predict(v, r, e->logical, m->unit, NULL, 0);
		if (in_run && (!e || p != run || e->logical != off + len)) {
			map_range(m, off, len, run, in_run);
			in_run = 0;
		}
		if (!e)
			break;
		m->bytes[p] += e->length;
		if (!in_run) {
			off = e->logical;
			len = 0;
			run = p;
		}
		len += e->length;
		in_run++;
	}
}

/*
 * The target file's extent map at the stress unit, as ranges: runs of
 * adjacent extents on which a unit written at the extent's start takes the
 * same path (awr_route_predict), a hole ending a run.
 */
void awr__q_extent_map(struct awr__qctx *q)
{
	struct awr_qualify_extent_map *m = &q->r->extent_map;
	struct awr_extent_report *r = NULL;
	struct awr_fs_view v;

	if (q->r->block_device || awr_fs_view_fd(q->fd, &v) ||
	    awr_extents_read(q->fd, q->r->unit, &r))
		return;
	m->ranges = calloc(MAP_RANGES_MAX, sizeof(*m->ranges));
	if (!m->ranges) {
		awr_extent_report_free(r);
		return;
	}
	m->present = true;
	m->unit = r->unit;
	m->file_size = r->file_size;
	m->nr_extents = r->nr_extents;
	m->aligned_bytes = r->aligned_bytes;
	map_runs(m, &v, r);
	awr_extent_report_free(r);
}
