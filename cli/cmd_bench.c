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

struct bench_args {
	char *unit, *qd, *batch, *seconds, *size, *mode, *order, *durability, *jobs;
	int force, sqpoll, fixed_buffers;
};

static int pick(const char *opt, const char *text, const char *const *names, int n, int *out)
{
	if (!text)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(text, names[i])) {
			*out = i;
			return 0;
		}
	}
	out_error("--%s '%s' is unknown: use %s%s%s%s%s", opt, text, names[0],
		  n > 1 ? ", " : "", n > 1 ? names[1] : "", n > 2 ? " or " : "",
		  n > 2 ? names[2] : "");
	return -EINVAL;
}

static int parse_count(const char *opt, const char *text, unsigned int max, unsigned int *out)
{
	uint64_t v;

	if (!text)
		return 0;
	if (awr_parse_size(text, &v) || !v || v > max) {
		out_error("--%s '%s': give a whole number from 1 to %u", opt, text, max);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

static int parse_seconds(const char *text, double *out)
{
	char *end;

	if (!text)
		return 0;
	errno = 0;
	*out = strtod(text, &end);
	if (errno || *end || end == text || !(*out > 0) || *out > 86400) {
		out_error("--seconds '%s': give a duration in seconds, more than 0 and at most "
			  "86400 (0.5 is fine)", text);
		return -EINVAL;
	}
	return 0;
}

static int parse_opts(const struct bench_args *a, struct awr_bench_opts *o)
{
	static const char *const modes[] = { "atomic", "plain", "doublewrite", "pages", "all" };
	static const char *const orders[] = { "random", "sequential" };
	static const char *const durs[] = { "fdatasync", "dsync", "none" };
	int mode = 4, order = AWR_BENCH_RANDOM, dur = AWR_BENCH_FDATASYNC;

	if ((a->unit && parse_size_arg("unit", a->unit, &o->unit)) ||
	    (a->size && parse_size_arg("size", a->size, &o->span)) ||
	    parse_count("qd", a->qd, 32768, &o->qd) ||
	    parse_count("batch", a->batch, 65536, &o->batch) ||
	    parse_count("jobs", a->jobs, 64, &o->jobs) ||
	    parse_seconds(a->seconds, &o->seconds) || pick("mode", a->mode, modes, 5, &mode) ||
	    pick("order", a->order, orders, 2, &order) ||
	    pick("durability", a->durability, durs, 3, &dur))
		return -EINVAL;
	if (!o->unit || o->unit % 512 || o->unit > (1ULL << 30)) {
		out_error("--unit %" PRIu64 " must be a multiple of 512 bytes up to 1 GiB "
			  "(a page size such as 16k)", o->unit);
		return -EINVAL;
	}
	o->modes = mode == 4 ? AWR_BENCH_ALL : 1U << mode;
	o->sqpoll = a->sqpoll;
	o->fixed_buffers = a->fixed_buffers;
	o->order = (enum awr_bench_order)order;
	o->durability = (enum awr_bench_durability)dur;
	return 0;
}

static const struct awr_bench_mode_result *mode_of(const struct awr_bench_result *r,
						   enum awr_bench_mode m)
{
	return awr_bench_result_mode(r, m);
}

static double ratio(const struct awr_bench_result *r, enum awr_bench_mode a, enum awr_bench_mode b)
{
	const struct awr_bench_mode_result *x = mode_of(r, a), *y = mode_of(r, b);

	if (!x->ran || !y->ran || x->error || y->error || y->pages_per_s <= 0)
		return 0;
	return x->pages_per_s / y->pages_per_s;
}

static void print_row(const char *name, const struct awr_bench_mode_result *x)
{
	if (!x->ran)
		return;
	if (x->error)
		printf("%-12s failed: %s\n", name, x->message);
	else
		printf("%-12s %10.0f %9.1f %10.1f %10.1f %10.1f %11.0f\n", name, x->pages_per_s,
		       x->mb_per_s, x->p50_us, x->p99_us, x->p999_us, x->cpu_ns_per_page);
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
	unsigned int batch = o->batch ? o->batch : o->qd;
	char u[32], s[32];

	printf("awr bench %s: %s pages, queue depth %u%s, %s order, span %s, %.1f s per mode\n",
	       path, out_size(o->unit, u, sizeof(u)), o->qd, o->jobs > 1 ? " per job" : "",
	       o->order == AWR_BENCH_RANDOM ? "random" : "sequential",
	       out_size(r->span, s, sizeof(s)), o->seconds);
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
	printf("%-12s %10s %9s %10s %10s %10s %11s\n", "mode", "pages/s", "MB/s", "p50 us",
	       "p99 us", "p99.9 us", "CPU ns/page");
}

/* Which path atomic and plain writes took, from the pages they moved. */
static void print_moved(const struct awr_bench_opts *o, const struct awr_bench_result *r)
{
	for (int m = AWR_BENCH_ATOMIC; m <= AWR_BENCH_PLAIN; m++) {
		const struct awr_bench_mode_result *x = mode_of(r, m);

		if (x->ran && x->moved_pages >= 0)
			printf("%s: %" PRId64 " of %" PRIu64 " pages moved on the device (%s)\n",
			       awr_bench_mode_name(m), x->moved_pages,
			       (r->dw_offset ? r->dw_offset : r->span) / o->unit, x->moved_pages ?
			       "copy-on-write: the software path" : "written in place");
	}
}

/* Where a batch's time went, per mode with batches. */
static void print_steps(const struct awr_bench_opts *o, const struct awr_bench_result *r)
{
	unsigned int batch = o->batch ? o->batch : o->qd;

	for (int m = AWR_BENCH_ATOMIC; m <= AWR_BENCH_DOUBLEWRITE; m++) {
		const struct awr_bench_mode_result *x = mode_of(r, m);

		if (!x->ran || !x->batches)
			continue;
		printf("%s: a batch of %u pages took", awr_bench_mode_name(m), batch);
		if (m == AWR_BENCH_DOUBLEWRITE)
			printf(" %.2f ms in the copy,", x->batch_step_ms[AWR_BENCH_STEP_COPY]);
		printf(" %.2f ms in the page writes, %.2f ms in %s (means of %" PRIu64
		       " batches)\n", x->batch_step_ms[AWR_BENCH_STEP_WRITES],
		       x->batch_step_ms[AWR_BENCH_STEP_FLUSH],
		       m == AWR_BENCH_DOUBLEWRITE ? "its two fdatasyncs" : "fdatasync",
		       x->batches);
	}
}

static void print_normal(const char *path, const struct awr_bench_opts *o,
			 const struct awr_bench_result *r)
{
	print_head(path, o, r);
	for (int m = 0; m < AWR_BENCH__MODES; m++)
		print_row(awr_bench_mode_name(m), mode_of(r, m));
	if (ratio(r, AWR_BENCH_ATOMIC, AWR_BENCH_DOUBLEWRITE) > 0)
		printf("atomic/doublewrite: %.2fx\n",
		       ratio(r, AWR_BENCH_ATOMIC, AWR_BENCH_DOUBLEWRITE));
	if (ratio(r, AWR_BENCH_ATOMIC, AWR_BENCH_PLAIN) > 0)
		printf("atomic/plain: %.2fx\n", ratio(r, AWR_BENCH_ATOMIC, AWR_BENCH_PLAIN));
	print_moved(o, r);
	print_steps(o, r);
	if (r->pages_store[0])
		printf("pages: the store chose %s\n", r->pages_store);
	if (ratio(r, AWR_BENCH_PAGES, AWR_BENCH_DOUBLEWRITE) > 0)
		printf("pages/doublewrite: %.2fx\n",
		       ratio(r, AWR_BENCH_PAGES, AWR_BENCH_DOUBLEWRITE));
	print_pair(r);
}


/* [[us, share of pages at or below], ...] */
static struct json_object *cdf_json(const struct awr_bench_mode_result *x)
{
	struct json_object *a = json_object_new_array(), *p;

	for (unsigned int i = 0; i < x->cdf_n; i++) {
		p = json_object_new_array();
		json_object_array_add(p, out_double(x->cdf_us[i], 1));
		json_object_array_add(p, out_double(x->cdf_share[i], 5));
		json_object_array_add(a, p);
	}
	return a;
}

struct json_object *bench_mode_json(const struct awr_bench_mode_result *x)
{
	struct json_object *o = json_object_new_object(), *lat = json_object_new_object();

	json_object_object_add(o, "pages", out_u64(x->pages));
	json_object_object_add(o, "seconds", out_double(x->seconds, 3));
	json_object_object_add(o, "pages_per_s", out_double(x->pages_per_s, 1));
	json_object_object_add(o, "mb_per_s", out_double(x->mb_per_s, 2));
	json_object_object_add(lat, "p50", out_double(x->p50_us, 1));
	json_object_object_add(lat, "p99", out_double(x->p99_us, 1));
	json_object_object_add(lat, "p99_9", out_double(x->p999_us, 1));
	json_object_object_add(o, "latency_us", lat);
	json_object_object_add(o, "latency_cdf", cdf_json(x));
	json_object_object_add(o, "cpu_ns_per_write", out_double(x->cpu_ns_per_page, 1));
	json_object_object_add(o, "user_cpu_ns_per_write", out_double(x->user_cpu_ns_per_page, 1));
	json_object_object_add(o, "queue_ns_per_write", x->queue_ns_per_write > 0 ?
			       out_double(x->queue_ns_per_write, 1) : NULL);
	json_object_object_add(o, "clock_read_ns", out_double(x->clock_read_ns, 1));
	json_object_object_add(o, "inflight_mean", out_double(x->inflight_mean, 2));
	json_object_object_add(o, "reaps_below_depth", out_double(x->reaps_below_depth_share, 4));
	json_object_object_add(o, "ring_setup_flags", out_u64(x->ring_setup_flags));
	json_object_object_add(o, "ring_wait_flags", out_u64(x->ring_wait_flags));
	json_object_object_add(o, "moved_pages",
			       x->moved_pages < 0 ? NULL : out_u64((uint64_t)x->moved_pages));
	if (x->batches) {
		struct json_object *b = json_object_new_object();

		json_object_object_add(b, "batches", out_u64(x->batches));
		json_object_object_add(b, "copy",
				       out_double(x->batch_step_ms[AWR_BENCH_STEP_COPY], 3));
		json_object_object_add(b, "writes",
				       out_double(x->batch_step_ms[AWR_BENCH_STEP_WRITES], 3));
		json_object_object_add(b, "flush",
				       out_double(x->batch_step_ms[AWR_BENCH_STEP_FLUSH], 3));
		json_object_object_add(o, "batch_ms", b);
	} else {
		json_object_object_add(o, "batch_ms", NULL);
	}
	json_object_object_add(o, "error", x->error ? json_object_new_string(x->message) : NULL);
	return o;
}

/* a ratio of the paired rounds, null when there were none */
static struct json_object *pair_ratio(const struct awr_bench_result *r, double v)
{
	return r->rounds ? out_double(v, 3) : NULL;
}

static struct json_object *pair_json(const struct awr_bench_result *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "pages_doublewrite",
			       bench_mode_json(mode_of(r, AWR_BENCH_PAGES_DW)));
	json_object_object_add(o, "naive_doublewrite",
			       bench_mode_json(mode_of(r, AWR_BENCH_NAIVE_DW)));
	json_object_object_add(o, "rounds", out_u64(r->rounds));
	json_object_object_add(o, "pages_to_naive_median",
			       pair_ratio(r, r->pages_to_naive_median));
	json_object_object_add(o, "pages_to_naive_q1", pair_ratio(r, r->pages_to_naive_q1));
	json_object_object_add(o, "pages_to_naive_q3", pair_ratio(r, r->pages_to_naive_q3));
	json_object_object_add(o, "pages_doublewrite_to_naive_median",
			       pair_ratio(r, r->pages_dw_to_naive_median));
	return o;
}

static void print_json(const char *path, const struct awr_bench_opts *o,
		       const struct awr_bench_result *r)
{
	struct json_object *root = json_object_new_object(), *modes = json_object_new_object();
	struct json_object *ratios = json_object_new_object();
	double ad = ratio(r, AWR_BENCH_ATOMIC, AWR_BENCH_DOUBLEWRITE);
	double ap = ratio(r, AWR_BENCH_ATOMIC, AWR_BENCH_PLAIN);
	double pd = ratio(r, AWR_BENCH_PAGES, AWR_BENCH_DOUBLEWRITE);

	json_object_object_add(root, "path", json_object_new_string(path));
	json_object_object_add(root, "unit", out_u64(o->unit));
	json_object_object_add(root, "qd", out_u64(o->qd));
	json_object_object_add(root, "jobs", out_u64(o->jobs));
	json_object_object_add(root, "sqpoll", json_object_new_boolean(o->sqpoll));
	json_object_object_add(root, "fixed_buffers", json_object_new_boolean(o->fixed_buffers));
	json_object_object_add(root, "batch", out_u64(o->batch ? o->batch : o->qd));
	json_object_object_add(root, "span", out_u64(r->span));
	json_object_object_add(root, "layout", json_object_new_string(r->layout));
	json_object_object_add(root, "order", json_object_new_string(o->order == AWR_BENCH_RANDOM ?
								     "random" : "sequential"));
	json_object_object_add(root, "durability",
			       json_object_new_string(awr_bench_durability_name(o->durability)));
	json_object_object_add(root, "seconds_per_mode", out_double(o->seconds, 3));
	for (int m = 0; m <= AWR_BENCH_PAGES; m++)
		if (mode_of(r, m)->ran)
			json_object_object_add(modes, awr_bench_mode_name(m),
					       bench_mode_json(mode_of(r, m)));
	json_object_object_add(root, "modes", modes);
	json_object_object_add(ratios, "atomic_to_doublewrite", ad > 0 ? out_double(ad, 3) : NULL);
	json_object_object_add(ratios, "atomic_to_plain", ap > 0 ? out_double(ap, 3) : NULL);
	json_object_object_add(ratios, "pages_to_doublewrite", pd > 0 ? out_double(pd, 3) : NULL);
	if (r->pages_store[0])
		json_object_object_add(root, "pages_store",
				       json_object_new_string(r->pages_store));
	if (mode_of(r, AWR_BENCH_PAGES)->ran)
		json_object_object_add(root, "pages_paired", pair_json(r));
	json_object_object_add(root, "ratios", ratios);
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
