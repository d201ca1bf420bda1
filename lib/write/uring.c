// SPDX-License-Identifier: MIT
/*
 * The queue's io_uring engine: atomic writes (IORING_OP_WRITE, rw_flags
 * RWF_ATOMIC) queued without a system call on an open struct awr_file.
 *
 * What the target takes is decided at open: its limits and fd flags are read
 * once, and the rules that cannot change per write (atomic support, a
 * writable O_DIRECT fd, a read-only disk, the kernel's per-write O_DIRECT
 * rule) are settled then. A write checks its length, offset, boundary, end
 * and buffer alignment in a few comparisons; only a write that fails them
 * goes to the rule checker (awr_check()), for the rule and its sentence.
 *
 * The queue stays full: every reap hands the writes queued since the last one
 * to the kernel in the same io_uring_enter() that collects or waits (ring.c),
 * unless the queue was opened with AWR_QUEUE_SUBMIT_EACH. The ring asks for
 * IORING_SETUP_COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN (completions are
 * run in that same call, no interrupt of the submitting task) and falls back
 * when the kernel refuses them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <liburing.h>

#include "write/queue.h"

struct uring {
	struct io_uring ring;		/* first: the ops of ring.c */
	struct awr_file *file;
	bool owns_file;
	bool registered;		/* the fd registered: IOSQE_FIXED_FILE, index 0 */
	int fd;				/* the fd, or 0: index of the registered file */
	/* decided at open */
	struct awr_limits lim;
	int open_flags;
	bool fast;			/* the target's rules hold: per write only the shape */
	uintptr_t mem_mask;		/* O_DIRECT buffer alignment - 1 */
	/* registered buffers (AWR_WRITE_FIXED) */
	struct iovec *bufs;
	unsigned int nr_bufs;
};

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

/*
 * The rules awr_check() applies that do not depend on the write, settled
 * once: a writable fd opened O_DIRECT (so the kernel's per-write O_DIRECT
 * rule, AWR_KRULE_DIRECT_PER_WRITE, never comes up), atomic support, a disk
 * that is not read-only, a buffer alignment that is a power of two.
 */
static void decide(struct uring *u)
{
	const struct awr_limits *l = &u->lim;
	int acc = u->open_flags & O_ACCMODE;

	u->fast = l->supported && u->open_flags >= 0 && (u->open_flags & O_DIRECT) &&
		  (acc == O_WRONLY || acc == O_RDWR) && !(l->flags & AWR_LIMITS_READ_ONLY) &&
		  (!l->mem_align || awr_is_pow2(l->mem_align));
	u->mem_mask = l->mem_align ? l->mem_align - 1 : 0;
}

/* What can change per write: awr_check() would pass it (a superset of its rules, no fewer). */
static bool fits(const struct uring *u, const void *buf, uint64_t len, uint64_t off)
{
	const struct awr_limits *l = &u->lim;

	return u->fast && len >= l->unit_min && len <= l->unit_max && awr_is_pow2(len) &&
	       !(off & (len - 1)) && !((uintptr_t)buf & u->mem_mask) &&
	       off <= (uint64_t)INT64_MAX - len &&
	       (!l->boundary || off / l->boundary == (off + len - 1) / l->boundary) &&
	       (!l->dev_size || off + len <= l->dev_size);
}

static int uring_check(const struct awr_queue *q, const void *buf, size_t len, uint64_t off,
		       unsigned int flags, struct awr_verdict *v)
{
	const struct uring *u = q->priv;
	struct awr_write_plan plan = {
		.offset = off, .length = len, .buf = buf, .nr_segs = 1,
		.open_flags = u->open_flags,
	};

	if ((flags & (AWR_WRITE_PLAIN | AWR_WRITE_NOCHECK)) || fits(u, buf, len, off))
		return 0;
	return awr_check(&u->lim, &plan, v);	/* the slow path: the rule and its sentence */
}

/*
 * A registered buffer holding @buf. Plain writes only: generic_atomic_write_valid()
 * (fs/read_write.c, Linux 6.11 to 6.18) takes an atomic write only from a
 * user-backed iterator (iter_is_ubuf()); a registered buffer reaches the file
 * as an ITER_BVEC (io_import_fixed(), io_uring/rsrc.c), so the kernel fails
 * RWF_ATOMIC with it with -EINVAL.
 */
static int fixed_index(const struct uring *u, const void *buf, size_t len)
{
	for (unsigned int i = 0; i < u->nr_bufs; i++) {
		const char *b = u->bufs[i].iov_base;

		if ((const char *)buf >= b && (const char *)buf + len <= b + u->bufs[i].iov_len)
			return (int)i;
	}
	return -EINVAL;
}

