// SPDX-License-Identifier: MIT
/*
 * Pages mode of awr_bench_run(): the untorn page store (awr_pages_open(3)) beside a
 * naive doublewrite, measured in pairs. Three writers, each on a scratch file
 * of its own beside the bench target (PATH.awr-pages.XXXXXX, removed
 * afterwards), each written in full first (a database's file is allocated;
 * writes into holes cost allocations that overwrites do not):
 *   pages      the store in the mode AUTO chooses (its own first batches,
 *              which AUTO times, included);
 *   pages-dw   the store forced to doublewrite mode;
 *   naive-dw   what a database without the store writes: the batch written
 *              in one write to an area at the end of the file, fdatasync, the
 *              pages written in place through io_uring (queue depth --qd),
 *              fdatasync.
 * Every round writes one batch (--batch pages, the same page numbers from
 * bench.c's random or sequential sequence) with each writer, in an order that
 * rotates from round to round, so that the three share the machine's quiet
 * and busy moments alike; each is durable when its batch returns. A writer's
 * pages/s is its pages over the time of its own batches; the paired ratio is
 * the median over rounds of naive-dw's batch time over the store's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

enum { W_AUTO, W_DW, W_NAIVE, W__N };

struct writer {
	struct awr_bench_mode_result *res;
	char path[4096 + 32];
	struct awr_pages *s;		/* the store (W_AUTO, W_DW) */
	int fd;				/* naive-dw's file */
	struct awr_file *f;
	struct awr_queue *q;
	uint64_t *lat;			/* batch times, ns */
	uint64_t ns;			/* sum of them */
	double cpu, ucpu;		/* the process's CPU during its batches, s */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The page number sequence of bench.c's random order (xorshift64*, same seed). */
static uint64_t next_page(uint64_t *rng, uint64_t npages, uint64_t *seq,
			  enum awr_bench_order order)
{
	uint64_t x;

	if (order == AWR_BENCH_SEQUENTIAL)
		return (*seq)++ % npages;
	*rng ^= *rng >> 12;
	*rng ^= *rng << 25;
	*rng ^= *rng >> 27;
	x = *rng * 0x2545F4914F6CDD1DULL;
	return (uint64_t)(((unsigned __int128)x * npages) >> 64);
}

/* naive-dw's batch: area write, fdatasync, in place through the ring, fdatasync. */
static int naive_batch(struct writer *w, const struct awr_bench_opts *o, const unsigned char *buf,
		       const uint64_t *off, unsigned int batch, uint64_t area_off)
{
	struct awr__bench_failure bad;
	size_t len = (size_t)batch * o->unit;
	int ret;

	if (pwrite(w->fd, buf, len, (off_t)area_off) != (ssize_t)len)
		return errno ? -errno : -EIO;
	if (fdatasync(w->fd))
		return -errno;
	ret = awr__bench_write_pages(w->q, buf, off, batch, o->unit, AWR_WRITE_PLAIN, &bad);
	if (ret)
		return ret;
	return fdatasync(w->fd) ? -errno : 0;
}

static int store_batch(struct writer *w, const unsigned char *buf, const uint64_t *pn,
		       unsigned int batch, uint64_t unit, struct awr_page *pg)
{
	for (unsigned int i = 0; i < batch; i++)
		pg[i] = (struct awr_page){ .buf = buf + (size_t)i * unit, .page_no = pn[i] };
	return awr_pages_write(w->s, pg, batch);
}

static void percentiles(struct awr_bench_mode_result *res, uint64_t *lat, size_t n)
{
	if (!n)
		return;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	res->p50_us = (double)lat[(n - 1) * 50 / 100] / 1000.0;
	res->p99_us = (double)lat[(n - 1) * 99 / 100] / 1000.0;
	res->p999_us = (double)lat[(n - 1) * 999 / 1000] / 1000.0;
	/* the distribution: the sorted batches at evenly spaced ranks, the last one the maximum */
	res->cdf_n = n < AWR_BENCH_CDF_MAX ? (unsigned int)n : AWR_BENCH_CDF_MAX;
	for (unsigned int i = 0; i < res->cdf_n; i++) {
		size_t k = (n - 1) * (i + 1) / res->cdf_n;

		res->cdf_us[i] = (double)lat[k] / 1000.0;
		res->cdf_share[i] = (double)(k + 1) / (double)n;
	}
}

