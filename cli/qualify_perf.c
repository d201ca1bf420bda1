// SPDX-License-Identifier: MIT
/*
 * The performance check of awr qualify: a short awr bench (awr_bench_run()) of
 * database-style page writes, atomic vs plain vs doublewrite, through the
 * io_uring engine; figures per mode, nothing asserted about speed.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qualify.h"

#define PERF_SPAN	(64ULL << 20)

static void bench_figures(struct json_object *fig, const struct awr_bench_opts *o,
			  const struct awr_bench_result *r)
{
	json_object_object_add(fig, "method", json_object_new_string("awr bench: random page writes, io_uring"));
	json_object_object_add(fig, "unit", out_u64(o->unit));
	json_object_object_add(fig, "qd", out_u64(o->qd));
	json_object_object_add(fig, "durability",
			       json_object_new_string(awr_bench_durability_name(o->durability)));
	json_object_object_add(fig, "seconds_per_mode", out_double(o->seconds, 3));
	json_object_object_add(fig, "span", out_u64(r->span));
	for (int m = 0; m <= AWR_BENCH_PAGES; m++)
		if (awr_bench_result_mode(r, m)->ran)
			json_object_object_add(fig, awr_bench_mode_name(m),
					       bench_mode_json(awr_bench_result_mode(r, m)));
}

static void perf_set(struct qperf *c, enum awr_qualify_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void perf_set(struct qperf *c, enum awr_qualify_status s, const char *fmt, ...)
{
	va_list ap;

	c->status = s;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

void q_performance(int fd, const struct awr_qualify_report *q, struct qperf *c)
{
	const struct awr_bench_mode_result *m, *at, *pl, *dw;
	struct awr_bench_result *r = NULL;
	struct awr_bench_opts o;
	char a[32];
	int ret;

	c->ran = true;
	c->figures = json_object_new_object();
	if (q->checks[AWR_QUALIFY_SIZE_SWEEP].status != AWR_QUALIFY_PASS) {
		perf_set(c, AWR_QUALIFY_SKIP, "the size sweep did not pass");
		return;
	}
	awr_bench_opts_init(&o);
	o.unit = q->unit;
	o.seconds = q->quick ? 1 : 5;
	o.span = q->block_device && q->device_size < PERF_SPAN ? q->device_size : PERF_SPAN;
	ret = awr_bench_run(fd, &o, &r);
	if (ret) {
		if (r && r->message[0])
			out_error("%s", r->message);
		perf_set(c, AWR_QUALIFY_FAIL, "awr bench could not run on %s: %s", q->target,
			 strerror(-ret));
		goto out;
	}
	bench_figures(c->figures, &o, r);
	for (int i = 0; i < AWR_BENCH__MODES; i++) {
		m = awr_bench_result_mode(r, i);
		if (m->ran && m->error) {
			perf_set(c, AWR_QUALIFY_FAIL, "%s page writes failed: %s",
				 awr_bench_mode_name(i), m->message);
			goto out;
		}
	}
	at = awr_bench_result_mode(r, AWR_BENCH_ATOMIC);
	pl = awr_bench_result_mode(r, AWR_BENCH_PLAIN);
	dw = awr_bench_result_mode(r, AWR_BENCH_DOUBLEWRITE);
	perf_set(c, AWR_QUALIFY_INFO, "%s pages, QD %u, %s per batch: atomic %.0f/s, plain "
		 "%.0f/s, doublewrite %.0f/s (p99 %.0f, %.0f, %.0f us)",
		 out_size(o.unit, a, sizeof(a)), o.qd, awr_bench_durability_name(o.durability),
		 at->pages_per_s, pl->pages_per_s, dw->pages_per_s, at->p99_us, pl->p99_us,
		 dw->p99_us);
out:
	awr_bench_result_free(r);
}
