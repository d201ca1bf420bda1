// SPDX-License-Identifier: MIT
/*
 * The io_uring engine: atomic writes (IORING_OP_WRITE, rw_flags RWF_ATOMIC)
 * queued without a system call, reaped with the caller's tag. Each atomic
 * write passes the rule checker on the limits and fd flags cached in struct
 * awr_file (pure arithmetic); a refused write never reaches the kernel and
 * completes from a small local queue instead.
 *
 * The queue stays full: every awr_ring_reap() hands the writes queued since
 * the last call to the kernel in the same io_uring_enter() that collects or
 * waits (one system call per turn of the caller's loop), unless the ring was
 * made with AWR_RING_SUBMIT_EACH: then each write goes to the kernel as it is
 * queued (awr write; awr bench does the same by hand, to time the queueing
 * alone). The ring asks for
 * IORING_SETUP_COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN (completions are
 * run in that same call, no interrupt of the submitting task) and falls back
 * when the kernel refuses them.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <liburing.h>

#include "private.h"
#include "write/queue_stats.h"
#include "write/uring_wait.h"
#include "write/write.h"

#define AWR_RING_MAX_DEPTH 32768U	/* IORING_MAX_ENTRIES */
#define REAP_BATCH 64U

struct awr_ring {
	struct io_uring ring;
	struct awr_ring_stats stats;
	struct awr_file *file;
	int fd;				/* the fd, or 0: index of the registered file */
	unsigned char sqe_flags;	/* IOSQE_FIXED_FILE or 0 */
	bool submit_each;		/* AWR_RING_SUBMIT_EACH at a depth above 1 */
	unsigned int depth;
	unsigned int outstanding;	/* queued (or refused) and not reaped */
	unsigned int nr_refused;
	struct awr_completion *refused;	/* depth entries */
};

static int ring_register(struct awr_ring *r)
{
	int ret = io_uring_register_files(&r->ring, &r->file->fd, 1);

	if (ret)
		return ret;
	r->fd = 0;
	r->sqe_flags = IOSQE_FIXED_FILE;
	return 0;
}

/*
 * The setup flags, best first. io_uring_create() (io_uring/io_uring.c, Linux
 * 6.1 to 6.18) refuses DEFER_TASKRUN without SINGLE_ISSUER and any of
 * COOP_TASKRUN, TASKRUN_FLAG, DEFER_TASKRUN with SQPOLL (-EINVAL); kernels
 * before 6.1 (DEFER_TASKRUN), 6.0 (SINGLE_ISSUER) and 5.19 (COOP_TASKRUN)
 * refuse the unknown bit with -EINVAL: each refusal tries the next set.
 */
static const unsigned int setup_tries[] = {
	IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
	IORING_SETUP_COOP_TASKRUN,
	0,
};

static const unsigned int sqpoll_tries[] = {
	IORING_SETUP_SQPOLL | IORING_SETUP_SINGLE_ISSUER,
	IORING_SETUP_SQPOLL,
};

static int ring_setup(struct awr_ring *r, unsigned int depth, unsigned int flags)
{
	const unsigned int *tries = (flags & AWR_RING_SQPOLL) ? sqpoll_tries : setup_tries;
	unsigned int nr = (flags & AWR_RING_SQPOLL) ? 2 : 4;
	struct io_uring_params p;
	int ret = -EINVAL;

	for (unsigned int i = 0; i < nr && ret == -EINVAL; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		p.sq_thread_idle = 1000;	/* ms the SQPOLL thread spins before it sleeps */
		ret = io_uring_queue_init_params(depth, &r->ring, &p);
		r->stats.setup_flags = tries[i];	/* the IORING_SETUP_* the kernel accepted */
	}
	r->stats.wait_flags = ret ? 0 : awr__uring_wait_flags(&p, r->stats.setup_flags);
	return ret;
}

int awr_ring_create(struct awr_file *f, unsigned int depth, unsigned int flags,
		    struct awr_ring **out)
{
	struct awr_ring *r;
	int ret;

	if (!f || !out || !depth || depth > AWR_RING_MAX_DEPTH ||
	    (flags & ~(AWR_RING_REGISTER_FILE | AWR_RING_SQPOLL | AWR_RING_SUBMIT_EACH)))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->refused = calloc(depth, sizeof(*r->refused));
	if (!r->refused) {
		free(r);
		return -ENOMEM;
	}
	r->file = f;
	r->fd = f->fd;
	r->depth = depth;
	r->submit_each = (flags & AWR_RING_SUBMIT_EACH) && depth > 1;
	awr__queue_stats_init(&r->stats);
	ret = ring_setup(r, depth, flags);
	if (ret)
		goto err;
	if (flags & AWR_RING_REGISTER_FILE) {
		ret = ring_register(r);
		if (ret) {
			io_uring_queue_exit(&r->ring);
			goto err;
		}
	}
	*out = r;
	return 0;
err:
	free(r->refused);
	free(r);
	return ret;
}