static void finish(struct writer *w, const struct awr_bench_opts *o, size_t rounds,
		   unsigned int batch)
{
	struct awr_bench_mode_result *res = w->res;

	res->pages = (uint64_t)rounds * batch;
	res->seconds = (double)w->ns / 1e9;
	res->pages_per_s = res->seconds > 0 ? (double)res->pages / res->seconds : 0;
	res->mb_per_s = res->pages_per_s * (double)o->unit / 1e6;
	if (res->pages) {
		res->cpu_ns_per_page = w->cpu * 1e9 / (double)res->pages;
		res->user_cpu_ns_per_page = w->ucpu * 1e9 / (double)res->pages;
	}
	percentiles(res, w->lat, rounds);
}

/* One round's batch of every writer, the same pages. */
struct round {
	const struct awr_bench_opts *o;
	const unsigned char *buf;
	const uint64_t *pn;
	uint64_t *off;		/* the pages' byte offsets */
	unsigned int batch;
	uint64_t area_off;	/* naive-dw's doublewrite area */
	struct awr_page *pg;
	size_t n;		/* the round's number */
};

/* One batch of writer @k, timed, its CPU counted. */
static int one_batch(struct writer *w, int k, const struct round *rd)
{
	double c0 = awr__cpu_s(false), u0 = awr__cpu_s(true);
	uint64_t t0 = awr__now_ns();
	int ret;

	if (k == W_NAIVE)
		ret = naive_batch(w, rd->o, rd->buf, rd->off, rd->batch, rd->area_off);
	else
		ret = store_batch(w, rd->buf, rd->pn, rd->batch, rd->o->unit, rd->pg);
	w->lat[rd->n] = awr__now_ns() - t0;
	w->ns += w->lat[rd->n];
	w->cpu += awr__cpu_s(false) - c0;
	w->ucpu += awr__cpu_s(true) - u0;
	if (ret)
		snprintf(w->res->message, sizeof(w->res->message), "%s: %s",
			 k == W_NAIVE ? "the naive doublewrite failed" :
			 "the store's write failed", strerror(-ret));
	return ret;
}

/* Room for twice the rounds in every writer's latencies and in the ratios. */
static int grow(struct writer *w, double **ratio, size_t *cap)
{
	double *more_r;

	for (int k = 0; k < W__N; k++) {
		uint64_t *more = realloc(w[k].lat, *cap * 2 * sizeof(*more));

		if (!more)
			return -ENOMEM;
		w[k].lat = more;
	}
	more_r = realloc(*ratio, *cap * 2 * sizeof(*more_r));
	if (!more_r)
		return -ENOMEM;
	*ratio = more_r;
	*cap *= 2;
	return 0;
}

/* The paired ratios over @rounds rounds: naive-dw's batch time over the store's. */
static void pair_figures(struct writer *w, double *ratio, size_t rounds,
			 struct awr_bench_result *r)
{
	double *dw = malloc(rounds * sizeof(*dw));

	r->rounds = rounds;
	if (!rounds) {
		free(dw);
		return;
	}
	if (dw) {
		for (size_t i = 0; i < rounds; i++)
			dw[i] = (double)w[W_NAIVE].lat[i] / (double)w[W_DW].lat[i];
		qsort(dw, rounds, sizeof(*dw), cmp_double);
		r->pages_dw_to_naive_median = dw[rounds / 2];
		free(dw);
	}
	qsort(ratio, rounds, sizeof(*ratio), cmp_double);
	r->pages_to_naive_median = ratio[rounds / 2];
	r->pages_to_naive_q1 = ratio[rounds / 4];
	r->pages_to_naive_q3 = ratio[rounds * 3 / 4];
}

