// SPDX-License-Identifier: MIT
/*
 * awr bench PATH: database page writes, atomic vs plain vs doublewrite:
 * pages/s, MB/s, page latency percentiles and the ratios. The measuring is
 * in bench.c (bench_run()).
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
		  n > 1 ? ", " : "", n > 1 ? names[1] : "", n > 2 ? " or " : "", n > 2 ? names[2] : "");
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
		out_error("--seconds '%s': give a duration in seconds, more than 0 and at most 86400 (0.5 is fine)", text);
		return -EINVAL;
	}
	return 0;
}

static int parse_opts(const struct bench_args *a, struct bench_opts *o)
{
	static const char *const modes[] = { "atomic", "plain", "doublewrite", "pages", "all" };
	static const char *const orders[] = { "random", "sequential" };
	static const char *const durs[] = { "fdatasync", "dsync", "none" };
	int mode = 4, order = BENCH_RANDOM, dur = BENCH_DUR_FDATASYNC;

	if ((a->unit && parse_size_arg("unit", a->unit, &o->unit)) ||
	    (a->size && parse_size_arg("size", a->size, &o->size)) ||
	    parse_count("qd", a->qd, 32768, &o->qd) || parse_count("batch", a->batch, 65536, &o->batch) ||
	    parse_count("jobs", a->jobs, 64, &o->jobs) ||
	    parse_seconds(a->seconds, &o->seconds) || pick("mode", a->mode, modes, 5, &mode) ||
	    pick("order", a->order, orders, 2, &order) || pick("durability", a->durability, durs, 3, &dur))
		return -EINVAL;
	if (!o->unit || o->unit % 512 || o->unit > (1ULL << 30)) {
		out_error("--unit %" PRIu64 " must be a multiple of 512 bytes up to 1 GiB (a page size such as 16k)", o->unit);
		return -EINVAL;
	}
	o->modes = mode == 4 ? (1U << BENCH__MODES) - 1 : 1U << mode;
	o->sqpoll = a->sqpoll;
	o->fixed_buffers = a->fixed_buffers;
	o->order = (enum bench_order)order;
	o->durability = (enum bench_durability)dur;
	return 0;
}

static double ratio(const struct bench_result *r, enum bench_mode a, enum bench_mode b)
{
	const struct bench_mode_result *x = &r->mode[a], *y = &r->mode[b];

	if (!x->ran || !y->ran || x->error || y->error || y->pages_per_s <= 0)
		return 0;
	return x->pages_per_s / y->pages_per_s;
}

static void print_row(const char *name, const struct bench_mode_result *x)
{
	if (!x->ran)
		return;
	if (x->error)
		printf("%-12s failed: %s\n", name, x->message);
	else
		printf("%-12s %10.0f %9.1f %10.1f %10.1f %10.1f %11.0f\n", name, x->pages_per_s, x->mb_per_s,
		       x->p50_us, x->p99_us, x->p999_us, x->cpu_ns_per_page);
}

/* pages mode: the store and naive-dw, one batch each in turn (bench_pages.c) */
static void print_pair(const struct bench_result *r)
{
	const struct bench_pages_pair *p = &r->pages_pair;

	if (!p->rounds || r->mode[BENCH_PAGES].error)
		return;
	printf("pages/naive-dw: %.2fx (median over %zu rounds of naive-dw's batch time over the store's; "
	       "quartiles %.2f..%.2f)\n", p->auto_median, p->rounds, p->auto_q1, p->auto_q3);
	printf("pages-dw/naive-dw: %.2fx\n", p->dw_median);
}

