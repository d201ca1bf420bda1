// SPDX-License-Identifier: MIT
/*
 * awr bench --mode pages: the untorn page store (awr_pages_open(3)) in the
 * mode it chooses on the target's filesystem, on the same pages as the other
 * modes (same page size, batch, span and random sequence) and with fdatasync
 * after each batch, as awr_pages_write() is durable on return. The store is
 * a scratch file made beside the bench target (PATH.awr-pages.XXXXXX, with
 * its doublewrite area) and removed afterwards. It is written in full once
 * before the store opens it, as a database's file is allocated and as the
 * target is by the time the other modes have written it: writes into holes
 * cost allocations that overwrites do not, in every mode.
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

static void percentiles(struct bench_mode_result *res, uint64_t *lat, size_t n)
{
	if (!n)
		return;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	res->p50_us = (double)lat[(n - 1) * 50 / 100] / 1000.0;
	res->p99_us = (double)lat[(n - 1) * 99 / 100] / 1000.0;
	res->p999_us = (double)lat[(n - 1) * 999 / 1000] / 1000.0;
}

static int measure(struct awr_pages *s, const struct bench_opts *o, uint64_t npages, unsigned int batch,
		   struct bench_mode_result *res)
{
	struct awr_page *pg = calloc(batch, sizeof(*pg));
	size_t nlat = 0, cap = 1024;
	uint64_t *lat = malloc(cap * sizeof(*lat));
	uint64_t rng = 0x9E3779B97F4A7C15ULL, seq = 0, start, deadline, t0, t1;
	double cpu0, ucpu0;
	unsigned char *buf = NULL;
	int ret = 0;

	if (!pg || !lat || posix_memalign((void **)&buf, 4096, (size_t)batch * o->unit)) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < (uint64_t)batch * o->unit; i++)
		buf[i] = (unsigned char)(i * 31 + (i >> 12));
	cpu0 = cpu_s(false);
	ucpu0 = cpu_s(true);
	start = t0 = now_ns();
	deadline = start + (uint64_t)(o->seconds * 1e9);
	while (t0 < deadline && !bench_stop) {	/* SIGINT, SIGTERM: see cmd_bench.c */
		for (unsigned int i = 0; i < batch; i++)
			pg[i] = (struct awr_page){ .buf = buf + (size_t)i * o->unit,
						   .page_no = next_page(&rng, npages, &seq, o->order) };
		ret = awr_pages_write(s, pg, batch);
		if (ret) {
			snprintf(res->message, sizeof(res->message), "the store's write failed: %s", strerror(-ret));
			break;
		}
		t1 = now_ns();
		if (nlat == cap) {
			uint64_t *more = realloc(lat, 2 * cap * sizeof(*lat));

			if (!more) {
				ret = -ENOMEM;
				break;
			}
			lat = more;
			cap *= 2;
		}
		lat[nlat++] = t1 - t0;
		res->pages += batch;
		t0 = t1;
	}
	res->seconds = (double)(now_ns() - start) / 1e9;
	res->pages_per_s = res->seconds > 0 ? (double)res->pages / res->seconds : 0;
	res->mb_per_s = res->pages_per_s * (double)o->unit / 1e6;
	if (res->pages) {	/* as bench.c counts it: the process's CPU per page written */
		res->cpu_ns_per_page = (cpu_s(false) - cpu0) * 1e9 / (double)res->pages;
		res->user_cpu_ns_per_page = (cpu_s(true) - ucpu0) * 1e9 / (double)res->pages;
	}
	percentiles(res, lat, nlat);
out:
	free(buf);
	free(lat);
	free(pg);
	return ret;
}

/* The store file written in full (1 MiB plain direct writes) and synced. */
static int prefill(const char *path, uint64_t size)
{
	size_t chunk = 1U << 20;
	unsigned char *buf;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (posix_memalign((void **)&buf, 4096, chunk)) {
		close(fd);
		return -ENOMEM;
	}
	memset(buf, 0, chunk);
	for (uint64_t off = 0; off < size && !ret; off += chunk) {
		size_t len = size - off < chunk ? (size_t)(size - off) : chunk;

		if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len)
			ret = errno ? -errno : -EIO;
	}
	if (!ret && fdatasync(fd))
		ret = -errno;
	free(buf);
	close(fd);
	return ret;
}

void bench_pages_run(const struct bench_opts *o, uint64_t npages, unsigned int batch,
		     struct bench_mode_result *res, char *explain, size_t len)
{
	char path[4096 + 32], dw[4096 + 64];
	struct awr_pages *s = NULL;
	struct stat st;
	int fd, ret;

	memset(res, 0, sizeof(*res));
	explain[0] = 0;
	if (!o->path)
		return;		/* a caller without a target name (qualify): not measured */
	if (!stat(o->path, &st) && S_ISBLK(st.st_mode)) {
		snprintf(explain, len, "not measured: the target is a block device, and a store there "
			 "needs the device for itself (measure a store with a file on a filesystem)");
		return;
	}
	res->ran = true;
	if (o->unit > (1U << 20) || (o->unit & (o->unit - 1))) {
		res->error = -EINVAL;
		snprintf(res->message, sizeof(res->message), "%s", "the page store takes a power-of-two page size up to 1 MiB");
		return;
	}
	snprintf(path, sizeof(path), "%s.awr-pages.XXXXXX", o->path);
	fd = mkstemp(path);
	if (fd < 0) {
		res->error = -errno;
		snprintf(res->message, sizeof(res->message), "cannot make a scratch store beside %.200s: %s",
			 o->path, strerror(errno));
		return;
	}
	close(fd);
	snprintf(dw, sizeof(dw), "%s.awr-dw", path);
	ret = prefill(path, npages * o->unit);
	if (ret)
		snprintf(res->message, sizeof(res->message), "cannot write the scratch store in full: %s",
			 strerror(-ret));
	else
		ret = awr_pages_open(path, (uint32_t)o->unit, AWR_PAGES_AUTO, &s);
	if (ret && !res->message[0]) {
		snprintf(res->message, sizeof(res->message), "%.250s", awr_pages_explain(NULL));
	} else if (!ret) {
		ret = measure(s, o, npages, batch, res);
		/* after the run: AUTO settles on its mode during the first batches */
		snprintf(explain, len, "%s: %s", awr_pages_mode_name(awr_pages_mode(s)), awr_pages_explain(s));
		awr_pages_close(s);
	}
	res->error = ret;
	unlink(path);
	unlink(dw);
}
