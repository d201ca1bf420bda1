// SPDX-License-Identifier: MIT
/*
 * The measuring core of awr bench (see bench_run() in awr.h): database-style
 * page writes through the io_uring engine, atomic vs plain vs doublewrite,
 * with page latency percentiles from a log-linear histogram.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "awr.h"

#define REAP_MAX	64U
#define QHIST		1024U	/* ns buckets of the queueing time per write */
#define HIST_SUB_BITS	6U			/* 64 buckets per power of two: ~1.6% */
#define HIST_SUB	(1U << HIST_SUB_BITS)
#define HIST_BUCKETS	(HIST_SUB * 40U)	/* up to 2^45 ns */
#define DW_CHUNK_MAX	(1U << 20)		/* doublewrite copy: writes of up to 1 MiB */

struct hist {
	uint64_t count;
	uint64_t b[HIST_BUCKETS];
};

volatile sig_atomic_t bench_stop;

/* One job: a thread with its own ring, buffers and page order (--jobs N runs N). */
struct bench {
	const struct bench_opts *o;
	struct awr_file *f;
	struct awr_ring *r;
	struct bench_mode_result *res;	/* the job's own result, merged after the mode */
	const char *name;
	enum bench_mode mode;
	unsigned int job;
	unsigned int batch;
	unsigned int flags;		/* AWR_WRITE_* of in-place writes */
	bool fixed;			/* plain writes from the registered buffer */
	unsigned char *buf;		/* max(qd, batch) pages */
	uint64_t *t_start;		/* per slot: when queued (ns) */
	uint64_t *off;			/* per slot: offset */
	uint64_t npages;		/* pages in the data area */
	uint64_t dw_offset;		/* this job's doublewrite area */
	uint64_t seq, rng;
	uint64_t start, deadline, shown;
	struct awr_ring_stats ring;	/* the job's ring counters at the end of the mode */
	double clock_ns;		/* what one clock read costs (clock_read_ns()) */
	uint64_t qhist[QHIST];		/* writes by ns spent queueing each, less the clock */
	struct hist hist;
	uint64_t batches;		/* batches run (fdatasync durability, doublewrite) */
	uint64_t step_ns[BENCH_STEPS];	/* their time in each step: copy, writes, flush */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < HIST_SUB)
		return (unsigned int)v;
	e = 63U - (unsigned int)__builtin_clzll(v);	/* >= HIST_SUB_BITS */
	if (e - HIST_SUB_BITS + 1 >= HIST_BUCKETS / HIST_SUB)
		return HIST_BUCKETS - 1;
	return (e - HIST_SUB_BITS + 1) * HIST_SUB + (unsigned int)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* The middle of a bucket's range of values. */
static double hist_value(unsigned int i)
{
	unsigned int e;
	uint64_t lo;

	if (i < HIST_SUB)
		return i;
	e = i / HIST_SUB + HIST_SUB_BITS - 1;
	lo = (1ULL << e) + ((uint64_t)(i % HIST_SUB) << (e - HIST_SUB_BITS));
	return (double)lo + (double)(1ULL << (e - HIST_SUB_BITS)) / 2;
}

static void hist_add(struct hist *h, uint64_t v, uint64_t n)
{
	h->b[hist_index(v)] += n;
	h->count += n;
}

static double hist_percentile_us(const struct hist *h, double pct)
{
	uint64_t want = (uint64_t)((double)h->count * pct / 100.0 + 0.999999), seen = 0;

	if (!h->count)
		return 0;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return hist_value(i) / 1000.0;
	}
	return hist_value(HIST_BUCKETS - 1) / 1000.0;
}

/*
 * The distribution as at most BENCH_CDF_MAX points (latency in us, share of
 * pages at or below it): the non-empty buckets, grouped by 1/8 of a power of
 * two (coarser while there would be more points than fit).
 */
