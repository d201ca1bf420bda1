// SPDX-License-Identifier: MIT
/*
 * Open file descriptions: another one of what a descriptor has open, through /proc/self/fd;
 * what kind of file one is, in words; and whether a name still leads to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "platform/platform.h"

int awr__reopen(int fd, int oflags)
{
	char p[64];
	int nfd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	nfd = open(p, oflags | O_CLOEXEC);
	return nfd < 0 ? -errno : nfd;
}

const char *awr__file_type_name(mode_t mode, const char *other)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	return S_ISSOCK(mode) ? "a socket" : other;
}

bool awr__same_file(const char *path, int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !lstat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
