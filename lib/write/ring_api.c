// SPDX-License-Identifier: MIT
/*
 * struct awr_ring: the io_uring engine's first interface, now a queue of
 * engine AWR_QUEUE_URING (queue.c, uring.c) under the old names, kept until
 * its last callers (the benchmark engine) open queues themselves. One
 * difference of the old interface stays here: a write the rules refuse is not
 * an error of the queueing call but a completion carrying the rule.
 */
#include <errno.h>
#include <stdlib.h>

#include "write/queue.h"

_Static_assert(AWR_RING_REGISTER_FILE == AWR_QUEUE_REGISTER_FILE &&
	       AWR_RING_SQPOLL == AWR_QUEUE_SQPOLL &&
	       AWR_RING_SUBMIT_EACH == AWR_QUEUE_SUBMIT_EACH,
	       "a ring's flags are its queue's");

struct awr_ring {
	struct awr_queue *q;
};

int awr_ring_create(struct awr_file *f, unsigned int depth, unsigned int flags,
		    struct awr_ring **out)
{
	struct awr_ring *r;
	int ret;

	if (!f || !out || !depth || depth > AWR_QUEUE_URING_MAX)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = awr_queue_open(AWR_QUEUE_URING, NULL, f, depth, flags, &r->q);
	if (ret) {
		free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void awr_ring_free(struct awr_ring *r)
{
	if (!r)
		return;
	awr_queue_close(r->q);
	free(r);
}

static int queue(struct awr_ring *r, const void *buf, size_t len, uint64_t offset, uint64_t tag,
		 unsigned int flags)
{
	struct awr_verdict v = { .rule = AWR_RULE_OK };
	int ret = awr_queue_write(r->q, buf, len, offset, tag, flags, &v);

	if (ret && v.rule != AWR_RULE_OK)
		return awr__queue_refuse(r->q, tag, ret, v.rule);
	return ret;
}

int awr_ring_queue_write(struct awr_ring *r, const void *buf, size_t len, uint64_t offset,
			 uint64_t tag, unsigned int flags)
{
	if (!r)
		return -EINVAL;
	return queue(r, buf, len, offset, tag, flags & ~AWR_WRITE_FIXED);
}

int awr_ring_queue_write_fixed(struct awr_ring *r, unsigned int buf_index, const void *buf,
			       size_t len, uint64_t offset, uint64_t tag, unsigned int flags)
{
	(void)buf_index;	/* the registered buffer is the one that holds @buf */
	if (!r || !(flags & AWR_WRITE_PLAIN))
		return -EINVAL;
	return queue(r, buf, len, offset, tag, flags | AWR_WRITE_FIXED);
}

int awr_ring_register_buffers(struct awr_ring *r, const struct iovec *iov, unsigned int nr)
{
	return r ? awr_queue_register_buffers(r->q, iov, nr) : -EINVAL;
}

int awr_ring_submit(struct awr_ring *r)
{
	return r ? awr_queue_submit(r->q) : -EINVAL;
}

int awr_ring_reap(struct awr_ring *r, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr)
{
	return r ? awr_queue_reap(r->q, out, max, wait_nr) : -EINVAL;
}

void awr_ring_stats(const struct awr_ring *r, struct awr_ring_stats *out)
{
	if (r)
		awr_queue_stats(r->q, out);
}

unsigned int awr_ring_depth(const struct awr_ring *r)
{
	return awr_queue_depth(r->q);
}

unsigned int awr_ring_outstanding(const struct awr_ring *r)
{
	return awr_queue_outstanding(r->q);
}

struct awr_file *awr_ring_file(const struct awr_ring *r)
{
	return awr_queue_file(r->q);
}

int awr_write_units(struct awr_ring *r, const void *buf, uint64_t offset, uint64_t length,
		    uint64_t unit, unsigned int flags, struct awr_batch_result *res)
{
	return awr_queue_write_units(r ? r->q : NULL, buf, offset, length, unit, flags, res);
}