static void hist_cdf(const struct hist *h, struct bench_mode_result *r)
{
	for (unsigned int group = HIST_SUB / 8; group <= HIST_BUCKETS; group *= 2) {
		uint64_t seen = 0;
		unsigned int n = 0;

		for (unsigned int i = 0; i < HIST_BUCKETS && n <= BENCH_CDF_MAX; i += group) {
			uint64_t in = 0;

			for (unsigned int k = i; k < i + group && k < HIST_BUCKETS; k++)
				in += h->b[k];
			if (!in)
				continue;
			seen += in;
			if (n < BENCH_CDF_MAX) {
				r->cdf_us[n] = hist_value(i + group - 1 < HIST_BUCKETS ? i + group - 1 : HIST_BUCKETS - 1) / 1000.0;
				r->cdf_share[n] = (double)seen / (double)h->count;
			}
			n++;
		}
		if (n <= BENCH_CDF_MAX) {
			r->cdf_n = n;
			return;
		}
	}
}

static uint64_t next_offset(struct bench *b)
{
	uint64_t page;

	if (b->o->order == BENCH_SEQUENTIAL) {
		page = b->seq++ % b->npages;
	} else {
		b->rng ^= b->rng >> 12;		/* xorshift64* */
		b->rng ^= b->rng << 25;
		b->rng ^= b->rng >> 27;
		page = (uint64_t)(((unsigned __int128)(b->rng * 0x2545F4914F6CDD1DULL) * b->npages) >> 64);
	}
	return page * b->o->unit;
}

static int fail(struct bench *b, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct bench *b, int err, const char *fmt, ...)
{
	va_list ap;

	if (b->res->error)
		return b->res->error;
	b->res->error = err;
	va_start(ap, fmt);
	vsnprintf(b->res->message, sizeof(b->res->message), fmt, ap);
	va_end(ap);
	return err;
}

/* A completion that is not a whole page: say why, with the rule when one refused it. */
static int fail_write(struct bench *b, const struct awr_completion *c, uint64_t off, uint64_t len)
{
	struct awr_verdict v;

	if (c->rule != AWR_RULE_OK) {
		awr_file_check(b->f, b->buf, len, off, &v);
		return fail(b, c->res, "refused before the kernel: %s (rule %s)", v.message,
			    awr_rule_name(c->rule));
	}
	return fail(b, c->res < 0 ? c->res : -EIO, "the write of %" PRIu64 " bytes at %" PRIu64 " failed: %s",
		    len, off, c->res < 0 ? strerror(-c->res) : "short write");
}

static void progress(struct bench *b, uint64_t now, bool last)
{
	double el = (double)(now - b->start) / 1e9;
	double pps = el > 0 ? (double)b->res->pages * b->o->jobs / el : 0;

	if (!b->o->progress || b->job || (!last && now - b->shown < 500000000ULL))
		return;
	b->shown = now;
	if (last)
		fprintf(stderr, "\r%60s\r", "");
	else
		fprintf(stderr, "\r%-11s %5.1f s %10.0f pages/s %9.1f MB/s ", b->name, el, pps,
			pps * (double)b->o->unit / 1e6);
	fflush(stderr);
}

static int queue_page(struct bench *b, unsigned int slot)
{
	const unsigned char *p = b->buf + (uint64_t)slot * b->o->unit;

	if (b->fixed)
		return awr_ring_queue_write_fixed(b->r, 0, p, b->o->unit, b->off[slot], slot, b->flags);
	return awr_ring_queue_write(b->r, p, b->o->unit, b->off[slot], slot, b->flags);
}

static int queue_slot(struct bench *b, unsigned int slot, uint64_t now)
{
	b->off[slot] = next_offset(b);
	b->t_start[slot] = now;
	return queue_page(b, slot);
}

/* Until the deadline, unless a signal asked to stop. */
static bool running(const struct bench *b, uint64_t now)
{
	return now < b->deadline && !bench_stop;
}

