// SPDX-License-Identifier: MIT
/*
 * Sizes, full reads and directory syncs shared by the page store, the stress writers, the
 * journal and the verifier.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "private.h"

ssize_t awr__pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t got;

	while (done < len) {
		got = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (!got)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

int awr__sync_dir_of(int dirfd, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int fd, ret = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	fd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}
