// SPDX-License-Identifier: MIT
/*
 * Where sysfs is (the real /sys, or a fixture tree for discovery tests) and
 * reading one attribute, text or number: the one reader every stage uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "platform/platform.h"

#ifdef AWR_TEST_HOOKS
/* The test seam (meson -Dtest_hooks=true only): a fixture tree stands for /sys. */
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
#else
const char *awr__sysfs_root(void)
{
	return "/sys";
}
#endif

int awr__read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len < 2)
		return -EINVAL;
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

int awr__sysfs_read_str(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret = awr__pathf(path, sizeof(path), "%s/%s", dir, name);

	return ret ? ret : awr__read_text(path, buf, len);
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

uint32_t awr__sysfs_read_u32(const char *dir, const char *name)
{
	uint64_t v = 0;

	if (awr__sysfs_read_u64(dir, name, &v) || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}
