// SPDX-License-Identifier: MIT
/*
 * The checks of awr qualify: discovery consistency, the atomic size sweep
 * with read-back, the kernel's refusals of bad writes, and concurrent
 * overlapping writers checked for torn and lost units.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "qualify.h"

void q_set(struct qcheck *c, enum q_result r, const char *fmt, ...)
{
	va_list ap;

	c->result = r;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

void q_note(struct qctx *q, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_array_add(q->notes, json_object_new_string(buf));
}

const char *q_result_name(enum q_result r)
{
	return r == Q_PASS ? "PASS" : r == Q_FAIL ? "FAIL" : r == Q_SKIP ? "SKIP" : "INFO";
}

/* The journal directory in use, its files prepared for an async-signal-safe removal. */
static char live_dir[4096], live_files[Q_JOURNALS][4200];

void q_journal_path(char *buf, size_t len, const char *tmpdir, unsigned int n)
{
	snprintf(buf, len, "%s/journal-%u", tmpdir, n);
}

int q_tmpdir(char *buf, size_t len)
{
	const char *t = secure_getenv("TMPDIR");

	snprintf(buf, len, "%s/awr-qualify.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(buf))
		return -errno;
	for (unsigned int n = 0; n < Q_JOURNALS; n++)
		q_journal_path(live_files[n], sizeof(live_files[n]), buf, n);
	snprintf(live_dir, sizeof(live_dir), "%s", buf);
	return 0;
}

/* Also called from a signal handler: unlink and rmdir only. */
void q_rmdir(void)
{
	if (!live_dir[0])
		return;
	for (unsigned int n = 0; n < Q_JOURNALS; n++)
		unlink(live_files[n]);
	rmdir(live_dir);
	live_dir[0] = '\0';
}

/* ---------------------------------------------------------------- discovery */

static const struct awr_finding *first_error(const struct awr_probe *p)
{
	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++)
		if (awr_probe_finding(p, i)->severity == AWR_SEV_ERROR)
			return awr_probe_finding(p, i);
	return NULL;
}

/* What each view says, side by side. */
static struct json_object *views_json(const struct awr_probe *p)
{
	const struct awr_statx_view *s = awr_probe_statx(p);
	const struct awr_sysfs_view *y = awr_probe_sysfs(p);
	const struct awr_device *d = awr_probe_device(p);
	struct json_object *o = json_object_new_object(), *v;

	if (s) {
		v = json_object_new_object();
		json_object_object_add(v, "atomic_reported", json_object_new_boolean(s->atomic_reported));
		json_object_object_add(v, "unit_min", out_u64(s->unit_min));
		json_object_object_add(v, "unit_max", out_u64(s->unit_max));
		json_object_object_add(v, "unit_max_opt", out_u64(s->unit_max_opt));
		json_object_object_add(o, "statx", v);
	}
	if (y) {
		v = json_object_new_object();
		json_object_object_add(v, "disk", json_object_new_string(y->disk));
		json_object_object_add(v, "unit_min", out_u64(y->unit_min));
		json_object_object_add(v, "unit_max", out_u64(y->unit_max));
		json_object_object_add(v, "max_bytes", out_u64(y->max_bytes));
		json_object_object_add(v, "boundary", out_u64(y->boundary));
		json_object_object_add(v, "logical_block_size", out_u64(y->logical_block_size));
		out_add_write_cache(v, y);
		json_object_object_add(o, "sysfs", v);
	}
	v = NULL;
	if (d) {
		v = json_object_new_object();
		device_add_json(v, d);
	}
	json_object_object_add(o, "device", v);
	return o;
}

