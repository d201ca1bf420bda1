// SPDX-License-Identifier: MIT
/* The counters libatomicwr-preload keeps in the file AWR_PRELOAD_STATS names (preload/preload.c):
 * what the preload did in a running program, read by awr preload-stats and the database verdict. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"

int awr_preload_stats_read(const char *path, struct awr_preload_stats *out)
{
	struct stat st;
	ssize_t n;
	int fd, err;
	char extra;

	/* O_NONBLOCK: a FIFO given by mistake is refused below, not waited on */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return awr__fail(-errno, "%s", strerror(errno));
	err = fstat(fd, &st) || !S_ISREG(st.st_mode) ? -EINVAL : 0;
	n = err ? 0 : pread(fd, out, sizeof(*out), 0);
	if (n < 0)
		err = -errno;
	if (!err && (n != (ssize_t)sizeof(*out) || pread(fd, &extra, 1, sizeof(*out)) != 0 ||
		     memcmp(out->magic, AWR_PRELOAD_STATS_MAGIC, sizeof(out->magic)) ||
		     out->version != AWR_PRELOAD_STATS_VERSION))
		err = -EINVAL;
	close(fd);
	if (err == -EINVAL)
		return awr__fail(err, "not a counters file of libatomicwr-preload (name the file "
				 "AWR_PRELOAD_STATS gave, with %%p replaced by the process id)");
	return err ? awr__fail(err, "%s", strerror(-err)) : 0;
}

void awr_preload_stats_totals(const struct awr_preload_stats *s, struct awr_preload_totals *out)
{
	out->atomic = s->atomic_pwrite + s->atomic_uring + s->atomic_aio;
	out->plain = s->plain_size + s->plain_misaligned + s->plain_buffered + s->plain_segments +
		     s->plain_position + s->plain_append;
	out->refused = s->refused || s->files_refused;
}