static int uring_prep(struct awr_queue *q, unsigned int slot, const void *buf, size_t len,
		      uint64_t off, unsigned int flags)
{
	struct uring *u = q->priv;
	struct io_uring_sqe *sqe;
	int idx = 0;

	if ((flags & AWR_WRITE_FIXED) &&
	    (!(flags & AWR_WRITE_PLAIN) || (idx = fixed_index(u, buf, len)) < 0))
		return -EINVAL;
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe)
		return -EBUSY;
	if (flags & AWR_WRITE_FIXED)
		io_uring_prep_write_fixed(sqe, u->fd, buf, (unsigned int)len, off, idx);
	else
		io_uring_prep_write(sqe, u->fd, buf, (unsigned int)len, off);
	sqe->rw_flags = ((flags & AWR_WRITE_PLAIN) ? 0 : RWF_ATOMIC) |
			((flags & AWR_WRITE_DSYNC) ? RWF_DSYNC : 0);
	if (u->registered)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, slot);
	return 0;
}

/*
 * The kernel tears a ring down asynchronously after its fd is closed
 * (io_ring_exit_work(), io_uring/io_uring.c); a registered file is put only
 * then, so the target's open file description (and the lock awr_target_open()
 * holds on it) could outlive the process by a moment. Unregistering first
 * drops that reference before the queue is closed.
 */
static void uring_close(struct awr_queue *q)
{
	struct uring *u = q->priv;

	if (!u)
		return;
	if (u->registered)
		io_uring_unregister_files(&u->ring);
	if (u->ring.ring_fd >= 0)
		io_uring_queue_exit(&u->ring);
	if (u->owns_file)
		awr_file_close(u->file);
	free(u->bufs);
	free(u);
}

static const struct awr_device *uring_device(const struct awr_queue *q)
{
	(void)q;
	return NULL;	/* a file or block device: its views are awr_file_probe()'s */
}

static const struct awr__queue_ops uring_ops = {
	.check = uring_check,
	.prep = uring_prep,
	.enter = awr__ring_enter,
	.take = awr__ring_take,
	.ready = awr__ring_ready,
	.unsent = awr__ring_unsent,
	.device = uring_device,
	.close = uring_close,
};

static int uring_setup(struct awr_queue *q, struct uring *u, unsigned int flags)
{
	bool sqpoll = flags & AWR_QUEUE_SQPOLL;
	int ret = awr__ring_setup(q, &u->ring, sqpoll ? sqpoll_tries : setup_tries,
				  sqpoll ? 2 : 4);

	if (ret) {
		u->ring.ring_fd = -1;
		return ret;
	}
	if (!(flags & AWR_QUEUE_REGISTER_FILE))
		return 0;
	ret = io_uring_register_files(&u->ring, &u->file->fd, 1);
	if (ret)
		return ret;
	u->fd = 0;
	u->registered = true;
	return 0;
}

int awr__uring_open(struct awr_queue *q, const char *path, struct awr_file *f, unsigned int flags)
{
	struct uring *u;
	int ret;

	if (!f && !path)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->ring.ring_fd = -1;
	q->priv = u;
	q->ops = &uring_ops;
	if (!f) {
		ret = awr_file_open(path, 0, &f);
		if (ret)
			return ret;
		u->owns_file = true;
	}
	u->file = f;
	u->fd = f->fd;
	u->lim = f->limits;
	u->open_flags = f->open_flags;
	decide(u);
	return uring_setup(q, u, flags);
}

int awr_queue_register_buffers(struct awr_queue *q, const struct iovec *iov, unsigned int nr)
{
	struct uring *u;
	int ret;

	if (!q || !iov || !nr || q->engine != AWR_QUEUE_URING)
		return -EINVAL;
	u = q->priv;
	if (u->bufs)
		return -EBUSY;
	u->bufs = calloc(nr, sizeof(*iov));
	if (!u->bufs)
		return -ENOMEM;
	ret = io_uring_register_buffers(&u->ring, iov, nr);
	if (ret) {
		free(u->bufs);
		u->bufs = NULL;
		return ret;
	}
	for (unsigned int i = 0; i < nr; i++)
		u->bufs[i] = iov[i];
	u->nr_bufs = nr;
	return 0;
}

struct awr_file *awr_queue_file(const struct awr_queue *q)
{
	return q && q->engine == AWR_QUEUE_URING ? ((struct uring *)q->priv)->file : NULL;
}