static void print_normal(const char *path, const struct bench_opts *o, const struct bench_result *r)
{
	unsigned int batch = o->batch ? o->batch : o->qd;
	char u[32], s[32];

	printf("awr bench %s: %s pages, queue depth %u%s, %s order, span %s, %.1f s per mode\n", path,
	       out_size(o->unit, u, sizeof(u)), o->qd, o->jobs > 1 ? " per job" : "",
	       o->order == BENCH_RANDOM ? "random" : "sequential", out_size(r->span, s, sizeof(s)), o->seconds);
	printf("layout: %s\n", r->layout);
	if (o->jobs > 1 || o->sqpoll || o->fixed_buffers)
		printf("%u job%s (one ring each)%s%s\n", o->jobs, o->jobs == 1 ? "" : "s",
		       o->sqpoll ? ", SQPOLL" : "", o->fixed_buffers ? ", plain writes from registered buffers" : "");
	if (o->durability == BENCH_DUR_FDATASYNC)
		printf("durability: fdatasync after each batch of %u pages\n", batch);
	else if (o->durability == BENCH_DUR_DSYNC)
		printf("durability: RWF_DSYNC on every write (doublewrite: batches of %u pages)\n", batch);
	else
		printf("durability: none, completion only (doublewrite: batches of %u pages)\n", batch);
	printf("%-12s %10s %9s %10s %10s %10s %11s\n", "mode", "pages/s", "MB/s", "p50 us", "p99 us", "p99.9 us",
	       "CPU ns/page");
	for (int m = 0; m < BENCH__MODES; m++) {
		print_row(bench_mode_name((enum bench_mode)m), &r->mode[m]);
		if (m == BENCH_PAGES) {
			print_row("pages-dw", &r->pages_pair.doublewrite);
			print_row("naive-dw", &r->pages_pair.naive);
		}
	}
	if (ratio(r, BENCH_ATOMIC, BENCH_DOUBLEWRITE) > 0)
		printf("atomic/doublewrite: %.2fx\n", ratio(r, BENCH_ATOMIC, BENCH_DOUBLEWRITE));
	if (ratio(r, BENCH_ATOMIC, BENCH_PLAIN) > 0)
		printf("atomic/plain: %.2fx\n", ratio(r, BENCH_ATOMIC, BENCH_PLAIN));
	for (int m = BENCH_ATOMIC; m <= BENCH_PLAIN; m++)
		if (r->mode[m].ran && r->mode[m].moved_pages >= 0)
			printf("%s: %" PRId64 " of %" PRIu64 " pages moved on the device (%s)\n", bench_mode_name((enum bench_mode)m),
			       r->mode[m].moved_pages, (r->dw_offset ? r->dw_offset : r->span) / o->unit,
			       r->mode[m].moved_pages ? "copy-on-write: the software path" : "written in place");
	for (int m = BENCH_ATOMIC; m <= BENCH_DOUBLEWRITE; m++) {
		const struct bench_mode_result *x = &r->mode[m];

		if (!x->ran || !x->batches)
			continue;
		printf("%s: a batch of %u pages took", bench_mode_name((enum bench_mode)m), batch);
		if (m == BENCH_DOUBLEWRITE)
			printf(" %.2f ms in the copy,", x->batch_step_ms[BENCH_STEP_COPY]);
		printf(" %.2f ms in the page writes, %.2f ms in %s (means of %" PRIu64 " batches)\n",
		       x->batch_step_ms[BENCH_STEP_WRITES], x->batch_step_ms[BENCH_STEP_FLUSH],
		       m == BENCH_DOUBLEWRITE ? "its two fdatasyncs" : "fdatasync", x->batches);
	}
	if (r->pages_explain[0])
		printf("pages: the store chose %s\n", r->pages_explain);
	if (ratio(r, BENCH_PAGES, BENCH_DOUBLEWRITE) > 0)
		printf("pages/doublewrite: %.2fx\n", ratio(r, BENCH_PAGES, BENCH_DOUBLEWRITE));
	print_pair(r);
}


/* [[us, share of pages at or below], ...] */
static struct json_object *cdf_json(const struct bench_mode_result *x)
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

