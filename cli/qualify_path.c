// SPDX-License-Identifier: MIT
/*
 * The hardware_path check of awr qualify on a file: 16 KiB pages written at
 * aligned offsets of a prepared file (awr_prepare: every unit on an aligned
 * extent) must take the hardware path, as the extent map before and after each
 * write shows (awr_pwrite_path: in place, not remapped by copy-on-write).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qualify.h"

#define PAGE	16384U
#define PAGES	8U
#define SPAN	(1ULL << 20)

/* Why the check cannot run here, or NULL. */
static const char *skip_reason(const struct qctx *q, const struct awr_fs_view *v, char *buf, size_t len)
{
	char a[32];

	if (q->is_blk)
		return "a block device has no software path: the check is for files on XFS or ext4";
	if (!q->atomic_ok)
		return "discovery found no usable atomic writes";
	if (v->type != AWR_FS_XFS && v->type != AWR_FS_EXT4) {
		snprintf(buf, len, "the filesystem (%s) is not XFS or ext4: no rule for its path", fs_type_label(v));
		return buf;
	}
	if (!v->hw_atomic) {
		snprintf(buf, len, "no hardware atomics below: the device %s has no atomic write support, so every "
			 "atomic write takes the software path", v->device[0] ? v->device : "(none)");
		return buf;
	}
	if (v->hardware_max < PAGE) {
		snprintf(buf, len, "the hardware path ends at %s: 16 KiB pages cannot take it",
			 out_size(v->hardware_max, a, sizeof(a)));
		return buf;
	}
	return NULL;
}

/* A prepared scratch file (O_TMPFILE in the target's directory), opened O_DIRECT. */
static int prepared_file(const struct qctx *q, struct awr_file **f, struct awr_prepare_result *res)
{
	int fd = open(q->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), dfd, ret;

	if (fd < 0)
		return -errno;
	ret = awr_prepare(fd, SPAN, PAGE, 0, res);
	dfd = ret ? ret : reopen_fd(fd, O_RDWR | O_DIRECT);
	close(fd);
	if (dfd < 0)
		return dfd;
	ret = awr_file_adopt(dfd, f);
	if (ret)
		close(dfd);
	return ret;
}

void q_hw_path(struct qctx *q, struct qcheck *c)
{
	uint64_t count[4] = { 0 };
	struct awr_prepare_result res = { 0 };
	struct awr_file *f = NULL;
	struct awr_fs_view v;
	struct awr_verdict vd;
	enum awr_write_path p;
	char why[256], first[160] = "";
	void *buf = NULL;
	const char *skip;
	int ret;

	ret = q->is_blk ? 0 : awr_fs_view_fd(q->fd, &v);
	skip = ret ? "the filesystem view could not be read" : skip_reason(q, &v, why, sizeof(why));
	if (skip) {
		q_set(c, Q_SKIP, "%s", skip);
		return;
	}
	ret = prepared_file(q, &f, &res);
	if (ret == -EINVAL && res.refusal != AWR_PREPARE_OK && res.refusal != AWR_PREPARE_FAILED) {
		q_set(c, Q_SKIP, "16 KiB pages cannot be prepared here: %s", res.message);
		return;
	}
	if (ret || posix_memalign(&buf, 4096, PAGE)) {
		q_set(c, Q_FAIL, "cannot prepare a scratch file in %s: %s", q->dir, ret ? res.message[0] ?
		      res.message : strerror(-ret) : "out of memory");
		awr_file_close(f);
		return;
	}
	memset(buf, 0xa5, PAGE);
	for (unsigned int i = 0; i < PAGES; i++) {
		uint64_t off = (uint64_t)i * (SPAN / PAGES);	/* aligned offsets spread over the file */

		if (awr_pwrite_path(f, buf, PAGE, off, AWR_WRITE_DSYNC, &vd, &p) < 0) {
			q_set(c, Q_FAIL, "the atomic write of 16 KiB at %" PRIu64 " failed: %s", off, vd.message);
			goto out;
		}
		count[p]++;
		if (p != AWR_PATH_HARDWARE && !first[0])
			snprintf(first, sizeof(first), "the first at %" PRIu64 " took the %s path", off,
				 awr_write_path_name(p));
	}
	json_object_object_add(c->figures, "pages", out_u64(PAGES));
	json_object_object_add(c->figures, "hardware", out_u64(count[AWR_PATH_HARDWARE]));
	json_object_object_add(c->figures, "software", out_u64(count[AWR_PATH_SOFTWARE]));
	json_object_object_add(c->figures, "unknown", out_u64(count[AWR_PATH_UNKNOWN]));
	json_object_object_add(c->figures, "prepared_aligned_bytes", out_u64(res.aligned_bytes));
	if (count[AWR_PATH_HARDWARE] == PAGES)
		q_set(c, Q_PASS, "%u 16 KiB pages at aligned offsets of a prepared file were written in place "
		      "(their extents did not move): the hardware path", PAGES);
	else
		q_set(c, Q_FAIL, "%" PRIu64 " of %u 16 KiB pages at aligned offsets of a prepared file did not take "
		      "the hardware path (%" PRIu64 " software, %" PRIu64 " unknown); %s", PAGES - count[AWR_PATH_HARDWARE],
		      PAGES, count[AWR_PATH_SOFTWARE], count[AWR_PATH_UNKNOWN], first);
out:
	free(buf);
	awr_file_close(f);
}

