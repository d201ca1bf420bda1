// SPDX-License-Identifier: MIT
/*
 * awr bench PATH: database page writes, atomic vs plain vs doublewrite:
 * pages/s, MB/s, page latency percentiles and the ratios. The measuring is
 * the library's (awr_bench_run(), lib/bench/); this file parses and renders.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"
#include "platform/platform.h"

struct bench_args {
	char *unit, *qd, *batch, *seconds, *size, *mode, *order, *durability, *jobs;
	int force, sqpoll, fixed_buffers;
};

/* The options as text, set in the library (awr_bench_opts_set()) in the order they are checked */
static int parse_opts(const struct bench_args *a, struct awr_bench_opts *o)
{
	const char *name[] = { "qd", "batch", "jobs", "seconds", "mode", "order", "durability" };
	const char *text[] = { a->qd, a->batch, a->jobs, a->seconds, a->mode, a->order,
			       a->durability };

	if ((a->unit && parse_size_arg("unit", a->unit, &o->unit)) ||
	    (a->size && parse_size_arg("size", a->size, &o->span)))
		return -EINVAL;
	for (unsigned int i = 0; i < sizeof(name) / sizeof(name[0]); i++)
		if (text[i] && awr_bench_opts_set(o, name[i], text[i]))
			goto err;
	if (awr_bench_opts_check(o))
		goto err;
	o->sqpoll = a->sqpoll;
	o->fixed_buffers = a->fixed_buffers;
	return 0;
err:
	out_error("--%s", awr_last_error());
	return -EINVAL;
}

/* the enums' spellings (the library's) as the field tables name them */
FLD_ENUM_NAME(awr_bench_order_name, enum awr_bench_order)
FLD_ENUM_NAME(awr_bench_durability_name, enum awr_bench_durability)

static const struct awr_bench_mode_result *mode_of(const struct awr_bench_result *r,
						   enum awr_bench_mode m)
{
	return awr_bench_result_mode(r, m);
}

/* A mode's row: rates as numbers, latencies and CPU time in human units ("72.9 ms"). */
static void print_row(const char *name, const struct awr_bench_mode_result *x)
{
	char p50[32], p99[32], p999[32], cpu[32];

	if (!x->ran)
		return;
	if (x->error) {
		printf("%-12s failed: %s\n", name, x->message);
		return;
	}
	printf("%-12s %10.0f %9.1f %10s %10s %10s %11s\n", name, x->pages_per_s, x->mb_per_s,
	       awr__human_usec(x->p50_us, p50, sizeof(p50)),
	       awr__human_usec(x->p99_us, p99, sizeof(p99)),
	       awr__human_usec(x->p999_us, p999, sizeof(p999)),
	       awr__human_usec(x->cpu_ns_per_page / 1e3, cpu, sizeof(cpu)));
}

/* pages mode: the store and naive-dw, one batch each in turn */
static void print_pair(const struct awr_bench_result *r)
{
	if (!r->rounds || mode_of(r, AWR_BENCH_PAGES)->error)
		return;
	printf("pages/naive-dw: %.2fx (median over %zu rounds of naive-dw's batch time over the "
	       "store's; quartiles %.2f..%.2f)\n", r->pages_to_naive_median, (size_t)r->rounds,
	       r->pages_to_naive_q1, r->pages_to_naive_q3);
	printf("pages-dw/naive-dw: %.2fx\n", r->pages_dw_to_naive_median);
}

