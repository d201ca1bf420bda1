// SPDX-License-Identifier: MIT
/*
 * Page batches for databases: a range written as naturally aligned units,
 * each one atomic write, through a queue of any engine. The queue is refilled
 * as completions arrive, so a batch may be far larger than its depth.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "write/queue.h"

#define BATCH_REAP 64U

struct batch {
	struct awr_queue *q;
	const unsigned char *buf;
	uint64_t offset;
	uint64_t unit;
	uint64_t nr_units;
	unsigned int flags;
	uint64_t next;		/* next unit to queue */
	uint64_t first_bad;	/* index of the failed unit at the lowest offset */
	struct awr_completion bad;
	struct awr_verdict refused;	/* the rule of a unit the queue refused */
	struct awr_batch_result *res;
};

static void note_failure(struct batch *b, const struct awr_completion *c)
{
	int res = c->res >= 0 ? -EIO : c->res;	/* a short write is an error */

	b->res->units_failed++;
	if (b->res->error && c->tag >= b->first_bad)
		return;
	b->first_bad = c->tag;
	b->bad = *c;
	b->res->error = res;
}

static void account(struct batch *b, const struct awr_completion *c)
{
	if (c->res >= 0 && (uint64_t)c->res == b->unit)
		b->res->units_done++;
	else
		note_failure(b, c);
}

/* The first failure's verdict: the rule that refused it, or what the kernel or device said. */
static void explain(struct batch *b)
{
	struct awr_batch_result *res = b->res;
	const char *why;

	res->error_offset = b->offset + b->first_bad * b->unit;
	if (b->bad.rule != AWR_RULE_OK && b->bad.rule != AWR_RULE_DEVICE_ERROR) {
		res->verdict = b->refused;
		return;
	}
	res->verdict.rule = AWR_RULE_OK;
	res->verdict.error = res->error;
	why = b->bad.res < 0 ? strerror(-b->bad.res) :
	      "short atomic write, the unit may be torn (a partly pinned buffer: "
	      "'block: fail a short atomic pin', 7.4)";
	if (b->bad.rule == AWR_RULE_DEVICE_ERROR && awr_queue_last_error(b->q))
		why = awr_queue_last_error(b->q);
	snprintf(res->verdict.message, sizeof(res->verdict.message),
		 "the %s refused the write of %" PRIu64 " bytes at %" PRIu64 ": %s",
		 b->bad.rule == AWR_RULE_DEVICE_ERROR ? "device" : "kernel", b->unit,
		 res->error_offset, why);
}

/* A unit the rules refused before the kernel: a failure like one the kernel returns. */
static void refused(struct batch *b, int ret, const struct awr_verdict *v)
{
	struct awr_completion c = { .tag = b->next, .res = ret, .rule = v->rule };

	if (!b->res->error || b->next < b->first_bad)
		b->refused = *v;
	note_failure(b, &c);
}

/*
 * Queue units until the queue is full. One opened with AWR_QUEUE_SUBMIT_EACH
 * hands each unit to the kernel as it is queued; otherwise the units go
 * together with the next reap's one system call.
 */
static int fill(struct batch *b)
{
	struct awr_verdict v;
	int ret;

	while (b->next < b->nr_units && !b->res->error) {
		v.rule = AWR_RULE_OK;
		ret = awr_queue_write(b->q, b->buf + b->next * b->unit, b->unit,
				      b->offset + b->next * b->unit, b->next, b->flags, &v);
		if (ret == -EBUSY)
			return 0;
		if (ret && v.rule != AWR_RULE_OK) {
			refused(b, ret, &v);
			return 0;
		}
		if (ret)
			return ret;
		b->next++;
	}
	return 0;
}

static int run(struct batch *b)
{
	struct awr_completion c[BATCH_REAP];
	int n, ret;

	for (;;) {
		ret = fill(b);
		if (ret)
			return ret;
		if (!awr_queue_outstanding(b->q))
			return 0;
		n = awr_queue_reap(b->q, c, BATCH_REAP, 1);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			account(b, &c[i]);
	}
}

int awr_queue_write_units(struct awr_queue *q, const void *buf, uint64_t offset,
			  uint64_t length, uint64_t unit, unsigned int flags,
			  struct awr_batch_result *res)
{
	struct awr_batch_result local;
	struct batch b = {
		.q = q, .buf = buf, .offset = offset, .unit = unit,
		.flags = flags, .res = res ? res : &local,
	};
	int ret;

	memset(b.res, 0, sizeof(*b.res));	/* callers read it whenever the call fails */
	if (!q || !buf || !unit || unit > UINT_MAX || length % unit)
		return -EINVAL;
	if (awr_queue_outstanding(q))
		return -EBUSY;
	b.nr_units = length / unit;
	ret = run(&b);
	if (ret)
		return ret;
	if (b.res->error)
		explain(&b);
	return b.res->error;
}
