// SPDX-License-Identifier: MIT
/*
 * The checks of qualification: discovery consistency, the atomic size sweep
 * with read-back, the kernel's refusals of bad writes, and concurrent
 * (stress.c: the concurrent writers).
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

#include "private.h"
#include "qualify.h"

void awr__q_set(struct awr_qualify_check *c, enum awr_qualify_status s, const char *fmt, ...)
{
	va_list ap;

	c->status = s;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

void awr__q_todo(struct awr_qualify_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->what_to_do, sizeof(c->what_to_do), fmt, ap);
	va_end(ap);
}

void awr__q_note(struct awr__qctx *q, const char *fmt, ...)
{
	struct awr_qualify_report *r = q->r;
	char buf[512], **notes;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	notes = realloc(r->notes, (r->nr_notes + 1) * sizeof(*notes));
	if (!notes)
		return;
	r->notes = notes;
	notes[r->nr_notes] = strdup(buf);
	r->nr_notes += notes[r->nr_notes] != NULL;
}

/* The journal directory in use, its files prepared for an async-signal-safe removal. */
static char live_dir[4096], live_files[Q_JOURNALS][4200];

void awr__q_journal_path(char *buf, size_t len, const char *tmpdir, unsigned int n)
{
	snprintf(buf, len, "%s/journal-%u", tmpdir, n);
}

int awr__q_tmpdir(char *buf, size_t len)
{
	const char *t = secure_getenv("TMPDIR");

	snprintf(buf, len, "%s/awr-qualify.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(buf))
		return -errno;
	for (unsigned int n = 0; n < Q_JOURNALS; n++)
		awr__q_journal_path(live_files[n], sizeof(live_files[n]), buf, n);
	snprintf(live_dir, sizeof(live_dir), "%s", buf);
	return 0;
}

/* Also called from a signal handler: unlink and rmdir only. */
void awr__q_rmdir(void)
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

static bool note_single_block(struct awr__qctx *q)
{
	const struct awr_limits *l = &q->r->limits;
	const struct awr_sysfs_view *y = awr_probe_sysfs(q->r->probe);
	uint32_t lbs = y ? y->logical_block_size : 0;
	char a[32];

	if (l->unit_min != l->unit_max || (lbs && l->unit_min != lbs))
		return false;
	awr__q_note(q, "the atomic unit is exactly one logical block (%s): an atomic write here is "
		    "a single-block write, which is written whole anyway; writes of more than one "
		    "block cannot be made untorn", awr_format_size(l->unit_min, a, sizeof(a)));
	return true;
}

#define NO_ATOMIC_DEVICE "qualify a device with atomic writes of its own (awr list shows " \
	"unit_max per disk), or a file on XFS, which writes atomically by software where the " \
	"device cannot (Linux 6.16+)"
#define NO_ATOMIC_FILE	"use XFS (Linux 6.16+: atomic writes by software on any device) or " \
	"ext4 over a device with atomic writes; awr probe PATH says what this one lacks"

#define NO_DEVICE_STORE	"no untorn mode for 16 KiB pages on this block device (no atomic " \
	"writes of 16 KiB, and a doublewrite area needs a filesystem): use a file on a filesystem"

/*
 * The mode the untorn page store (awr_pages_open(3)) would choose, for 16 KiB pages: on a file,
 * a scratch store opened in AUTO beside the target (made and removed here); a block device is
 * held by qualify, so its answer comes from the limits (a device store is hardware mode or
 * nothing).
 */
static void note_page_store(struct awr__qctx *q)
{
	const struct awr_limits *l = &q->r->limits;
	char path[4200], dw[4300];
	struct awr_pages *s;
	int fd;

	if (q->r->block_device) {
		bool hw = l->supported && l->unit_min <= 16384 && l->unit_max >= 16384;

		awr__q_note(q, "page store: %s", hw ? "hardware mode for 16 KiB pages: the device "
			    "writes them atomically" : NO_DEVICE_STORE);
		return;
	}
	snprintf(path, sizeof(path), "%s/.awr-qualify-pages.XXXXXX", q->dir);
	fd = mkstemp(path);
	if (fd < 0) {
		awr__q_note(q, "page store: cannot make a scratch store in %.200s: %s", q->dir,
			    strerror(errno));
		return;
	}
	close(fd);
	snprintf(dw, sizeof(dw), "%s.awr-dw", path);
	if (awr_pages_open(path, 16384, AWR_PAGES_AUTO, &s)) {
		awr__q_note(q, "page store: no untorn mode for 16 KiB pages: %.400s",
			    awr_last_error());
	} else {
		awr__q_note(q, "page store: %s mode for 16 KiB pages: %.400s",
			    awr_pages_mode_name(awr_pages_mode(s)), awr_pages_explain(s));
		awr_pages_close(s);
	}
	unlink(path);
	unlink(dw);
}

void awr__q_discovery(struct awr__qctx *q, struct awr_qualify_check *c)
{
	const struct awr_probe *p = q->r->probe;
	const struct awr_limits *l = &q->r->limits;
	const struct awr_finding *f;
	unsigned int errors = 0, n;
	char why[256], a[32], b[32];

	note_page_store(q);
	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++)
		errors += awr_probe_finding(p, i)->severity == AWR_SEV_ERROR;
	if (views_disagree(p, why, sizeof(why))) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "the views disagree: %s", why);
		awr__q_todo(c, "trust neither view until they agree: report both (awr probe PATH "
			    "-o json) with the kernel version");
		return;
	}
	f = first_error(p);
	if (f) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "%u finding%s of severity error, first %s: %s",
			   errors, errors == 1 ? "" : "s", f->id, f->message);
		awr__q_todo(c, "run awr probe PATH and change what the finding %s names", f->id);
		return;
	}
	if (!l->supported) {
		n = awr_probe_nr_findings(p);	/* the last finding says why */
		f = n ? awr_probe_finding(p, n - 1) : NULL;
		awr__q_set(c, AWR_QUALIFY_FAIL, "the kernel refuses atomic writes on %s%s%s",
			   q->r->target, f ? ": " : "", f ? f->message : "");
		awr__q_todo(c, "%s", q->r->block_device ? NO_ATOMIC_DEVICE : NO_ATOMIC_FILE);
		return;
	}
	q->atomic_ok = true;
	q->r->single_block_unit = note_single_block(q);
	awr__q_set(c, AWR_QUALIFY_PASS, "atomic writes of %s to %s%s, no finding of severity "
		   "error%s", awr_format_size(l->unit_min, a, sizeof(a)),
		   awr_format_size(l->unit_max, b, sizeof(b)),
		   l->boundary ? " within a boundary" : "", q->r->single_block_unit ?
		   "; the atomic unit is exactly one logical block (see the note)" : "");
}