/*
 * The kernel tears a ring down asynchronously after its fd is closed
 * (io_ring_exit_work(), io_uring/io_uring.c); a registered file is put only
 * then, so the target's open file description (and the lock awr_target_open()
 * holds on it) could outlive the process by a moment. Unregistering first
 * drops that reference before awr_ring_free() returns.
 */
void awr_ring_free(struct awr_ring *r)
{
	if (!r)
		return;
	if (r->sqe_flags & IOSQE_FIXED_FILE)
		io_uring_unregister_files(&r->ring);
	io_uring_queue_exit(&r->ring);
	free(r->refused);
	free(r);
}

/* Refuse a write before the kernel: the verdict is formed only on this slow path. */
static void ring_refuse(struct awr_ring *r, const struct awr_write_plan *plan, uint64_t tag)
{
	struct awr_completion *c = &r->refused[r->nr_refused++];
	struct awr_verdict v;

	c->tag = tag;
	c->res = awr_check(&r->file->limits, plan, &v);
	c->rule = v.rule;
	r->outstanding++;
}

/* SQEs filled but not yet in the kernel's SQ ring (liburing flushes them on submit). */
static unsigned int unflushed(const struct awr_ring *r)
{
	return r->ring.sq.sqe_tail - r->ring.sq.sqe_head;
}

/* A slot for one more write, or NULL when @depth are outstanding or the SQ ring is full. */
static struct io_uring_sqe *ring_sqe(struct awr_ring *r)
{
	return r->outstanding < r->depth ? io_uring_get_sqe(&r->ring) : NULL;
}

static void ring_sqe_finish(struct awr_ring *r, struct io_uring_sqe *sqe, uint64_t tag,
			    unsigned int flags)
{
	sqe->rw_flags = ((flags & AWR_WRITE_PLAIN) ? 0 : RWF_ATOMIC) |
			((flags & AWR_WRITE_DSYNC) ? RWF_DSYNC : 0);
	sqe->flags |= r->sqe_flags;
	io_uring_sqe_set_data64(sqe, tag);
	r->outstanding++;
	if (r->submit_each)
		awr_ring_submit(r);	/* a failure leaves it queued: the next reap sends it and reports */
}

int awr_ring_queue_write(struct awr_ring *r, const void *buf, size_t len, uint64_t offset,
			 uint64_t tag, unsigned int flags)
{
	struct awr_write_plan plan = {
		.offset = offset, .length = len, .buf = buf, .nr_segs = 1,
		.open_flags = r->file->open_flags,
	};
	struct io_uring_sqe *sqe;

	if (!buf || len > UINT_MAX)
		return -EINVAL;
	if (r->outstanding >= r->depth)
		return -EBUSY;
	if (!(flags & (AWR_WRITE_PLAIN | AWR_WRITE_NOCHECK)) &&
	    awr_check(&r->file->limits, &plan, NULL)) {
		ring_refuse(r, &plan, tag);
		return 0;
	}
	sqe = ring_sqe(r);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_write(sqe, r->fd, buf, (unsigned int)len, offset);
	ring_sqe_finish(r, sqe, tag, flags);
	return 0;
}

int awr_ring_register_buffers(struct awr_ring *r, const struct iovec *iov, unsigned int nr)
{
	if (!r || !iov || !nr)
		return -EINVAL;
	return io_uring_register_buffers(&r->ring, iov, nr);
}

/*
 * Plain writes only: generic_atomic_write_valid() (fs/read_write.c, Linux
 * 6.11 to 6.18) takes an atomic write only from a user-backed iterator
 * (iter_is_ubuf()); a registered buffer reaches the file as an ITER_BVEC
 * (io_import_fixed(), io_uring/rsrc.c), so the kernel fails RWF_ATOMIC with
 * it with -EINVAL.
 */
int awr_ring_queue_write_fixed(struct awr_ring *r, unsigned int buf_index, const void *buf,
			       size_t len, uint64_t offset, uint64_t tag, unsigned int flags)
{
	struct io_uring_sqe *sqe;

	if (!r || !buf || len > UINT_MAX || !(flags & AWR_WRITE_PLAIN))
		return -EINVAL;
	sqe = ring_sqe(r);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_write_fixed(sqe, r->fd, buf, (unsigned int)len, offset, (int)buf_index);
	ring_sqe_finish(r, sqe, tag, flags);
	return 0;
}

