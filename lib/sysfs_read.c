// SPDX-License-Identifier: MIT
/*
 * Where sysfs is (the real /sys, or a fixture tree for discovery tests) and
 * reading one attribute, text or number: shared by the discovery and device stages.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "private.h"

static const char *sysfs_root_override;

void awr_set_sysfs_root(const char *root)
{
	sysfs_root_override = root;
}

const char *awr__sysfs_root(void)
{
	const char *env;

	if (sysfs_root_override)
		return sysfs_root_override;
	env = secure_getenv("AWR_SYSFS_ROOT");
	return (env && *env) ? env : "/sys";
}

/* One attribute's text, the trailing newline taken off. */
int awr__sysfs_read_str(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (len < 2)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int awr__sysfs_read_u64(const char *dir, const char *name, uint64_t *out)
{
	char buf[64];
	char *end;
	int ret = awr__sysfs_read_str(dir, name, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}
