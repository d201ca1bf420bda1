// SPDX-License-Identifier: MIT
/*
 * The queue: one handle over the three engines (io_uring RWF_ATOMIC, NVMe
 * passthrough, SCSI WRITE ATOMIC(16)). What a queue can take is decided when
 * it is opened and kept by its engine; a write checks only what can change
 * (offset, length, alignment, buffer). This file holds what every engine
 * shares: the slots that carry the caller's tag, the depth, the reap loop and
 * the counters of how full the queue was kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/queue.h"

#define ALL_FLAGS (AWR_QUEUE_REGISTER_FILE | AWR_QUEUE_SQPOLL | AWR_QUEUE_SUBMIT_EACH)

static const struct {
	unsigned int depth_min, depth_max, flags;
} engines[] = {
	[AWR_QUEUE_URING] = { 1, AWR_QUEUE_URING_MAX, ALL_FLAGS },
	[AWR_QUEUE_NVME] = { 1, AWR_QUEUE_NVME_MAX, AWR_QUEUE_SUBMIT_EACH },
	[AWR_QUEUE_SCSI] = { 0, AWR_QUEUE_SCSI_MAX, AWR_QUEUE_SUBMIT_EACH },
};

static bool valid(enum awr_queue_engine e, unsigned int depth, unsigned int flags)
{
	return (unsigned int)e <= AWR_QUEUE_SCSI && depth >= engines[e].depth_min &&
	       depth <= engines[e].depth_max && !(flags & ~engines[e].flags);
}

static int queue_new(unsigned int depth, unsigned int flags, struct awr_queue **out)
{
	unsigned int n = depth ? depth : 1;	/* SCSI without a queue: one write at a time */
	struct awr_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->free_slots = calloc(n, sizeof(*q->free_slots));
	q->slots = calloc(n, sizeof(*q->slots));
	q->done = calloc(n, sizeof(*q->done));
	if (!q->free_slots || !q->slots || !q->done) {
		awr_queue_close(q);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++)
		q->free_slots[q->nr_free++] = n - 1 - i;
	q->depth = n;
	q->submit_each = (flags & AWR_QUEUE_SUBMIT_EACH) && depth > 1;
	q->stats.inflight_min = UINT32_MAX;
	*out = q;
	return 0;
}

int awr_queue_open(enum awr_queue_engine engine, const char *path, struct awr_file *f,
		   unsigned int depth, unsigned int flags, struct awr_queue **out)
{
	static const char *const names[] = { "io_uring", "NVMe passthrough", "SCSI" };
	unsigned long said = awr__failures();
	struct awr_queue *q;
	int ret;

	if (!out || !valid(engine, depth, flags) || (engine != AWR_QUEUE_URING && f))
		return awr__fail(-EINVAL, "no such queue: an engine, a depth within its range "
				 "and its flags (a file for the uring engine only)");
	ret = queue_new(depth, flags, &q);
	if (ret)
		return awr__fail(ret, "no memory for a queue of depth %u", depth);
	q->engine = engine;
	if (engine == AWR_QUEUE_URING)
		ret = awr__uring_open(q, path, f, flags);
	else if (engine == AWR_QUEUE_NVME)
		ret = awr__nvme_open(q, path);
	else
		ret = awr__scsi_open(q, path, depth);
	if (ret) {
		awr_queue_close(q);
		if (awr__failures() == said)	/* the engine did not say why */
			awr__fail(ret, "cannot open %s for the %s engine: %s",
				  path ? path : "the file", names[engine], strerror(-ret));
		return ret;
	}
	*out = q;
	return 0;
}

void awr_queue_close(struct awr_queue *q)
{
	if (!q)
		return;
	if (q->ops)
		q->ops->close(q);
	free(q->free_slots);
	free(q->slots);
	free(q->done);
	free(q);
}

int awr_queue_check(const struct awr_queue *q, const void *buf, size_t len, uint64_t offset,
		    struct awr_verdict *v)
{
	int ret;

	if (!q || !buf)
		return -EINVAL;
	ret = q->ops->check(q, buf, len, offset, 0, v);
	if (!ret && v) {
		v->rule = AWR_RULE_OK;
		v->error = 0;
		snprintf(v->message, sizeof(v->message), "the write of %zu bytes at %" PRIu64
			 " is atomic", len, offset);
	}
	return ret;
}