/* @n writes that took @per ns each to queue, into the histogram of whole ns */
static void qhist_add(struct bench *b, double per, unsigned int n)
{
	b->qhist[per <= 0 ? 0 : per >= QHIST - 1 ? QHIST - 1 : (unsigned int)per] += n;
}

/*
 * Queue the slots @s[0..n) with one clock read before and one after: the
 * time in between (the rule check, the SQE, the page order; no system call)
 * is the library's CPU per queued write, measured in the running loop.
 */
static int queue_slots(struct bench *b, const unsigned int *s, unsigned int n)
{
	uint64_t t = now_ns(), t1;
	int ret = 0;

	/*
	 * Each write handed over as it is queued, as a ring made with
	 * AWR_RING_SUBMIT_EACH does, but by hand: the queueing is timed alone,
	 * without the system call.
	 */
	if (b->o->qd > 1) {
		for (unsigned int i = 0; i < n && !ret; i++) {
			ret = queue_slot(b, s[i], t);
			t1 = now_ns();
			qhist_add(b, (double)(t1 - t) - b->clock_ns, 1);
			if (!ret)
				awr_ring_submit(b->r);
			t = now_ns();
		}
		return ret;
	}
	for (unsigned int i = 0; i < n && !ret; i++)
		ret = queue_slot(b, s[i], t);
	qhist_add(b, ((double)(now_ns() - t) - b->clock_ns) / (double)(n ? n : 1), n);
	return ret;
}

/*
 * What one clock read adds to a timed batch: the lowest mean of 256 empty
 * intervals over 8 tries (about 90 ns with kvm-clock, 20 ns with the TSC),
 * taken off the queueing time so that QD 1, one write per batch, is not
 * mostly the clock.
 */
static double clock_read_ns(void)
{
	double best = 0;

	for (int k = 0; k < 8; k++) {
		uint64_t sum = 0, t;

		for (int i = 0; i < 256; i++) {
			t = now_ns();
			sum += now_ns() - t;
		}
		if (!k || (double)sum / 256 < best)
			best = (double)sum / 256;
	}
	return best;
}

/* The median of the per-write queueing times: a batch the scheduler interrupted is an outlier. */
static double qhist_median(const uint64_t *h)
{
	uint64_t total = 0, seen = 0;

	for (unsigned int k = 0; k < QHIST; k++)
		total += h[k];
	for (unsigned int k = 0; k < QHIST && total; k++) {
		seen += h[k];
		if (seen * 2 >= total)
			return k + 0.5;
	}
	return 0;
}

/* Durability none or dsync: keep qd writes in flight until the deadline, latency per write. */
static int run_stream(struct bench *b)
{
	struct awr_completion c[REAP_MAX];
	unsigned int again[REAP_MAX], nr_again = 0;
	uint64_t now;
	int n, ret = 0;

	for (unsigned int s = 0; s < b->o->qd && !ret; s++) {	/* the first qd, REAP_MAX at a time */
		again[nr_again++] = s;
		if (nr_again == REAP_MAX || s + 1 == b->o->qd) {
			ret = queue_slots(b, again, nr_again);
			nr_again = 0;
		}
	}
	while (!ret && awr_ring_outstanding(b->r)) {
		n = awr_ring_reap(b->r, c, REAP_MAX, 1);
		if (n < 0)
			return fail(b, n, "waiting for completions failed: %s", strerror(-n));
		now = now_ns();
		nr_again = 0;
		for (int i = 0; i < n; i++) {
			unsigned int s = (unsigned int)c[i].tag;

			if (c[i].res != (int)b->o->unit) {
				fail_write(b, &c[i], b->off[s], b->o->unit);
				continue;
			}
			hist_add(&b->hist, now - b->t_start[s], 1);
			b->res->pages++;
			if (!b->res->error && running(b, now))
				again[nr_again++] = s;
		}
		ret = queue_slots(b, again, nr_again);
		progress(b, now, false);
	}
	return ret ? fail(b, ret, "queueing failed: %s", strerror(-ret)) : b->res->error;
}

