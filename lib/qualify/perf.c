// SPDX-License-Identifier: MIT
/*
 * The performance check of qualification: a short awr_bench_run() of database-style page
 * writes, atomic vs plain vs doublewrite, through the io_uring engine; the figures per mode in
 * the report, nothing asserted about speed (INFO).
 */
#include <stdio.h>
#include <string.h>

#include "private.h"
#include "qualify.h"

#define PERF_SPAN	(64ULL << 20)

static void judge(struct awr_qualify_check *c, const struct awr_bench_opts *o,
		  const struct awr_bench_result *r)
{
	const struct awr_bench_mode_result *m, *at, *pl, *dw;
	char a[32], p[3][32];

	for (int i = 0; i < AWR_BENCH__MODES; i++) {
		m = awr_bench_result_mode(r, i);
		if (m->ran && m->error) {
			awr__q_set(c, AWR_QUALIFY_FAIL, "%s page writes failed: %s",
				   awr_bench_mode_name(i), m->message);
			return;
		}
	}
	at = awr_bench_result_mode(r, AWR_BENCH_ATOMIC);
	pl = awr_bench_result_mode(r, AWR_BENCH_PLAIN);
	dw = awr_bench_result_mode(r, AWR_BENCH_DOUBLEWRITE);
	awr__q_set(c, AWR_QUALIFY_INFO, "%s pages, QD %u, %s per batch: atomic %.0f/s, plain "
		   "%.0f/s, doublewrite %.0f/s (p99 %s, %s, %s)",
		   awr_format_size(o->unit, a, sizeof(a)), o->qd,
		   awr_bench_durability_name(o->durability), at->pages_per_s, pl->pages_per_s,
		   dw->pages_per_s, awr__human_usec(at->p99_us, p[0], sizeof(p[0])),
		   awr__human_usec(pl->p99_us, p[1], sizeof(p[1])),
		   awr__human_usec(dw->p99_us, p[2], sizeof(p[2])));
}

void awr__q_performance(struct awr__qctx *q, struct awr_qualify_check *c)
{
	struct awr_qualify_report *r = q->r;
	struct awr_bench_opts *o = &r->perf_opts;
	int ret;

	if (!q->writes_ok) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "the size sweep did not pass");
		return;
	}
	awr_bench_opts_init(o);
	o->unit = r->unit;
	o->seconds = q->flags & AWR_QUALIFY_QUICK ? 1 : 5;
	o->span = r->block_device && r->device_size < PERF_SPAN ? r->device_size : PERF_SPAN;
	ret = awr_bench_run(q->fd, o, &r->perf);
	r->perf_error = ret;
	if (ret)
		awr__q_set(c, AWR_QUALIFY_FAIL, "awr bench could not run on %s: %s", r->target,
			   strerror(-ret));
	else
		judge(c, o, r->perf);
}
