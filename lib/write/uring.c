// SPDX-License-Identifier: MIT
/*
 * The io_uring engine: atomic writes (IORING_OP_WRITE, rw_flags RWF_ATOMIC)
 * queued without a system call, submitted in batches, reaped with the
 * caller's tag. Each atomic write passes the rule checker on the limits and
 * fd flags cached in struct awr_file (pure arithmetic); a refused write never
 * reaches the kernel and completes from a small local queue instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <liburing.h>

#include "private.h"

#define AWR_RING_MAX_DEPTH 32768U	/* IORING_MAX_ENTRIES */
#define REAP_BATCH 64U

struct awr_ring {
	struct io_uring ring;
	struct awr_file *file;
	int fd;				/* the fd, or 0: index of the registered file */
	unsigned char sqe_flags;	/* IOSQE_FIXED_FILE or 0 */
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

int awr_ring_create(struct awr_file *f, unsigned int depth, unsigned int flags,
		    struct awr_ring **out)
{
	struct awr_ring *r;
	int ret;

	if (!f || !out || !depth || depth > AWR_RING_MAX_DEPTH)
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
	ret = io_uring_queue_init(depth, &r->ring, 0);
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

void awr_ring_free(struct awr_ring *r)
{
	if (!r)
		return;
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
	sqe = io_uring_get_sqe(&r->ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_write(sqe, r->fd, buf, (unsigned int)len, offset);
	sqe->rw_flags = ((flags & AWR_WRITE_PLAIN) ? 0 : RWF_ATOMIC) |
			((flags & AWR_WRITE_DSYNC) ? RWF_DSYNC : 0);
	sqe->flags |= r->sqe_flags;
	io_uring_sqe_set_data64(sqe, tag);
	r->outstanding++;
	return 0;
}

int awr_ring_submit(struct awr_ring *r)
{
	return io_uring_submit(&r->ring);
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
	return n;
}

int awr_ring_reap(struct awr_ring *r, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr)
{
	unsigned int n = 0, got;
	int ret;

	if (!r || (!out && max))
		return -EINVAL;
	if (wait_nr > max)
		wait_nr = max;
	if (wait_nr > r->outstanding)
		wait_nr = r->outstanding;
	n = take_refused(r, out, max);
	while (n < max) {
		got = take_cqes(r, out + n, max - n);
		n += got;
		if (got)
			continue;
		if (n >= wait_nr)
			break;
		ret = io_uring_submit_and_wait(&r->ring, wait_nr - n);
		if (ret < 0 && ret != -EINTR)
			return n ? (int)n : ret;
	}
	return (int)n;
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
