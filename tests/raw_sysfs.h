/* SPDX-License-Identifier: MIT */
/*
 * A block device's sysfs as the kernel shows it, read here and never through the library under
 * test: for the guest programs (tests/vm/guest/awr-vmtest.c, tests/devices/guest-devices.c), which
 * include it by a relative path.
 */
#ifndef AWR_TEST_RAW_SYSFS_H
#define AWR_TEST_RAW_SYSFS_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* The number in DIR/FILE: 0, -errno when it does not open, -EIO when it is empty. */
static int sysfs_number(const char *dir, const char *file, uint64_t *out)
{
	char path[PATH_MAX + 64], line[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	*out = strtoull(line, NULL, 10);
	return 0;
}

/*
 * The sysfs directory of block device DEV (@dir, PATH_MAX bytes: /sys/dev/block/MAJ:MIN resolved),
 * whether it is a partition (it has a partition file) and its queue directory (@queue: the disk's
 * for a partition). 0, -ENODEV when DEV is no block device, -errno when the link does not resolve.
 */
static int sysfs_block_dirs(const char *dev, char *dir, bool *partition, char *queue, size_t qlen)
{
	char link[64];
	struct stat st;
	uint64_t v;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return -ENODEV;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, dir))
		return -errno;
	*partition = sysfs_number(dir, "partition", &v) == 0;
	snprintf(queue, qlen, "%s/%squeue", dir, *partition ? "../" : "");
	return 0;
}

#endif /* AWR_TEST_RAW_SYSFS_H */
