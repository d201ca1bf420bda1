// SPDX-License-Identifier: MIT
/* Shared by the passthrough engines: verdicts and finding the device node of a path. */
#include <errno.h>
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