#define MAP_RANGES_MAX	256U	/* ranges listed in the report's map (the byte counts cover all) */

static struct json_object *map_range(uint64_t off, uint64_t len, enum awr_write_path p, unsigned int extents)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "offset", out_u64(off));
	json_object_object_add(x, "length", out_u64(len));
	json_object_object_add(x, "path", json_object_new_string(awr_write_path_name(p)));
	json_object_object_add(x, "extents", out_u64(extents));
	return x;
}

/*
 * The target file's extent map at the stress unit, as ranges: runs of
 * adjacent extents on which a unit written at the extent's start takes the
 * same path (awr_path_predict), a hole ending a run.
 */
struct json_object *q_extent_map(const struct qctx *q)
{
	struct awr_extent_report *r = NULL;
	struct json_object *o, *a;
	struct awr_fs_view v;
	uint64_t by_path[4] = { 0 }, off = 0, len = 0;
	enum awr_write_path run = AWR_PATH_UNKNOWN;
	unsigned int in_run = 0, ranges = 0;

	if (q->is_blk || awr_fs_view_fd(q->fd, &v) || awr_extents_read(q->fd, q->unit, &r))
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	for (unsigned int i = 0; i <= r->nr_extents; i++) {
		const struct awr_extent *e = i < r->nr_extents ? &r->extents[i] : NULL;
		enum awr_write_path p = e ? awr_path_predict(&v, r, e->logical, q->unit, NULL, 0) : AWR_PATH_UNKNOWN;

		if (in_run && (!e || p != run || e->logical != off + len)) {
			if (ranges++ < MAP_RANGES_MAX)
				json_object_array_add(a, map_range(off, len, run, in_run));
			in_run = 0;
		}
		if (!e)
			break;
		by_path[p] += e->length;
		if (!in_run) {
			off = e->logical;
			len = 0;
			run = p;
		}
		len += e->length;
		in_run++;
	}
	json_object_object_add(o, "unit", out_u64(r->unit));
	json_object_object_add(o, "file_size", out_u64(r->file_size));
	json_object_object_add(o, "nr_extents", out_u64(r->nr_extents));
	json_object_object_add(o, "nr_ranges", out_u64(ranges));
	json_object_object_add(o, "ranges", a);
	json_object_object_add(o, "aligned_bytes", out_u64(r->aligned_bytes));
	json_object_object_add(o, "hardware_bytes", out_u64(by_path[AWR_PATH_HARDWARE]));
	json_object_object_add(o, "software_bytes", out_u64(by_path[AWR_PATH_SOFTWARE]));
	json_object_object_add(o, "unknown_bytes", out_u64(by_path[AWR_PATH_UNKNOWN] + by_path[AWR_PATH_REFUSED]));
	awr_extent_report_free(r);
	return o;
}
