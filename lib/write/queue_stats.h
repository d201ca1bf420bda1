/* SPDX-License-Identifier: MIT */
/*
 * The counters of a queue of writes (struct awr_ring_stats), shared by the
 * io_uring engine (uring.c) and the NVMe passthrough queue (nvme_write.c):
 * how many writes the kernel held at each reap.
 */
#ifndef AWR_WRITE_QUEUE_STATS_H
#define AWR_WRITE_QUEUE_STATS_H

#include <stdint.h>

#include "libatomicwr.h"

static inline void awr__queue_stats_init(struct awr_ring_stats *s)
{
	s->inflight_min = UINT32_MAX;
}

/* @in writes in the kernel at a reap, of @depth the queue may hold. */
static inline void awr__queue_note(struct awr_ring_stats *s, unsigned int in, unsigned int depth)
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

static inline void awr__queue_stats_copy(const struct awr_ring_stats *s, struct awr_ring_stats *out)
{
	*out = *s;
	if (out->inflight_min == UINT32_MAX)
		out->inflight_min = 0;
}

#endif /* AWR_WRITE_QUEUE_STATS_H */