/* Rounds until the deadline: a batch of each writer, in an order that rotates (ABC, BCA, CAB). */
static int rounds_run(struct writer *w, struct round *rd, uint64_t npages, double **ratio,
		      size_t *cap)
{
	uint64_t rng = 0x9E3779B97F4A7C15ULL, seq = 0, *pn = (uint64_t *)rd->pn;
	/* each writer gets about o->seconds of its own time */
	uint64_t deadline = awr__now_ns() + (uint64_t)(rd->o->seconds * W__N * 1e9);
	int ret = 0;

	for (rd->n = 0; awr__now_ns() < deadline && !awr__bench_stopped; rd->n++) {
		if (rd->n == *cap && (ret = grow(w, ratio, cap)))
			return ret;
		for (unsigned int i = 0; i < rd->batch; i++) {
			pn[i] = next_page(&rng, npages, &seq, rd->o->order);
			rd->off[i] = pn[i] * rd->o->unit;
		}
		for (int j = 0; j < W__N && !ret; j++) {
			int k = (int)((rd->n + (size_t)j) % W__N);

			ret = one_batch(&w[k], k, rd);
			if (ret)
				w[k].res->error = ret;
		}
		if (ret)
			return ret;
		(*ratio)[rd->n] = (double)w[W_NAIVE].lat[rd->n] / (double)w[W_AUTO].lat[rd->n];
	}
	return 0;
}

static int measure(struct writer *w, const struct awr_bench_opts *o, uint64_t npages,
		   unsigned int batch, struct awr_bench_result *r)
{
	struct round rd = { .o = o, .batch = batch, .area_off = npages * o->unit };
	uint64_t *pn = calloc(batch, sizeof(*pn)), *off = calloc(batch, sizeof(*off));
	struct awr_page *pg = calloc(batch, sizeof(*pg));
	size_t cap = 1024;
	double *ratio = malloc(cap * sizeof(*ratio));
	unsigned char *buf = NULL;
	int ret = -ENOMEM;

	for (int k = 0; k < W__N; k++)
		w[k].lat = malloc(cap * sizeof(*w[k].lat));
	if (!pn || !off || !pg || !ratio || !w[0].lat || !w[1].lat || !w[2].lat ||
	    posix_memalign((void **)&buf, 4096, (size_t)batch * o->unit))
		goto out;
	for (uint64_t i = 0; i < (uint64_t)batch * o->unit; i++)
		buf[i] = (unsigned char)(i * 31 + (i >> 12));
	rd.buf = buf;
	rd.pn = pn;
	rd.off = off;
	rd.pg = pg;
	ret = rounds_run(w, &rd, npages, &ratio, &cap);
	if (ret == -ENOMEM)
		goto out;
	pair_figures(w, ratio, rd.n, r);
	for (int k = 0; k < W__N; k++)
		finish(&w[k], o, rd.n, batch);
out:
	for (int k = 0; k < W__N; k++) {
		free(w[k].lat);
		w[k].lat = NULL;
	}
	free(ratio);
	free(buf);
	free(pg);
	free(pn);
	free(off);
	return ret;
}

/*
 * A scratch file beside the target, written in full (the store's or
 * naive-dw's); its descriptor, O_RDWR | O_DIRECT, in *fd_out.
 */
static int scratch(struct writer *w, const struct awr_bench_opts *o, uint64_t size, int *fd_out)
{
	int fd, ret;

	snprintf(w->path, sizeof(w->path), "%s.awr-pages.XXXXXX", o->path);
	fd = mkostemp(w->path, O_CLOEXEC);
	if (fd < 0) {
		w->path[0] = 0;
		snprintf(w->res->message, sizeof(w->res->message),
			 "cannot make a scratch file beside %.200s: %s", o->path, strerror(errno));
		return -errno;
	}
	ret = awr__bench_prefill(fd, size);
	if (ret) {
		close(fd);
		snprintf(w->res->message, sizeof(w->res->message),
			 "cannot write the scratch file in full: %s", strerror(-ret));
		return ret;
	}
	*fd_out = fd;
	return 0;
}