static void print_head(const char *path, const struct awr_bench_opts *o,
		       const struct awr_bench_result *r)
{
	unsigned int batch = r->batch;
	char u[32], s[32], t[32];

	printf("awr bench %s: %s pages, queue depth %u%s, %s order, span %s, %s per mode\n",
	       path, awr__human_bytes(o->unit, u, sizeof(u)), o->qd, o->jobs > 1 ? " per job" : "",
	       awr_bench_order_name(o->order),
	       awr__human_bytes(r->span, s, sizeof(s)), awr__human_usec(o->seconds * 1e6, t,
									 sizeof(t)));
	printf("layout: %s\n", r->layout);
	if (o->jobs > 1 || o->sqpoll || o->fixed_buffers)
		printf("%u job%s (one ring each)%s%s\n", o->jobs, o->jobs == 1 ? "" : "s",
		       o->sqpoll ? ", SQPOLL" : "",
		       o->fixed_buffers ? ", plain writes from registered buffers" : "");
	if (o->durability == AWR_BENCH_FDATASYNC)
		printf("durability: fdatasync after each batch of %u pages\n", batch);
	else if (o->durability == AWR_BENCH_DSYNC)
		printf("durability: RWF_DSYNC on every write (doublewrite: batches of %u pages)\n",
		       batch);
	else
		printf("durability: none, completion only (doublewrite: batches of %u pages)\n",
		       batch);
	printf("%-12s %10s %9s %10s %10s %10s %11s\n", "mode", "pages/s", "MB/s", "p50", "p99",
	       "p99.9", "CPU/page");
}

/* Which path atomic and plain writes took, from the pages they moved (a failed mode wrote none) */
static void print_moved(const struct awr_bench_result *r)
{
	for (int m = AWR_BENCH_ATOMIC; m <= AWR_BENCH_PLAIN; m++) {
		const struct awr_bench_mode_result *x = mode_of(r, m);

		if (x->ran && !x->error && x->moved_pages >= 0)
			printf("%s: %" PRId64 " of %" PRIu64 " pages moved on the device (%s)\n",
			       awr_bench_mode_name(m), x->moved_pages, r->data_pages,
			       x->moved_pages ? "copy-on-write: the software path" :
			       "written in place");
	}
}

/* Where a batch's time went, per mode with batches. */
static void print_steps(const struct awr_bench_result *r)
{
	char c[32], w[32], f[32];

	for (int m = AWR_BENCH_ATOMIC; m <= AWR_BENCH_DOUBLEWRITE; m++) {
		const struct awr_bench_mode_result *x = mode_of(r, m);

		if (!x->ran || !x->batches)
			continue;
		printf("%s: a batch of %u pages took", awr_bench_mode_name(m), r->batch);
		if (m == AWR_BENCH_DOUBLEWRITE)
			printf(" %s in the copy,", awr__human_usec(
				x->batch_step_ms[AWR_BENCH_STEP_COPY] * 1e3, c, sizeof(c)));
		printf(" %s in the page writes, %s in %s (means of %" PRIu64 " batches)\n",
		       awr__human_usec(x->batch_step_ms[AWR_BENCH_STEP_WRITES] * 1e3, w, sizeof(w)),
		       awr__human_usec(x->batch_step_ms[AWR_BENCH_STEP_FLUSH] * 1e3, f, sizeof(f)),
		       m == AWR_BENCH_DOUBLEWRITE ? "its two fdatasyncs" : "fdatasync",
		       x->batches);
	}
}

/* "NAME: 0.42x" when both modes ran */
static void print_ratio(const char *name, double v)
{
	if (v > 0)
		printf("%s: %.2fx\n", name, v);
}

static void print_normal(const char *path, const struct awr_bench_opts *o,
			 const struct awr_bench_result *r)
{
	print_head(path, o, r);
	for (int m = 0; m < AWR_BENCH__MODES; m++)
		print_row(awr_bench_mode_name(m), mode_of(r, m));
	print_ratio("atomic/doublewrite", r->atomic_to_doublewrite);
	print_ratio("atomic/plain", r->atomic_to_plain);
	print_moved(r);
	print_steps(r);
	if (r->pages_store[0])
		printf("pages: the store chose %s\n", r->pages_store);
	print_ratio("pages/doublewrite", r->pages_to_doublewrite);
	print_pair(r);
}

#define MODE(M, T, K, ...) FLD(struct awr_bench_mode_result, M, T, K, __VA_ARGS__)

