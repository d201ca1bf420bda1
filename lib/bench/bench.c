// SPDX-License-Identifier: MIT
/*
 * The benchmark engine (awr_bench_run(), include/libatomicwr/bench.h):
 * database-style page writes through the library's queue (awr_queue_open(),
 * the io_uring engine) and its queued-write loop (awr__queue_run(),
 * lib/write/batch.c), atomic vs plain vs doublewrite, each mode on --jobs
 * threads with a queue each; pages mode is in pages.c, the latency histogram
 * in hist.c, the target in target.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench.h"
#include "write/queue.h"

#define QHIST		1024U	/* ns buckets of the queueing time per write */
#define DW_CHUNK_MAX	(1U << 20)		/* doublewrite copy: writes of up to 1 MiB */

volatile sig_atomic_t awr__bench_stopped;

/* One job: a thread with its own ring, buffers and page order (--jobs N runs N). */
struct bench {
	const struct awr_bench_opts *o;
	struct awr_file *f;
	struct awr_queue *q;
	struct awr_bench_mode_result *res;	/* the job's own result, merged after the mode */
	const char *name;
	enum awr_bench_mode mode;
	unsigned int job;
	unsigned int batch;
	unsigned int flags;		/* AWR_WRITE_* of in-place writes */
	bool fixed;			/* plain writes from the registered buffer */
	unsigned char *buf;		/* max(qd, batch) pages */
	uint64_t *t_start;		/* per slot: when queued (ns) */
	uint64_t *off;			/* per slot: offset */
	unsigned int *free_slots;	/* streaming: slots whose write completed */
	unsigned int nr_free;
	uint64_t now;			/* streaming: when the last reap returned */
	uint64_t t_queue;		/* streaming: when the write being queued was made */
	uint64_t npages;		/* pages in the data area */
	uint64_t dw_offset;		/* this job's doublewrite area */
	uint64_t seq, rng;
	uint64_t start, deadline, shown;
	struct awr_queue_stats ring;	/* the job's queue counters at the end of the mode */
	double clock_ns;		/* what one clock read costs (clock_read_ns()) */
	uint64_t qhist[QHIST];		/* writes by ns spent queueing each, less the clock */
	struct awr__hist hist;
	uint64_t batches;		/* batches run (fdatasync durability, doublewrite) */
	uint64_t step_ns[AWR_BENCH__STEPS];	/* their time in each step: copy, writes, flush */
};

/*
 * The modes: name, AWR_WRITE_* flags of its in-place writes, and the loop a
 * job runs until the deadline. A new one adds its enum awr_bench_mode entry
 * and its line in bench_modes[].
 */
struct bench_mode_desc {
	const char *name;
	unsigned int flags;
	int (*run)(struct bench *b);
};

static const struct bench_mode_desc bench_modes[AWR_BENCH__MODES];

static uint64_t next_offset(struct bench *b)
{
	uint64_t page, x;

	if (b->o->order == AWR_BENCH_SEQUENTIAL) {
		page = b->seq++ % b->npages;
	} else {
		b->rng ^= b->rng >> 12;		/* xorshift64* */
		b->rng ^= b->rng << 25;
		b->rng ^= b->rng >> 27;
		x = b->rng * 0x2545F4914F6CDD1DULL;
		page = (uint64_t)(((unsigned __int128)x * b->npages) >> 64);
	}
	return page * b->o->unit;
}

