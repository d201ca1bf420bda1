// SPDX-License-Identifier: MIT
/*
 * The queued-write loop: a range written as naturally aligned units, each one
 * atomic write, through a queue of any engine. The queue is refilled as
 * completions arrive, so a run may be far larger than its depth. The data is
 * one buffer of the whole range (awr_queue_write_units()) or made unit by
 * unit into a few buffers, one per write in flight (awr_queue_write_source()).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/queue.h"

#define BATCH_REAP 64U

struct batch {
	struct awr_queue *q;
	const unsigned char *buf;	/* the whole range, or NULL: src */
	const struct awr_queue_source *src;
	unsigned int *free_bufs, nr_free;	/* src: buffers not in flight */
	uint64_t *unit_of;		/* src: the unit each buffer holds */
	uint64_t offset;
	uint64_t unit;
	uint64_t nr_units;
	unsigned int flags;
	uint64_t next;		/* next unit to queue */
	uint64_t first_bad;	/* index of the failed unit at the lowest offset */
	struct awr_completion bad;
	struct awr_verdict refused;	/* the rule of a unit the queue refused */
	char device_error[160];		/* awr_last_error() when the device failed it */
	struct awr_batch_result *res;
};

static void note_failure(struct batch *b, uint64_t index, const struct awr_completion *c)
{
	int res = c->res >= 0 ? -EIO : c->res;	/* a short write is an error */

	b->res->units_failed++;
	if (b->res->error && index >= b->first_bad)
		return;
	b->first_bad = index;
	b->bad = *c;
	b->res->error = res;
	if (c->rule == AWR_RULE_DEVICE_ERROR)
		snprintf(b->device_error, sizeof(b->device_error), "%s", awr_last_error());
}

/* A completion's unit (the tag: its index, or with a source the buffer that held it). */
static void account(struct batch *b, const struct awr_completion *c)
{
	uint64_t index = c->tag;

	if (b->src) {
		index = b->unit_of[c->tag];
		b->free_bufs[b->nr_free++] = (unsigned int)c->tag;
	}
	if (c->res >= 0 && (uint64_t)c->res == b->unit)
		b->res->units_done++;
	else
		note_failure(b, index, c);
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
	res->verdict.rule = b->bad.rule;
	res->verdict.error = res->error;
	why = b->bad.res < 0 ? strerror(-b->bad.res) :
	      "short atomic write, the unit may be torn (a partly pinned buffer: "
	      "'block: fail a short atomic pin', 7.4)";
	if (b->bad.rule == AWR_RULE_DEVICE_ERROR)
		why = b->device_error[0] ? b->device_error : "it returned an error status";
	snprintf(res->verdict.message, sizeof(res->verdict.message),
		 "the %s refused the write of %" PRIu64 " bytes at %" PRIu64 ": %.120s",
		 awr_queue_device(b->q) ? "device" : "kernel", b->unit, res->error_offset, why);
}

/* A unit the rules refused before the kernel: a failure like one the kernel returns. */
static void refused(struct batch *b, int ret, const struct awr_verdict *v)
{
	struct awr_completion c = { .tag = b->next, .res = ret, .rule = v->rule };

	b->refused = *v;
	b->res->units_failed++;
	b->first_bad = b->next;
	b->bad = c;
	b->res->error = ret;
}

/* The buffer of the next unit: its place in the range, or a free one the source fills. */
static int next_buf(struct batch *b, const void **buf, uint64_t *tag)
{
	const struct awr_queue_source *s = b->src;
	unsigned int i;
	int ret;

	if (!s) {
		*buf = b->buf + b->next * b->unit;
		*tag = b->next;
		return 0;
	}
	if (!b->nr_free)
		return -EBUSY;
	i = b->free_bufs[b->nr_free - 1];
	*buf = (unsigned char *)s->bufs + (size_t)i * b->unit;
	ret = s->fill(s->arg, (void *)*buf, b->next);
	if (ret)
		return ret;
	b->nr_free--;
	b->unit_of[i] = b->next;
	*tag = i;
	return 0;
}

/* Give back a buffer taken for a unit that was not queued. */
static void put_buf(struct batch *b, uint64_t tag)
{
	if (b->src)
		b->free_bufs[b->nr_free++] = (unsigned int)tag;
}