static const struct field mode_latency[] = {
	MODE(p50_us, FLD_DOUBLE, "p50", .decimals = 1),
	MODE(p99_us, FLD_DOUBLE, "p99", .decimals = 1),
	MODE(p999_us, FLD_DOUBLE, "p99_9", .decimals = 1),
	FLD_END
};

/* [us, share of pages at or below]: element i of the two arrays, a double apart */
static const struct field mode_cdf[] = {
	MODE(cdf_us[0], FLD_DOUBLE, "us", .decimals = 1),
	MODE(cdf_share[0], FLD_DOUBLE, "share", .decimals = 5),
	FLD_END
};

/* the steps of a batch, null for a stream mode (no batches) */
static const struct field mode_batch[] = {
	MODE(batches, FLD_UINT, "batches", .flags = FLD_NULL_ZERO),
	MODE(batch_step_ms[AWR_BENCH_STEP_COPY], FLD_DOUBLE, "copy", .decimals = 3),
	MODE(batch_step_ms[AWR_BENCH_STEP_WRITES], FLD_DOUBLE, "writes", .decimals = 3),
	MODE(batch_step_ms[AWR_BENCH_STEP_FLUSH], FLD_DOUBLE, "flush", .decimals = 3),
	FLD_END
};

/* A mode's figures as its JSON object has them (the library sets a message with an error) */
static const struct field mode_fields[] = {
	MODE(pages, FLD_UINT, "pages"),
	MODE(seconds, FLD_DOUBLE, "seconds", .decimals = 3),
	MODE(pages_per_s, FLD_DOUBLE, "pages_per_s", .decimals = 1),
	MODE(mb_per_s, FLD_DOUBLE, "mb_per_s", .decimals = 2),
	FLD_GROUP("latency_us", mode_latency),
	{ .key = "latency_cdf", .type = FLD_ARRAY, .sub = mode_cdf, .flags = FLD_TUPLE,
	  .stride = sizeof(double), .count = offsetof(struct awr_bench_mode_result, cdf_n),
	  .count_size = sizeof(((struct awr_bench_mode_result *)0)->cdf_n) },
	MODE(cpu_ns_per_page, FLD_DOUBLE, "cpu_ns_per_write", .decimals = 1),
	MODE(user_cpu_ns_per_page, FLD_DOUBLE, "user_cpu_ns_per_write", .decimals = 1),
	MODE(queue_ns_per_write, FLD_DOUBLE, "queue_ns_per_write", .decimals = 1,
	     .flags = FLD_NULL_ZERO),
	MODE(clock_read_ns, FLD_DOUBLE, "clock_read_ns", .decimals = 1),
	MODE(inflight_mean, FLD_DOUBLE, "inflight_mean", .decimals = 2),
	MODE(reaps_below_depth_share, FLD_DOUBLE, "reaps_below_depth", .decimals = 4),
	MODE(ring_setup_flags, FLD_UINT, "ring_setup_flags"),
	MODE(ring_wait_flags, FLD_UINT, "ring_wait_flags"),
	MODE(moved_pages, FLD_INT, "moved_pages", .flags = FLD_NULL_NEG),
	FLD_GROUP("batch_ms", mode_batch, .flags = FLD_NULL_HEAD),
	MODE(message, FLD_CHARS, "error", .flags = FLD_NULL_ZERO),
	FLD_END
};
#undef MODE

void bench_modes_add(struct json_object *o, const struct awr_bench_result *r)
{
	for (int m = 0; m <= AWR_BENCH_PAGES; m++)
		if (mode_of(r, m)->ran)
			json_object_object_add(o, awr_bench_mode_name(m),
					       fld_json(mode_fields, mode_of(r, m)));
}

/* The run as awr bench -o json prints it: what was asked, what the target gave, the figures */
struct bench_doc {
	const char *path;
	struct awr_bench_opts o;
	struct awr_bench_result r;
	/* pages mode's paired writers, NULL when it did not run */
	const struct awr_bench_mode_result *pages_dw, *naive_dw;
};

