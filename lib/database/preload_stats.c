// SPDX-License-Identifier: MIT
/* The counters libatomicwr-preload keeps in the file AWR_PRELOAD_STATS names (preload/preload.c):
 * what the preload did in a running program, read by awr preload-stats and the database verdict. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libatomicwr.h"

int awr_preload_stats_read(const char *path, struct awr_preload_stats *out)
{
	struct stat st;
	ssize_t n;
	int fd, err;
	char extra;

	/* O_NONBLOCK: a FIFO given by mistake is refused below, not waited on */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	n = pread(fd, out, sizeof(*out), 0);
	err = n < 0 ? -errno : 0;
	if (!err && (n != (ssize_t)sizeof(*out) || pread(fd, &extra, 1, sizeof(*out)) != 0 ||
		     memcmp(out->magic, AWR_PRELOAD_STATS_MAGIC, sizeof(out->magic)) ||
		     out->version != AWR_PRELOAD_STATS_VERSION))
		err = -EINVAL;
	close(fd);
	return err;
}