struct json_object *bench_mode_json(const struct bench_mode_result *x)
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
	json_object_object_add(o, "queue_ns_per_write", x->queue_ns_per_write > 0 ? out_double(x->queue_ns_per_write, 1) : NULL);
	json_object_object_add(o, "clock_read_ns", out_double(x->clock_read_ns, 1));
	json_object_object_add(o, "inflight_mean", out_double(x->inflight_mean, 2));
	json_object_object_add(o, "reaps_below_depth", out_double(x->reaps_below_depth_share, 4));
	json_object_object_add(o, "ring_setup_flags", out_u64(x->ring_setup_flags));
	json_object_object_add(o, "ring_wait_flags", out_u64(x->ring_wait_flags));
	json_object_object_add(o, "moved_pages", x->moved_pages < 0 ? NULL : out_u64((uint64_t)x->moved_pages));
	if (x->batches) {
		struct json_object *b = json_object_new_object();

		json_object_object_add(b, "batches", out_u64(x->batches));
		json_object_object_add(b, "copy", out_double(x->batch_step_ms[BENCH_STEP_COPY], 3));
		json_object_object_add(b, "writes", out_double(x->batch_step_ms[BENCH_STEP_WRITES], 3));
		json_object_object_add(b, "flush", out_double(x->batch_step_ms[BENCH_STEP_FLUSH], 3));
		json_object_object_add(o, "batch_ms", b);
	} else {
		json_object_object_add(o, "batch_ms", NULL);
	}
	json_object_object_add(o, "error", x->error ? json_object_new_string(x->message) : NULL);
	return o;
}

static struct json_object *pair_json(const struct bench_pages_pair *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "pages_doublewrite", bench_mode_json(&p->doublewrite));
	json_object_object_add(o, "naive_doublewrite", bench_mode_json(&p->naive));
	json_object_object_add(o, "rounds", out_u64(p->rounds));
	json_object_object_add(o, "pages_to_naive_median", p->rounds ? out_double(p->auto_median, 3) : NULL);
	json_object_object_add(o, "pages_to_naive_q1", p->rounds ? out_double(p->auto_q1, 3) : NULL);
	json_object_object_add(o, "pages_to_naive_q3", p->rounds ? out_double(p->auto_q3, 3) : NULL);
	json_object_object_add(o, "pages_doublewrite_to_naive_median", p->rounds ? out_double(p->dw_median, 3) : NULL);
	return o;
}

static void print_json(const char *path, const struct bench_opts *o, const struct bench_result *r)
{
	struct json_object *root = json_object_new_object(), *modes = json_object_new_object();
	struct json_object *ratios = json_object_new_object();
	double ad = ratio(r, BENCH_ATOMIC, BENCH_DOUBLEWRITE), ap = ratio(r, BENCH_ATOMIC, BENCH_PLAIN);
	double pd = ratio(r, BENCH_PAGES, BENCH_DOUBLEWRITE);

	json_object_object_add(root, "path", json_object_new_string(path));
	json_object_object_add(root, "unit", out_u64(o->unit));
	json_object_object_add(root, "qd", out_u64(o->qd));
	json_object_object_add(root, "jobs", out_u64(o->jobs));
	json_object_object_add(root, "sqpoll", json_object_new_boolean(o->sqpoll));
	json_object_object_add(root, "fixed_buffers", json_object_new_boolean(o->fixed_buffers));
	json_object_object_add(root, "batch", out_u64(o->batch ? o->batch : o->qd));
	json_object_object_add(root, "span", out_u64(r->span));
	json_object_object_add(root, "layout", json_object_new_string(r->layout));
	json_object_object_add(root, "order", json_object_new_string(o->order == BENCH_RANDOM ? "random" : "sequential"));
	json_object_object_add(root, "durability", json_object_new_string(bench_durability_name(o->durability)));
	json_object_object_add(root, "seconds_per_mode", out_double(o->seconds, 3));
	for (int m = 0; m < BENCH__MODES; m++)
		if (r->mode[m].ran)
			json_object_object_add(modes, bench_mode_name((enum bench_mode)m), bench_mode_json(&r->mode[m]));
	json_object_object_add(root, "modes", modes);
	json_object_object_add(ratios, "atomic_to_doublewrite", ad > 0 ? out_double(ad, 3) : NULL);
	json_object_object_add(ratios, "atomic_to_plain", ap > 0 ? out_double(ap, 3) : NULL);
	json_object_object_add(ratios, "pages_to_doublewrite", pd > 0 ? out_double(pd, 3) : NULL);
	if (r->pages_explain[0])
		json_object_object_add(root, "pages_store", json_object_new_string(r->pages_explain));
	if (r->mode[BENCH_PAGES].ran)
		json_object_object_add(root, "pages_paired", pair_json(&r->pages_pair));
	json_object_object_add(root, "ratios", ratios);
	out_print_json(root);
}