#define D(m, t, k, ...) FLD(struct bench_doc, m, t, k, __VA_ARGS__)
static const struct field head_fields[] = {
	D(path, FLD_STR, "path"),
	D(o.unit, FLD_UINT, "unit"),
	D(o.qd, FLD_UINT, "qd"),
	D(o.jobs, FLD_UINT, "jobs"),
	D(o.sqpoll, FLD_BOOL, "sqpoll"),
	D(o.fixed_buffers, FLD_BOOL, "fixed_buffers"),
	D(r.batch, FLD_UINT, "batch"),
	D(r.span, FLD_UINT, "span"),
	D(r.layout, FLD_CHARS, "layout"),
	D(o.order, FLD_ENUM, "order", .name = awr_bench_order_name_int),
	D(o.durability, FLD_ENUM, "durability", .name = awr_bench_durability_name_int),
	D(o.seconds, FLD_DOUBLE, "seconds_per_mode", .decimals = 3),
	FLD_END
};

/* a ratio of two modes' figures: null when a side did not run (then it is 0) */
#define RATIO(m, k) D(r.m, FLD_DOUBLE, k, .decimals = 3, .flags = FLD_NULL_ZERO)

/* pages mode's paired rounds (a ratio is null without rounds) */
static const struct field pair_fields[] = {
	D(pages_dw, FLD_OBJECT, "pages_doublewrite", .sub = mode_fields, .flags = FLD_PTR),
	D(naive_dw, FLD_OBJECT, "naive_doublewrite", .sub = mode_fields, .flags = FLD_PTR),
	D(r.rounds, FLD_UINT, "rounds"),
	RATIO(pages_to_naive_median, "pages_to_naive_median"),
	RATIO(pages_to_naive_q1, "pages_to_naive_q1"),
	RATIO(pages_to_naive_q3, "pages_to_naive_q3"),
	RATIO(pages_dw_to_naive_median, "pages_doublewrite_to_naive_median"),
	FLD_END
};

/* atomic/doublewrite, atomic/plain, pages/doublewrite */
static const struct field ratio_fields[] = {
	RATIO(atomic_to_doublewrite, "atomic_to_doublewrite"),
	RATIO(atomic_to_plain, "atomic_to_plain"),
	RATIO(pages_to_doublewrite, "pages_to_doublewrite"),
	FLD_END
};
#undef RATIO

/* after "modes": the store's choice and the paired rounds when pages mode ran */
static const struct field tail_fields[] = {
	D(r.pages_store, FLD_CHARS, "pages_store", .flags = FLD_NULL_ZERO | FLD_OMIT),
	FLD_GROUP("pages_paired", pair_fields, .flags = FLD_NULL_HEAD | FLD_OMIT),
	FLD_GROUP("ratios", ratio_fields),
	FLD_END
};
#undef D

static void print_json(const char *path, const struct awr_bench_opts *o,
		       const struct awr_bench_result *r)
{
	bool pages = mode_of(r, AWR_BENCH_PAGES)->ran;
	struct bench_doc d = { path, *o, *r, pages ? mode_of(r, AWR_BENCH_PAGES_DW) : NULL,
			       pages ? mode_of(r, AWR_BENCH_NAIVE_DW) : NULL };
	struct json_object *root = fld_json(head_fields, &d), *modes = json_object_new_object();

	bench_modes_add(modes, r);
	json_object_object_add(root, "modes", modes);
	fld_json_add(root, tail_fields, &d);
	out_print_json(root);
}

/* SIGINT, SIGTERM: every mode's loop ends (awr_bench_stop()), the figures cover the time run. */
static void on_stop(int sig)
{
	stop_signal = sig;
	awr_bench_stop();
}