/* Write the batch's pages (slot i at b->off[i]) with qd in flight; wait for all. */
static int write_batch(struct bench *b)
{
	struct awr_completion c[REAP_MAX];
	unsigned int next = 0;
	int n, ret;

	while (next < b->batch || awr_ring_outstanding(b->r)) {
		while (next < b->batch && !b->res->error) {
			ret = queue_page(b, next);
			if (ret == -EBUSY)
				break;
			if (ret)
				return fail(b, ret, "queueing failed: %s", strerror(-ret));
			next++;
		}
		if (b->res->error && next < b->batch)
			next = b->batch;
		n = awr_ring_reap(b->r, c, REAP_MAX, 1);
		if (n < 0)
			return fail(b, n, "waiting for completions failed: %s", strerror(-n));
		for (int i = 0; i < n; i++)
			if (c[i].res != (int)b->o->unit)
				fail_write(b, &c[i], b->off[c[i].tag], b->o->unit);
	}
	return b->res->error;
}

static int sync_step(struct bench *b)
{
	if (b->o->durability != BENCH_DUR_FDATASYNC)
		return 0;
	if (fdatasync(awr_file_fd(b->f)))
		return fail(b, -errno, "fdatasync failed: %s", strerror(errno));
	return 0;
}

/* The doublewrite copy: the batch's buffer written sequentially to the doublewrite area. */
static int write_dw_copy(struct bench *b)
{
	uint64_t len = (uint64_t)b->batch * b->o->unit, chunk = b->o->unit;
	struct awr_batch_result res;
	int ret;

	while (chunk * 2 <= DW_CHUNK_MAX && len % (chunk * 2) == 0)
		chunk *= 2;
	ret = awr_write_units(b->r, b->buf, b->dw_offset, len, chunk,
			      AWR_WRITE_PLAIN | (b->flags & AWR_WRITE_DSYNC), &res);
	if (ret)
		return fail(b, ret, "doublewrite copy: %s", res.verdict.message[0] ? res.verdict.message : strerror(-ret));
	return 0;
}

/* One step of a batch, its time added to the step's (BENCH_STEP_*). */
static int timed_step(struct bench *b, int (*step)(struct bench *), enum bench_step k)
{
	uint64_t t = now_ns();
	int ret = step(b);

	b->step_ns[k] += now_ns() - t;
	return ret;
}

/* fdatasync durability or doublewrite: batches of pages, latency per batch, time per step. */
static int run_batches(struct bench *b, bool doublewrite)
{
	uint64_t t0 = now_ns(), t1;

	while (running(b, t0)) {
		for (unsigned int i = 0; i < b->batch; i++)
			b->off[i] = next_offset(b);
		if (doublewrite && (timed_step(b, write_dw_copy, BENCH_STEP_COPY) ||
				    timed_step(b, sync_step, BENCH_STEP_FLUSH)))
			return b->res->error;
		if (timed_step(b, write_batch, BENCH_STEP_WRITES) || timed_step(b, sync_step, BENCH_STEP_FLUSH))
			return b->res->error;
		b->batches++;
		t1 = now_ns();
		hist_add(&b->hist, t1 - t0, b->batch);
		b->res->pages += b->batch;
		progress(b, t1, false);
		t0 = t1;
	}
	return 0;
}

/* The job's ring: made in its own thread (a ring is used by the thread that made it). */
static int job_ring(struct bench *b)
{
	unsigned int slots = b->o->qd > b->batch ? b->o->qd : b->batch;
	struct iovec iov = { b->buf, (size_t)slots * b->o->unit };
	unsigned int rflags = AWR_RING_REGISTER_FILE | (b->o->sqpoll ? AWR_RING_SQPOLL : 0);
	int ret = awr_ring_create(b->f, b->o->qd, rflags, &b->r);

	if (ret)
		return fail(b, ret, "cannot set up io_uring with queue depth %u%s: %s", b->o->qd,
			    b->o->sqpoll ? " and SQPOLL" : "", strerror(-ret));
	if (b->fixed && (ret = awr_ring_register_buffers(b->r, &iov, 1)))
		return fail(b, ret, "cannot register the page buffers with io_uring: %s", strerror(-ret));
	return 0;
}

