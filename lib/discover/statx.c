// SPDX-License-Identifier: MIT
/* Discovery source: statx(STATX_WRITE_ATOMIC | STATX_DIOALIGN), the kernel's view. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "private.h"
#include "discover/discover.h"

int awr__statx_fd(int dirfd, const char *path, struct awr_statx_view *out)
{
	struct awr_kstatx stx;
	unsigned int want = STATX_BASIC_STATS | STATX_DIOALIGN | STATX_WRITE_ATOMIC;
	int flags = (path && *path) ? 0 : AT_EMPTY_PATH;

	memset(&stx, 0, sizeof(stx));
	if (syscall(SYS_statx, dirfd, path ? path : "", flags, want, &stx) < 0)
		return -errno;
	memset(out, 0, sizeof(*out));
	out->mask = stx.stx_mask;
	out->attributes = stx.stx_attributes;
	out->atomic_reported = stx.stx_mask & STATX_WRITE_ATOMIC;
	if (out->atomic_reported) {
		out->unit_min = stx.stx_atomic_write_unit_min;
		out->unit_max = stx.stx_atomic_write_unit_max;
		out->segments_max = stx.stx_atomic_write_segments_max;
		out->unit_max_opt = stx.stx_atomic_write_unit_max_opt;
	}
	out->dio_reported = stx.stx_mask & STATX_DIOALIGN;
	if (out->dio_reported) {
		out->dio_mem_align = stx.stx_dio_mem_align;
		out->dio_offset_align = stx.stx_dio_offset_align;
	}
	out->mode = stx.stx_mode;
	out->size = stx.stx_size;
	out->dev_major = stx.stx_dev_major;
	out->dev_minor = stx.stx_dev_minor;
	out->rdev_major = stx.stx_rdev_major;
	out->rdev_minor = stx.stx_rdev_minor;
	return 0;
}