/* SIGINT, SIGTERM: every mode's loop ends (bench_stop), the figures cover the time run. */
static void on_stop(int sig)
{
	stop_signal = sig;
	bench_stop = 1;
}

int cmd_bench(int argc, const char **argv)
{
	struct bench_args a = { 0 };
	struct poptOption table[] = {
		{ "unit", 0, POPT_ARG_STRING, &a.unit, 0, "page size (default 16k)", "U" },
		{ "qd", 0, POPT_ARG_STRING, &a.qd, 0, "io_uring queue depth per job (default 32)", "N" },
		{ "jobs", 0, POPT_ARG_STRING, &a.jobs, 0, "threads writing at once, one ring each (default 1)", "N" },
		{ "sqpoll", 0, POPT_ARG_NONE, &a.sqpoll, 0, "a kernel thread polls each ring (IORING_SETUP_SQPOLL)", NULL },
		{ "fixed-buffers", 0, POPT_ARG_NONE, &a.fixed_buffers, 0,
		  "plain writes from registered buffers (the kernel refuses them for atomic writes)", NULL },
		{ "batch", 0, POPT_ARG_STRING, &a.batch, 0, "pages per flush (default: the queue depth)", "N" },
		{ "seconds", 0, POPT_ARG_STRING, &a.seconds, 0, "seconds per mode (default 10)", "S" },
		{ "size", 0, POPT_ARG_STRING, &a.size, 0, "span written (default 256MiB)", "SPAN" },
		{ "mode", 0, POPT_ARG_STRING, &a.mode, 0, "what to measure (default all)",
		  "atomic|plain|doublewrite|pages|all" },
		{ "order", 0, POPT_ARG_STRING, &a.order, 0, "page order (default random)", "random|sequential" },
		{ "durability", 0, POPT_ARG_STRING, &a.durability, 0,
		  "fdatasync per batch (default), RWF_DSYNC per write, or none", "fdatasync|dsync|none" },
		{ "force", 0, POPT_ARG_NONE, &a.force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct bench_opts o;
	struct bench_result r;
	struct cmd_ctx c;
	int fd = -1, rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	bench_opts_default(&o);
	if (parse_opts(&a, &o))
		goto out;
	fd = target_open("bench", c.operand, O_RDWR | O_DIRECT, AWR_TARGET_CREATE, a.force);
	if (fd < 0)
		goto out;
	o.progress = out_mode == OUT_NORMAL && isatty(STDERR_FILENO);
	o.path = c.operand;
	catch_stop_signals(on_stop);
	if (bench_run(fd, &o, &r))
		goto out;
	if (out_mode == OUT_JSON)
		print_json(c.operand, &o, &r);
	else
		print_normal(c.operand, &o, &r);
	rc = AWR_EXIT_OK;
	for (int m = 0; m < BENCH__MODES; m++)
		if (r.mode[m].ran && r.mode[m].error)
			rc = AWR_EXIT_FAIL;
	if (rc == AWR_EXIT_FAIL)
		out_outcome("write_failed");
	if (stop_signal && rc == AWR_EXIT_OK) {
		out_error("bench: stopped by %s; the figures cover the time run", strsignal(stop_signal));
		rc = 128 + stop_signal;
	}
out:
	if (fd >= 0)
		close(fd);
	cmd_done(&c);
	return rc;
}