static int open_writer(struct writer *w, int k, const struct awr_bench_opts *o, uint64_t npages,
		       unsigned int batch)
{
	static const unsigned int flags[] = { AWR_PAGES_AUTO, AWR_PAGES_DOUBLEWRITE };
	int ret, fd = -1;

	w->res->ran = true;
	ret = scratch(w, o, (npages + (k == W_NAIVE ? batch : 0)) * o->unit, &fd);
	if (ret)
		return ret;
	if (k != W_NAIVE) {
		/* the store opens it itself, by path with its guard (no symbolic link) */
		close(fd);
		ret = awr_pages_open(w->path, (uint32_t)o->unit, flags[k], &w->s);
		if (ret)
			snprintf(w->res->message, sizeof(w->res->message), "%.250s",
				 awr_last_error());
		return ret;
	}
	w->fd = fd;
	ret = awr_file_from_fd(w->fd, &w->f);
	if (!ret)
		ret = awr_queue_open(AWR_QUEUE_URING, NULL, w->f, o->qd, AWR_QUEUE_REGISTER_FILE,
				     &w->q);
	if (ret)
		snprintf(w->res->message, sizeof(w->res->message),
			 "cannot set up naive-dw's ring: %s", strerror(-ret));
	return ret;
}

static void close_writer(struct writer *w)
{
	char dw[sizeof(w->path) + 16];

	awr_pages_close(w->s);
	awr_queue_close(w->q);
	awr_file_close(w->f);
	if (w->fd >= 0)
		close(w->fd);
	if (w->path[0]) {
		unlink(w->path);
		snprintf(dw, sizeof(dw), "%s.awr-dw", w->path);
		unlink(dw);
	}
}

/* Whether pages mode can run here: NULL, or why not (the mode's row not run). */
static const char *pages_refused(const struct awr_bench_opts *o)
{
	struct stat st;

	if (!stat(o->path, &st) && S_ISBLK(st.st_mode))
		return "not measured: the target is a block device, and a store there needs the "
		       "device for itself (measure a store with a file on a filesystem)";
	return NULL;
}

/* The store's row carries a failure of any writer. */
static void pages_failed(struct writer *w, int ret)
{
	struct awr_bench_mode_result *res = w[W_AUTO].res;

	if (res->error)
		return;
	res->error = ret;
	for (int k = 0; k < W__N; k++)
		if (w[k].res->message[0] && w[k].res != res)
			snprintf(res->message, sizeof(res->message), "%s", w[k].res->message);
}

void awr__bench_pages_run(const struct awr_bench_opts *o, uint64_t npages, unsigned int batch,
			  struct awr__bench_out *out)
{
	struct awr_bench_mode_result *res = &out->mode[AWR_BENCH_PAGES];
	struct writer w[W__N] = {
		{ .res = res, .fd = -1 }, { .res = &out->mode[AWR_BENCH_PAGES_DW], .fd = -1 },
		{ .res = &out->mode[AWR_BENCH_NAIVE_DW], .fd = -1 },
	};
	int ret = 0;

	if (!o->path)
		return;		/* a caller without a target name (qualify): not measured */
	if (pages_refused(o)) {
		snprintf(out->r.pages_store, sizeof(out->r.pages_store), "%s", pages_refused(o));
		return;
	}
	res->ran = true;
	if (o->unit > (1U << 20) || (o->unit & (o->unit - 1))) {
		res->error = -EINVAL;
		snprintf(res->message, sizeof(res->message), "%s",
			 "the page store takes a power-of-two page size up to 1 MiB");
		return;
	}
	for (int k = 0; k < W__N && !ret; k++) {
		ret = open_writer(&w[k], k, o, npages, batch);
		if (ret) {
			w[k].res->error = ret;
			if (!w[k].res->message[0])
				snprintf(w[k].res->message, sizeof(w[k].res->message), "%s",
					 strerror(-ret));
		}
	}
	if (!ret) {
		ret = measure(w, o, npages, batch, &out->r);
		/* after the run: AUTO settles on its mode during the first batches */
		snprintf(out->r.pages_store, sizeof(out->r.pages_store), "%s: %s",
			 awr_pages_mode_name(awr_pages_mode(w[W_AUTO].s)),
			 awr_pages_explain(w[W_AUTO].s));
		if (ret == -ENOMEM)
			snprintf(res->message, sizeof(res->message), "out of memory");
	}
	if (ret)
		pages_failed(w, ret);
	for (int k = 0; k < W__N; k++)
		close_writer(&w[k]);
}
