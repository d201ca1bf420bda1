// SPDX-License-Identifier: MIT
/*
 * The queued-write loop, the library's one: a run of equal units, each one
 * write, through a queue of any engine, refilled as completions arrive, so a
 * run may be far larger than its depth (awr__queue_run()). Four users drive
 * it: a range as naturally aligned units from one buffer
 * (awr_queue_write_units()), or made unit by unit into a few buffers, one per
 * write in flight (awr_queue_write_source()), the page store's in-place
 * writes (lib/pages/write.c), scattered pages from the caller's buffers, and
 * the benchmark's page writes (lib/bench/bench.c), in batches or streamed.
 *
 * The loop keeps the rules they share: after the first failure (a completion
 * in error or short, or a unit the queue refused before the kernel) no unit is
 * queued and the ones in flight complete and are reported; when the engine
 * fails, what is in flight is waited for, since the buffers are the caller's.
 * Its users give the rest through calls (struct awr__run_ops): where unit
 * i's data is, that it was queued, that a reap brought completions, how each
 * completed. Calls rather than a table of units made up front, because the
 * data of a unit is known only when the queue has room for it: a source
 * fills a buffer a completion gave back, the page store copies an unaligned
 * page to a bounce buffer only when it is sent, and its fault points
 * (lib/pages/fault.c) act between one write and the next.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/queue.h"

#define RUN_REAP 64U

/* A unit the rules refused before the kernel: a failure like one the kernel returns. */
static void refused(struct awr__run *r, uint64_t tag, int err, const struct awr_verdict *v)
{
	struct awr_completion c = { .tag = tag, .res = err, .rule = v->rule };

	r->error = err;
	r->ops->done(r->arg, &c, err, v);
}

/*
 * Queue units until the queue is full or a unit failed. One opened with
 * AWR_QUEUE_SUBMIT_EACH hands each unit to the kernel as it is queued;
 * otherwise the units go together with the next reap's one system call.
 */
static int fill(struct awr__run *r)
{
	struct awr_verdict v;
	const void *buf;
	uint64_t off, tag;
	int ret;

	while (r->next < r->nr && !r->error &&
	       awr_queue_outstanding(r->q) < awr_queue_depth(r->q)) {
		ret = r->ops->next(r->arg, r->next, &buf, &off, &tag);
		if (ret)
			return ret == -EBUSY ? 0 : ret;
		v.rule = AWR_RULE_OK;
		ret = awr_queue_write(r->q, buf, r->len, off, tag, r->flags, &v);
		if (ret == -EBUSY)
			return 0;
		if (ret && v.rule != AWR_RULE_OK) {
			refused(r, tag, ret, &v);
			return 0;
		}
		if (ret)
			return ret;
		r->next++;
		if (r->ops->sent)
			r->ops->sent(r->arg, tag);
	}
	return 0;
}

static void complete(struct awr__run *r, const struct awr_completion *c, int n)
{
	if (r->ops->reaped)
		r->ops->reaped(r->arg, (unsigned int)n);
	for (int i = 0; i < n; i++) {
		int err = 0;

		if (c[i].res < 0 || (uint64_t)c[i].res != r->len)
			err = c[i].res < 0 ? c[i].res : -EIO;	/* a short write is an error */
		if (err && !r->error)
			r->error = err;
		r->ops->done(r->arg, &c[i], err, NULL);
	}
}

/**
 * awr__queue_run() - write a run of units through an idle queue
 * @r:	the queue, the units and their user's calls; r->next and r->error are set
 *
 * Return: 0 when every unit was queued and completed or the run stopped at a
 * failed unit (r->error, reported by its done()); -errno when the engine or
 * next() failed, after the writes in flight completed (r->next: units queued).
 */
int awr__queue_run(struct awr__run *r)
{
	struct awr_completion c[RUN_REAP];
	int n, ret;

	r->next = 0;
	r->error = 0;
	for (;;) {
		ret = fill(r);
		if (ret)
			break;
		if (!awr_queue_outstanding(r->q))
			return 0;
		n = awr_queue_reap(r->q, c, RUN_REAP, 1);
		if (n < 0) {
			ret = n;
			break;
		}
		complete(r, c, n);
	}
	/* the engine failed: writes in flight still complete before their buffers go back */
	while (awr_queue_outstanding(r->q) && (n = awr_queue_reap(r->q, c, RUN_REAP, 1)) > 0)
		complete(r, c, n);
	return ret;
}

