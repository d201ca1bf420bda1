/* SPDX-License-Identifier: MIT */
/* The kernel's own reading of a target's atomic write support, for skip decisions in tests. */
#ifndef AWR_TEST_RAW_ATOMIC_H
#define AWR_TEST_RAW_ATOMIC_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/*
 * Whether the kernel offers atomic writes on the target, read here and never
 * through the library under test: statx(STATX_WRITE_ATOMIC) of the path and,
 * for a block device, its queue's atomic_write_unit_max_bytes and its size.
 */
struct raw_atomic {
	bool supported;
	uint32_t unit_min, unit_max;
	uint64_t dev_size;	/* a block device's bytes; 0 for a file */
	char why[160];		/* why not supported */
};

static inline uint64_t sysfs_u64(const char *dir, const char *name)
{
	char path[128], line[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strtoull(line, NULL, 10);
}

static inline void raw_atomic_read(const char *path, struct raw_atomic *r)
{
	unsigned char b[256] = {0}; /* struct statx: mask at 0, atomic unit_min/max at 0xa8/0xac */
	char dir[96];
	struct stat st;
	uint32_t mask;

	memset(r, 0, sizeof(*r));
	if (syscall(SYS_statx, AT_FDCWD, path, 0, 0x7ffU | 0x10000U /* STATX_WRITE_ATOMIC */, b)) {
		snprintf(r->why, sizeof(r->why), "statx: %s", strerror(errno));
		return;
	}
	memcpy(&mask, b, 4);
	memcpy(&r->unit_min, b + 0xa8, 4);
	memcpy(&r->unit_max, b + 0xac, 4);
	r->supported = (mask & 0x10000U) && r->unit_min && r->unit_max >= r->unit_min;
	if (!r->supported)
		snprintf(r->why, sizeof(r->why), "statx reports no atomic writes (mask 0x%x, unit "
						 "%u..%u)", mask,
			 r->unit_min, r->unit_max);
	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	r->dev_size = sysfs_u64(dir, "size") * 512;
	strncat(dir, sysfs_u64(dir, "partition") ? "/../queue" : "/queue",
		sizeof(dir) - strlen(dir) - 1);
	if (r->supported && !sysfs_u64(dir, "atomic_write_unit_max_bytes")) {
		r->supported = false;
		snprintf(r->why, sizeof(r->why), "sysfs atomic_write_unit_max_bytes is 0");
	}
}

#endif /* AWR_TEST_RAW_ATOMIC_H */
