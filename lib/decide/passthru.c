// SPDX-License-Identifier: MIT
/* Shared by the passthrough engines: verdicts and finding the device node of a path. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "device/device.h"
#include "decide/decide.h"

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

/*
 * A passthrough command addresses LBAs of the whole namespace or disk: a
 * partition's offset 0 would be the disk's LBA 0, so a partition is refused.
 */
static bool is_partition(const char *path, const struct stat *st)
{
	struct awr_sysfs_view y;
	bool nvme;

	if (!S_ISBLK(st->st_mode) || awr_sysfs_lookup(major(st->st_rdev), minor(st->st_rdev), &y) ||
	    !y.partition[0])
		return false;
	nvme = !strncmp(y.disk, "nvme", 4);
	awr__fail(-EINVAL, "%s is a partition of %s: the passthrough engines write whole "
		  "namespaces and disks: use /dev/%s or %s%s", path, y.disk, y.disk,
		  nvme ? "/dev/ng" : "its /dev/sgN", nvme ? y.disk + 4 : "");
	return true;
}

int awr__pt_node(const char *path, struct awr_devnode *n)
{
	struct stat st;
	int ret;

	if (!path)
		return -EINVAL;
	if (stat(path, &st))
		return -errno;
	if (is_partition(path, &st))
		return -EINVAL;
	ret = awr__devnode_from_mode(st.st_mode, major(st.st_rdev), minor(st.st_rdev),
				     S_ISCHR(st.st_mode) ? path : NULL, n);
	return ret == -ENOENT ? -ENODEV : ret;
}
