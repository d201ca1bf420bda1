// SPDX-License-Identifier: MIT
/*
 * The rule checker: would this write be atomic? Rules are checked in the
 * order the kernel checks them (kiocb_set_rw_flags, generic_atomic_write_valid,
 * then the filesystem or block limits), so the first broken rule carries the
 * errno the kernel will return.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"

static const struct {
	const char *name;
	int err;
} rules[AWR_RULE__COUNT] = {
	[AWR_RULE_OK]			= { "ok", 0 },
	[AWR_RULE_UNSUPPORTED]		= { "unsupported", -EOPNOTSUPP },
	[AWR_RULE_NOT_WRITABLE]		= { "not_writable", -EBADF },
	[AWR_RULE_SEGMENTS]		= { "segments", -EINVAL },
	[AWR_RULE_NOT_POWER_OF_TWO]	= { "not_power_of_two", -EINVAL },
	[AWR_RULE_MISALIGNED]		= { "misaligned", -EINVAL },
	[AWR_RULE_NOT_DIRECT]		= { "not_direct", -EOPNOTSUPP },
	[AWR_RULE_TOO_SMALL]		= { "too_small", -EINVAL },
	[AWR_RULE_TOO_LARGE]		= { "too_large", -EINVAL },
	[AWR_RULE_CROSSES_BOUNDARY]	= { "crosses_boundary", -EINVAL },
	[AWR_RULE_BUFFER_ALIGNMENT]	= { "buffer_alignment", -EINVAL },
	[AWR_RULE_PAST_END]		= { "past_end", -EINVAL },
	[AWR_RULE_DEVICE_LIMIT]		= { "device_limit", -EINVAL },
	[AWR_RULE_DEVICE_ERROR]		= { "device_error", -EIO },
	[AWR_RULE_BEYOND_END]		= { "beyond_end", -ENOSPC },
	[AWR_RULE_OFFSET_RANGE]		= { "offset_range", -EINVAL },
	[AWR_RULE_READ_ONLY]		= { "read_only", -EPERM },
};

const char *awr_rule_name(enum awr_rule rule)
{
	if ((unsigned int)rule >= AWR_RULE__COUNT)
		return "unknown";
	return rules[rule].name;
}

int awr_rule_errno(enum awr_rule rule)
{
	if ((unsigned int)rule >= AWR_RULE__COUNT)
		return -EINVAL;
	return rules[rule].err;
}

static int verdict(struct awr_verdict *v, enum awr_rule rule, const char *fmt, ...)
{
	va_list ap;

	if (v) {
		v->rule = rule;
		v->error = rules[rule].err;
		va_start(ap, fmt);
		vsnprintf(v->message, sizeof(v->message), fmt, ap);
		va_end(ap);
	}
	return rules[rule].err;
}

static int check_fd(const struct awr_write_plan *w, struct awr_verdict *v)
{
	int acc = w->open_flags & O_ACCMODE;

	if (w->open_flags < 0)
		return 0;
	if (acc != O_WRONLY && acc != O_RDWR)
		return verdict(v, AWR_RULE_NOT_WRITABLE,
			       "the file is not open for writing (open it O_WRONLY or O_RDWR)");
	return 0;
}

static int check_shape(const struct awr_write_plan *w, struct awr_verdict *v)
{
	unsigned int segs = w->nr_segs ? w->nr_segs : 1;

	if (segs > 1)
		return verdict(v, AWR_RULE_SEGMENTS,
			       "%u iovecs given, but an atomic write takes exactly one buffer",
			       segs);
	if (!awr_is_pow2(w->length))
		return verdict(v, AWR_RULE_NOT_POWER_OF_TWO,
			       "length %" PRIu64 " is not a power of two", w->length);
	if (w->offset % w->length)
		return verdict(v, AWR_RULE_MISALIGNED,
			       "offset %" PRIu64 " is not a multiple of the length %" PRIu64,
			       w->offset, w->length);
	if (w->open_flags >= 0 && !(w->open_flags & O_DIRECT))
		return verdict(v, AWR_RULE_NOT_DIRECT,
			       "the file is not open with O_DIRECT; atomic writes need direct I/O");
	return 0;
}

static int check_range(const struct awr_limits *l, const struct awr_write_plan *w,
		       struct awr_verdict *v)
{
	if (w->length < l->unit_min)
		return verdict(v, AWR_RULE_TOO_SMALL,
			       "length %" PRIu64 " is below the atomic unit minimum %" PRIu32,
			       w->length, l->unit_min);
	if (w->length > l->unit_max)
		return verdict(v, AWR_RULE_TOO_LARGE,
			       "length %" PRIu64 " exceeds the atomic unit maximum %" PRIu32,
			       w->length, l->unit_max);
	return 0;
}

static int check_placement(const struct awr_limits *l, const struct awr_write_plan *w,
			   struct awr_verdict *v)
{
	uint64_t end = w->offset + w->length;

	if (l->boundary && w->offset / l->boundary != (end - 1) / l->boundary)
		return verdict(v, AWR_RULE_CROSSES_BOUNDARY,
			       "the write %" PRIu64 "..%" PRIu64
			       " crosses the atomic boundary at %" PRIu64,
			       w->offset, end, (w->offset / l->boundary + 1) * l->boundary);
	if (w->buf && l->mem_align && ((uintptr_t)w->buf % l->mem_align))
		return verdict(v, AWR_RULE_BUFFER_ALIGNMENT,
			       "the buffer address is not a multiple of the direct I/O memory "
			       "alignment %" PRIu32,
			       l->mem_align);
	if (l->dev_size && end > l->dev_size)
		return verdict(v, AWR_RULE_PAST_END,
			       "the write ends at %" PRIu64 ", past the end of the device (%" PRIu64
			       " bytes)",
			       end, l->dev_size);
	return 0;
}

/*
 * 6.11.0-6.11.10 and 6.12.0-6.12.1 decide O_DIRECT at open (blkdev_open set
 * FMODE_CAN_ATOMIC_WRITE only for O_DIRECT opens; kiocb_set_rw_flags refuses
 * without it); 6.13, 6.11.11 and 6.12.2 check it per write in
 * generic_atomic_write_valid (the kernel rules table, AWR_KRULE_DIRECT_PER_WRITE).
 */
