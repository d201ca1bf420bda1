// SPDX-License-Identifier: MIT
/*
 * The performance check of awr qualify: a short measurement of durable page
 * writes, each one RWF_ATOMIC write vs a plain O_DIRECT write, one writer,
 * random page-aligned offsets.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "qualify.h"

#define PERF_SPAN	(64ULL << 20)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct perf {
	uint64_t writes;
	double seconds;
	int error;
};

/* Durable page writes for @ms milliseconds; atomic through awr_pwrite, plain through pwritev2. */
static void measure(struct awr_file *f, void *buf, uint32_t unit, uint64_t pages, bool atomic,
		    unsigned int ms, struct perf *p)
{
	uint64_t start = mono_ns(), end = start + ms * 1000000ULL, x = start | 1, now = start;
	struct iovec iov = { buf, unit };
	ssize_t ret;

	while (now < end) {
		uint64_t off;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		off = (x % pages) * unit;
		if (atomic)
			ret = awr_pwrite(f, buf, unit, off, AWR_WRITE_DSYNC, NULL);
		else
			ret = pwritev2(awr_file_fd(f), &iov, 1, (off_t)off, RWF_DSYNC) < 0 ? -errno : (ssize_t)unit;
		if (ret < 0) {
			p->error = (int)ret;
			break;
		}
		p->writes++;
		now = mono_ns();
	}
	p->seconds = (double)(mono_ns() - start) / 1e9;
}

static struct json_object *perf_json(const struct perf *p, uint32_t unit)
{
	struct json_object *o = json_object_new_object();
	double rate = p->seconds > 0 ? (double)p->writes / p->seconds : 0;

	json_object_object_add(o, "writes", out_u64(p->writes));
	json_object_object_add(o, "seconds", json_object_new_double(p->seconds));
	json_object_object_add(o, "writes_per_s", json_object_new_double(rate));
	json_object_object_add(o, "mb_per_s", json_object_new_double(rate * unit / 1e6));
	json_object_object_add(o, "error", p->error ? json_object_new_string(out_errno_name(p->error)) : NULL);
	return o;
}

void q_performance(struct qctx *q, struct qcheck *c)
{
	unsigned int ms = q->quick ? 1000 : 5000;
	uint64_t span = q->is_blk && q->size < PERF_SPAN ? q->size : PERF_SPAN;
	struct perf atomic = { 0 }, plain = { 0 };
	struct awr_file *f = NULL;
	void *buf = NULL;
	char a[32];
	int ret;

	if (!q->writes_ok) {
		q_set(c, Q_SKIP, "the size sweep did not pass");
		return;
	}
	if (!q->is_blk && truncate(q->target, (off_t)span) && errno != EINVAL) {
		q_set(c, Q_FAIL, "cannot size %s: %s", q->target, strerror(errno));
		return;
	}
	ret = awr_file_open(q->target, 0, &f);
	if (ret || posix_memalign(&buf, 4096, q->unit)) {
		q_set(c, Q_FAIL, "cannot open %s: %s", q->target, strerror(ret ? -ret : ENOMEM));
		goto out;
	}
	awr_stamp_fill(buf, q->unit, 0, 1, 0);
	measure(f, buf, q->unit, span / q->unit, true, ms, &atomic);
	measure(f, buf, q->unit, span / q->unit, false, ms, &plain);
	json_object_object_add(c->figures, "method", json_object_new_string(
		"one writer, durable (RWF_DSYNC) page writes at random page-aligned offsets"));
	json_object_object_add(c->figures, "unit", out_u64(q->unit));
	json_object_object_add(c->figures, "atomic", perf_json(&atomic, q->unit));
	json_object_object_add(c->figures, "plain", perf_json(&plain, q->unit));
	if (atomic.error || plain.error)
		q_set(c, Q_FAIL, "%s writes failed: %s", atomic.error ? "atomic" : "plain",
		      strerror(-(atomic.error ? atomic.error : plain.error)));
	else
		q_set(c, Q_PASS, "durable %s page writes, one writer: atomic %.0f/s, plain %.0f/s (atomic costs %.1fx)",
		      out_size(q->unit, a, sizeof(a)), atomic.writes / atomic.seconds, plain.writes / plain.seconds,
		      atomic.writes ? (plain.writes / plain.seconds) / (atomic.writes / atomic.seconds) : 0);
out:
	awr_file_close(f);
	free(buf);
}