/* awr_queue_write_units() and awr_queue_write_source(): a range of units and its result */
struct batch {
	const unsigned char *buf;	/* the whole range, or NULL: src */
	const struct awr_queue_source *src;
	unsigned int *free_bufs, nr_free;	/* src: buffers not in flight */
	uint64_t *unit_of;		/* src: the unit each buffer holds */
	uint64_t offset;
	uint64_t unit;
	uint64_t first_bad;	/* index of the failed unit at the lowest offset */
	struct awr_completion bad;
	struct awr_verdict refused;	/* the rule of a unit the queue refused */
	char device_error[160];		/* awr_last_error() when the device failed it */
	struct awr_batch_result *res;
	struct awr__run run;
};

static void note_failure(struct batch *b, uint64_t index, const struct awr_completion *c,
			 int err)
{
	b->res->units_failed++;
	if (b->res->error && index >= b->first_bad)
		return;
	b->first_bad = index;
	b->bad = *c;
	b->res->error = err;
	if (c->rule == AWR_RULE_DEVICE_ERROR)
		snprintf(b->device_error, sizeof(b->device_error), "%s", awr_last_error());
}

/* A unit's end (the tag: its index, or with a source the buffer that held it). */
static void unit_done(void *arg, const struct awr_completion *c, int err,
		      const struct awr_verdict *v)
{
	struct batch *b = arg;
	uint64_t index = c->tag;

	if (b->src) {
		index = b->unit_of[c->tag];
		if (!v)		/* a refused unit never took its buffer */
			b->free_bufs[b->nr_free++] = (unsigned int)c->tag;
	}
	if (!err) {
		b->res->units_done++;
		return;
	}
	if (v)
		b->refused = *v;
	note_failure(b, index, c, err);
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
		 awr_queue_device(b->run.q) ? "device" : "kernel", b->unit, res->error_offset,
		 why);
}

/* Unit @i of one buffer of the whole range: its place in it. */
static int range_next(void *arg, uint64_t i, const void **buf, uint64_t *off, uint64_t *tag)
{
	struct batch *b = arg;

	*buf = b->buf + i * b->unit;
	*off = b->offset + i * b->unit;
	*tag = i;
	return 0;
}

/* Unit @i of a source: made in the free buffer on top, taken when it is queued (src_sent()). */
static int src_next(void *arg, uint64_t i, const void **buf, uint64_t *off, uint64_t *tag)
{
	struct batch *b = arg;
	const struct awr_queue_source *s = b->src;
	unsigned int k;
	int ret;

	if (!b->nr_free)
		return -EBUSY;
	k = b->free_bufs[b->nr_free - 1];
	*buf = (unsigned char *)s->bufs + (size_t)k * b->unit;
	ret = s->fill(s->arg, (void *)*buf, i);
	if (ret)
		return ret;
	b->unit_of[k] = i;
	*off = b->offset + i * b->unit;
	*tag = k;
	return 0;
}

static void src_sent(void *arg, uint64_t tag)
{
	struct batch *b = arg;

	(void)tag;		/* the buffer src_next() gave: on top */
	b->nr_free--;
}

static const struct awr__run_ops range_ops = { .next = range_next, .done = unit_done };
static const struct awr__run_ops src_ops = {
	.next = src_next, .sent = src_sent, .done = unit_done,
};

static int write_run(struct batch *b, uint64_t length)
{
	struct awr_batch_result local;
	int ret;

	if (!b->res)
		b->res = &local;
	memset(b->res, 0, sizeof(*b->res));	/* callers read it whenever the call fails */
	if (!b->run.q || !b->unit || b->unit > UINT_MAX || length % b->unit)
		return awr__fail(-EINVAL,
				 "a run of %" PRIu64 " bytes is not whole units of %" PRIu64
				 " bytes (or there is no queue)",
				 length, b->unit);
	if (awr_queue_outstanding(b->run.q))
		return awr__fail(-EBUSY, "the queue still holds %u writes not reaped",
				 awr_queue_outstanding(b->run.q));
	b->run.arg = b;
	b->run.nr = length / b->unit;
	b->run.len = (size_t)b->unit;
	ret = awr__queue_run(&b->run);
	if (ret) {
		b->res->error_offset = b->offset + b->run.next * b->unit;
		return ret;
	}
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
		.buf = buf, .offset = offset, .unit = unit, .res = res,
		.run = { .q = q, .ops = &range_ops, .flags = flags },
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
		.src = src, .offset = offset, .unit = unit, .res = res,
		.run = { .q = q, .ops = &src_ops, .flags = flags },
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
