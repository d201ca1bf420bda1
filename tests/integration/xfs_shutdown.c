// SPDX-License-Identifier: MIT
/*
 * Description: test helper: print CLOCK_REALTIME in ns (the crash instant), then shut the XFS
 * filesystem at MOUNTDIR down without flushing its log (XFS_IOC_GOINGDOWN, NOLOGFLUSH).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"

int main(int argc, char **argv)
{
	uint32_t flags = XFS_FSOP_GOING_FLAGS_NOLOGFLUSH;
	struct timespec ts;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: xfs_shutdown MOUNTDIR\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ioctl(fd, XFS_IOC_GOINGDOWN, &flags)) {
		perror("XFS_IOC_GOINGDOWN");
		return 1;
	}
	printf("%llu\n",
	       (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec);
	close(fd);
	return 0;
}