/* A block device's statx must say what its sysfs queue says. */
static bool views_disagree(const struct awr_probe *p, char *why, size_t len)
{
	const struct awr_statx_view *s = awr_probe_statx(p);
	const struct awr_sysfs_view *y = awr_probe_sysfs(p);

	if (!s || !y || !S_ISBLK(s->mode) || !y->has_atomic_attrs || !s->atomic_reported)
		return false;
	if (s->unit_min == y->unit_min && s->unit_max == y->unit_max)
		return false;
	snprintf(why, len, "statx says unit_min %u unit_max %u, sysfs of %s says %u and %u",
		 s->unit_min, s->unit_max, y->disk, y->unit_min, y->unit_max);
	return true;
}

static bool note_single_block(struct qctx *q)
{
	const struct awr_sysfs_view *y = awr_probe_sysfs(q->probe);
	uint32_t lbs = y ? y->logical_block_size : 0;
	char a[32];

	if (q->lim.unit_min != q->lim.unit_max || (lbs && q->lim.unit_min != lbs))
		return false;
	q_note(q, "the atomic unit is exactly one logical block (%s): an atomic write here is a single-block "
	       "write, which is written whole anyway; writes of more than one block cannot be made untorn",
	       out_size(q->lim.unit_min, a, sizeof(a)));
	return true;
}

/*
 * The mode the untorn page store (awr_pages_open(3)) would choose, for 16 KiB pages: on a file, a
 * scratch store opened in AUTO beside the target (made and removed here); a block device is held by
 * qualify, so its answer comes from the limits (a device store is hardware mode or nothing).
 */
static void note_page_store(struct qctx *q)
{
	char path[4200], dw[4300];
	struct awr_pages *s;
	int fd;

	if (q->is_blk) {
		bool hw = q->lim.supported && q->lim.unit_min <= 16384 && q->lim.unit_max >= 16384;

		q_note(q, "page store: %s", hw ? "hardware mode for 16 KiB pages: the device writes them atomically" :
		       "no untorn mode for 16 KiB pages on this block device (no atomic writes of 16 KiB, and "
		       "a doublewrite area needs a filesystem): use a file on a filesystem");
		return;
	}
	snprintf(path, sizeof(path), "%s/.awr-qualify-pages.XXXXXX", q->dir);
	fd = mkstemp(path);
	if (fd < 0) {
		q_note(q, "page store: cannot make a scratch store in %.200s: %s", q->dir, strerror(errno));
		return;
	}
	close(fd);
	snprintf(dw, sizeof(dw), "%s.awr-dw", path);
	if (awr_pages_open(path, 16384, AWR_PAGES_AUTO, &s)) {
		q_note(q, "page store: no untorn mode for 16 KiB pages: %.400s", awr_pages_explain(NULL));
	} else {
		q_note(q, "page store: %s mode for 16 KiB pages: %.400s", awr_pages_mode_name(awr_pages_mode(s)),
		       awr_pages_explain(s));
		awr_pages_close(s);
	}
	unlink(path);
	unlink(dw);
}

void q_discovery(struct qctx *q, struct qcheck *c)
{
	const struct awr_finding *f;
	unsigned int errors = 0, n;
	char why[256], a[32], b[32];
	bool single;

	note_page_store(q);
	json_object_object_add(c->figures, "limits", out_limits_json(&q->lim));
	json_object_object_add(c->figures, "views", views_json(q->probe));
	json_object_object_add(c->figures, "findings", out_probe_findings_json(q->probe));
	for (unsigned int i = 0; i < awr_probe_nr_findings(q->probe); i++)
		errors += awr_probe_finding(q->probe, i)->severity == AWR_SEV_ERROR;
	if (views_disagree(q->probe, why, sizeof(why))) {
		q_set(c, Q_FAIL, "the views disagree: %s", why);
		return;
	}
	f = first_error(q->probe);
	if (f) {
		q_set(c, Q_FAIL, "%u finding%s of severity error, first %s: %s", errors,
		      errors == 1 ? "" : "s", f->id, f->message);
		return;
	}
	if (!q->lim.supported) {
		n = awr_probe_nr_findings(q->probe);	/* the last finding says why */
		f = n ? awr_probe_finding(q->probe, n - 1) : NULL;
		q_set(c, Q_FAIL, "the kernel refuses atomic writes on %s%s%s", q->target, f ? ": " : "",
		      f ? f->message : "");
		return;
	}
	q->atomic_ok = true;
	single = note_single_block(q);
	json_object_object_add(c->figures, "single_block_unit", json_object_new_boolean(single));
	q_set(c, Q_PASS, "atomic writes of %s to %s%s, no finding of severity error%s",
	      out_size(q->lim.unit_min, a, sizeof(a)), out_size(q->lim.unit_max, b, sizeof(b)),
	      q->lim.boundary ? " within a boundary" : "",
	      single ? "; the atomic unit is exactly one logical block (see the note)" : "");
}

