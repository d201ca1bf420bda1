// SPDX-License-Identifier: MIT
/* Shared by the passthrough engines: verdicts and finding the device node of a path. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "device.h"

int awr__pt_verdict(struct awr_verdict *v, enum awr_rule rule, const char *fmt, ...)
{
	va_list ap;

	if (v) {
		v->rule = rule;
		v->error = awr_rule_errno(rule);
		va_start(ap, fmt);
		vsnprintf(v->message, sizeof(v->message), fmt, ap);
		va_end(ap);
	}
	return awr_rule_errno(rule);
}

/* Whole blocks at a block-aligned offset, within @nr_blocks (0: unknown). */
int awr__pt_check_blocks(size_t len, uint64_t offset, uint32_t bs, uint64_t nr_blocks,
			 struct awr_verdict *v)
{
	if (!len || len % bs)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_LIMIT,
				       "length %zu is not a whole number of %" PRIu32 "-byte blocks", len, bs);
	if (offset % bs)
		return awr__pt_verdict(v, AWR_RULE_MISALIGNED,
				       "offset %" PRIu64 " is not a multiple of the %" PRIu32 "-byte block", offset, bs);
	if (nr_blocks && offset / bs + len / bs > nr_blocks)
		return awr__pt_verdict(v, AWR_RULE_PAST_END,
				       "the write ends past the device's %" PRIu64 " blocks", nr_blocks);
	return 0;
}

int awr__pt_node(const char *path, struct awr_devnode *n)
{
	struct stat st;
	int ret;

	if (!path)
		return -EINVAL;
	if (stat(path, &st))
		return -errno;
	ret = awr__devnode_from_mode(st.st_mode, major(st.st_rdev), minor(st.st_rdev),
				     S_ISCHR(st.st_mode) ? path : NULL, n);
	return ret == -ENOENT ? -ENODEV : ret;
}