static int fail(struct bench *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
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

/* A completion that is not a whole page: say why. */
static int fail_write(struct bench *b, const struct awr_completion *c, uint64_t off, uint64_t len)
{
	return fail(b, c->res < 0 ? c->res : -EIO,
		    "the write of %" PRIu64 " bytes at %" PRIu64 " failed: %s",
		    len, off, c->res < 0 ? strerror(-c->res) : "short write");
}

/* Job 0 tells the caller's progress function, every half second and once at the end. */
static void progress(struct bench *b, uint64_t now, bool last)
{
	double el = (double)(now - b->start) / 1e9;
	struct awr_bench_progress p = {
		.mode = last ? NULL : b->name, .seconds = el,
		.pages_per_s = el > 0 ? (double)b->res->pages * b->o->jobs / el : 0,
	};

	if (!b->o->progress || b->job || (!last && now - b->shown < 500000000ULL))
		return;
	b->shown = now;
	b->o->progress(&p, b->o->progress_arg);
}

/* A page the queue refused (a rule broken) stops the mode, naming the rule. */
static int refused(struct bench *b, int err, const struct awr_verdict *v)
{
	return fail(b, err, "refused before the kernel: %s (rule %s)", v->message,
		    awr_rule_name(v->rule));
}

/* Until the deadline, unless awr_bench_stop() asked to stop. */
static bool running(const struct bench *b, uint64_t now)
{
	return now < b->deadline && !awr__bench_stopped;
}

/* @n writes that took @per ns each to queue, into the histogram of whole ns */
static void qhist_add(struct bench *b, double per, unsigned int n)
{
	b->qhist[per <= 0 ? 0 : per >= QHIST - 1 ? QHIST - 1 : (unsigned int)per] += n;
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
			t = awr__now_ns();
			sum += awr__now_ns() - t;
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

/*
 * Durability none or dsync: qd writes in flight until the deadline through
 * the queued-write loop (awr__queue_run()), each write in a slot of its own
 * (its page of the buffer, its offset, when it was made), taken back when it
 * completes. The time from stream_next() to stream_sent() (the page order,
 * the rule check, the SQE; no system call) is the library's CPU per queued
 * write, measured in the running loop.
 */
static int stream_next(void *arg, uint64_t i, const void **buf, uint64_t *off, uint64_t *tag)
{
	struct bench *b = arg;
	unsigned int s;

	(void)i;
	if (!running(b, b->now))
		return -ECANCELED;	/* no more writes: those in flight complete */
	s = b->free_slots[b->nr_free - 1];	/* taken in stream_sent() */
	b->t_queue = awr__now_ns();
	b->t_start[s] = b->t_queue;
	b->off[s] = next_offset(b);
	*buf = b->buf + (uint64_t)s * b->o->unit;
	*off = b->off[s];
	*tag = s;
	return 0;
}

/*
 * Each write handed over as it is queued, as a ring made with
 * AWR_QUEUE_SUBMIT_EACH does, but by hand: the queueing is timed alone,
 * without the system call. At QD 1 the write goes with the reap's.
 */
static void stream_sent(void *arg, uint64_t tag)
{
	struct bench *b = arg;

	(void)tag;
	b->nr_free--;
	qhist_add(b, (double)(awr__now_ns() - b->t_queue) - b->clock_ns, 1);
	if (b->o->qd > 1)
		awr_queue_submit(b->q);
}

/* One clock read for a reap's completions. */
static void stream_reaped(void *arg, unsigned int n)
{
	struct bench *b = arg;

	(void)n;
	b->now = awr__now_ns();
	progress(b, b->now, false);
}

static void stream_done(void *arg, const struct awr_completion *c, int err,
			const struct awr_verdict *v)
{
	struct bench *b = arg;
	unsigned int s = (unsigned int)c->tag;

	if (v) {		/* never sent: its slot was not taken */
		refused(b, err, v);
		return;
	}
	b->free_slots[b->nr_free++] = s;
	if (err) {
		fail_write(b, c, b->off[s], b->o->unit);
		return;
	}
	awr__hist_add(&b->hist, b->now - b->t_start[s], 1);
	b->res->pages++;
}

static int run_stream(struct bench *b)
{
	static const struct awr__run_ops ops = {
		.next = stream_next, .sent = stream_sent, .reaped = stream_reaped,
		.done = stream_done,
	};
	struct awr__run r = { .q = b->q, .ops = &ops, .arg = b, .nr = UINT64_MAX,
			      .len = (size_t)b->o->unit, .flags = b->flags };
	int ret;

	b->nr_free = 0;
	for (unsigned int s = b->o->qd; s-- > 0;)
		b->free_slots[b->nr_free++] = s;	/* slot 0 first */
	b->now = awr__now_ns();
	ret = awr__queue_run(&r);
	if (ret && ret != -ECANCELED)
		return fail(b, ret, "queueing failed: %s", strerror(-ret));
	return b->res->error;
}

/* A batch's page i: from the buffer's page i to off[i]; the first failure kept. */
struct pages_run {
	const unsigned char *buf;
	const uint64_t *off;
	uint64_t unit;
	struct awr__bench_failure *bad;
};

static int pages_next(void *arg, uint64_t i, const void **buf, uint64_t *off, uint64_t *tag)
{
	const struct pages_run *p = arg;

	*buf = p->buf + i * p->unit;
	*off = p->off[i];
	*tag = i;
	return 0;
}

static void pages_done(void *arg, const struct awr_completion *c, int err,
		       const struct awr_verdict *v)
{
	struct pages_run *p = arg;

	if (!err || p->bad->error)
		return;
	p->bad->error = err;
	p->bad->c = *c;
	if (v)
		p->bad->v = *v;
}

int awr__bench_write_pages(struct awr_queue *q, const unsigned char *buf, const uint64_t *off,
			   unsigned int n, uint64_t unit, unsigned int flags,
			   struct awr__bench_failure *bad)
{
	static const struct awr__run_ops ops = { .next = pages_next, .done = pages_done };
	struct pages_run p = { buf, off, unit, bad };
	struct awr__run r = { .q = q, .ops = &ops, .arg = &p, .nr = n, .len = (size_t)unit,
			      .flags = flags };
	int ret;

	memset(bad, 0, sizeof(*bad));
	ret = awr__queue_run(&r);
	return ret ? ret : bad->error;
}

/* Write the batch's pages (slot i at b->off[i]) with qd in flight; wait for all. */
static int write_batch(struct bench *b)
{
	struct awr__bench_failure bad;
	int ret = awr__bench_write_pages(b->q, b->buf, b->off, b->batch, b->o->unit, b->flags,
					 &bad);

	if (!ret)
		return 0;
	if (!bad.error)
		return fail(b, ret, "queueing failed: %s", strerror(-ret));
	if (bad.v.rule != AWR_RULE_OK)
		return refused(b, ret, &bad.v);
	return fail_write(b, &bad.c, b->off[bad.c.tag], b->o->unit);
}

static int sync_step(struct bench *b)
{
	if (b->o->durability != AWR_BENCH_FDATASYNC)
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
	ret = awr_queue_write_units(b->q, b->buf, b->dw_offset, len, chunk,
				    AWR_WRITE_PLAIN | (b->flags & AWR_WRITE_DSYNC), &res);
	if (ret)
		return fail(b, ret, "doublewrite copy: %s",
			    res.verdict.message[0] ? res.verdict.message : strerror(-ret));
	return 0;
}

/* One step of a batch, its time added to the step's (AWR_BENCH_STEP_*). */
static int timed_step(struct bench *b, int (*step)(struct bench *), enum awr_bench_step k)
{
	uint64_t t = awr__now_ns();
	int ret = step(b);

	b->step_ns[k] += awr__now_ns() - t;
	return ret;
}

/* fdatasync durability or doublewrite: batches of pages, latency per batch, time per step. */
static int run_batches(struct bench *b, bool doublewrite)
{
	uint64_t t0 = awr__now_ns(), t1;

	while (running(b, t0)) {
		for (unsigned int i = 0; i < b->batch; i++)
			b->off[i] = next_offset(b);
		if (doublewrite && (timed_step(b, write_dw_copy, AWR_BENCH_STEP_COPY) ||
				    timed_step(b, sync_step, AWR_BENCH_STEP_FLUSH)))
			return b->res->error;
		if (timed_step(b, write_batch, AWR_BENCH_STEP_WRITES) ||
		    timed_step(b, sync_step, AWR_BENCH_STEP_FLUSH))
			return b->res->error;
		b->batches++;
		t1 = awr__now_ns();
		awr__hist_add(&b->hist, t1 - t0, b->batch);
		b->res->pages += b->batch;
		progress(b, t1, false);
		t0 = t1;
	}
	return 0;
}

/* The job's queue: made in its own thread (a ring is used by the thread that made it). */
static int job_queue(struct bench *b)
{
	unsigned int slots = b->o->qd > b->batch ? b->o->qd : b->batch;
	struct iovec iov = { b->buf, (size_t)slots * b->o->unit };
	unsigned int qflags = AWR_QUEUE_REGISTER_FILE | (b->o->sqpoll ? AWR_QUEUE_SQPOLL : 0);
	int ret = awr_queue_open(AWR_QUEUE_URING, NULL, b->f, b->o->qd, qflags, &b->q);

	if (ret)
		return fail(b, ret, "cannot set up io_uring with queue depth %u%s: %s", b->o->qd,
			    b->o->sqpoll ? " and SQPOLL" : "", strerror(-ret));
	if (b->fixed && (ret = awr_queue_register_buffers(b->q, &iov, 1)))
		return fail(b, ret, "cannot register the page buffers with io_uring: %s",
			    strerror(-ret));
	return 0;
}

static void *job_run(void *arg)
{
	struct bench *b = arg;

	if (!job_queue(b))
		bench_modes[b->mode].run(b);
	if (b->q)
		awr_queue_stats(b->q, &b->ring);
	awr_queue_close(b->q);
	b->q = NULL;
	return NULL;
}

static int run_stream_mode(struct bench *b)
{
	if (b->o->durability == AWR_BENCH_FDATASYNC)
		return run_batches(b, false);
	return run_stream(b);
}

static int run_doublewrite_mode(struct bench *b)
{
	return run_batches(b, true);
}

static const struct bench_mode_desc bench_modes[AWR_BENCH__MODES] = {
	[AWR_BENCH_ATOMIC] = { "atomic", 0, run_stream_mode },
	[AWR_BENCH_PLAIN] = { "plain", AWR_WRITE_PLAIN, run_stream_mode },
	[AWR_BENCH_DOUBLEWRITE] = { "doublewrite", AWR_WRITE_PLAIN, run_doublewrite_mode },
	/* the page store and its two companions: pages.c, run by awr_bench_run() */
	[AWR_BENCH_PAGES] = { "pages", 0, NULL },
	[AWR_BENCH_PAGES_DW] = { "pages-dw", 0, NULL },
	[AWR_BENCH_NAIVE_DW] = { "naive-dw", 0, NULL },
};

/* One job's ring counters and step times into the mode's sums. */
static void merge_job(const struct bench *b, struct awr_bench_mode_result *r, uint64_t *sums,
		      uint64_t *qhist, uint64_t *step_ns)
{
	r->pages += b->res->pages;
	r->batches += b->batches;
	for (unsigned int k = 0; k < AWR_BENCH__STEPS; k++)
		step_ns[k] += b->step_ns[k];
	if (b->res->error && !r->error) {
		r->error = b->res->error;
		memcpy(r->message, b->res->message, sizeof(r->message));
	}
	sums[0] += b->ring.reaps;
	sums[1] += b->ring.inflight_sum;
	sums[2] += b->ring.reaps_below_depth;
	for (unsigned int k = 0; k < QHIST; k++)
		qhist[k] += b->qhist[k];
	r->ring_setup_flags = b->ring.setup_flags;
	r->ring_wait_flags = b->ring.wait_flags;
}

/* The jobs' figures into the mode's: pages and histograms summed, the first error kept. */
static void merge(struct bench *jobs, unsigned int n, struct awr_bench_mode_result *r,
		  struct awr__hist *h)
{
	uint64_t sums[3] = { 0 }, qhist[QHIST] = { 0 }, step_ns[AWR_BENCH__STEPS] = { 0 };

	for (unsigned int i = 0; i < n; i++) {
		merge_job(&jobs[i], r, sums, qhist, step_ns);
		for (unsigned int k = 0; k < AWR__HIST_BUCKETS; k++)
			h->b[k] += jobs[i].hist.b[k];
		h->count += jobs[i].hist.count;
	}
	r->inflight_mean = sums[0] ? (double)sums[1] / (double)sums[0] : 0;
	r->reaps_below_depth_share = sums[0] ? (double)sums[2] / (double)sums[0] : 0;
	r->queue_ns_per_write = qhist_median(qhist);
	r->clock_read_ns = jobs[0].clock_ns;
	for (unsigned int k = 0; k < AWR_BENCH__STEPS && r->batches; k++)
		r->batch_step_ms[k] = (double)step_ns[k] / 1e6 / (double)r->batches;
}

/* A job made ready for mode @m, starting at @start. */
static void job_ready(struct bench *b, enum awr_bench_mode m, struct awr_bench_mode_result *part,
		      uint64_t start, double clock_ns)
{
	const struct awr_bench_opts *o = b->o;
	unsigned int dsync = o->durability == AWR_BENCH_DSYNC ? AWR_WRITE_DSYNC : 0;

	memset(&b->hist, 0, sizeof(b->hist));
	memset(&b->ring, 0, sizeof(b->ring));
	memset(b->qhist, 0, sizeof(b->qhist));
	memset(b->step_ns, 0, sizeof(b->step_ns));
	b->batches = 0;
	b->clock_ns = clock_ns;
	b->res = part;
	b->mode = m;
	b->name = bench_modes[m].name;
	b->flags = bench_modes[m].flags | dsync;
	b->fixed = o->fixed_buffers && (b->flags & AWR_WRITE_PLAIN);
	if (b->fixed)
		b->flags |= AWR_WRITE_FIXED;
	b->start = b->shown = start;
	b->deadline = start + (uint64_t)(o->seconds * 1e9);
}

/* The jobs run mode @m, job 0 in this thread when it is the only one. */
static void run_jobs(struct bench *jobs, enum awr_bench_mode m, struct awr_bench_mode_result *part,
		     pthread_t *tid)
{
	const struct awr_bench_opts *o = jobs[0].o;
	double clock_ns = clock_read_ns();
	uint64_t start = awr__now_ns();
	unsigned int started = 0;

	for (unsigned int i = 0; i < o->jobs; i++) {
		struct bench *b = &jobs[i];

		job_ready(b, m, &part[i], start, clock_ns);
		if (o->jobs == 1)
			job_run(b);
		else if (!pthread_create(&tid[i], NULL, job_run, b))
			started++;
		else
			fail(b, -EAGAIN, "cannot start job %u's thread", i);
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}

static void run_mode(struct bench *jobs, enum awr_bench_mode m, struct awr_bench_mode_result *res)
{
	const struct awr_bench_opts *o = jobs[0].o;
	struct awr_bench_mode_result *part = calloc(o->jobs, sizeof(*part));
	pthread_t *tid = calloc(o->jobs, sizeof(*tid));
	struct awr__hist *h = calloc(1, sizeof(*h));
	double cpu0 = awr__cpu_s(false), ucpu0 = awr__cpu_s(true);
	uint64_t start, end;

	res->ran = true;
	if (!part || !tid || !h) {
		res->error = -ENOMEM;
		snprintf(res->message, sizeof(res->message), "out of memory");
		goto out;
	}
	run_jobs(jobs, m, part, tid);
	start = jobs[0].start;
	end = awr__now_ns();
	progress(&jobs[0], end, true);
	merge(jobs, o->jobs, res, h);
	res->seconds = (double)(end - start) / 1e9;
	res->pages_per_s = res->seconds > 0 ? (double)res->pages / res->seconds : 0;
	res->mb_per_s = res->pages_per_s * (double)o->unit / 1e6;
	awr__hist_figures(h, res);
	if (res->pages) {
		res->cpu_ns_per_page = (awr__cpu_s(false) - cpu0) * 1e9 / (double)res->pages;
		res->user_cpu_ns_per_page = (awr__cpu_s(true) - ucpu0) * 1e9 /
					    (double)res->pages;
	}
out:
	free(part);
	free(tid);
	free(h);
}

/* What a span must hold: one doublewrite area of batch pages and a page per slot, per job. */
static uint64_t span_needed(const struct awr_bench_opts *o, unsigned int batch)
{
	unsigned int slots = o->qd > batch ? o->qd : batch;

	return o->jobs * ((uint64_t)batch * o->unit + (uint64_t)slots * o->unit);
}

/* The span: the data area, then one doublewrite area of batch pages per job. */
static int bench_setup(struct bench *b, const struct awr_bench_opts *o, uint64_t span,
		       unsigned int job)
{
	unsigned int slots = o->qd > b->batch ? o->qd : b->batch;
	uint64_t dw_bytes = (uint64_t)b->batch * o->unit;

	b->job = job;
	b->npages = (span - o->jobs * dw_bytes) / o->unit;
	b->dw_offset = b->npages * o->unit + job * dw_bytes;
	b->rng = 0x9E3779B97F4A7C15ULL * (job + 1);	/* job 0: the raw loop's page order */
	b->seq = b->npages / o->jobs * job;
	b->t_start = calloc(slots, sizeof(*b->t_start));
	b->off = calloc(slots, sizeof(*b->off));
	b->free_slots = calloc(slots, sizeof(*b->free_slots));
	if (!b->t_start || !b->off || !b->free_slots ||
	    posix_memalign((void **)&b->buf, 4096, slots * o->unit))
		return -ENOMEM;
	for (uint64_t i = 0; i < slots * o->unit; i++)
		b->buf[i] = (unsigned char)(i * 31 + (i >> 12));
	return 0;
}

/* One mode on the jobs, and how many pages its writes moved (the path they took). */
static void run_mode_mapped(struct bench *jobs, enum awr_bench_mode m,
			    struct awr_bench_mode_result *res)
{
	int fd = awr_file_fd(jobs[0].f);
	uint64_t n = jobs[0].npages, unit = jobs[0].o->unit;
	uint64_t *before = awr__bench_page_map(fd, unit, n), *after;

	run_mode(jobs, m, res);
	res->moved_pages = -1;
	after = before ? awr__bench_page_map(fd, unit, n) : NULL;
	if (after) {
		res->moved_pages = 0;
		for (uint64_t p = 0; p < n; p++)
			res->moved_pages += before[p] && before[p] != after[p];
	}
	free(before);
	free(after);
}

static void jobs_free(struct bench *jobs, unsigned int n)
{
	for (unsigned int i = 0; jobs && i < n; i++) {
		free(jobs[i].buf);
		free(jobs[i].t_start);
		free(jobs[i].off);
		free(jobs[i].free_slots);
	}
	free(jobs);
}

/* The jobs of a run over @span, each set up; NULL with the reason in @r. */
static struct bench *jobs_make(const struct awr_bench_opts *o, struct awr_file *f, uint64_t span,
			       struct awr_bench_result *r, int *err)
{
	unsigned int batch = o->batch ? o->batch : o->qd;
	struct bench *jobs;

	if (span < span_needed(o, batch)) {
		*err = awr__bench_say(r->message, sizeof(r->message), -EINVAL,
				      "bench: span %" PRIu64 " is too small: %u job(s) need at "
				      "least %" PRIu64 " bytes (doublewrite area plus one page "
				      "per slot, per job)", span, o->jobs, span_needed(o, batch));
		return NULL;
	}
	*err = -ENOMEM;
	jobs = calloc(o->jobs, sizeof(*jobs));
	for (unsigned int i = 0; jobs && i < o->jobs; i++) {
		jobs[i] = (struct bench){ .o = o, .f = f, .batch = batch };
		if (bench_setup(&jobs[i], o, span, i))
			goto err;
	}
	if (jobs)
		*err = 0;
	return jobs;
err:
	jobs_free(jobs, o->jobs);
	return NULL;
}

/* Every mode asked for, in order; pages mode once, whatever the jobs. */
static void run_modes(struct bench *jobs, struct awr__bench_out *out)
{
	const struct awr_bench_opts *o = jobs[0].o;

	for (int m = 0; m <= AWR_BENCH_PAGES; m++)
		if ((o->modes & (1U << m)) && m == AWR_BENCH_PAGES)
			awr__bench_pages_run(o, jobs[0].npages, jobs[0].batch, out);
		else if (o->modes & (1U << m))
			run_mode_mapped(jobs, (enum awr_bench_mode)m, &out->mode[m]);
	for (int m = AWR_BENCH_PAGES; m < AWR_BENCH__MODES; m++)
		out->mode[m].moved_pages = -1;	/* pages mode writes files of its own */
}

static struct awr__bench_out *out_new(void)
{
	struct awr__bench_out *out = calloc(1, sizeof(*out));

	if (!out)
		return NULL;
	out->r.size = sizeof(out->r);
	for (int m = 0; m < AWR_BENCH__MODES; m++) {
		out->mode[m].size = sizeof(out->mode[m]);
		out->mode[m].moved_pages = -1;	/* not read unless run_mode_mapped() does */
	}
	return out;
}

/* pages/s of mode @a over mode @b's: 0 when either did not run or failed */
static double ratio(const struct awr__bench_out *out, enum awr_bench_mode a, enum awr_bench_mode b)
{
	const struct awr_bench_mode_result *x = &out->mode[a], *y = &out->mode[b];

	if (!x->ran || !y->ran || x->error || y->error || y->pages_per_s <= 0)
		return 0;
	return x->pages_per_s / y->pages_per_s;
}

static void ratios(struct awr__bench_out *out, uint64_t unit)
{
	struct awr_bench_result *r = &out->r;

	r->atomic_to_doublewrite = ratio(out, AWR_BENCH_ATOMIC, AWR_BENCH_DOUBLEWRITE);
	r->atomic_to_plain = ratio(out, AWR_BENCH_ATOMIC, AWR_BENCH_PLAIN);
	r->pages_to_doublewrite = ratio(out, AWR_BENCH_PAGES, AWR_BENCH_DOUBLEWRITE);
	r->data_pages = (r->dw_offset ? r->dw_offset : r->span) / unit;
}

int awr_bench_run(int fd, const struct awr_bench_opts *o, struct awr_bench_result **res)
{
	struct awr__bench_out *out = out_new();
	struct awr_file *f = NULL;
	struct bench *jobs = NULL;
	int ret;

	if (!res || !o) {
		free(out);
		return -EINVAL;
	}
	*res = out ? &out->r : NULL;
	if (!out)
		ret = -ENOMEM;
	else if ((ret = awr_bench_opts_check(o)))	/* refused before the target is touched */
		awr__bench_say(out->r.message, sizeof(out->r.message), ret, "bench: %s",
			       awr_last_error());
	else
		ret = awr__bench_target(fd, o, &f, out);
	if (!ret)
		jobs = jobs_make(o, f, out->r.span, &out->r, &ret);
	if (ret)
		goto err;
	out->r.dw_offset = jobs[0].dw_offset;
	out->r.batch = jobs[0].batch;
	run_modes(jobs, out);
	ratios(out, o->unit);
err:
	jobs_free(jobs, o->jobs);
	awr_file_close(f);
	awr__bench_stopped = 0;
	return ret;
}

const struct awr_bench_mode_result *awr_bench_result_mode(const struct awr_bench_result *r,
							  enum awr_bench_mode m)
{
	const struct awr__bench_out *out = (const struct awr__bench_out *)r;

	return r && (unsigned int)m < AWR_BENCH__MODES ? &out->mode[m] : NULL;
}

void awr_bench_result_free(struct awr_bench_result *r)
{
	free(r);
}

void awr_bench_stop(void)
{
	awr__bench_stopped = 1;
}

void awr_bench_opts_init(struct awr_bench_opts *o)
{
	*o = (struct awr_bench_opts){
		.unit = 16384, .qd = 32, .jobs = 1, .seconds = 10, .span = 256ULL << 20,
		.modes = AWR_BENCH_ALL, .durability = AWR_BENCH_FDATASYNC,
		.order = AWR_BENCH_RANDOM,
	};
}

const char *awr_bench_mode_name(enum awr_bench_mode m)
{
	return (unsigned int)m < AWR_BENCH__MODES ? bench_modes[m].name : "unknown";
}

const char *awr_bench_durability_name(enum awr_bench_durability d)
{
	static const char *const names[] = { "fdatasync", "dsync", "none" };

	return (unsigned int)d < 3 ? names[d] : "unknown";
}

const char *awr_bench_order_name(enum awr_bench_order o)
{
	return o == AWR_BENCH_RANDOM ? "random" : o == AWR_BENCH_SEQUENTIAL ? "sequential" :
	       "unknown";
}