/* ------------------------------------------------------------- size sweep */

/* Another open of the held target (never by name: nothing can swap it underneath). */
static int open_direct(const struct qctx *q, int flags)
{
	return reopen_fd(q->fd, flags | O_DIRECT);
}

static int read_back(int fd, void *buf, uint32_t size, uint64_t off, uint64_t gen,
		     struct awr_unit_state *st)
{
	ssize_t n = pread(fd, buf, size, (off_t)off);

	if (n != (ssize_t)size)
		return n < 0 ? -errno : -EIO;
	awr_stamp_classify(buf, size, off / size, st);
	return st->cls == AWR_UNIT_INTACT && st->generation == gen ? 0 : -EBADMSG;
}

/* One size: stamp it, write it atomically and durably at offset @size, read it back. */
static int sweep_one(struct awr_file *f, int rfd, void *buf, uint32_t size, uint64_t gen,
		     struct json_object *list, char *why, size_t len)
{
	struct json_object *o = json_object_new_object();
	struct awr_unit_state st;
	struct awr_verdict v = { 0 };
	struct timespec t0, t1;
	ssize_t w;
	int ret;

	awr_stamp_fill(buf, size, 1, gen, 0);
	json_object_object_add(o, "size", out_u64(size));
	json_object_object_add(o, "offset", out_u64(size));
	json_object_array_add(list, o);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	w = awr_pwrite(f, buf, size, size, AWR_WRITE_DSYNC, &v);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	json_object_object_add(o, "latency_us", out_double((double)(t1.tv_sec - t0.tv_sec) * 1e6 +
							      (double)(t1.tv_nsec - t0.tv_nsec) / 1e3, 1));
	if (w < 0) {
		json_object_object_add(o, "write", json_object_new_string(out_errno_name((int)w)));
		snprintf(why, len, "the atomic write of %u bytes at %u failed: %s%s%s", size, size,
			 strerror((int)-w), v.rule != AWR_RULE_OK ? "; " : "", v.rule != AWR_RULE_OK ? v.message : "");
		return (int)w;
	}
	ret = read_back(rfd, buf, size, size, gen, &st);
	json_object_object_add(o, "read_back", json_object_new_string(ret ? awr_unit_class_name(st.cls) : "intact"));
	if (ret)
		snprintf(why, len, "%u bytes at %u read back %s (generation %" PRIu64 ", wrote %" PRIu64 ")",
			 size, size, ret == -EBADMSG ? awr_unit_class_name(st.cls) : strerror(-ret),
			 st.generation, gen);
	return ret;
}

static int ensure_size(const struct qctx *q, uint64_t size)
{
	struct stat st;

	if (fstat(q->fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode) || (uint64_t)st.st_size >= size)
		return 0;
	return ftruncate(q->fd, (off_t)size) ? -errno : 0;
}

/* The area the sweep and the refusals may write: [0, 2 * unit_max). */
static uint64_t sweep_area(const struct qctx *q)
{
	return 2ULL * q->lim.unit_max;
}

