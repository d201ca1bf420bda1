/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/queue.h - the queue: atomic writes through one of three engines behind one handle.
 * Open it with an engine and a depth; queue writes (one signature for every
 * engine), reap their completions, read how full it was kept, close it.
 *
 *   AWR_QUEUE_URING  io_uring IORING_OP_WRITE with RWF_ATOMIC on a file or
 *                    block device (struct awr_file)
 *   AWR_QUEUE_NVME   NVMe Writes through io_uring uring_cmd on /dev/ngXnY,
 *                    checked against (N)AWUPF, NABSPF and NABO
 *   AWR_QUEUE_SCSI   WRITE ATOMIC(16) through the sg driver's queue on
 *                    /dev/sgN, or SG_IO one at a time (depth 0)
 *
 * What the target can take is decided when the queue is opened and kept in
 * it: the limits, the rules that do not change per write and the kernel
 * table's answers. A write checks only what can change (offset, length,
 * alignment, buffer); one that breaks a rule is not queued, and the call
 * returns the rule's errno with the rule and a sentence in its verdict.
 * A queue is used by one thread, the one that opened it.
 */
#ifndef LIBATOMICWR_QUEUE_H
#define LIBATOMICWR_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include <libatomicwr/decide.h>
#include <libatomicwr/write.h>