static int check_open_time_direct(const struct awr_write_plan *w, uint32_t asked,
				  struct awr_verdict *v)
{
	uint32_t kernel;
	char kv[16];

	if (w->open_flags < 0 || (w->open_flags & O_DIRECT))
		return 0;	/* the hot path: no release needed */
	kernel = awr__kernel_or_running(asked);
	if (awr_kernel_has(kernel, AWR_KRULE_DIRECT_PER_WRITE))
		return 0;
	return verdict(v, AWR_RULE_NOT_DIRECT,
		       "kernel %s decides O_DIRECT at open time: opened without it, every atomic "
		       "write is refused first; opened with it and cleared by fcntl, writes go "
		       "buffered, not atomic",
		       awr_kernel_format(kernel, kv, sizeof(kv)));
}

/*
 * A block device (block/fops.c blkdev_write_iter, 6.11 to 7.x): a read-only
 * disk is refused with EPERM, then a zero-length write returns 0 and writes
 * nothing, then a start at or past the end is refused with ENOSPC.
 */
static int check_block_device(const struct awr_limits *l, const struct awr_write_plan *w,
			      struct awr_verdict *v, bool *done)
{
	*done = false;
	if (l->flags & AWR_LIMITS_READ_ONLY)
		return verdict(v, AWR_RULE_READ_ONLY,
			       "the block device is read-only: the kernel refuses every write with "
			       "EPERM before any atomic check");
	if (!w->length) {
		*done = true;
		return verdict(v, AWR_RULE_OK,
			       "a zero-length atomic write to a block device returns 0 and writes "
			       "nothing");
	}
	if (l->dev_size && w->offset >= l->dev_size)
		return verdict(v, AWR_RULE_BEYOND_END,
			       "offset %" PRIu64 " is at or past the end of the device (%" PRIu64
			       " bytes)",
			       w->offset, l->dev_size);
	return 0;
}

/*
 * The order of the kernel: vfs_writev (write access, rw_verify_area), then
 * kiocb_set_rw_flags (support; O_DIRECT on kernels that decide it at open),
 * then the target's write_iter: a block device refuses a read-only disk and a
 * start past its end and returns 0 for a zero length, then
 * generic_atomic_write_valid (shape, O_DIRECT), then its limits; XFS and
 * ext4 check the size range first.
 */
static int check_all(const struct awr_limits *l, const struct awr_write_plan *w,
		     struct awr_verdict *v, bool *done)
{
	bool file = l->flags & AWR_LIMITS_FILE;
	int ret = check_fd(w, v);

	if (ret)
		return ret;
	if (w->offset > (uint64_t)INT64_MAX || w->length > (uint64_t)INT64_MAX - w->offset)
		return verdict(v, AWR_RULE_OFFSET_RANGE,
			       "offset %" PRIu64 " plus length %" PRIu64 " is beyond the largest "
									 "file offset",
			       w->offset, w->length);
	if (!l->supported)
		return verdict(v, AWR_RULE_UNSUPPORTED,
			       "the target does not support atomic writes (see awr probe)");
	if ((ret = check_open_time_direct(w, l->kernel, v)))
		return ret;
	if (!file && ((ret = check_block_device(l, w, v, done)) || *done))
		return ret;
	if (file && (ret = check_range(l, w, v)))
		return ret;
	if ((ret = check_shape(w, v)))
		return ret;
	if (!file && (ret = check_range(l, w, v)))
		return ret;
	return check_placement(l, w, v);
}

int awr_check(const struct awr_limits *lim, const struct awr_write_plan *plan,
	      struct awr_verdict *v)
{
	bool done = false;
	int ret;

	if (!lim || !plan)
		return -EINVAL;
	ret = check_all(lim, plan, v, &done);
	if (!ret && !done)
		verdict(v, AWR_RULE_OK, "the write of %" PRIu64 " bytes at %" PRIu64 " is atomic",
			plan->length, plan->offset);
	return ret;
}