void q_size_sweep(struct qctx *q, struct qcheck *c)
{
	struct json_object *list = json_object_new_array();
	struct awr_file *f = NULL;
	unsigned int n = 0;
	void *buf = NULL;
	char why[320] = "", a[32], b[32];
	int rfd = -1, ret;

	json_object_object_add(c->figures, "writes", list);
	if (!q->atomic_ok) {
		q_set(c, Q_SKIP, "discovery found no usable atomic writes");
		return;
	}
	if (q->is_blk && q->size < sweep_area(q)) {
		q_set(c, Q_SKIP, "the device (%" PRIu64 " bytes) is smaller than twice unit_max", q->size);
		return;
	}
	ret = ensure_size(q, sweep_area(q));
	if (!ret)
		ret = awr_file_from_fd(q->fd, &f);
	if (!ret)
		ret = rfd = open_direct(q, O_RDONLY);
	if (ret < 0 || posix_memalign(&buf, 4096, q->lim.unit_max)) {
		q_set(c, Q_FAIL, "cannot open %s for direct I/O: %s", q->target, strerror(ret < 0 ? -ret : ENOMEM));
		goto out;
	}
	for (uint64_t size = q->lim.unit_min; size && size <= q->lim.unit_max; size *= 2, n++) {
		if (sweep_one(f, rfd, buf, (uint32_t)size, n + 1, list, why, sizeof(why))) {
			q_set(c, Q_FAIL, "%s", why);
			goto out;
		}
	}
	q->writes_ok = true;
	q_set(c, Q_PASS, "%u size%s from %s to %s written atomically (durable) and read back intact", n,
	      n == 1 ? "" : "s", out_size(q->lim.unit_min, a, sizeof(a)), out_size(q->lim.unit_max, b, sizeof(b)));
out:
	if (rfd >= 0)
		close(rfd);
	awr_file_close(f);
	free(buf);
}

/* --------------------------------------------------------------- refusals */

struct bad_write {
	const char *name;
	uint64_t offset;
	uint64_t length;
	bool buffered;
};

static unsigned int bad_writes(const struct awr_limits *l, struct bad_write *w)
{
	unsigned int n = 0;
	uint64_t min = l->unit_min, max = l->unit_max, align = l->offset_align ? l->offset_align : 512;

	if (2 * min <= max)
		w[n++] = (struct bad_write){ "misaligned", min, 2 * min, false };
	else if (align < min)
		w[n++] = (struct bad_write){ "misaligned", align, min, false };
	w[n++] = (struct bad_write){ "not_power_of_two", 0, 3 * min, false };
	w[n++] = (struct bad_write){ "too_large", 0, 2 * max, false };
	if (min / 2 >= align)
		w[n++] = (struct bad_write){ "too_small", 0, min / 2, false };
	w[n++] = (struct bad_write){ "buffered", 0, min, true };
	return n;
}

/* Issue one bad write; 0 when the kernel refused it with the predicted errno. */
static int refuse_one(struct qctx *q, const struct bad_write *w, void *buf, struct json_object *list,
		      char *why, size_t len)
{
	struct awr_write_plan plan = { w->offset, w->length, buf, 1,
				       O_RDWR | (w->buffered ? 0 : O_DIRECT) };
	struct json_object *o = json_object_new_object();
	struct iovec iov = { buf, w->length };
	struct awr_verdict v;
	int predicted, fd;
	ssize_t got;

	predicted = awr_check(&q->lim, &plan, &v);
	fd = reopen_fd(q->fd, O_RDWR | (w->buffered ? 0 : O_DIRECT));
	got = fd < 0 ? fd : awr_pwrite_raw(fd, &iov, 1, w->offset, 0);
	if (fd >= 0)
		close(fd);
	json_object_object_add(o, "case", json_object_new_string(w->name));
	json_object_object_add(o, "offset", out_u64(w->offset));
	json_object_object_add(o, "length", out_u64(w->length));
	json_object_object_add(o, "rule", json_object_new_string(awr_rule_name(v.rule)));
	json_object_object_add(o, "predicted", json_object_new_string(out_errno_name(predicted)));
	json_object_object_add(o, "kernel", json_object_new_string(got >= 0 ? "accepted" : out_errno_name((int)got)));
	json_object_array_add(list, o);
	if (!predicted)
		snprintf(why, len, "%s: awr_check accepts %" PRIu64 " bytes at %" PRIu64 ": no bad write to test",
			 w->name, w->length, w->offset);
	else if (got >= 0)
		snprintf(why, len, "%s: the kernel accepted %" PRIu64 " bytes at %" PRIu64 " as atomic (%s)",
			 w->name, w->length, w->offset, v.message);
	else if (got != predicted)
		snprintf(why, len, "%s: the kernel returned %s, awr_check predicted %s (%s)", w->name,
			 out_errno_name((int)got), out_errno_name(predicted), v.message);
	else
		return 0;
	return -1;
}

