// SPDX-License-Identifier: MIT
/*
 * The io_uring both the RWF_ATOMIC engine (uring.c) and the NVMe passthrough
 * engine (nvme_write.c) run on: setup, the one io_uring_enter() per turn of
 * the caller's loop that hands the queued writes over and waits, and the
 * completions taken from the CQ ring.
 *
 * The wait is liburing's io_uring_submit_and_wait() plus
 * IORING_ENTER_NO_IOWAIT where the kernel knows it (Linux 6.15,
 * IORING_FEAT_NO_IOWAIT in the setup's features), as fio's io_uring engine
 * does since 3.40. liburing 2.3 (Debian 12) has no way to pass the flag, so
 * the call publishes the SQ tail the way liburing's __io_uring_flush_sq()
 * does and makes the one io_uring_enter() itself.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <liburing.h>

#include "write/queue.h"

#define REAP_BATCH 64U

/* The IORING_ENTER_* flags to add to each wait of a ring set up with @p and @setup_flags. */
static unsigned int wait_flags(const struct io_uring_params *p, unsigned int setup_flags)
{
	return (p->features & IORING_FEAT_NO_IOWAIT) && !(setup_flags & IORING_SETUP_SQPOLL) ?
		       IORING_ENTER_NO_IOWAIT : 0;
}

/* The first of @nr sets of IORING_SETUP_* flags the kernel takes (a refusal: -EINVAL). */
int awr__ring_setup(struct awr_queue *q, struct io_uring *ring, const unsigned int *tries,
		    unsigned int nr)
{
	struct io_uring_params p;
	int ret = -EINVAL;

	for (unsigned int i = 0; i < nr && ret == -EINVAL; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		p.sq_thread_idle = 1000;	/* ms the SQPOLL thread spins before it sleeps */
		ret = io_uring_queue_init_params(q->depth, ring, &p);
		q->stats.setup_flags = tries[i];	/* the IORING_SETUP_* taken */
	}
	q->stats.wait_flags = ret ? 0 : wait_flags(&p, q->stats.setup_flags);
	return ret;
}

/*
 * Submit what is queued and wait for @need completions in one io_uring_enter(),
 * with @flags (from wait_flags()). Without SQPOLL the kernel reads the SQ tail
 * only inside this call (io_submit_sqes()), so a release store of the tail is
 * all the publishing there is.
 */
static int submit_and_wait(struct io_uring *ring, unsigned int need, unsigned int flags)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned int tail = sq->sqe_tail;
	long ret;

	if (!flags)
		return io_uring_submit_and_wait(ring, need);
	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		__atomic_store_n(sq->ktail, tail, __ATOMIC_RELEASE);
	}
	ret = syscall(__NR_io_uring_enter, ring->ring_fd, tail - *sq->khead, need,
		      IORING_ENTER_GETEVENTS | flags, NULL, _NSIG / 8);
	return ret < 0 ? -errno : (int)ret;
}

/* SQEs filled but not yet in the kernel's SQ ring (liburing flushes them on submit). */
static unsigned int unsent(const struct io_uring *ring)
{
	return ring->sq.sqe_tail - ring->sq.sqe_head;
}

/* The ops of both io_uring engines: their state starts with the ring. */
unsigned int awr__ring_unsent(const struct awr_queue *q)
{
	return unsent(q->priv);
}

unsigned int awr__ring_ready(const struct awr_queue *q)
{
	return io_uring_cq_ready((const struct io_uring *)q->priv);
}

/*
 * One io_uring_enter(): the writes queued since the last call are submitted
 * and, when @need > 0, the call waits for that many completions. With
 * DEFER_TASKRUN completions are posted only inside io_uring_enter() with
 * IORING_ENTER_GETEVENTS (io_run_local_work(), io_uring/io_uring.c), so the
 * call asks for events even when it need not wait, unless nothing is queued
 * and completions are already waiting in the CQ ring (posted by the last
 * submission): then there is nothing to hand over and the reap takes those
 * without a system call. That saved about 0.14 io_uring_enter() per write at
 * 16 KiB atomic QD 32 (perf stat, 1.61 to 1.47; fio makes 1.43).
 */
int awr__ring_enter(struct awr_queue *q, unsigned int need)
{
	struct io_uring *ring = q->priv;
	bool defer = q->stats.setup_flags & IORING_SETUP_DEFER_TASKRUN;
	unsigned int queued = unsent(ring);
	int ret;

	if (!queued && !need && (!defer || io_uring_cq_ready(ring)))
		return 0;
	if (need)
		ret = submit_and_wait(ring, need, q->stats.wait_flags);
	else if (defer)
		ret = io_uring_submit_and_get_events(ring);
	else
		ret = io_uring_submit(ring);
	q->stats.submit_calls++;
	q->stats.submitted += queued - unsent(ring);
	return ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY ? ret : 0;
}

/* The completions in the CQ ring: tag the slot (the SQE's user data), res the CQE's. */
int awr__ring_take(struct awr_queue *q, struct awr_completion *out, unsigned int max,
		   unsigned int need)
{
	struct io_uring *ring = q->priv;
	struct io_uring_cqe *cqes[REAP_BATCH];
	unsigned int n = io_uring_peek_batch_cqe(ring, cqes, max < REAP_BATCH ? max : REAP_BATCH);

	(void)need;	/* the wait was the enter's */
	for (unsigned int i = 0; i < n; i++) {
		out[i].tag = io_uring_cqe_get_data64(cqes[i]);
		out[i].res = cqes[i]->res;
		out[i].rule = AWR_RULE_OK;
	}
	io_uring_cq_advance(ring, n);
	q->stats.completed += n;
	return (int)n;
}
