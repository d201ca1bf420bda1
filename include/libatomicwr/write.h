/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/write.h - writing: an open target with its limits, pwritev2, aligned
 * preallocation and the path a write took. Queued writes: <libatomicwr/queue.h>.
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

/**
 * awr_prepare_refusal_name() - a refusal of awr_prepare() in snake_case
 * @r:		the refusal
 *
 * Return: "ok", "has_data", "not_pow2", "unit_small", "unit_fs", "unit_device", "size",
 * "filesystem" or "failed".
 */
const char *awr_prepare_refusal_name(enum awr_prepare_refusal r);

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