void q_refusals(struct qctx *q, struct qcheck *c)
{
	struct json_object *list = json_object_new_array();
	struct bad_write w[8];
	unsigned int n, bad = 0;
	char why[320], first[320] = "", names[128] = "";
	size_t blen = 2 * (size_t)q->lim.unit_max;
	void *buf;

	json_object_object_add(c->figures, "cases", list);
	if (!q->atomic_ok) {
		q_set(c, Q_SKIP, "discovery found no usable atomic writes");
		return;
	}
	n = bad_writes(&q->lim, w);
	if (3 * (size_t)q->lim.unit_min > blen)
		blen = 3 * (size_t)q->lim.unit_min;
	if (posix_memalign(&buf, 4096, blen)) {
		q_set(c, Q_FAIL, "out of memory");
		return;
	}
	memset(buf, 0, blen);
	for (unsigned int i = 0; i < n; i++) {
		if (refuse_one(q, &w[i], buf, list, why, sizeof(why)) && !bad++)
			snprintf(first, sizeof(first), "%s", why);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "", w[i].name);
	}
	free(buf);
	if (bad)
		q_set(c, Q_FAIL, "%u of %u bad writes not refused as predicted; %s", bad, n, first);
	else
		q_set(c, Q_PASS, "%u bad writes (%s) refused with the errno awr_check predicts", n, names);
}

/* ------------------------------------------------------------ concurrency */

struct first_issue {
	char text[240];
	uint32_t unit;
};

static int keep_first(const struct awr_verify_issue *is, void *arg)
{
	struct first_issue *fi = arg;

	if (!fi->text[0])
		verify_issue_text(is, fi->unit, fi->text, sizeof(fi->text));
	return 0;
}

int q_verify(const char *target, uint32_t unit, uint64_t span, const char *journal, uint64_t crash_ns,
	     struct awr_verify_result *vr, struct json_object *fig, char *issue, size_t len)
{
	struct first_issue fi = { "", unit };
	struct awr_verify_opts vo = { .unit = unit, .span = span, .journal = journal,
				      .crash_time_ns = crash_ns, .issue = keep_first, .arg = &fi };
	int ret = awr_verify_run(target, &vo, vr);

	if (!ret)
		json_object_object_add(fig, "verify", verify_result_json(vr, true));
	snprintf(issue, len, "%s", fi.text);
	return ret;
}

/*
 * Zero the span before stamping with q->unit: stamps left by the sweep (other
 * unit sizes) or by earlier runs would count as misplaced or unjournaled.
 */
static int clear_area(const struct qctx *q, uint64_t len)
{
	const size_t chunk = 1U << 20;
	void *z;
	int fd, ret = 0;

	if (posix_memalign(&z, 4096, chunk))
		return -ENOMEM;
	memset(z, 0, chunk);
	fd = open_direct(q, O_WRONLY);
	if (fd < 0)
		ret = fd;
	for (uint64_t off = 0; !ret && off < len; off += chunk) {
		size_t n = len - off < chunk ? (size_t)(len - off) : chunk;

		if (pwrite(fd, z, n, (off_t)off) != (ssize_t)n)
			ret = -EIO;
	}
	if (fd >= 0)
		close(fd);
	free(z);
	return ret;
}