static void *job_run(void *arg)
{
	struct bench *b = arg;
	if (!job_ring(b))
		bench_modes[b->mode].run(b);
	if (b->r)
		awr_ring_stats(b->r, &b->ring);
	awr_ring_free(b->r);
	b->r = NULL;
	return NULL;
}

static int run_stream_mode(struct bench *b)
{
	if (b->o->durability == BENCH_DUR_FDATASYNC)
		return run_batches(b, false);
	return run_stream(b);
}

static int run_doublewrite_mode(struct bench *b)
{
	return run_batches(b, true);
}

/* The modes: a new one adds its enum bench_mode entry, its name and runner here. */
const struct bench_mode_desc bench_modes[BENCH__MODES] = {
	[BENCH_ATOMIC] = { "atomic", 0, run_stream_mode },
	[BENCH_PLAIN] = { "plain", AWR_WRITE_PLAIN, run_stream_mode },
	[BENCH_DOUBLEWRITE] = { "doublewrite", AWR_WRITE_PLAIN, run_doublewrite_mode },
	[BENCH_PAGES] = { "pages", 0, NULL },	/* the page store: bench_pages.c, run by bench_run() */
};

static double cpu_seconds(bool user_only)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (user_only ? 0 : (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
}

/* The jobs' figures into the mode's: pages and histograms summed, the first error kept. */
static void merge(struct bench *jobs, unsigned int n, struct bench_mode_result *r, struct hist *h)
{
	uint64_t below = 0, reaps = 0, sum = 0, qhist[QHIST] = { 0 }, step_ns[BENCH_STEPS] = { 0 };

	for (unsigned int i = 0; i < n; i++) {
		struct bench *b = &jobs[i];

		r->pages += b->res->pages;
		r->batches += b->batches;
		for (unsigned int k = 0; k < BENCH_STEPS; k++)
			step_ns[k] += b->step_ns[k];
		if (b->res->error && !r->error) {
			r->error = b->res->error;
			memcpy(r->message, b->res->message, sizeof(r->message));
		}
		for (unsigned int k = 0; k < HIST_BUCKETS; k++)
			h->b[k] += b->hist.b[k];
		h->count += b->hist.count;
		reaps += b->ring.reaps;
		sum += b->ring.inflight_sum;
		below += b->ring.reaps_below_depth;
		for (unsigned int k = 0; k < QHIST; k++)
			qhist[k] += b->qhist[k];
		r->ring_setup_flags = b->ring.setup_flags;
		r->ring_wait_flags = b->ring.wait_flags;
	}
	r->inflight_mean = reaps ? (double)sum / (double)reaps : 0;
	r->reaps_below_depth_share = reaps ? (double)below / (double)reaps : 0;
	r->queue_ns_per_write = qhist_median(qhist);
	r->clock_read_ns = jobs[0].clock_ns;
	for (unsigned int k = 0; k < BENCH_STEPS && r->batches; k++)
		r->batch_step_ms[k] = (double)step_ns[k] / 1e6 / (double)r->batches;
}

static void run_mode(struct bench *jobs, enum bench_mode m, struct bench_mode_result *res)
{
	const struct bench_opts *o = jobs[0].o;
	unsigned int dsync = o->durability == BENCH_DUR_DSYNC ? AWR_WRITE_DSYNC : 0;
	struct bench_mode_result *part = calloc(o->jobs, sizeof(*part));
	pthread_t *tid = calloc(o->jobs, sizeof(*tid));
	struct hist *h = calloc(1, sizeof(*h));
	uint64_t start, end;
	double clock_ns;
	double cpu0 = cpu_seconds(false), ucpu0 = cpu_seconds(true);
	unsigned int started = 0;

	memset(res, 0, sizeof(*res));
	res->ran = true;
	if (!part || !tid || !h) {
		res->error = -ENOMEM;
		snprintf(res->message, sizeof(res->message), "out of memory");
		goto out;
	}
	clock_ns = clock_read_ns();
	start = now_ns();
	for (unsigned int i = 0; i < o->jobs; i++) {
		struct bench *b = &jobs[i];

		memset(&b->hist, 0, sizeof(b->hist));
		memset(&b->ring, 0, sizeof(b->ring));
		memset(b->qhist, 0, sizeof(b->qhist));
		memset(b->step_ns, 0, sizeof(b->step_ns));
		b->batches = 0;
		b->clock_ns = clock_ns;
		b->res = &part[i];
		b->mode = m;
		b->name = bench_modes[m].name;
		b->flags = bench_modes[m].flags | dsync;
		b->fixed = o->fixed_buffers && (b->flags & AWR_WRITE_PLAIN);
		b->start = b->shown = start;
		b->deadline = start + (uint64_t)(o->seconds * 1e9);
		if (o->jobs == 1)
			job_run(b);
		else if (!pthread_create(&tid[i], NULL, job_run, b))
			started++;
		else
			fail(b, -EAGAIN, "cannot start job %u's thread", i);
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	end = now_ns();
	progress(&jobs[0], end, true);
	merge(jobs, o->jobs, res, h);
	res->seconds = (double)(end - start) / 1e9;
	res->pages_per_s = res->seconds > 0 ? (double)res->pages / res->seconds : 0;
	res->mb_per_s = res->pages_per_s * (double)o->unit / 1e6;
	res->p50_us = hist_percentile_us(h, 50);
	res->p99_us = hist_percentile_us(h, 99);
	res->p999_us = hist_percentile_us(h, 99.9);
	if (h->count)
		hist_cdf(h, res);
	if (res->pages) {
		res->cpu_ns_per_page = (cpu_seconds(false) - cpu0) * 1e9 / (double)res->pages;
		res->user_cpu_ns_per_page = (cpu_seconds(true) - ucpu0) * 1e9 / (double)res->pages;
	}
out:
	free(part);
	free(tid);
	free(h);
}

/*
 * A new (empty) file: the span capped to what the filesystem has free (a quarter when pages mode
 * runs, whose store and naive doublewrite make two files of the span beside it; half otherwise),
 * then laid out for the hardware path where the filesystem has one for the page size
 * (awr_prepare(): XFS places every page on an extent aligned within its AG, ext4 preallocates).
 * A sparse file's first write to a page allocates it, which on XFS goes copy-on-write, so the
 * atomic figures would measure allocation instead of atomic writes. Without a hardware path the
 * file is written in full first, so that every mode overwrites pages that exist, as a database does.
 */
static uint64_t lay_out_new(int fd, const struct bench_opts *o, uint64_t size, char *layout, size_t len)
{
	struct awr_prepare_result pr;
	struct awr_fs_view v;
	struct statvfs sv;
	uint64_t cap, free_bytes;
	char a[32], b[32], c[32];

	if (!fstatvfs(fd, &sv)) {
		free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
		cap = free_bytes / ((o->modes & (1U << BENCH_PAGES)) ? 4 : 2) / o->unit * o->unit;
		if (cap && size > cap) {
			size = cap;
			snprintf(layout, len, "span capped to %s (of %s free); ", out_size(cap, a, sizeof(a)),
				 out_size(free_bytes, b, sizeof(b)));
		}
	}
	size = size / o->unit * o->unit;
	if (awr_fs_view_fd(fd, &v) || v.hardware_max < o->unit) {
		snprintf(layout + strlen(layout), len - strlen(layout), "%s (no hardware path for this page size here)",
			 bench_prefill(fd, size) ? "sparse: writing it in full failed" : "written in full");
		return size;
	}
	memset(&pr, 0, sizeof(pr));
	if (awr_prepare(fd, size, o->unit, 0, &pr)) {
		if (ftruncate(fd, 0))
			return 0;
		snprintf(layout + strlen(layout), len - strlen(layout), "%s (awr prepare refused: %.120s)",
			 bench_prefill(fd, size) ? "sparse: writing it in full failed" : "written in full", pr.message);
		return size;
	}
	snprintf(layout + strlen(layout), len - strlen(layout), "prepared: %s of %s on %s-aligned extents (the hardware path's placement)",
		 out_size(pr.aligned_bytes, a, sizeof(a)), out_size(pr.total_bytes, b, sizeof(b)),
		 out_size(o->unit, c, sizeof(c)));
	return size;
}

/* A regular file is extended to @size (a new one laid out first); a block device spans min(size, device). */
static int open_target(int fd, const struct bench_opts *o, uint64_t size, struct awr_file **f, uint64_t *span,
		       char *layout, size_t len)
{
	struct stat st;
	int ret;

	if (fstat(fd, &st)) {
		out_error("cannot examine the bench target: %s", strerror(errno));
		return -errno;
	}
	snprintf(layout, len, "%s", S_ISREG(st.st_mode) ? "existing file" : "block device");
	if (S_ISREG(st.st_mode) && !st.st_size && !st.st_blocks) {
		layout[0] = '\0';
		size = lay_out_new(fd, o, size, layout, len);
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < size && ftruncate(fd, (off_t)size)) {
		out_error("cannot extend the bench target to %" PRIu64 " bytes: %s", size, strerror(errno));
		return -errno;
	}
	ret = awr_file_from_fd(fd, f);
	if (ret) {
		out_error("cannot use the bench target for direct writing: %s", strerror(-ret));
		return ret;
	}
	*span = size;
	if (awr_file_limits(*f)->dev_size && awr_file_limits(*f)->dev_size < size)
		*span = awr_file_limits(*f)->dev_size;
	return 0;
}

/* The span: the data area, then one doublewrite area of batch pages per job. */
static int bench_setup(struct bench *b, const struct bench_opts *o, uint64_t span, unsigned int job)
{
	unsigned int slots = o->qd > b->batch ? o->qd : b->batch;
	uint64_t dw_bytes = (uint64_t)b->batch * o->unit;

	if (!o->unit || o->unit % 512 || o->unit > (1ULL << 30) || !o->qd || !b->batch || !o->jobs) {
		out_error("bench: unit %" PRIu64 ", queue depth %u, batch %u, jobs %u: need a unit that is a multiple of 512 up to 1 GiB and non-zero depth, batch and jobs",
			  o->unit, o->qd, b->batch, o->jobs);
		return -EINVAL;
	}
	if (span < o->jobs * (dw_bytes + (uint64_t)slots * o->unit)) {
		out_error("bench: span %" PRIu64 " is too small: %u job(s) need at least %" PRIu64 " bytes (doublewrite area plus one page per slot, per job)",
			  span, o->jobs, o->jobs * (dw_bytes + (uint64_t)slots * o->unit));
		return -EINVAL;
	}
	b->job = job;
	b->npages = (span - o->jobs * dw_bytes) / o->unit;
	b->dw_offset = b->npages * o->unit + job * dw_bytes;
	b->rng = 0x9E3779B97F4A7C15ULL * (job + 1);	/* job 0: the raw loop's page order */
	b->seq = b->npages / o->jobs * job;
	b->t_start = calloc(slots, sizeof(*b->t_start));
	b->off = calloc(slots, sizeof(*b->off));
	if (!b->t_start || !b->off || posix_memalign((void **)&b->buf, 4096, slots * o->unit))
		return -ENOMEM;
	for (uint64_t i = 0; i < slots * o->unit; i++)
		b->buf[i] = (unsigned char)(i * 31 + (i >> 12));
	return 0;
}

/* The device offset + 1 of each page of the data area (FIEMAP; 0: not mapped), NULL for a block device. */
static uint64_t *page_map(int fd, uint64_t unit, uint64_t npages)
{
	struct awr_extent_report *r = NULL;
	uint64_t *map;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || awr_extents_read(fd, unit, &r))
		return NULL;
	map = calloc(npages ? npages : 1, sizeof(*map));
	for (unsigned int i = 0; map && i < r->nr_extents; i++) {
		const struct awr_extent *e = &r->extents[i];

		if (e->flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE))
			continue;
		for (uint64_t p = (e->logical + unit - 1) / unit; p < npages && (p + 1) * unit <= e->logical + e->length; p++)
			map[p] = e->physical + (p * unit - e->logical) + 1;
	}
	awr_extent_report_free(r);
	return map;
}

