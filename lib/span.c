// SPDX-License-Identifier: MIT
/* Sizes and clocks shared by the stress writers and the verifier. */
#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>

#include "private.h"

int awr__fd_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	*size = (uint64_t)st.st_size;
	return 0;
}

uint64_t awr__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t awr__realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