/* The progress line on a terminal's standard error, job 0's figures every half second. */
static void on_progress(const struct awr_bench_progress *p, void *arg)
{
	const struct awr_bench_opts *o = arg;

	if (!p->mode)
		fprintf(stderr, "\r%60s\r", "");
	else
		fprintf(stderr, "\r%-11s %5.1f s %10.0f pages/s %9.1f MB/s ", p->mode, p->seconds,
			p->pages_per_s, p->pages_per_s * (double)o->unit / 1e6);
	fflush(stderr);
}

/* The run's figures, rendered; the exit status. */
static int render(const char *path, const struct awr_bench_opts *o,
		  const struct awr_bench_result *r)
{
	int rc = AWR_EXIT_OK;

	if (out_mode == OUT_JSON)
		print_json(path, o, r);
	else
		print_normal(path, o, r);
	for (int m = 0; m < AWR_BENCH__MODES; m++)
		if (mode_of(r, m)->ran && mode_of(r, m)->error)
			rc = AWR_EXIT_FAIL;
	if (rc == AWR_EXIT_FAIL)
		out_outcome("write_failed");
	if (stop_signal && rc == AWR_EXIT_OK) {
		out_error("bench: stopped by %s; the figures cover the time run",
			  strsignal(stop_signal));
		rc = 128 + stop_signal;
	}
	return rc;
}

int cmd_bench(int argc, const char **argv)
{
	struct bench_args a = { 0 };
	struct poptOption table[] = {
		{ "unit", 0, POPT_ARG_STRING, &a.unit, 0, "page size (default 16k)", "U" },
		{ "qd", 0, POPT_ARG_STRING, &a.qd, 0, "io_uring queue depth per job (default 32)",
		  "N" },
		{ "jobs", 0, POPT_ARG_STRING, &a.jobs, 0,
		  "threads writing at once, one ring each (default 1)", "N" },
		{ "sqpoll", 0, POPT_ARG_NONE, &a.sqpoll, 0,
		  "a kernel thread polls each ring (IORING_SETUP_SQPOLL)", NULL },
		{ "fixed-buffers", 0, POPT_ARG_NONE, &a.fixed_buffers, 0,
		  "plain writes from registered buffers "
		  "(the kernel refuses them for atomic writes)", NULL },
		{ "batch", 0, POPT_ARG_STRING, &a.batch, 0,
		  "pages per flush (default: the queue depth)", "N" },
		{ "seconds", 0, POPT_ARG_STRING, &a.seconds, 0, "seconds per mode (default 10)",
		  "S" },
		{ "size", 0, POPT_ARG_STRING, &a.size, 0, "span written (default 256MiB)",
		  "SPAN" },
		{ "mode", 0, POPT_ARG_STRING, &a.mode, 0, "what to measure (default all)",
		  "atomic|plain|doublewrite|pages|all" },
		{ "order", 0, POPT_ARG_STRING, &a.order, 0, "page order (default random)",
		  "random|sequential" },
		{ "durability", 0, POPT_ARG_STRING, &a.durability, 0,
		  "fdatasync per batch (default), RWF_DSYNC per write, or none",
		  "fdatasync|dsync|none" },
		{ "force", 0, POPT_ARG_NONE, &a.force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_bench_result *r = NULL;
	struct awr_bench_opts o;
	struct cmd_ctx c;
	int fd = -1, rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	awr_bench_opts_init(&o);
	if (parse_opts(&a, &o))
		goto out;
	fd = target_open("bench", c.operand, O_RDWR | O_DIRECT, AWR_TARGET_CREATE, a.force);
	if (fd < 0)
		goto out;
	if (out_mode == OUT_NORMAL && isatty(STDERR_FILENO)) {
		o.progress = on_progress;
		o.progress_arg = &o;
	}
	o.path = c.operand;
	catch_stop_signals(on_stop);
	if (awr_bench_run(fd, &o, &r)) {
		if (r && r->message[0])
			out_error("%s", r->message);
		goto out;
	}
	rc = render(c.operand, &o, r);
out:
	awr_bench_result_free(r);
	if (fd >= 0)
		close(fd);
	cmd_done(&c);
	return rc;
}
