/* SPDX-License-Identifier: MIT */
/*
 * The queue's private parts (queue.c) and its engines (uring.c, nvme_write.c,
 * scsi_write.c) behind one small ops table, as nvme-cli's struct print_ops:
 * the generic queue keeps the slots (the caller's tag and length by the
 * engine's user data), the depth, the completions made without the kernel and
 * the counters; an engine checks, prepares, hands over and collects.
 */
#ifndef AWR_WRITE_QUEUE_H
#define AWR_WRITE_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "private.h"
#include "write/write.h"

struct awr_queue;

struct awr__queue_ops {
	/*
	 * Would the engine take this write? Only what can change per write;
	 * @v is filled only when it would not (the slow path).
	 */
	int (*check)(const struct awr_queue *q, const void *buf, size_t len, uint64_t offset,
		     unsigned int flags, struct awr_verdict *v);
	/* Queue one checked write in @slot: no system call, but SCSI's write() of its header. */
	int (*prep)(struct awr_queue *q, unsigned int slot, const void *buf, size_t len,
		    uint64_t offset, unsigned int flags);
	/* Hand what was queued to the kernel and wait for @need completions. */
	int (*enter)(struct awr_queue *q, unsigned int need);
	/* Completions ready now (waiting for @need of them): tag holds the slot. */
	int (*take)(struct awr_queue *q, struct awr_completion *out, unsigned int max,
		    unsigned int need);
	/* Completions waiting to be taken without a system call. */
	unsigned int (*ready)(const struct awr_queue *q);
	/* Writes queued and not yet in the kernel. */
	unsigned int (*unsent)(const struct awr_queue *q);
	/* The device view read at open (passthrough), or NULL. */
	const struct awr_device *(*device)(const struct awr_queue *q);
	void (*close)(struct awr_queue *q);
};

struct awr__queue_slot {
	uint64_t tag;
	uint32_t len;
};

struct awr_queue {
	const struct awr__queue_ops *ops;
	enum awr_queue_engine engine;
	void *priv;			/* the engine's state */
	unsigned int depth;		/* writes queued and not reaped, at most */
	unsigned int outstanding;	/* queued (or done without the kernel), not reaped */
	unsigned int nr_free;
	unsigned int *free_slots;
	struct awr__queue_slot *slots;	/* by slot: the engine's user data */
	unsigned int nr_done;
	struct awr_completion *done;	/* completed without the kernel (tag: the slot) */
	bool submit_each;		/* AWR_QUEUE_SUBMIT_EACH at a depth above 1 */
	struct awr_queue_stats stats;
};

/*
 * batch.c: THE queued-write loop, a run of @nr units of @len bytes each through @q.
 * Its users say where each unit's data goes and what a completion means to them.
 */
struct awr__run_ops {
	/*
	 * Unit @i's data and offset, and the tag its completion carries (called
	 * in unit order when the queue has room; nothing is taken yet: the
	 * same @i may come again). -EBUSY: wait for a completion first;
	 * another error ends the run with it.
	 */
	int (*next)(void *arg, uint64_t i, const void **buf, uint64_t *off, uint64_t *tag);
	/* The unit of @tag is in the queue (optional). */
	void (*sent)(void *arg, uint64_t tag);
	/* @n completions were reaped, their done() calls follow (optional: a clock read once). */
	void (*reaped)(void *arg, unsigned int n);
	/*
	 * The unit of @c->tag completed: @err 0 when it was written whole,
	 * else its error (-EIO for a short write). @v: the queue refused it
	 * before the kernel, with this rule (then it was never sent).
	 */
	void (*done)(void *arg, const struct awr_completion *c, int err,
		     const struct awr_verdict *v);
};

struct awr__run {
	struct awr_queue *q;		/* idle at the start */
	const struct awr__run_ops *ops;
	void *arg;
	uint64_t nr;			/* units */
	size_t len;			/* each unit's length */
	unsigned int flags;		/* awr_queue_write()'s */
	uint64_t next;			/* out: units queued (a refused one is not) */
	int error;			/* out: the first unit's error; none is queued after it */
};

int awr__queue_run(struct awr__run *r);

/* queue.c: for the engines */
void awr__queue_done(struct awr_queue *q, unsigned int slot, int32_t res, enum awr_rule rule);

/* uring.c, nvme_write.c, scsi_write.c: each engine's open */
int awr__uring_open(struct awr_queue *q, const char *path, struct awr_file *f, unsigned int flags);
int awr__nvme_open(struct awr_queue *q, const char *path);
int awr__scsi_open(struct awr_queue *q, const char *path, unsigned int depth);

/* ring.c: the io_uring both the RWF_ATOMIC and the NVMe engines run on */
struct io_uring;
int awr__ring_setup(struct awr_queue *q, struct io_uring *ring, const unsigned int *tries,
		    unsigned int nr);
/* ring.c: ops of an engine whose state (q->priv) starts with its struct io_uring */
int awr__ring_enter(struct awr_queue *q, unsigned int need);
int awr__ring_take(struct awr_queue *q, struct awr_completion *out, unsigned int max,
		   unsigned int need);
unsigned int awr__ring_ready(const struct awr_queue *q);
unsigned int awr__ring_unsent(const struct awr_queue *q);

#endif /* AWR_WRITE_QUEUE_H */