int awr_queue_write(struct awr_queue *q, const void *buf, size_t len, uint64_t offset,
		    uint64_t tag, unsigned int flags, struct awr_verdict *v)
{
	unsigned int slot;
	int ret;

	if (!q || !buf || len > UINT_MAX)
		return -EINVAL;
	if (!q->nr_free)
		return -EBUSY;
	ret = q->ops->check(q, buf, len, offset, flags, v);
	if (ret)
		return ret;
	slot = q->free_slots[q->nr_free - 1];
	q->slots[slot] = (struct awr__queue_slot){ .tag = tag, .len = (uint32_t)len };
	ret = q->ops->prep(q, slot, buf, len, offset, flags);
	if (ret)
		return ret;
	q->nr_free--;
	q->outstanding++;
	if (q->submit_each)
		q->ops->enter(q, 0);	/* a failure leaves it queued: the next reap reports */
	return 0;
}

int awr_queue_submit(struct awr_queue *q)
{
	if (!q)
		return -EINVAL;
	return q->ops->enter(q, 0);
}

/* A write the engine completed without the kernel (SG_IO, a refusal): the next reap returns it. */
void awr__queue_done(struct awr_queue *q, unsigned int slot, int32_t res, enum awr_rule rule)
{
	q->done[q->nr_done++] = (struct awr_completion){ .tag = slot, .res = res, .rule = rule };
}

/* The caller's tag back in place of the slot; the slot free again. */
static void finish(struct awr_queue *q, struct awr_completion *c)
{
	unsigned int slot = (unsigned int)c->tag;

	c->tag = q->slots[slot].tag;
	q->free_slots[q->nr_free++] = slot;
	q->outstanding--;
}

static unsigned int take_done(struct awr_queue *q, struct awr_completion *out, unsigned int max)
{
	unsigned int n = q->nr_done < max ? q->nr_done : max;

	for (unsigned int i = 0; i < n; i++) {
		out[i] = q->done[i];
		finish(q, &out[i]);
	}
	memmove(q->done, q->done + n, (q->nr_done - n) * sizeof(*q->done));
	q->nr_done -= n;
	return n;
}

/* @in writes in the kernel at a reap, of @depth the queue may hold. */
static void note(struct awr_queue_stats *s, unsigned int in, unsigned int depth)
{
	if (!in)
		return;
	s->reaps++;
	s->inflight_sum += in;
	s->inflight_last = in;
	if (in < s->inflight_min)
		s->inflight_min = in;
	if (in > s->inflight_max)
		s->inflight_max = in;
	if (in < depth)
		s->reaps_below_depth++;
}

int awr_queue_reap(struct awr_queue *q, struct awr_completion *out, unsigned int max,
		   unsigned int wait_nr)
{
	unsigned int n, ready;
	int k, ret;

	if (!q || (!out && max))
		return -EINVAL;
	if (wait_nr > max)
		wait_nr = max;
	if (wait_nr > q->outstanding)
		wait_nr = q->outstanding;
	n = take_done(q, out, max);
	ready = q->ops->ready(q);
	ret = q->ops->enter(q, wait_nr > n + ready ? wait_nr - n - ready : 0);
	note(&q->stats, q->outstanding - q->nr_done - q->ops->unsent(q), q->depth);
	while (!ret && n < max) {
		k = q->ops->take(q, out + n, max - n, wait_nr > n ? wait_nr - n : 0);
		if (k < 0) {
			ret = k;
			break;
		}
		for (int i = 0; i < k; i++)
			finish(q, &out[n + i]);
		n += (unsigned int)k;
		if (n >= wait_nr)
			break;
		ret = q->ops->enter(q, wait_nr - n);
	}
	return ret && !n ? ret : (int)n;
}

void awr_queue_stats(const struct awr_queue *q, struct awr_queue_stats *out)
{
	if (!q || !out)
		return;
	*out = q->stats;
	if (out->inflight_min == UINT32_MAX)
		out->inflight_min = 0;
}

unsigned int awr_queue_depth(const struct awr_queue *q)
{
	return q->depth;
}

unsigned int awr_queue_outstanding(const struct awr_queue *q)
{
	return q->outstanding;
}

const struct awr_device *awr_queue_device(const struct awr_queue *q)
{
	return q ? q->ops->device(q) : NULL;
}
