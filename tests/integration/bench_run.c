// SPDX-License-Identifier: MIT
/*
 * Description: awr_bench_run() on a scratch XFS file: typed figures, refusals, a failing mode.
 *
 * Every mode's typed figures on a new file (pages, rates, ordered percentiles
 * and distribution, batch steps, the page store's paired rounds), the layout,
 * the scratch files removed, progress and stop; refused options (-EINVAL with
 * the reason, the file untouched) and a mode that fails alone (2 MiB atomic
 * pages refused by their rule while plain ones run).
 *
 *   bench_run      (under with-scratch-xfs.sh: AWR_SCRATCH_DIR)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"

#define MiB (1ULL << 20)

static char path[4096];

struct seen {
	unsigned int ticks;	/* calls naming a mode */
	unsigned int ends;	/* calls saying a mode ended */
};

static void on_progress(const struct awr_bench_progress *p, void *arg)
{
	struct seen *s = arg;

	if (p->mode)
		s->ticks++;
	else
		s->ends++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_new(void)
{
	unlink(path);
	return open(path, O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
}

/* The figures every measured mode has, whatever its way of writing. */
static void check_mode(const struct awr_bench_result *r, enum awr_bench_mode m, uint64_t unit)
{
	const struct awr_bench_mode_result *x = awr_bench_result_mode(r, m);
	const char *n = awr_bench_mode_name(m);

	T_EXPECT(x && x->ran && !x->error, "%s: ran %d error %d %s", n, x ? x->ran : -1,
		 x ? x->error : 0, x ? x->message : "");
	if (!x || !x->ran || x->error)
		return;
	T_EXPECT_EQ(x->size, sizeof(*x), "mode result size");
	T_EXPECT(x->pages > 0 && x->seconds > 0, "%s: %llu pages in %.3f s", n,
		 (unsigned long long)x->pages, x->seconds);
	T_EXPECT(x->pages_per_s > 0 && x->pages_per_s * x->seconds > x->pages * 0.99 &&
		 x->pages_per_s * x->seconds < x->pages * 1.01,
		 "%s: %.1f pages/s over %.3f s is not %llu pages", n, x->pages_per_s, x->seconds,
		 (unsigned long long)x->pages);
	T_EXPECT(x->mb_per_s > x->pages_per_s * unit / 1e6 * 0.999 &&
		 x->mb_per_s < x->pages_per_s * unit / 1e6 * 1.001,
		 "%s: %.2f MB/s from %.1f pages/s of %llu bytes", n, x->mb_per_s, x->pages_per_s,
		 (unsigned long long)unit);
	T_EXPECT(x->p50_us > 0 && x->p50_us <= x->p99_us && x->p99_us <= x->p999_us,
		 "%s: percentiles not ordered: p50 %.1f p99 %.1f p99.9 %.1f us", n, x->p50_us,
		 x->p99_us, x->p999_us);
	T_EXPECT(x->cdf_n > 0 && x->cdf_n <= AWR_BENCH_CDF_MAX, "%s: %u distribution points", n,
		 x->cdf_n);
	for (unsigned int i = 1; i < x->cdf_n; i++)
		T_EXPECT(x->cdf_us[i] >= x->cdf_us[i - 1] &&
			 x->cdf_share[i] >= x->cdf_share[i - 1],
			 "%s: distribution point %u (%.1f us, %.4f) after (%.1f us, %.4f)", n, i,
			 x->cdf_us[i], x->cdf_share[i], x->cdf_us[i - 1], x->cdf_share[i - 1]);
	T_EXPECT(x->cdf_n && x->cdf_share[x->cdf_n - 1] > 0.9999 &&
		 x->cdf_share[x->cdf_n - 1] < 1.0001, "%s: the distribution ends at %.4f", n,
		 x->cdf_n ? x->cdf_share[x->cdf_n - 1] : 0);
	/* (user and total CPU are read one after the other: user may pass total by a tick) */
	T_EXPECT(x->cpu_ns_per_page > 0 && x->user_cpu_ns_per_page >= 0 &&
		 x->user_cpu_ns_per_page <= x->cpu_ns_per_page * 1.05 + 1000,
		 "%s: CPU %.0f ns/page, user %.0f", n, x->cpu_ns_per_page,
		 x->user_cpu_ns_per_page);
}

/* fdatasync durability: atomic, plain and doublewrite run batches whose steps are timed. */
static void check_batches(const struct awr_bench_result *r, unsigned int qd)
{
	for (int m = AWR_BENCH_ATOMIC; m <= AWR_BENCH_DOUBLEWRITE; m++) {
		const struct awr_bench_mode_result *x = awr_bench_result_mode(r, m);
		const double *st = x->batch_step_ms;

		T_EXPECT(x->batches > 0 && x->pages == x->batches * qd,
			 "%s: %llu pages in %llu batches of %u", awr_bench_mode_name(m),
			 (unsigned long long)x->pages, (unsigned long long)x->batches, qd);
		T_EXPECT(st[AWR_BENCH_STEP_WRITES] > 0 && st[AWR_BENCH_STEP_FLUSH] > 0 &&
			 (m == AWR_BENCH_DOUBLEWRITE) == (st[AWR_BENCH_STEP_COPY] > 0),
			 "%s: steps copy %.3f writes %.3f flush %.3f ms", awr_bench_mode_name(m),
			 st[AWR_BENCH_STEP_COPY], st[AWR_BENCH_STEP_WRITES],
			 st[AWR_BENCH_STEP_FLUSH]);
		T_EXPECT((st[0] + st[1] + st[2]) * x->batches / 1e3 <= x->seconds * 1.001,
			 "%s: the steps (%.3f ms a batch) take longer than the mode (%.3f s)",
			 awr_bench_mode_name(m), st[0] + st[1] + st[2], x->seconds);
	}
}

/* Pages mode: three writers, the same batches, the paired ratios ordered. */
static void check_pages(const struct awr_bench_result *r)
{
	const struct awr_bench_mode_result *p = awr_bench_result_mode(r, AWR_BENCH_PAGES);

	T_EXPECT(r->rounds > 0 && p->pages % r->rounds == 0, "%llu rounds, %llu pages",
		 (unsigned long long)r->rounds, (unsigned long long)p->pages);
	for (int m = AWR_BENCH_PAGES_DW; m <= AWR_BENCH_NAIVE_DW; m++)
		T_EXPECT_EQ(awr_bench_result_mode(r, m)->pages, p->pages, awr_bench_mode_name(m));
	for (int m = AWR_BENCH_PAGES; m < AWR_BENCH__MODES; m++)
		T_EXPECT_EQ(awr_bench_result_mode(r, m)->moved_pages, -1,
			    "pages rows: moved pages not read");
	T_EXPECT(r->pages_to_naive_q1 > 0 && r->pages_to_naive_q1 <= r->pages_to_naive_median &&
		 r->pages_to_naive_median <= r->pages_to_naive_q3 &&
		 r->pages_dw_to_naive_median > 0,
		 "paired ratios q1 %.3f median %.3f q3 %.3f, pages-dw %.3f", r->pages_to_naive_q1,
		 r->pages_to_naive_median, r->pages_to_naive_q3, r->pages_dw_to_naive_median);
	T_EXPECT(!strncmp(r->pages_store, "software: ", 10) ||
		 !strncmp(r->pages_store, "doublewrite: ", 13) ||
		 !strncmp(r->pages_store, "hardware: ", 10),
		 "the store's mode: '%s'", r->pages_store);
}

/* No scratch file of pages mode left beside the target. */
static void check_no_scratch(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	T_EXPECT(d != NULL, "cannot list %s", dir);
	while (d && (e = readdir(d)))
		T_EXPECT(!strstr(e->d_name, ".awr-pages."), "scratch file left: %s", e->d_name);
	if (d)
		closedir(d);
}

/* Every mode on a new 16 MiB file, fdatasync batches of the queue depth. */
static void all_modes(const char *dir)
{
	struct awr_bench_result *r = NULL;
	struct awr_bench_opts o;
	struct seen seen = { 0 };
	struct stat st;
	int fd = open_new(), ret;

	T_EXPECT(fd >= 0, "cannot make %s", path);
	awr_bench_opts_init(&o);
	T_EXPECT(o.unit == 16384 && o.qd == 32 && o.jobs == 1 && o.modes == AWR_BENCH_ALL &&
		 o.durability == AWR_BENCH_FDATASYNC && o.order == AWR_BENCH_RANDOM,
		 "defaults: unit %llu qd %u jobs %u modes 0x%x", (unsigned long long)o.unit, o.qd,
		 o.jobs, o.modes);
	o.seconds = 0.3;
	o.span = 16 * MiB;
	o.qd = 8;
	o.path = path;
	o.progress = on_progress;
	o.progress_arg = &seen;
	ret = awr_bench_run(fd, &o, &r);
	T_EXPECT(ret == 0 && r, "awr_bench_run: %d (%s)", ret, r ? r->message : "no result");
	if (ret || !r)
		goto out;
	T_EXPECT_EQ(r->size, sizeof(*r), "result size");
	T_EXPECT_EQ(r->span, 16 * MiB, "span");
	T_EXPECT_EQ(r->dw_offset, 16 * MiB - 8 * o.unit, "doublewrite area: the last batch");
	T_EXPECT(!strncmp(r->layout, "written in full", 15) ||
		 !strncmp(r->layout, "prepared: ", 10), "layout: '%s'", r->layout);
	T_EXPECT(!fstat(fd, &st) && (uint64_t)st.st_size == 16 * MiB, "file size %lld",
		 (long long)st.st_size);
	for (int m = 0; m < AWR_BENCH__MODES; m++)
		check_mode(r, m, o.unit);
	check_batches(r, o.qd);
	T_EXPECT_EQ(awr_bench_result_mode(r, AWR_BENCH_PLAIN)->moved_pages, 0,
		    "plain writes moved pages");
	check_pages(r);
	check_no_scratch(dir);
	/* an end after each of the three timed modes (ticks come every half second: stop()) */
	T_EXPECT(seen.ends == 3, "progress: %u ends", seen.ends);
	T_EXPECT(awr_bench_result_mode(r, AWR_BENCH__MODES) == NULL, "a mode out of range");
	T_EXPECT(!strcmp(awr_bench_mode_name(AWR_BENCH_NAIVE_DW), "naive-dw") &&
		 !strcmp(awr_bench_durability_name(AWR_BENCH_NO_SYNC), "none") &&
		 !strcmp(awr_bench_mode_name(AWR_BENCH__MODES), "unknown"), "names");
out:
	awr_bench_result_free(r);
	if (fd >= 0)
		close(fd);
}

/* An option the run cannot take: -EINVAL with the reason, the file not touched. */
static void refused(const char *what, const struct awr_bench_opts *o, const char *reason)
{
	struct awr_bench_result *r = NULL;
	struct stat st;
	int fd = open_new(), ret;

	ret = awr_bench_run(fd, o, &r);
	T_EXPECT(ret == -EINVAL && r && strstr(r->message, reason),
		 "%s: %d, '%s' (expected -EINVAL saying '%s')", what, ret, r ? r->message : "",
		 reason);
	T_EXPECT(!fstat(fd, &st) && st.st_size == 0 && st.st_blocks == 0,
		 "%s: the file was written (%lld bytes)", what, (long long)st.st_size);
	awr_bench_result_free(r);
	close(fd);
}

static void refusals(void)
{
	struct awr_bench_result *r = NULL;
	struct awr_bench_opts o;
	int fd;

	awr_bench_opts_init(&o);
	o.seconds = 0.2;
	o.unit = 1000;
	refused("unit 1000", &o, "multiple of 512");
	awr_bench_opts_init(&o);
	o.modes = 1U << AWR_BENCH_PAGES_DW;	/* a row of pages mode, not a mode to ask for */
	refused("modes pages-dw", &o, "modes");
	awr_bench_opts_init(&o);
	o.qd = 0;
	refused("queue depth 0", &o, "depth");
	/* the span is checked against the target once laid out: a new file gets that far */
	awr_bench_opts_init(&o);
	o.span = 64 * 1024;
	fd = open_new();
	T_EXPECT(awr_bench_run(fd, &o, &r) == -EINVAL && r && strstr(r->message, "too small"),
		 "span 64 KiB: '%s'", r ? r->message : "");
	awr_bench_result_free(r);
	close(fd);
	T_EXPECT(awr_bench_run(-1, NULL, &r) == -EINVAL, "NULL options");
}

/* awr_bench_opts_set(): one option from text, its refusal naming it; awr_bench_opts_check() */
static void text_options(void)
{
	static const char *const bad[][3] = {
		{ "qd", "0", "qd '0': give a whole number from 1 to 32768" },
		{ "jobs", "65", "jobs '65': give a whole number from 1 to 64" },
		{ "batch", "65537", "batch '65537': give a whole number from 1 to 65536" },
		{ "seconds", "0", "seconds '0': give a duration in seconds, more than 0" },
		{ "mode", "fast", "mode 'fast' is unknown: use one of atomic, plain, doublewrite, "
				  "pages, all" },
		{ "order", "up", "order 'up' is unknown: use one of random, sequential" },
		{ "durability", "x", "durability 'x' is unknown: use one of fdatasync, dsync, "
				     "none" },
		{ "depth", "1", "depth is not an option" },
	};
	struct awr_bench_opts o, was;

	awr_bench_opts_init(&o);
	T_EXPECT(!awr_bench_opts_set(&o, "qd", "1k") && o.qd == 1024, "qd 1k: %u", o.qd);
	T_EXPECT(!awr_bench_opts_set(&o, "seconds", "0.5") && o.seconds == 0.5, "seconds 0.5");
	T_EXPECT(!awr_bench_opts_set(&o, "mode", "pages") && o.modes == 1U << AWR_BENCH_PAGES,
		 "mode pages: 0x%x", o.modes);
	T_EXPECT(!awr_bench_opts_set(&o, "mode", "all") && o.modes == AWR_BENCH_ALL, "mode all");
	T_EXPECT(!awr_bench_opts_set(&o, "order", "sequential") &&
		 o.order == AWR_BENCH_SEQUENTIAL, "order sequential");
	T_EXPECT(!awr_bench_opts_set(&o, "durability", "none") &&
		 o.durability == AWR_BENCH_NO_SYNC, "durability none");
	T_EXPECT(!awr_bench_opts_check(&o), "checked: %s", awr_last_error());
	T_EXPECT(!strcmp(awr_bench_order_name(AWR_BENCH_SEQUENTIAL), "sequential") &&
		 !strcmp(awr_bench_order_name((enum awr_bench_order)7), "unknown"), "order names");
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		was = o;
		T_EXPECT(awr_bench_opts_set(&o, bad[i][0], bad[i][1]) == -EINVAL &&
			 !strncmp(awr_last_error(), bad[i][2], strlen(bad[i][2])) &&
			 !memcmp(&was, &o, sizeof(o)), "%s '%s': '%s'", bad[i][0], bad[i][1],
			 awr_last_error());
	}
	o.unit = 1000;
	T_EXPECT(awr_bench_opts_check(&o) == -EINVAL && !strcmp(awr_last_error(),
		 "unit 1000 must be a multiple of 512 bytes up to 1 GiB (a page size such as 16k)"),
		 "unit 1000: '%s'", awr_last_error());
	o.unit = 16384;
	o.jobs = 0;
	T_EXPECT(awr_bench_opts_check(&o) == -EINVAL, "jobs 0 passes the check");
}

/* 2 MiB atomic pages are beyond XFS's atomic maximum: atomic fails with its rule, plain runs. */
static void one_mode_fails(void)
{
	const struct awr_bench_mode_result *a, *p;
	struct awr_bench_result *r = NULL;
	struct awr_bench_opts o;
	int fd = open_new(), ret;

	awr_bench_opts_init(&o);
	o.unit = 2 * MiB;
	o.qd = 4;
	o.span = 32 * MiB;
	o.seconds = 0.2;
	o.durability = AWR_BENCH_DSYNC;
	o.modes = 1U << AWR_BENCH_ATOMIC | 1U << AWR_BENCH_PLAIN;
	ret = awr_bench_run(fd, &o, &r);
	T_EXPECT(ret == 0 && r, "2 MiB pages: %d", ret);
	if (!ret && r) {
		a = awr_bench_result_mode(r, AWR_BENCH_ATOMIC);
		p = awr_bench_result_mode(r, AWR_BENCH_PLAIN);
		T_EXPECT(a->ran && a->error < 0 && strstr(a->message, "rule too_large"),
			 "atomic 2 MiB: error %d '%s'", a->error, a->message);
		T_EXPECT(p->ran && !p->error && p->pages > 0, "plain 2 MiB: %d '%s', %llu pages",
			 p->error, p->message, (unsigned long long)p->pages);
		T_EXPECT(!awr_bench_result_mode(r, AWR_BENCH_DOUBLEWRITE)->ran &&
			 !awr_bench_result_mode(r, AWR_BENCH_PAGES)->ran,
			 "modes not asked for ran");
	}
	awr_bench_result_free(r);
	close(fd);
}

/*
 * A stop asked for before the run ends it at once; the next run starts
 * afresh, and tells its progress every half second.
 */
static void stop(void)
{
	struct awr_bench_result *r = NULL;
	struct awr_bench_opts o;
	struct seen seen = { 0 };
	int fd = open_new();
	double t0;

	awr_bench_opts_init(&o);
	o.span = 16 * MiB;
	o.seconds = 3600;
	o.modes = 1U << AWR_BENCH_ATOMIC;
	awr_bench_stop();
	t0 = now_s();
	T_EXPECT(awr_bench_run(fd, &o, &r) == 0 && now_s() - t0 < 60,
		 "a stopped run took %.1f s", now_s() - t0);
	awr_bench_result_free(r);
	r = NULL;
	o.seconds = 0.6;
	o.progress = on_progress;
	o.progress_arg = &seen;
	T_EXPECT(awr_bench_run(fd, &o, &r) == 0 &&
		 awr_bench_result_mode(r, AWR_BENCH_ATOMIC)->seconds >= 0.6,
		 "the run after a stopped one ran %.3f s",
		 r ? awr_bench_result_mode(r, AWR_BENCH_ATOMIC)->seconds : 0);
	T_EXPECT(seen.ticks >= 1 && seen.ends == 1, "progress: %u ticks, %u ends", seen.ticks,
		 seen.ends);
	awr_bench_result_free(r);
	close(fd);
}

int main(void)
{
	const char *dir = getenv("AWR_SCRATCH_DIR");

	if (!dir)
		T_SKIP("run under with-scratch-xfs.sh (AWR_SCRATCH_DIR)");
	snprintf(path, sizeof(path), "%s/bench_run.dat", dir);
	all_modes(dir);
	refusals();
	text_options();
	one_mode_fails();
	stop();
	unlink(path);
	return t_done("bench_run");
}