/*
 * Queue units until the queue is full. One opened with AWR_QUEUE_SUBMIT_EACH
 * hands each unit to the kernel as it is queued; otherwise the units go
 * together with the next reap's one system call.
 */
static int fill(struct batch *b)
{
	struct awr_verdict v;
	const void *buf;
	uint64_t tag;
	int ret;

	while (b->next < b->nr_units && !b->res->error &&
	       awr_queue_outstanding(b->q) < awr_queue_depth(b->q)) {
		ret = next_buf(b, &buf, &tag);
		if (ret)
			return ret == -EBUSY ? 0 : ret;
		v.rule = AWR_RULE_OK;
		ret = awr_queue_write(b->q, buf, b->unit, b->offset + b->next * b->unit, tag,
				      b->flags, &v);
		if (ret)
			put_buf(b, tag);
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
			break;
		if (!awr_queue_outstanding(b->q))
			return 0;
		n = awr_queue_reap(b->q, c, BATCH_REAP, 1);
		if (n < 0) {
			ret = n;
			break;
		}
		for (int i = 0; i < n; i++)
			account(b, &c[i]);
	}
	/* the engine failed: writes in flight still complete before their buffers go back */
	b->res->error_offset = b->offset + b->next * b->unit;
	while (awr_queue_outstanding(b->q) && (n = awr_queue_reap(b->q, c, BATCH_REAP, 1)) > 0)
		for (int i = 0; i < n; i++)
			account(b, &c[i]);
	return ret;
}

static int write_run(struct batch *b, uint64_t length)
{
	struct awr_batch_result local;
	int ret;

	if (!b->res)
		b->res = &local;
	memset(b->res, 0, sizeof(*b->res));	/* callers read it whenever the call fails */
	if (!b->q || !b->unit || b->unit > UINT_MAX || length % b->unit)
		return awr__fail(-EINVAL,
				 "a run of %" PRIu64 " bytes is not whole units of %" PRIu64
				 " bytes (or there is no queue)",
				 length, b->unit);
	if (awr_queue_outstanding(b->q))
		return awr__fail(-EBUSY, "the queue still holds %u writes not reaped",
				 awr_queue_outstanding(b->q));
	b->nr_units = length / b->unit;
	ret = run(b);
	if (ret)
		return ret;
	if (!b->res->error)
		return 0;
	explain(b);
	if (b->bad.rule == AWR_RULE_DEVICE_ERROR && b->device_error[0])	/* the device's alone */
		return awr__fail(b->res->error, "%s", b->device_error);
	return awr__fail(b->res->error, "%s", b->res->verdict.message);
}

int awr_queue_write_units(struct awr_queue *q, const void *buf, uint64_t offset,
			  uint64_t length, uint64_t unit, unsigned int flags,
			  struct awr_batch_result *res)
{
	struct batch b = {
		.q = q, .buf = buf, .offset = offset, .unit = unit, .flags = flags, .res = res,
	};

	if (!buf) {
		if (res)
			memset(res, 0, sizeof(*res));
		return -EINVAL;
	}
	return write_run(&b, length);
}

int awr_queue_write_source(struct awr_queue *q, const struct awr_queue_source *src,
			   uint64_t offset, uint64_t length, uint64_t unit, unsigned int flags,
			   struct awr_batch_result *res)
{
	struct batch b = {
		.q = q, .src = src, .offset = offset, .unit = unit, .flags = flags, .res = res,
	};
	int ret = -ENOMEM;

	if (res)
		memset(res, 0, sizeof(*res));
	if (!src || !src->bufs || !src->nbuf || !src->fill)
		return -EINVAL;
	b.free_bufs = calloc(src->nbuf, sizeof(*b.free_bufs));
	b.unit_of = calloc(src->nbuf, sizeof(*b.unit_of));
	if (b.free_bufs && b.unit_of) {
		for (unsigned int i = 0; i < src->nbuf; i++)
			b.free_bufs[b.nr_free++] = src->nbuf - 1 - i;
		ret = write_run(&b, length);
	}
	free(b.free_bufs);
	free(b.unit_of);
	return ret;
}