/* ------------------------------------------------------------- size sweep */

static int read_back(int fd, void *buf, uint32_t size, uint64_t off, uint64_t gen,
		     struct awr_unit_state *st)
{
	ssize_t n = pread(fd, buf, size, (off_t)off);

	if (n != (ssize_t)size)
		return n < 0 ? -errno : -EIO;
	awr_stamp_classify(buf, size, off / size, st);
	return st->cls == AWR_UNIT_INTACT && st->generation == gen ? 0 : -EBADMSG;
}

static double elapsed_us(uint64_t t0)
{
	return (double)(awr__now_ns() - t0) / 1e3;
}

/* One size: stamp it, write it atomically and durably at offset @size, read it back. */
static int sweep_one(struct awr_file *f, int rfd, void *buf, uint64_t gen,
		     struct awr_qualify_sweep_write *w, char *why, size_t len)
{
	uint32_t size = (uint32_t)w->size;
	struct awr_unit_state st = { .cls = AWR_UNIT_NEVER_WRITTEN };
	struct awr_verdict v = { 0 };
	char s[32];
	uint64_t t0;
	ssize_t n;

	awr_stamp_fill(buf, size, 1, gen, 0);
	awr_format_size(size, s, sizeof(s));
	w->offset = size;
	t0 = awr__now_ns();
	n = awr_pwrite(f, buf, size, size, AWR_WRITE_DSYNC, &v);
	w->latency_us = elapsed_us(t0);
	if (n < 0) {
		w->write_error = (int)n;
		snprintf(why, len, "the atomic write of %s at %s failed: %s%s%s", s, s,
			 strerror((int)-n), v.rule != AWR_RULE_OK ? "; " : "",
			 v.rule != AWR_RULE_OK ? v.message : "");
		return (int)n;
	}
	w->read_error = read_back(rfd, buf, size, size, gen, &st);
	w->read_back = w->read_error ? st.cls : AWR_UNIT_INTACT;
	if (w->read_error)
		snprintf(why, len, "%s at %s read back %s (generation %" PRIu64 ", wrote %"
			 PRIu64 ")", s, s, w->read_error == -EBADMSG ?
			 awr_unit_class_name(st.cls) : strerror(-w->read_error), st.generation,
			 gen);
	return w->read_error;
}

static int ensure_size(const struct awr__qctx *q, uint64_t size)
{
	struct stat st;

	if (fstat(q->fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode) || (uint64_t)st.st_size >= size)
		return 0;
	return ftruncate(q->fd, (off_t)size) ? -errno : 0;
}

/* The area the sweep and the refusals may write: [0, 2 * unit_max). */
static uint64_t sweep_area(const struct awr__qctx *q)
{
	return 2ULL * q->r->limits.unit_max;
}

static int sweep_open(struct awr__qctx *q, struct awr_file **f, int *rfd, void **buf)
{
	int ret = ensure_size(q, sweep_area(q));

	if (!ret)
		ret = awr_file_from_fd(q->fd, f);
	if (!ret)
		ret = *rfd = awr__reopen(q->fd, O_RDONLY | O_DIRECT);
	if (ret >= 0 && posix_memalign(buf, 4096, q->r->limits.unit_max))
		ret = -ENOMEM;
	return ret < 0 ? ret : 0;
}

