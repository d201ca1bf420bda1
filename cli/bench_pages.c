// SPDX-License-Identifier: MIT
/*
 * awr bench --mode pages: the untorn page store (awr_pages_open(3)) beside a
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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "awr.h"

enum { W_AUTO, W_DW, W_NAIVE, W__N };

struct writer {
	struct bench_mode_result *res;
	char path[4096 + 32];
	struct awr_pages *s;		/* the store (W_AUTO, W_DW) */
	int fd;				/* naive-dw's file */
	struct awr_file *f;
	struct awr_ring *r;
	uint64_t *lat;			/* batch times, ns */
	uint64_t ns;			/* sum of them */
	double cpu, ucpu;		/* the process's CPU during its batches, s */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static double cpu_s(bool user_only)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (user_only ? 0 : (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
}

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
static uint64_t next_page(uint64_t *rng, uint64_t npages, uint64_t *seq, enum bench_order order)
{
	if (order == BENCH_SEQUENTIAL)
		return (*seq)++ % npages;
	*rng ^= *rng >> 12;
	*rng ^= *rng << 25;
	*rng ^= *rng >> 27;
	return (uint64_t)(((unsigned __int128)(*rng * 0x2545F4914F6CDD1DULL) * npages) >> 64);
}

/*
 * A file written in full (1 MiB plain direct writes) and synced, through the descriptor given: pages
 * mode's scratch files through the one mkostemp() gave (never opened again by its path, which another
 * program could have replaced by a symbolic link in between), and a new bench file (bench.c).
 */
int bench_prefill(int fd, uint64_t size)
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

/* naive-dw's batch: area write, fdatasync, in place through the ring, fdatasync. */
static int naive_batch(struct writer *w, const struct bench_opts *o, const unsigned char *buf,
		       const uint64_t *pn, unsigned int batch, uint64_t area_off)
{
	struct awr_completion c[64];
	size_t len = (size_t)batch * o->unit;
	unsigned int next = 0, done = 0;
	int n, ret;

	if (pwrite(w->fd, buf, len, (off_t)area_off) != (ssize_t)len)
		return errno ? -errno : -EIO;
	if (fdatasync(w->fd))
		return -errno;
	while (done < batch) {
		while (next < batch) {
			ret = awr_ring_queue_write(w->r, buf + (size_t)next * o->unit, o->unit, pn[next] * o->unit,
						   next, AWR_WRITE_PLAIN);
			if (ret == -EBUSY)
				break;
			if (ret)
				return ret;
			next++;
		}
		n = awr_ring_reap(w->r, c, 64, 1);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			if (c[i].res != (int)o->unit)
				return c[i].res < 0 ? c[i].res : -EIO;
		done += (unsigned int)n;
	}
	return fdatasync(w->fd) ? -errno : 0;
}

static int store_batch(struct writer *w, const unsigned char *buf, const uint64_t *pn, unsigned int batch,
		       uint64_t unit, struct awr_page *pg)
{
	for (unsigned int i = 0; i < batch; i++)
		pg[i] = (struct awr_page){ .buf = buf + (size_t)i * unit, .page_no = pn[i] };
	return awr_pages_write(w->s, pg, batch);
}

static void percentiles(struct bench_mode_result *res, uint64_t *lat, size_t n)
{
	if (!n)
		return;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	res->p50_us = (double)lat[(n - 1) * 50 / 100] / 1000.0;
	res->p99_us = (double)lat[(n - 1) * 99 / 100] / 1000.0;
	res->p999_us = (double)lat[(n - 1) * 999 / 1000] / 1000.0;
	/* the distribution: the sorted batches at evenly spaced ranks, the last one the maximum */
	res->cdf_n = n < BENCH_CDF_MAX ? (unsigned int)n : BENCH_CDF_MAX;
	for (unsigned int i = 0; i < res->cdf_n; i++) {
		size_t k = (n - 1) * (i + 1) / res->cdf_n;

		res->cdf_us[i] = (double)lat[k] / 1000.0;
		res->cdf_share[i] = (double)(k + 1) / (double)n;
	}
}

static void finish(struct writer *w, const struct bench_opts *o, size_t rounds, unsigned int batch)
{
	struct bench_mode_result *res = w->res;

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

/* One batch of writer @k, timed, its CPU counted. */
static int one_batch(struct writer *w, int k, const struct bench_opts *o, const unsigned char *buf,
		     const uint64_t *pn, unsigned int batch, uint64_t area_off, struct awr_page *pg,
		     size_t round)
{
	double c0 = cpu_s(false), u0 = cpu_s(true);
	uint64_t t0 = now_ns();
	int ret;

	ret = k == W_NAIVE ? naive_batch(w, o, buf, pn, batch, area_off) : store_batch(w, buf, pn, batch, o->unit, pg);
	w->lat[round] = now_ns() - t0;
	w->ns += w->lat[round];
	w->cpu += cpu_s(false) - c0;
	w->ucpu += cpu_s(true) - u0;
	if (ret)
		snprintf(w->res->message, sizeof(w->res->message), "%s: %s",
			 k == W_NAIVE ? "the naive doublewrite failed" : "the store's write failed", strerror(-ret));
	return ret;
}

static int measure(struct writer *w, const struct bench_opts *o, uint64_t npages, unsigned int batch,
		   struct bench_pages_pair *pair)
{
	size_t rounds = 0, cap = 1024;
	uint64_t rng = 0x9E3779B97F4A7C15ULL, seq = 0, deadline, *pn = calloc(batch, sizeof(*pn));
	struct awr_page *pg = calloc(batch, sizeof(*pg));
	double *ratio = malloc(cap * sizeof(*ratio));
	unsigned char *buf = NULL;
	int ret = 0;

	for (int k = 0; k < W__N; k++)
		w[k].lat = malloc(cap * sizeof(*w[k].lat));
	if (!pn || !pg || !ratio || !w[0].lat || !w[1].lat || !w[2].lat ||
	    posix_memalign((void **)&buf, 4096, (size_t)batch * o->unit)) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < (uint64_t)batch * o->unit; i++)
		buf[i] = (unsigned char)(i * 31 + (i >> 12));
	/* each writer gets about --seconds of its own time */
	deadline = now_ns() + (uint64_t)(o->seconds * W__N * 1e9);
	while (now_ns() < deadline && !bench_stop && !ret) {	/* SIGINT, SIGTERM: see cmd_bench.c */
		if (rounds == cap) {
			cap *= 2;
			for (int k = 0; k < W__N; k++) {
				uint64_t *more = realloc(w[k].lat, cap * sizeof(*more));

				if (!more) {
					ret = -ENOMEM;
					goto out;
				}
				w[k].lat = more;
			}
			double *more = realloc(ratio, cap * sizeof(*more));

			if (!more) {
				ret = -ENOMEM;
				goto out;
			}
			ratio = more;
		}
		for (unsigned int i = 0; i < batch; i++)
			pn[i] = next_page(&rng, npages, &seq, o->order);
		for (int j = 0; j < W__N && !ret; j++) {	/* the order rotates: ABC, BCA, CAB */
			int k = (int)((rounds + (size_t)j) % W__N);

			ret = one_batch(&w[k], k, o, buf, pn, batch, npages * o->unit, pg, rounds);
			if (ret)
				w[k].res->error = ret;
		}
		if (ret)
			break;
		ratio[rounds] = (double)w[W_NAIVE].lat[rounds] / (double)w[W_AUTO].lat[rounds];
		rounds++;
	}
	pair->rounds = rounds;
	if (rounds) {
		double *dw = malloc(rounds * sizeof(*dw));

		if (dw) {
			for (size_t i = 0; i < rounds; i++)
				dw[i] = (double)w[W_NAIVE].lat[i] / (double)w[W_DW].lat[i];
			qsort(dw, rounds, sizeof(*dw), cmp_double);
			pair->dw_median = dw[rounds / 2];
			free(dw);
		}
		qsort(ratio, rounds, sizeof(*ratio), cmp_double);
		pair->auto_median = ratio[rounds / 2];
		pair->auto_q1 = ratio[rounds / 4];
		pair->auto_q3 = ratio[rounds * 3 / 4];
	}
	for (int k = 0; k < W__N; k++)
		finish(&w[k], o, rounds, batch);
out:
	for (int k = 0; k < W__N; k++) {
		free(w[k].lat);
		w[k].lat = NULL;
	}
	free(ratio);
	free(buf);
	free(pg);
	free(pn);
	return ret;
}

/*
 * A scratch file beside the target, written in full (the store's or naive-dw's); its descriptor,
 * O_RDWR | O_DIRECT, in *fd_out.
 */
static int scratch(struct writer *w, const struct bench_opts *o, uint64_t size, int *fd_out)
{
	int fd, ret;

	snprintf(w->path, sizeof(w->path), "%s.awr-pages.XXXXXX", o->path);
	fd = mkostemp(w->path, O_CLOEXEC);
	if (fd < 0) {
		w->path[0] = 0;
		snprintf(w->res->message, sizeof(w->res->message), "cannot make a scratch file beside %.200s: %s",
			 o->path, strerror(errno));
		return -errno;
	}
	ret = bench_prefill(fd, size);
	if (ret) {
		close(fd);
		snprintf(w->res->message, sizeof(w->res->message), "cannot write the scratch file in full: %s",
			 strerror(-ret));
		return ret;
	}
	*fd_out = fd;
	return 0;
}

static int open_writer(struct writer *w, int k, const struct bench_opts *o, uint64_t npages, unsigned int batch)
{
	static const unsigned int flags[] = { AWR_PAGES_AUTO, AWR_PAGES_DOUBLEWRITE };
	int ret, fd = -1;

	w->res->ran = true;
	ret = scratch(w, o, (npages + (k == W_NAIVE ? batch : 0)) * o->unit, &fd);
	if (ret)
		return ret;
	if (k != W_NAIVE) {
		close(fd);	/* the store opens it itself, by path with its guard (no symbolic link) */
		ret = awr_pages_open(w->path, (uint32_t)o->unit, flags[k], &w->s);
		if (ret)
			snprintf(w->res->message, sizeof(w->res->message), "%.250s", awr_pages_explain(NULL));
		return ret;
	}
	w->fd = fd;
	ret = awr_file_from_fd(w->fd, &w->f);
	if (!ret)
		ret = awr_ring_create(w->f, o->qd, AWR_RING_REGISTER_FILE, &w->r);
	if (ret)
		snprintf(w->res->message, sizeof(w->res->message), "cannot set up naive-dw's ring: %s",
			 strerror(-ret));
	return ret;
}

static void close_writer(struct writer *w)
{
	char dw[sizeof(w->path) + 16];

	awr_pages_close(w->s);
	awr_ring_free(w->r);
	awr_file_close(w->f);
	if (w->fd >= 0)
		close(w->fd);
	if (w->path[0]) {
		unlink(w->path);
		snprintf(dw, sizeof(dw), "%s.awr-dw", w->path);
		unlink(dw);
	}
}

void bench_pages_run(const struct bench_opts *o, uint64_t npages, unsigned int batch, struct bench_result *out)
{
	struct bench_mode_result *res = &out->mode[BENCH_PAGES];
	struct writer w[W__N] = {
		{ .res = res, .fd = -1 }, { .res = &out->pages_pair.doublewrite, .fd = -1 },
		{ .res = &out->pages_pair.naive, .fd = -1 },
	};
	struct stat st;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	memset(&out->pages_pair, 0, sizeof(out->pages_pair));
	out->pages_explain[0] = 0;
	if (!o->path)
		return;		/* a caller without a target name (qualify): not measured */
	if (!stat(o->path, &st) && S_ISBLK(st.st_mode)) {
		snprintf(out->pages_explain, sizeof(out->pages_explain), "not measured: the target is a block "
			 "device, and a store there needs the device for itself (measure a store with a file on "
			 "a filesystem)");
		return;
	}
	res->ran = true;
	if (o->unit > (1U << 20) || (o->unit & (o->unit - 1))) {
		res->error = -EINVAL;
		snprintf(res->message, sizeof(res->message), "%s", "the page store takes a power-of-two page size up to 1 MiB");
		return;
	}
	for (int k = 0; k < W__N && !ret; k++) {
		ret = open_writer(&w[k], k, o, npages, batch);
		if (ret) {
			w[k].res->error = ret;
			if (!w[k].res->message[0])
				snprintf(w[k].res->message, sizeof(w[k].res->message), "%s", strerror(-ret));
		}
	}
	if (!ret) {
		ret = measure(w, o, npages, batch, &out->pages_pair);
		/* after the run: AUTO settles on its mode during the first batches */
		snprintf(out->pages_explain, sizeof(out->pages_explain), "%s: %s",
			 awr_pages_mode_name(awr_pages_mode(w[W_AUTO].s)), awr_pages_explain(w[W_AUTO].s));
		if (ret == -ENOMEM)
			snprintf(res->message, sizeof(res->message), "out of memory");
	}
	if (ret && !res->error) {	/* the store's row carries a failure of any writer */
		res->error = ret;
		for (int k = 0; k < W__N; k++)
			if (w[k].res->message[0] && w[k].res != res)
				snprintf(res->message, sizeof(res->message), "%s", w[k].res->message);
	}
	for (int k = 0; k < W__N; k++)
		close_writer(&w[k]);
}