static uint64_t stress_span(const struct qctx *q)
{
	uint64_t span = 64ULL * q->unit;

	if (span < (8ULL << 20))
		span = 8ULL << 20;
	if (q->is_blk && span > q->size)
		span = q->size / q->unit * q->unit;
	return span;
}

void q_stress_figures(struct json_object *fig, const struct awr_stress_opts *so,
		      const struct awr_stress_result *sr)
{
	double sec = (double)sr->nsec / 1e9;

	json_object_object_add(fig, "unit", out_u64(so->unit));
	json_object_object_add(fig, "threads", out_u64(so->threads));
	json_object_object_add(fig, "span", out_u64(so->span));
	json_object_object_add(fig, "writes", out_u64(sr->writes));
	json_object_object_add(fig, "seconds", out_double(sec, 3));
	json_object_object_add(fig, "writes_per_s", out_double(sec > 0 ? (double)sr->writes / sec : 0, 1));
	json_object_object_add(fig, "stopped_by", sr->error ? json_object_new_string(out_errno_name(sr->error)) : NULL);
}

void q_concurrency(struct qctx *q, struct qcheck *c)
{
	struct awr_stress_opts so = { .unit = q->unit, .threads = 4, .span = stress_span(q),
				      .duration_ms = q->quick ? 3000 : 10000 };
	struct awr_stress_result sr;
	struct awr_verify_result vr;
	char tmp[4096], journal[4200], issue[240], a[32];
	int ret;

	if (!q->writes_ok) {
		q_set(c, Q_SKIP, "the size sweep did not pass");
		return;
	}
	if (q_tmpdir(tmp, sizeof(tmp))) {
		q_set(c, Q_FAIL, "cannot make a journal directory in $TMPDIR or /tmp: %s", strerror(errno));
		return;
	}
	q_journal_path(journal, sizeof(journal), tmp, 0);
	so.journal = journal;
	ret = clear_area(q, so.span > sweep_area(q) ? so.span : sweep_area(q));
	if (!ret)
		ret = awr_stress_run_fd(q->fd, &so, &sr);
	if (ret) {
		q_set(c, Q_FAIL, "cannot run the writers: %s", strerror(-ret));
		goto out;
	}
	q_stress_figures(c->figures, &so, &sr);
	ret = q_verify(q->target, so.unit, so.span, journal, 0, &vr, c->figures, issue, sizeof(issue));
	if (ret)
		q_set(c, Q_FAIL, "cannot verify: %s", strerror(-ret));
	else if (sr.journal_error)
		q_set(c, Q_FAIL, "the journal in %s failed: %s", tmp, strerror(-sr.journal_error));
	else if (sr.error)
		q_set(c, Q_FAIL, "a write failed after %" PRIu64 " writes: %s at offset %" PRIu64, sr.writes,
		      strerror(-sr.error), sr.error_offset);
	else if (verify_failed(&vr))
		q_set(c, Q_FAIL, "%" PRIu64 " torn, %" PRIu64 " corrupt, %" PRIu64 " misplaced, %" PRIu64
		      " lost units; first: %s", vr.count[AWR_UNIT_TORN], vr.count[AWR_UNIT_CORRUPT],
		      vr.count[AWR_UNIT_MISPLACED], vr.lost, issue);
	else
		q_set(c, Q_PASS, "%u writers, %" PRIu64 " overlapping durable atomic writes of %s in %.1f s: "
		      "0 torn, 0 corrupt, 0 lost of %" PRIu64 " acknowledged", so.threads, sr.writes,
		      out_size(so.unit, a, sizeof(a)), (double)sr.nsec / 1e9, vr.acked_writes);
out:
	q_rmdir();
}