void awr__q_size_sweep(struct awr__qctx *q, struct awr_qualify_check *c)
{
	const struct awr_limits *l = &q->r->limits;
	struct awr_qualify_report *r = q->r;
	struct awr_file *f = NULL;
	void *buf = NULL;
	char why[320] = "", a[32], b[32];
	int rfd = -1, ret;

	if (!q->atomic_ok) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "discovery found no usable atomic writes");
		return;
	}
	if (r->block_device && r->device_size < sweep_area(q)) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "the device (%s) is smaller than twice unit_max "
			   "(%s)", awr_format_size(r->device_size, a, sizeof(a)),
			   awr_format_size(l->unit_max, b, sizeof(b)));
		return;
	}
	ret = sweep_open(q, &f, &rfd, &buf);
	if (ret) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "cannot open %s for direct I/O: %s", r->target,
			   strerror(-ret));
		goto out;
	}
	for (uint64_t size = l->unit_min; size && size <= l->unit_max &&
	     r->nr_sweep < AWR_QUALIFY_SWEEP_MAX; size *= 2) {
		struct awr_qualify_sweep_write *w = &r->sweep[r->nr_sweep++];

		w->size = size;
		if (sweep_one(f, rfd, buf, r->nr_sweep, w, why, sizeof(why))) {
			awr__q_set(c, AWR_QUALIFY_FAIL, "%s", why);
			goto out;
		}
	}
	q->writes_ok = true;
	awr__q_set(c, AWR_QUALIFY_PASS, "%u size%s from %s to %s written atomically (durable) and "
		   "read back intact", r->nr_sweep, r->nr_sweep == 1 ? "" : "s",
		   awr_format_size(l->unit_min, a, sizeof(a)),
		   awr_format_size(l->unit_max, b, sizeof(b)));
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
	uint64_t min = l->unit_min, max = l->unit_max;
	uint64_t align = l->offset_align ? l->offset_align : 512;

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
static int refuse_one(struct awr__qctx *q, const struct bad_write *w, void *buf,
		      struct awr_qualify_refusal *x, char *why, size_t len)
{
	int oflags = O_RDWR | (w->buffered ? 0 : O_DIRECT);
	struct awr_write_plan plan = { w->offset, w->length, buf, 1, oflags };
	struct iovec iov = { buf, w->length };
	struct awr_verdict v;
	char a[32], b[32];
	int fd;

	*x = (struct awr_qualify_refusal){ w->name, w->offset, w->length };
	awr_format_size(w->length, a, sizeof(a));
	awr_format_size(w->offset, b, sizeof(b));
	x->predicted = awr_check(&q->r->limits, &plan, &v);
	x->rule = v.rule;
	fd = awr__reopen(q->fd, oflags);
	x->kernel = fd < 0 ? fd : awr_pwrite_raw(fd, &iov, 1, w->offset, 0);
	if (fd >= 0)
		close(fd);
	if (!x->predicted)
		snprintf(why, len, "%s: awr_check accepts %s at %s: no bad write to test",
			 w->name, a, b);
	else if (x->kernel >= 0)
		snprintf(why, len, "%s: the kernel accepted %s at %s as atomic (%s)", w->name, a,
			 b, v.message);
	else if (x->kernel != x->predicted)
		snprintf(why, len, "%s: the kernel returned %s, awr_check predicted %s (%s)",
			 w->name, awr__errno_name((int)x->kernel),
			 awr__errno_name(x->predicted), v.message);
	else
		return 0;
	return -1;
}

void awr__q_refusals(struct awr__qctx *q, struct awr_qualify_check *c)
{
	const struct awr_limits *l = &q->r->limits;
	struct bad_write w[AWR_QUALIFY_REFUSALS_MAX];
	unsigned int n, bad = 0;
	char why[320], first[320] = "", names[128] = "";
	size_t blen = 2 * (size_t)l->unit_max;
	void *buf;

	if (!q->atomic_ok) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "discovery found no usable atomic writes");
		return;
	}
	n = bad_writes(l, w);
	if (3 * (size_t)l->unit_min > blen)
		blen = 3 * (size_t)l->unit_min;
	if (posix_memalign(&buf, 4096, blen)) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "out of memory");
		return;
	}
	memset(buf, 0, blen);
	for (unsigned int i = 0; i < n; i++) {
		if (refuse_one(q, &w[i], buf, &q->r->refusals[i], why, sizeof(why)) && !bad++)
			snprintf(first, sizeof(first), "%s", why);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", w[i].name);
	}
	q->r->nr_refusals = n;
	free(buf);
	if (bad)
		awr__q_set(c, AWR_QUALIFY_FAIL, "%u of %u bad writes not refused as predicted; %s",
			   bad, n, first);
	else
		awr__q_set(c, AWR_QUALIFY_PASS, "%u bad writes (%s) refused with the errno "
			   "awr_check predicts", n, names);
}
