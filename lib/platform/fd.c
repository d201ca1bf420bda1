// SPDX-License-Identifier: MIT
/*
 * Open file descriptions: another one of what a descriptor has open, through /proc/self/fd;
 * what kind of file one is, in words; whether a name still leads to it; the bytes a file or
 * block device holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

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

int awr__fd_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))	/* the device's bytes (BLKGETSIZE64), not the inode's 0 */
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	*size = (uint64_t)st.st_size;
	return 0;
}

int awr__path_size(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = awr__fd_size(fd, size);
	close(fd);
	return ret;
}
