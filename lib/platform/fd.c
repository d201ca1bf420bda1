// SPDX-License-Identifier: MIT
/*
 * Open file descriptions: another one of what a descriptor has open, through /proc/self/fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include "platform/platform.h"

int awr__reopen(int fd, int oflags)
{
	char p[64];
	int nfd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	nfd = open(p, oflags | O_CLOEXEC);
	return nfd < 0 ? -errno : nfd;
}