/*
 * Hand the queued writes to the kernel now, without waiting; with
 * DEFER_TASKRUN the same call posts the completions that are ready (one
 * io_uring_enter() with GETEVENTS and no minimum), so a loop that submits each
 * write as it queues it (AWR_RING_SUBMIT_EACH) keeps the device fed and finds
 * completions waiting when it reaps, instead of sleeping for them (see
 * ring_enter()).
 */
int awr_ring_submit(struct awr_ring *r)
{
	unsigned int queued = unflushed(r);
	int ret;

	if (r->stats.setup_flags & IORING_SETUP_DEFER_TASKRUN)
		ret = io_uring_submit_and_get_events(&r->ring);
	else
		ret = io_uring_submit(&r->ring);
	r->stats.submit_calls++;
	r->stats.submitted += queued - unflushed(r);
	return ret;
}

static unsigned int take_refused(struct awr_ring *r, struct awr_completion *out, unsigned int max)
{
	unsigned int n = r->nr_refused < max ? r->nr_refused : max;

	for (unsigned int i = 0; i < n; i++)
		out[i] = r->refused[i];
	for (unsigned int i = n; i < r->nr_refused; i++)
		r->refused[i - n] = r->refused[i];
	r->nr_refused -= n;
	r->outstanding -= n;
	return n;
}

static unsigned int take_cqes(struct awr_ring *r, struct awr_completion *out, unsigned int max)
{
	struct io_uring_cqe *cqes[REAP_BATCH];
	unsigned int n = io_uring_peek_batch_cqe(&r->ring, cqes, max < REAP_BATCH ? max : REAP_BATCH);

	for (unsigned int i = 0; i < n; i++) {
		out[i].tag = io_uring_cqe_get_data64(cqes[i]);
		out[i].res = cqes[i]->res;
		out[i].rule = AWR_RULE_OK;
	}
	io_uring_cq_advance(&r->ring, n);
	r->outstanding -= n;
	r->stats.completed += n;
	return n;
}

/*
 * One io_uring_enter(): the writes queued since the last call are submitted
 * and, when @need > 0, the call waits for that many completions. With
 * DEFER_TASKRUN completions are posted only inside io_uring_enter() with
 * IORING_ENTER_GETEVENTS (io_run_local_work(), io_uring/io_uring.c), so the
 * call asks for events even when it need not wait, unless nothing is queued
 * and completions are already waiting in the CQ ring (posted by the last
 * awr_ring_submit()): then there is nothing to hand over and the reap takes
 * those without a system call. That saved about 0.14 io_uring_enter() per
 * write at 16 KiB atomic QD 32 (perf stat, 1.61 to 1.47; fio makes 1.43).
 */
static int ring_enter(struct awr_ring *r, unsigned int need)
{
	unsigned int queued = unflushed(r);
	int ret;

	if (!queued && !need && (!(r->stats.setup_flags & IORING_SETUP_DEFER_TASKRUN) || io_uring_cq_ready(&r->ring)))
		return 0;
	if (need)
		ret = awr__uring_submit_and_wait(&r->ring, need, r->stats.wait_flags);
	else if (r->stats.setup_flags & IORING_SETUP_DEFER_TASKRUN)
		ret = io_uring_submit_and_get_events(&r->ring);
	else
		ret = io_uring_submit(&r->ring);
	r->stats.submit_calls++;
	r->stats.submitted += queued - unflushed(r);
	return ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY ? ret : 0;
}

/* Writes in the kernel now: outstanding, less refused ones and SQEs not yet handed over. */
static void note_inflight(struct awr_ring *r)
{
	awr__queue_note(&r->stats, r->outstanding - r->nr_refused - unflushed(r), r->depth);
}

int awr_ring_reap(struct awr_ring *r, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr)
{
	unsigned int n;
	int ret;

	if (!r || (!out && max))
		return -EINVAL;
	if (wait_nr > max)
		wait_nr = max;
	if (wait_nr > r->outstanding)
		wait_nr = r->outstanding;
	n = take_refused(r, out, max);
	ret = ring_enter(r, wait_nr > n + io_uring_cq_ready(&r->ring) ?
			    wait_nr - n - io_uring_cq_ready(&r->ring) : 0);
	note_inflight(r);
	while (!ret) {
		n += take_cqes(r, out + n, max - n);
		if (n >= wait_nr || n >= max)
			break;
		ret = ring_enter(r, wait_nr - n);
	}
	return ret && !n ? ret : (int)n;
}

void awr_ring_stats(const struct awr_ring *r, struct awr_ring_stats *out)
{
	if (!r || !out)
		return;
	awr__queue_stats_copy(&r->stats, out);
}

unsigned int awr_ring_depth(const struct awr_ring *r)
{
	return r->depth;
}

unsigned int awr_ring_outstanding(const struct awr_ring *r)
{
	return r->outstanding;
}

struct awr_file *awr_ring_file(const struct awr_ring *r)
{
	return r->file;
}
