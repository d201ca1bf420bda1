/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/write.h - writing: an open target with its limits, pwritev2, the
 * io_uring engine's first interface (struct awr_ring, a queue of
 * <libatomicwr/queue.h> under the old names) and page batches, aligned
 * preallocation.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_WRITE_H
#define LIBATOMICWR_WRITE_H

#include <libatomicwr/discover.h>

#ifdef __cplusplus
extern "C" {
#endif

struct awr_file;

/* awr_file_open() flags */
#define AWR_OPEN_DSYNC		(1U << 0)	/* open O_DSYNC: every write durable */
/* do not open O_DIRECT (tests only: atomic writes then fail) */
#define AWR_OPEN_BUFFERED	(1U << 1)
#define AWR_OPEN_READONLY	(1U << 2)	/* open read-only */

/* awr_pwrite() flags */
#define AWR_WRITE_DSYNC		(1U << 0)	/* RWF_DSYNC: durable when it returns */
/* skip the rule check (tests: let the kernel judge) */
#define AWR_WRITE_NOCHECK	(1U << 1)

/**
 * awr_file_open() - open a file or block device for atomic writes
 * @path:	the target
 * @flags:	AWR_OPEN_* flags
 * @out:	the new handle, closed with awr_file_close()
 *
 * Opens O_RDWR | O_DIRECT (| O_DSYNC) and probes its limits once.
 * It does not check whether the target is in use: a tool opens with
 * awr_target_open() and hands the descriptor to awr_file_adopt().
 *
 * Return: 0 or a negative errno.
 */
int awr_file_open(const char *path, unsigned int flags, struct awr_file **out);

/**
 * awr_file_from_fd() - wrap an open descriptor (not closed by awr_file_close())
 * @fd:		the descriptor
 * @out:	the new handle
 *
 * Return: 0 or a negative errno.
 */
int awr_file_from_fd(int fd, struct awr_file **out);

/**
 * awr_file_adopt() - like awr_file_from_fd(), but the handle owns @fd
 * @fd:		an open descriptor, e.g. from awr_target_open(); closed by
 *		awr_file_close(), also when this call fails
 * @out:	the new handle
 *
 * Return: 0 or a negative errno.
 */
int awr_file_adopt(int fd, struct awr_file **out);

/**
 * awr_file_close() - close the handle (and the fd when it opened it)
 * @f:	the handle, may be NULL
 */
void awr_file_close(struct awr_file *f);

/**
 * awr_file_fd() - the descriptor
 * @f:	the handle
 *
 * Return: the fd.
 */
int awr_file_fd(const struct awr_file *f);

/**
 * awr_file_limits() - the effective limits found at open
 * @f:	the handle
 *
 * Return: the limits.
 */
const struct awr_limits *awr_file_limits(const struct awr_file *f);

/**
 * awr_file_probe() - the probe made at open
 * @f:	the handle
 *
 * Return: the probe, owned by @f.
 */
const struct awr_probe *awr_file_probe(const struct awr_file *f);

/**
 * awr_file_check() - check one write against the handle's limits and fd
 * @f:		the handle
 * @buf:	the buffer (alignment is checked)
 * @len:	length
 * @offset:	file offset
 * @v:		optional verdict
 *
 * Return: 0 or the negative errno the kernel would give.
 */
int awr_file_check(const struct awr_file *f, const void *buf, size_t len,
		   uint64_t offset, struct awr_verdict *v);

/**
 * awr_pwrite() - one synchronous atomic write (pwritev2 with RWF_ATOMIC)
 * @f:		the handle
 * @buf:	data, aligned to the limits' mem_align
 * @len:	length, a power of two within [unit_min, unit_max]
 * @offset:	a multiple of @len
 * @flags:	AWR_WRITE_* flags
 * @v:		optional verdict, filled when a rule is broken before the syscall
 *
 * The write is refused before the syscall when a rule is broken.
 *
 * Return: bytes written (always @len), or a negative errno.
 */
ssize_t awr_pwrite(struct awr_file *f, const void *buf, size_t len, uint64_t offset,
		   unsigned int flags, struct awr_verdict *v);

/**
 * awr_pwrite_raw() - pwritev2 with RWF_ATOMIC on any fd, no checks
 * @fd:		the descriptor
 * @iov:	the iovecs (struct iovec *)
 * @iovcnt:	their number
 * @offset:	file offset
 * @flags:	AWR_WRITE_* flags
 *
 * For tests and tools that want the kernel's own answer.
 *
 * Return: bytes written or a negative errno.
 */
ssize_t awr_pwrite_raw(int fd, const void *iov, int iovcnt, uint64_t offset, unsigned int flags);

/* --- io_uring engine and page batches ----------------------------------- */

/*
 * An asynchronous engine on io_uring for one struct awr_file: atomic writes
 * (IORING_OP_WRITE with RWF_ATOMIC) are queued without a system call, sent to
 * the kernel in batches and reaped with the caller's tag. Every atomic write
 * passes the rule checker when queued: a refused write never reaches the
 * kernel and completes at once with the rule's errno and the rule.
 * Registered buffers (IORING_OP_WRITE_FIXED) serve plain writes only: the
 * kernel refuses RWF_ATOMIC on them (-EINVAL). A ring is used by one thread,
 * the one that created it (IORING_SETUP_SINGLE_ISSUER where the kernel has it).
 */
struct awr_ring;

/* awr_ring_create() flags */
#define AWR_RING_REGISTER_FILE	(1U << 0)	/* register the fd (IOSQE_FIXED_FILE) */
/* a kernel thread polls the queue (IORING_SETUP_SQPOLL) */
#define AWR_RING_SQPOLL		(1U << 1)
/*
 * Hand each write to the kernel as it is queued (awr_ring_submit() inside
 * awr_ring_queue_write(): one io_uring_enter() per write): the device starts on
 * it at once instead of at the next reap, and with DEFER_TASKRUN the same call
 * posts the completions that are ready, so the reap finds them waiting instead
 * of sleeping. For a queue kept full (QD above 1). Ignored at depth 1, where
 * the reap's one call already submits and waits.
 */
#define AWR_RING_SUBMIT_EACH	(1U << 2)

/*
 * awr_ring_queue_write() / awr_write_units() flags, besides AWR_WRITE_DSYNC and
 * AWR_WRITE_NOCHECK: a plain O_DIRECT write, no RWF_ATOMIC, no rule check
 */
#define AWR_WRITE_PLAIN		(1U << 8)

/* One completed write (awr_queue_reap(), awr_ring_reap()). A plain value type. */
struct awr_completion {
	uint64_t tag;		/* the caller's tag given with the write */
	int32_t res;		/* bytes written, or a negative errno */
	/* the rule that refused it before the kernel; AWR_RULE_OK otherwise */
	enum awr_rule rule;
};

/**
 * awr_ring_create() - create an io_uring engine for an open target
 * @f:		the target (its limits and fd flags are used by the rule check);
 *		it must stay open while the ring lives
 * @depth:	queue depth: the most writes queued and not yet reaped, 1..32768
 * @flags:	AWR_RING_* flags
 * @out:	the new ring, freed with awr_ring_free()
 *
 * Return: 0, -EINVAL for a bad @depth, or the negative errno of io_uring
 * setup (-ENOSYS or -EPERM when io_uring is unavailable or disabled).
 */
int awr_ring_create(struct awr_file *f, unsigned int depth, unsigned int flags,
		    struct awr_ring **out);

/**
 * awr_ring_free() - tear the ring down
 * @r:	the ring, may be NULL
 *
 * Writes still in the kernel complete before the ring is gone; their buffers
 * must stay valid until then (reap everything first).
 */
void awr_ring_free(struct awr_ring *r);

/**
 * awr_ring_queue_write() - queue one write (no system call)
 * @r:		the ring
 * @buf:	data, aligned for O_DIRECT; it must stay valid until reaped
 * @len:	length (for atomic writes a power of two within the limits)
 * @offset:	file offset (for atomic writes a multiple of @len)
 * @tag:	returned in the completion
 * @flags:	AWR_WRITE_DSYNC (RWF_DSYNC), AWR_WRITE_PLAIN (no RWF_ATOMIC),
 *		AWR_WRITE_NOCHECK (skip the rule check: let the kernel judge)
 *
 * An atomic write that breaks a rule is not sent: its completion carries the
 * rule's errno in res and the rule in rule, and is returned by the next
 * awr_ring_reap() ahead of kernel completions.
 *
 * With AWR_RING_SUBMIT_EACH the write is also handed to the kernel (one
 * system call); should that call fail, the write stays queued and goes with
 * the next awr_ring_reap(), which reports the error.
 *
 * Return: 0 when a completion will follow (also for a refused write),
 * -EBUSY when @depth writes are already queued and not reaped, -EINVAL for a
 * NULL @buf or a @len over 4 GiB - 1.
 */
int awr_ring_queue_write(struct awr_ring *r, const void *buf, size_t len, uint64_t offset,
			 uint64_t tag, unsigned int flags);

/**
 * awr_ring_submit() - send the queued writes to the kernel (one system call)
 * @r:	the ring
 *
 * Return: the number of writes sent, or a negative errno.
 */
int awr_ring_submit(struct awr_ring *r);

/**
 * awr_ring_reap() - collect completions, submitting and waiting if needed
 * @r:		the ring
 * @out:	array for the completions
 * @max:	its size
 * @wait_nr:	wait until at least this many are collected (capped at the
 *		number outstanding); 0 never waits
 *
 * Refused writes come first, then kernel completions. Writes queued since
 * the last call are always submitted, in the same system call that collects
 * or waits: one io_uring_enter() per call in the usual loop (queue, reap).
 *
 * Return: the number of completions stored (0..@max), or a negative errno.
 */
int awr_ring_reap(struct awr_ring *r, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr);

/**
 * awr_ring_depth() - the queue depth given at creation
 * @r:	the ring
 *
 * Return: the depth.
 */
unsigned int awr_ring_depth(const struct awr_ring *r);

/**
 * awr_ring_outstanding() - writes queued and not yet reaped
 * @r:	the ring
 *
 * Return: the count (refused writes not yet reaped included).
 */
unsigned int awr_ring_outstanding(const struct awr_ring *r);

/**
 * awr_ring_file() - the target the ring writes
 * @r:	the ring
 *
 * Return: the handle given to awr_ring_create().
 */
struct awr_file *awr_ring_file(const struct awr_ring *r);

/* Counters of a queue (awr_queue_stats(), awr_ring_stats()). A plain value type. */
struct awr_ring_stats {
	uint64_t submitted;		/* writes handed to the kernel */
	uint64_t completed;		/* kernel completions reaped */
	/* submissions and waits (each at most one io_uring_enter()) */
	uint64_t submit_calls;
	uint64_t reaps;			/* awr_ring_reap() calls that found writes in the kernel */
	uint64_t inflight_sum;		/* writes in the kernel at those reaps, summed */
	/* of those, reaps with fewer than the depth in the kernel */
	uint64_t reaps_below_depth;
	uint32_t inflight_last;		/* writes in the kernel at the last such reap */
	uint32_t inflight_min;
	uint32_t inflight_max;
	uint32_t setup_flags;		/* the IORING_SETUP_* flags the kernel accepted */
	/* IORING_ENTER_* added to each wait: NO_IOWAIT (1 << 7) on 6.15+ */
	uint32_t wait_flags;
	uint32_t reserved32;
	uint64_t reserved[3];
};

/**
 * awr_ring_stats() - how full the ring kept the queue
 * @r:		the ring
 * @out:	the counters since awr_ring_create()
 *
 * "In the kernel at a reap" is counted right after the reap handed its queued
 * writes over: writes submitted whose completion the caller has not taken.
 */
void awr_ring_stats(const struct awr_ring *r, struct awr_ring_stats *out);

/**
 * awr_ring_register_buffers() - register buffers for awr_ring_queue_write_fixed()
 * @r:		the ring
 * @iov:	the buffers (pinned by the kernel until the ring is freed)
 * @nr:		how many
 *
 * Return: 0 or the negative errno of IORING_REGISTER_BUFFERS (-ENOMEM when
 * RLIMIT_MEMLOCK is too small on old kernels).
 */
struct iovec;
int awr_ring_register_buffers(struct awr_ring *r, const struct iovec *iov, unsigned int nr);

/**
 * awr_ring_queue_write_fixed() - queue one plain write from a registered buffer
 * @r:		the ring
 * @buf_index:	index of the registered buffer that holds @buf
 * @buf:	data within that buffer
 * @len:	length
 * @offset:	file offset
 * @tag:	returned in the completion
 * @flags:	must hold AWR_WRITE_PLAIN; AWR_WRITE_DSYNC optional
 *
 * Return: 0, -EBUSY when the depth is reached, -EINVAL without
 * AWR_WRITE_PLAIN: the kernel refuses RWF_ATOMIC with a registered buffer.
 */
int awr_ring_queue_write_fixed(struct awr_ring *r, unsigned int buf_index, const void *buf,
			       size_t len, uint64_t offset, uint64_t tag, unsigned int flags);

/* The outcome of a page batch. A plain value type. */
struct awr_batch_result {
	uint64_t units_done;		/* units that landed whole */
	uint64_t units_failed;		/* units refused or failed */
	int error;			/* 0 or the first error (lowest offset) */
	uint64_t error_offset;		/* offset of the unit that failed first */
	/* its verdict: a rule, or AWR_RULE_OK when the kernel refused */
	struct awr_verdict verdict;
	uint32_t reserved[8];
};

/**
 * awr_write_units() - write a range as naturally aligned units through a ring
 * @r:		an idle ring (no writes outstanding)
 * @buf:	@length bytes of data, aligned for O_DIRECT
 * @offset:	file offset of the first unit
 * @length:	a multiple of @unit
 * @unit:	the size of each write (a database page), at most 4 GiB - 1
 * @flags:	AWR_WRITE_DSYNC, AWR_WRITE_PLAIN (plain O_DIRECT writes, to
 *		compare), AWR_WRITE_NOCHECK
 * @res:	optional: units landed, the first error and its verdict
 *
 * Each unit is one atomic write (each page untorn, not the whole range).
 * Units are queued as the ring has room and submitted with each reap, or each
 * as it is queued when the ring was made with AWR_RING_SUBMIT_EACH (the faster
 * way at a depth above 1: the device is kept fed); it returns when all queued
 * units completed. After the first failure no further units
 * are queued; those in flight complete.
 *
 * Return: 0 when every unit landed; else the first error (the unit at the
 * lowest offset that failed); -EBUSY when the ring has writes outstanding;
 * -EINVAL for a zero @unit, a @length that is not a multiple of it, or NULL.
 */
int awr_write_units(struct awr_ring *r, const void *buf, uint64_t offset, uint64_t length,
		    uint64_t unit, unsigned int flags, struct awr_batch_result *res);

/* awr_prepare() refusals */
enum awr_prepare_refusal {
	AWR_PREPARE_OK = 0,
	AWR_PREPARE_HAS_DATA,		/* the file is not empty or has blocks */
	AWR_PREPARE_NOT_POW2,		/* the unit is not a power of two */
	AWR_PREPARE_UNIT_SMALL,		/* below the filesystem block */
	AWR_PREPARE_UNIT_FS,		/* above what the filesystem writes atomically */
	AWR_PREPARE_UNIT_DEVICE,	/* above what the device writes atomically */
	AWR_PREPARE_SIZE,		/* the size is 0 or not a multiple of the unit */
	AWR_PREPARE_FS,			/* not XFS or ext4, or no atomic writes on this file */
	AWR_PREPARE_FAILED,		/* a system call failed (see error) */
};

struct awr_prepare_result {
	enum awr_prepare_refusal refusal;
	int error;			/* 0 or a negative errno */
	char message[256];		/* why it was refused, or what was done */
	uint64_t extsize_hint;		/* the hint now set (XFS), bytes */
	uint64_t cluster_size;		/* ext4: the cluster, the largest atomic write */
	uint64_t total_bytes;		/* the file's mapped bytes afterwards */
	uint64_t aligned_bytes;		/* of which aligned to the unit */
	uint32_t reserved[8];
};

/* awr_prepare() flags */
/* XFS: set the hint and fallocate, no aligned placement */
#define AWR_PREPARE_HINT_ONLY	(1U << 0)

/**
 * awr_prepare() - preallocate a new or empty file for atomic writes of @unit
 * @fd:		the file, open for writing
 * @size:	bytes to preallocate, a multiple of @unit
 * @unit:	the atomic unit, a power of two
 * @flags:	AWR_PREPARE_* flags
 * @res:	what was done, or the refusal with its reason
 *
 * XFS: sets the extent size hint to @unit, then places every unit on a
 * physically aligned extent. ext4: preallocates; bigalloc clusters are aligned.
 *
 * Return: 0, or a negative errno (-EEXIST: the file holds data; -EINVAL: the
 * unit or size; -EOPNOTSUPP: the filesystem) with @res saying why.
 */
int awr_prepare(int fd, uint64_t size, uint64_t unit, unsigned int flags,
		struct awr_prepare_result *res);

/**
 * awr_pwrite_route() - awr_pwrite() that also reports the route the write took
 * @f:		the file (a regular file; for a block device the route is hardware)
 * @buf:	the data
 * @len:	its length, one atomic unit
 * @off:	the offset
 * @flags:	AWR_WRITE_* flags
 * @v:		the broken rule when refused, may be NULL
 * @route:	the route the write took
 *
 * Return: as awr_pwrite().
 */
ssize_t awr_pwrite_route(struct awr_file *f, const void *buf, size_t len, uint64_t off,
			 unsigned int flags, struct awr_verdict *v, enum awr_write_route *route);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_WRITE_H */
