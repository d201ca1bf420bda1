/* SPDX-License-Identifier: MIT */
/*
 * The wait both io_uring engines share (lib/write/uring.c and nvme_write.c):
 * liburing's io_uring_submit_and_wait() plus IORING_ENTER_NO_IOWAIT where the
 * kernel knows it (Linux 6.15, IORING_FEAT_NO_IOWAIT in the setup's features),
 * as fio's io_uring engine does since 3.40. liburing 2.3 (Debian 12) has no way
 * to pass the flag, so the call publishes the SQ tail the way liburing's
 * __io_uring_flush_sq() does and makes the one io_uring_enter() itself.
 */
#ifndef AWR_WRITE_URING_WAIT_H
#define AWR_WRITE_URING_WAIT_H

#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <liburing.h>

#include "compat.h"

/* The IORING_ENTER_* flags to add to each wait of a ring set up with @p and @setup_flags. */
static inline unsigned int awr__uring_wait_flags(const struct io_uring_params *p, unsigned int setup_flags)
{
	return (p->features & IORING_FEAT_NO_IOWAIT) && !(setup_flags & IORING_SETUP_SQPOLL) ?
		       IORING_ENTER_NO_IOWAIT : 0;
}

/*
 * Submit what is queued and wait for @need completions in one io_uring_enter(),
 * with @wait_flags (from awr__uring_wait_flags()). Without SQPOLL the kernel
 * reads the SQ tail only inside this call (io_submit_sqes()), so a release
 * store of the tail is all the publishing there is.
 */
static inline int awr__uring_submit_and_wait(struct io_uring *ring, unsigned int need, unsigned int wait_flags)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned int tail = sq->sqe_tail;
	long ret;

	if (!wait_flags)
		return io_uring_submit_and_wait(ring, need);
	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		__atomic_store_n(sq->ktail, tail, __ATOMIC_RELEASE);
	}
	ret = syscall(__NR_io_uring_enter, ring->ring_fd, tail - *sq->khead, need,
		      IORING_ENTER_GETEVENTS | wait_flags, NULL, _NSIG / 8);
	return ret < 0 ? -errno : (int)ret;
}

#endif /* AWR_WRITE_URING_WAIT_H */
