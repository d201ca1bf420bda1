// SPDX-License-Identifier: MIT
/*
 * Page batches for databases: a range written as naturally aligned units,
 * each one atomic write, through an io_uring engine. The ring is refilled as
 * completions arrive, so a batch may be far larger than the queue depth.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "private.h"

#define BATCH_REAP 64U

struct batch {
	struct awr_ring *r;
	const unsigned char *buf;
	uint64_t offset;
	uint64_t unit;
	uint64_t nr_units;
	unsigned int flags;
	uint64_t next;		/* next unit to queue */
	uint64_t first_bad;	/* index of the failed unit at the lowest offset */
	struct awr_completion bad;
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

/* The first failure's verdict: re-run the rule check for a message, or name the kernel's errno. */
static void explain(struct batch *b)
{
	struct awr_batch_result *res = b->res;
	const struct awr_file *f = awr_ring_file(b->r);
	const void *buf = b->buf + b->first_bad * b->unit;

	res->error_offset = b->offset + b->first_bad * b->unit;
	if (b->bad.rule != AWR_RULE_OK) {
		awr_file_check(f, buf, b->unit, res->error_offset, &res->verdict);
		return;
	}
	res->verdict.rule = AWR_RULE_OK;
	res->verdict.error = res->error;
	snprintf(res->verdict.message, sizeof(res->verdict.message),
		 "the kernel refused the write of %" PRIu64 " bytes at %" PRIu64 ": %s",
		 b->unit, res->error_offset,
		 b->bad.res >= 0 ? "short atomic write, the unit may be torn (a partly pinned buffer: "
				   "'block: fail a short atomic pin', 7.4)" : strerror(-b->bad.res));
}

/*
 * Queue units until the ring is full. A ring made with AWR_RING_SUBMIT_EACH
 * hands each unit to the kernel as it is queued; otherwise the units go
 * together with the next reap's one system call.
 */
static int fill(struct batch *b)
{
	int ret;

	while (b->next < b->nr_units && !b->res->error) {
		ret = awr_ring_queue_write(b->r, b->buf + b->next * b->unit, b->unit,
					   b->offset + b->next * b->unit, b->next, b->flags);
		if (ret == -EBUSY)
			return 0;
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
		if (!awr_ring_outstanding(b->r))
			return 0;
		n = awr_ring_reap(b->r, c, BATCH_REAP, 1);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			account(b, &c[i]);
	}
}

int awr_write_units(struct awr_ring *r, const void *buf, uint64_t offset, uint64_t length,
		    uint64_t unit, unsigned int flags, struct awr_batch_result *res)
{
	struct awr_batch_result local;
	struct batch b = {
		.r = r, .buf = buf, .offset = offset, .unit = unit,
		.flags = flags, .res = res ? res : &local,
	};
	int ret;

	memset(b.res, 0, sizeof(*b.res));	/* callers read it whenever the call fails */
	if (!r || !buf || !unit || unit > UINT_MAX || length % unit)
		return -EINVAL;
	if (awr_ring_outstanding(r))
		return -EBUSY;
	b.nr_units = length / unit;
	ret = run(&b);
	if (ret)
		return ret;
	if (b.res->error)
		explain(&b);
	return b.res->error;
}