/* One mode on the jobs, and how many pages its writes moved (the path they took). */
static void run_mode_mapped(struct bench *jobs, enum bench_mode m, struct bench_mode_result *res)
{
	int fd = awr_file_fd(jobs[0].f);
	uint64_t n = jobs[0].npages, unit = jobs[0].o->unit;
	uint64_t *before = page_map(fd, unit, n), *after;

	run_mode(jobs, m, res);
	res->moved_pages = -1;
	after = before ? page_map(fd, unit, n) : NULL;
	if (after) {
		res->moved_pages = 0;
		for (uint64_t p = 0; p < n; p++)
			res->moved_pages += before[p] && before[p] != after[p];
	}
	free(before);
	free(after);
}

int bench_run(int fd, const struct bench_opts *o, struct bench_result *out)
{
	struct bench *jobs;
	struct awr_file *f = NULL;
	uint64_t span = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	for (int m = 0; m < BENCH__MODES; m++)
		out->mode[m].moved_pages = -1;		/* not read unless run_mode_mapped() does */
	ret = open_target(fd, o, o->size, &f, &span, out->layout, sizeof(out->layout));
	if (ret)
		return ret;
	jobs = calloc(o->jobs ? o->jobs : 1, sizeof(*jobs));
	if (!jobs) {
		awr_file_close(f);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < o->jobs && !ret; i++) {
		jobs[i] = (struct bench){ .o = o, .f = f, .batch = o->batch ? o->batch : o->qd };
		ret = bench_setup(&jobs[i], o, span, i);
	}
	if (ret)
		goto err;
	out->span = span;
	out->dw_offset = jobs[0].dw_offset;
	for (int m = 0; m < BENCH__MODES; m++)
		if ((o->modes & (1U << m)) && m == BENCH_PAGES)	/* one store, whatever --jobs */
			bench_pages_run(o, jobs[0].npages, jobs[0].batch, out);
		else if (o->modes & (1U << m))
			run_mode_mapped(jobs, (enum bench_mode)m, &out->mode[m]);
	out->mode[BENCH_PAGES].moved_pages = -1;	/* pages mode writes files of its own */
	out->pages_pair.doublewrite.moved_pages = out->pages_pair.naive.moved_pages = -1;
err:
	for (unsigned int i = 0; i < o->jobs; i++) {
		free(jobs[i].buf);
		free(jobs[i].t_start);
		free(jobs[i].off);
	}
	free(jobs);
	awr_file_close(f);
	return ret;
}

void bench_opts_default(struct bench_opts *o)
{
	*o = (struct bench_opts){
		.unit = 16384, .qd = 32, .jobs = 1, .seconds = 10, .size = 256ULL << 20,
		.modes = (1U << BENCH__MODES) - 1, .durability = BENCH_DUR_FDATASYNC,
		.order = BENCH_RANDOM,
	};
}

const char *bench_mode_name(enum bench_mode m)
{
	return (unsigned int)m < BENCH__MODES ? bench_modes[m].name : "unknown";
}

const char *bench_durability_name(enum bench_durability d)
{
	static const char *const names[] = { "fdatasync", "dsync", "none" };

	return (unsigned int)d < 3 ? names[d] : "unknown";
}