#ifdef __cplusplus
extern "C" {
#endif

struct awr_queue;
struct iovec;

/* The engines of a queue. */
enum awr_queue_engine {
	AWR_QUEUE_URING = 0,	/* io_uring RWF_ATOMIC writes to a file or block device */
	AWR_QUEUE_NVME,		/* NVMe passthrough (uring_cmd on the namespace's char device) */
	AWR_QUEUE_SCSI,		/* SCSI WRITE ATOMIC(16) */
};

/* The deepest queue of each engine. */
#define AWR_QUEUE_URING_MAX	32768U	/* IORING_MAX_ENTRIES */
#define AWR_QUEUE_NVME_MAX	64U
#define AWR_QUEUE_SCSI_MAX	16U	/* the sg driver's SG_MAX_QUEUE of one open file */

/* awr_queue_open() flags */
#define AWR_QUEUE_REGISTER_FILE	(1U << 0)	/* uring: register the fd (IOSQE_FIXED_FILE) */
#define AWR_QUEUE_SQPOLL	(1U << 1)	/* uring: a kernel thread polls (SETUP_SQPOLL) */
/*
 * Hand each write to the kernel as it is queued (one io_uring_enter() per
 * write): the device starts on it at once instead of at the next reap, and
 * with DEFER_TASKRUN the same call posts the completions that are ready, so
 * the reap finds them waiting. For a queue kept full (depth above 1); the SCSI
 * engine always sends each command as it is queued.
 */
#define AWR_QUEUE_SUBMIT_EACH	(1U << 2)

/*
 * awr_queue_write() flags: AWR_WRITE_DSYNC (RWF_DSYNC; FUA for NVMe and SCSI),
 * AWR_WRITE_NOCHECK (skip the rules: the kernel or the device judges; the
 * passthrough engines still check whole blocks), and for the uring engine
 * AWR_WRITE_PLAIN and AWR_WRITE_FIXED.
 */
#define AWR_WRITE_PLAIN		(1U << 8)	/* plain O_DIRECT: no RWF_ATOMIC, no rule check */
#define AWR_WRITE_FIXED		(1U << 9)	/* plain writes: from a registered buffer */

/* One completed write (awr_queue_reap()). A plain value type. */
struct awr_completion {
	uint64_t tag;		/* the caller's tag given with the write */
	int32_t res;		/* bytes written, or a negative errno */
	enum awr_rule rule;	/* AWR_RULE_DEVICE_ERROR: the device failed it; else AWR_RULE_OK */
};

/* Counters of a queue (awr_queue_stats()). A plain value type. */
struct awr_queue_stats {
	uint64_t submitted;		/* writes handed to the kernel */
	uint64_t completed;		/* kernel completions reaped */
	uint64_t submit_calls;		/* submissions and waits (one io_uring_enter() at most) */
	uint64_t reaps;			/* reaps that found writes in the kernel */
	uint64_t inflight_sum;		/* writes in the kernel at those reaps, summed */
	uint64_t reaps_below_depth;	/* of those, reaps with fewer than the depth in it */
	uint32_t inflight_last;		/* writes in the kernel at the last such reap */
	uint32_t inflight_min;
	uint32_t inflight_max;
	uint32_t setup_flags;		/* the IORING_SETUP_* flags the kernel accepted */
	uint32_t wait_flags;		/* IORING_ENTER_* per wait: NO_IOWAIT (1 << 7), 6.15+ */
	uint32_t reserved32;
	uint64_t reserved[3];
};

/* The outcome of a page batch. A plain value type. */
struct awr_batch_result {
	uint64_t units_done;		/* units that landed whole */
	uint64_t units_failed;		/* units refused or failed */
	int error;			/* 0 or the first error (lowest offset) */
	uint64_t error_offset;		/* offset of the unit that failed first */
	struct awr_verdict verdict;	/* the rule, or who failed it (OK: the kernel) */
	uint32_t reserved[8];
};

/**
 * awr_queue_open() - open a queue of atomic writes
 * @engine:	AWR_QUEUE_URING, AWR_QUEUE_NVME or AWR_QUEUE_SCSI
 * @path:	NVMe: /dev/ngXnY or /dev/nvmeXnY; SCSI: /dev/sgN or /dev/sdX;
 *		uring: the file to open (O_DIRECT) when @f is NULL
 * @f:		uring: an open target, which must stay open while the queue
 *		lives; NULL for the passthrough engines
 * @depth:	writes queued and not reaped at most: uring 1 to
 *		AWR_QUEUE_URING_MAX, NVMe 1 to AWR_QUEUE_NVME_MAX, SCSI 0 (SG_IO,
 *		one write at a time) to AWR_QUEUE_SCSI_MAX
 * @flags:	AWR_QUEUE_* flags
 * @out:	the queue, closed with awr_queue_close()
 *
 * Return: 0; -EINVAL for a depth out of range, a flag the engine has no use
 * for or a partition given to a passthrough engine (it addresses the whole
 * namespace or disk); -ENODEV when @path is not of the engine's kind (or a
 * queued SCSI disk has no sg node); -EOPNOTSUPP when the kernel lacks
 * uring_cmd passthrough; the negative errno of io_uring setup or the open.
 */
int awr_queue_open(enum awr_queue_engine engine, const char *path, struct awr_file *f,
		   unsigned int depth, unsigned int flags, struct awr_queue **out);

/**
 * awr_queue_close() - close a queue
 * @q:	the queue, may be NULL
 *
 * Writes still in the kernel complete first; their buffers must stay valid
 * until then, so reap everything before closing. Queued writes that were
 * never submitted are dropped.
 */
void awr_queue_close(struct awr_queue *q);

/**
 * awr_queue_write() - queue one atomic write
 * @q:		the queue
 * @buf:	@len bytes, aligned for O_DIRECT, unchanged until the write is reaped
 * @len:	bytes, at most 4 GiB - 1
 * @offset:	byte offset in the file, namespace or disk
 * @tag:	returned in the write's completion
 * @flags:	AWR_WRITE_* flags
 * @v:		optional; the rule and a sentence when the write is refused
 *
 * No system call (but the SCSI engine's, which hands each command over, and
 * with AWR_QUEUE_SUBMIT_EACH one io_uring_enter(); should it fail, the write
 * stays queued and the next reap reports the error).
 *
 * Return: 0 when queued; -EBUSY when @depth writes are outstanding; the
 * negative errno of the rule broken (the rule in @v, nothing queued); -EINVAL
 * for a NULL @buf, a @len over 4 GiB - 1 or a flag the engine cannot honour.
 */
int awr_queue_write(struct awr_queue *q, const void *buf, size_t len, uint64_t offset,
		    uint64_t tag, unsigned int flags, struct awr_verdict *v);

/**
 * awr_queue_check() - would the queue take this write?
 * @q:		the queue
 * @buf:	the buffer
 * @len:	bytes
 * @offset:	byte offset
 * @v:		optional; the rule broken and a sentence, or AWR_RULE_OK
 *
 * The checks of awr_queue_write() without queueing: for the uring engine the
 * kernel's rules on the target's limits, for NVMe whole blocks within
 * (N)AWUPF and no NABSPF boundary crossed, for SCSI the Block Limits VPD.
 *
 * Return: 0, or the negative errno of the rule broken.
 */
int awr_queue_check(const struct awr_queue *q, const void *buf, size_t len, uint64_t offset,
		    struct awr_verdict *v);

/**
 * awr_queue_submit() - hand the queued writes to the kernel now
 * @q:	the queue
 *
 * Without waiting; with DEFER_TASKRUN the same call posts the completions
 * that are ready.
 *
 * Return: 0 or a negative errno.
 */
int awr_queue_submit(struct awr_queue *q);

/**
 * awr_queue_reap() - collect completions, submitting and waiting if needed
 * @q:		the queue
 * @out:	@max completions: the tag, the bytes written or a negative errno
 *		(-EIO with AWR_RULE_DEVICE_ERROR when a device failed the command:
 *		this call leaves awr_last_error() saying how, the NVMe status or
 *		the SCSI sense decoded, for the last such completion it returns)
 * @max:	room in @out
 * @wait_nr:	wait until at least this many are collected (capped at the
 *		number outstanding); 0 never waits
 *
 * Writes queued since the last call are submitted in the same system call
 * that collects or waits: one io_uring_enter() per turn of the usual loop
 * (queue, reap).
 *
 * Return: the number of completions stored (0..@max), or a negative errno.
 */
int awr_queue_reap(struct awr_queue *q, struct awr_completion *out, unsigned int max,
		   unsigned int wait_nr);

/**
 * awr_queue_stats() - how full the queue was kept
 * @q:		the queue
 * @out:	the counters since awr_queue_open(), against its depth
 *
 * "In the kernel at a reap" is counted right after the reap handed its queued
 * writes over: writes submitted whose completion the caller has not taken.
 */
void awr_queue_stats(const struct awr_queue *q, struct awr_queue_stats *out);

/**
 * awr_queue_depth() - the depth given at open
 * @q:	the queue
 *
 * Return: the depth (1 for a SCSI queue of depth 0).
 */
unsigned int awr_queue_depth(const struct awr_queue *q);

/**
 * awr_queue_outstanding() - writes queued and not yet reaped
 * @q:	the queue
 *
 * Return: the count.
 */
unsigned int awr_queue_outstanding(const struct awr_queue *q);

/**
 * awr_queue_file() - the target of a uring queue
 * @q:	the queue
 *
 * Return: the struct awr_file it writes (owned by the queue when it opened
 * the path itself), or NULL for the passthrough engines.
 */
struct awr_file *awr_queue_file(const struct awr_queue *q);

/**
 * awr_queue_device() - the device view a passthrough queue read at open
 * @q:	the queue
 *
 * Return: the view, owned by @q; NULL for the uring engine.
 */
const struct awr_device *awr_queue_device(const struct awr_queue *q);

/**
 * awr_queue_register_buffers() - register buffers for plain writes
 * @q:		a uring queue
 * @iov:	the buffers (pinned by the kernel until the queue is closed)
 * @nr:		how many
 *
 * A plain write (AWR_WRITE_PLAIN | AWR_WRITE_FIXED) from within one of them
 * is queued as IORING_OP_WRITE_FIXED. Atomic writes cannot use them: the
 * kernel refuses RWF_ATOMIC on a registered buffer (-EINVAL).
 *
 * Return: 0, -EINVAL for another engine, -EBUSY when buffers are registered,
 * or the negative errno of IORING_REGISTER_BUFFERS.
 */
int awr_queue_register_buffers(struct awr_queue *q, const struct iovec *iov, unsigned int nr);

/**
 * awr_queue_write_units() - write a range as naturally aligned units
 * @q:		an idle queue (no writes outstanding)
 * @buf:	@length bytes of data, aligned for O_DIRECT
 * @offset:	byte offset of the first unit
 * @length:	a multiple of @unit
 * @unit:	the size of each write (a database page), at most 4 GiB - 1
 * @flags:	AWR_WRITE_* flags for every unit
 * @res:	optional: units landed, the first error and its verdict
 *
 * Each unit is one atomic write (each page untorn, not the whole range),
 * queued as the queue has room; it returns when all queued units completed.
 * After the first failure no further units are queued; those in flight
 * complete.
 *
 * Return: 0 when every unit landed; else the first error (the unit at the
 * lowest offset that failed); -EBUSY when the queue has writes outstanding;
 * -EINVAL for a zero @unit, a @length that is not a multiple of it, or NULL.
 */
int awr_queue_write_units(struct awr_queue *q, const void *buf, uint64_t offset,
			  uint64_t length, uint64_t unit, unsigned int flags,
			  struct awr_batch_result *res);

/*
 * Where awr_queue_write_source() takes each unit's data: @nbuf buffers of one
 * unit each (aligned for O_DIRECT), one per write in flight, refilled by
 * @fill as writes complete. A plain value type.
 */
struct awr_queue_source {
	void *bufs;
	unsigned int nbuf;
	/* unit @index's data into @buf (called in unit order); nonzero stops the run with it */
	int (*fill)(void *arg, void *buf, uint64_t index);
	void *arg;
};

/**
 * awr_queue_write_source() - awr_queue_write_units() with the data made unit by unit
 * @q:		an idle queue (no writes outstanding)
 * @src:	the buffers and the function that fills them
 * @offset:	byte offset of the first unit
 * @length:	a multiple of @unit
 * @unit:	the size of each write, at most 4 GiB - 1
 * @flags:	AWR_WRITE_* flags for every unit
 * @res:	optional: units landed, the first error and its verdict
 *
 * Memory stays bounded whatever @length is: a unit's buffer is filled just
 * before it is queued and reused once its write completed. A fill that fails
 * stops the run: no further unit is queued, those in flight complete.
 *
 * Return: as awr_queue_write_units(), or the fill's nonzero result (then
 * @res->error_offset is the unit it was filling).
 */
int awr_queue_write_source(struct awr_queue *q, const struct awr_queue_source *src,
			   uint64_t offset, uint64_t length, uint64_t unit, unsigned int flags,
			   struct awr_batch_result *res);

/* --- a write job: a range from a byte or a file, any engine, read back ---- */

/* awr_write_job flags */
#define AWR_JOB_VERIFY	(1U << 0)	/* read the range back (O_DIRECT) and compare */
#define AWR_JOB_ROUTES	(1U << 1)	/* pwritev2 only: each unit's route, before and after */

/* Where a job stopped. */
enum awr_job_stage {
	AWR_JOB_DONE = 0,		/* every unit landed (and read back equal) */
	AWR_JOB_BAD_JOB,		/* the job itself: its sizes, its source, memory */
	AWR_JOB_REFUSED,		/* a unit breaks a rule: nothing was written */
	AWR_JOB_WRITE_FAILED,		/* a write or the input failed: earlier units landed */
	AWR_JOB_VERIFY_FAILED,		/* the read-back failed or differs */
};

struct awr_write_job {
	struct awr_file *file;		/* the target of pwritev2 or io_uring, or NULL */
	struct awr_queue *queue;	/* or a passthrough queue (NVMe, SCSI), or NULL */
	unsigned int qd;		/* writes in flight; with @file 0 is pwritev2 */
	int verify_fd;			/* with @queue: the block device to read back, or -1 */
	uint64_t offset;		/* of the first unit */
	uint64_t length;		/* a multiple of @unit */
	uint64_t unit;			/* each atomic write, at most 1 GiB */
	unsigned int write_flags;	/* AWR_WRITE_DSYNC */
	unsigned int flags;		/* AWR_JOB_* */
	int pattern;			/* the fill byte 0..255, or -1: the data from @input_fd */
	int input_fd;			/* read as the units go (read twice with AWR_JOB_VERIFY) */
	/* AWR_JOB_ROUTES: called with each unit's route, or NULL */
	void (*route)(void *arg, uint64_t offset, uint64_t length, enum awr_write_route r);
	void *arg;
};

struct awr_write_job_result {
	enum awr_job_stage stage;
	int error;			/* 0 or the negative errno returned */
	uint64_t error_offset;		/* the unit refused or failed, the byte that differs */
	struct awr_verdict verdict;	/* the rule of a unit refused or failed */
	uint64_t writes;		/* atomic writes landed */
	uint64_t bytes_written;
	bool verified;			/* AWR_JOB_VERIFY: read back and equal */
	double seconds;			/* the writes' wall time, first to last completion */
	unsigned int depth;		/* the queue's depth; 0 one write at a time */
	struct awr_queue_stats stats;	/* how full the queue was kept (@depth > 0) */
	uint64_t routes[4];		/* AWR_JOB_ROUTES: units per enum awr_write_route */
};

/**
 * awr_write_job_run() - write a range as atomic units, then read it back
 * @job:	the target, the range, the source and the engine
 * @res:	what landed, where it stopped and why, the queue's counters
 *
 * Every unit is checked against the target's limits first (awr_file_check(),
 * awr_queue_check()): a range that breaks a rule anywhere is not touched.
 * The data is made a unit at a time into one buffer per write in flight, so
 * memory stays bounded whatever @length is. With @file and a @qd the units go
 * through an io_uring queue of that depth (awr_queue_write_source()); with
 * @queue through it; else through awr_pwrite() one at a time.
 *
 * Return: 0, or the negative errno of the stage @res names; awr_last_error()
 * says what failed and, for a refused unit, what to do in awr write's options ("refused
 * before writing at 4096: ...; nothing was written: give an --offset that is a multiple of
 * --unit").
 */
int awr_write_job_run(const struct awr_write_job *job, struct awr_write_job_result *res);

/* The engines of a write job, as awr write --engine names them. */
enum awr_job_engine {
	AWR_JOB_SYNC,		/* pwritev2 on an awr_file, one unit at a time */
	AWR_JOB_URING,		/* io_uring on an awr_file */
	AWR_JOB_NVME,		/* NVMe passthrough (AWR_QUEUE_NVME) */
	AWR_JOB_SCSI,		/* SCSI WRITE ATOMIC(16) (AWR_QUEUE_SCSI) */
	AWR_JOB__ENGINES
};

/**
 * awr_job_engine_name() - "sync", "uring", "nvme" or "scsi"
 * @e:		the engine
 *
 * Return: a static string; "unknown" for values out of range.
 */
const char *awr_job_engine_name(enum awr_job_engine e);

/**
 * awr_write_job_engine() - the engine and queue depth of a job, from their names
 * @job:	its @qd is set: the depth asked for (32 without @qd) for uring and
 *		nvme, for scsi only when asked (else 0: SG_IO, one at a time), 0 for sync
 * @engine:	an engine's name (awr_job_engine_name()), or NULL: sync
 * @qd:		the depth as text ("64"), or NULL
 * @e:		set to the engine; AWR_JOB__ENGINES when @engine is unknown
 *
 * The depth is 1 to 32768, and at most AWR_QUEUE_NVME_MAX or AWR_QUEUE_SCSI_MAX
 * on those engines.
 *
 * Return: 0, or -EINVAL with awr write's sentence in awr_last_error()
 * ("--qd 100: the nvme engine keeps at most 64 writes in flight: give 1 to 64").
 */
int awr_write_job_engine(struct awr_write_job *job, const char *engine, const char *qd,
			 enum awr_job_engine *e);

/**
 * awr_write_job_check() - whether @job's range is whole units awr_write_job_run() can hold
 * @job:	its @offset, @length and @unit
 *
 * A non-zero length of whole units, an end within 2^63 - 1, a unit of at most 1 GiB.
 *
 * Return: 0, or -EINVAL with awr write's sentence in awr_last_error().
 */
int awr_write_job_check(const struct awr_write_job *job);

/**
 * awr_write_job_input() - open the file whose content @job writes
 * @job:	its @input_fd is set (the caller closes it, also after a failure);
 *		its @length and AWR_JOB_VERIFY are checked against the file
 * @path:	the file: a regular file of at least @length bytes, or a pipe or a
 *		device (not with AWR_JOB_VERIFY: the input is read a second time)
 *
 * Return: 0, or a negative errno with awr write's sentence in awr_last_error().
 */
int awr_write_job_input(struct awr_write_job *job, const char *path);

/**
 * awr_write_job_open() - open the target of @job for @engine, as awr write opens it
 * @job:	its @qd is the depth (awr_write_job_engine()); its @file, or its @queue and
 *		@verify_fd, are set
 * @path:	sync, uring: a regular file (made when missing) or a block device, whose
 *		data outside the range is kept; nvme: an NVMe generic node (/dev/ngXnY) or
 *		namespace; scsi: a SCSI disk or its sg node
 * @engine:	the engine
 * @flags:	0, or AWR_TARGET_FORCE: written even when in use or formatted, and a
 *		passthrough device with no block disk bound (its content unknown)
 * @why:	what awr_target_open() found on @path or, for nvme and scsi, on the
 *		device's block disk /dev/DISK (awr_device_disk()), which is claimed and
 *		read back through; @why->is_block_device false there: no block disk is
 *		bound (may be NULL)
 *
 * The one open of awr_target_open() for every engine: a partition is refused for
 * nvme and scsi (a passthrough command addresses the whole namespace or disk), and
 * AWR_JOB_ROUTES in @job's flags for any engine but sync, before anything is opened.
 *
 * Return: 0, or a negative errno with awr write's sentence in awr_last_error()
 * ("refusing to write /dev/nvme0n1 (awr write): it is mounted on /mnt. ..."); nothing
 * is left open.
 */
int awr_write_job_open(struct awr_write_job *job, const char *path, enum awr_job_engine engine,
		       unsigned int flags, struct awr_safety *why);

/**
 * awr_write_job_close() - close what awr_write_job_open() and awr_write_job_input() opened
 * @job:	its @file, @queue, @verify_fd and @input_fd are closed and cleared; NULL is
 *		fine
 */
void awr_write_job_close(struct awr_write_job *job);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_QUEUE_H */
