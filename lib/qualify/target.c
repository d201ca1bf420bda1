// SPDX-License-Identifier: MIT
/*
 * awr_qualify_target_open(): the target of a qualification from the PATH a person gives, as
 * `awr qualify PATH` takes it: a directory gets a scratch file made for the run, a missing PATH
 * is made only when asked, a file or block device is opened by awr_target_open()'s rules. Each
 * refusal leaves its sentence in awr_last_error().
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "qualify.h"

/* The file made for the run, removed by awr_qualify_cleanup() from a signal handler. */
static char live_target[4200];

#define OPEN_FLAGS	(O_RDWR | O_DIRECT)

static int open_target(struct awr_qualify_target *t, unsigned int flags)
{
	unsigned int tf = flags & AWR_QUALIFY_TARGET_FORCE ? AWR_TARGET_FORCE : 0;

	t->fd = awr_target_open(t->path, OPEN_FLAGS, tf, &t->safety);
	if (t->fd < 0)	/* awr_target_open()'s refusal, as awr qualify says it */
		return awr_target_refusal(&t->safety, t->fd, t->path, OPEN_FLAGS, "qualify");
	return 0;
}

/* The scratch file: new (O_EXCL, no symlink followed), then opened and held like any target. */
static int create_file(struct awr_qualify_target *t, unsigned int flags)
{
	int fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return awr__fail(-errno, "cannot create the scratch file %s: %s", t->path,
				 strerror(errno));
	close(fd);
	t->created = true;
	snprintf(live_target, sizeof(live_target), "%s", t->path);
	return open_target(t, flags);
}

/* @path's real directory, and in it the file to write: @path's own, or a new scratch name. */
static int file_path(struct awr_qualify_target *t, const char *path, bool dir)
{
	char tmp[PATH_MAX], real[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	if (!realpath(dir ? path : dirname(tmp), real))
		return awr__fail(-errno, "cannot resolve the directory of %s: %s", path,
				 strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s", path);
	if (dir)
		snprintf(t->path, sizeof(t->path), "%s/awr-qualify.%d.dat", real, (int)getpid());
	else
		snprintf(t->path, sizeof(t->path), "%s/%s", real, basename(tmp));
	return 0;
}

static int block_target(struct awr_qualify_target *t, const char *path, unsigned int flags)
{
	int ret;

	snprintf(t->path, sizeof(t->path), "%s", path);
	ret = open_target(t, flags);
	if (ret)
		return ret;
	t->block_device = true;
	if (ioctl(t->fd, BLKGETSIZE64, &t->device_size))
		return awr__fail(-errno, "cannot read the size of %s: %s", path, strerror(errno));
	return 0;
}

/* A missing PATH: a typo must not qualify a new file and PASS, so it is made only when asked. */
static int missing_target(struct awr_qualify_target *t, const char *path, unsigned int flags)
{
	int ret;

	if (!(flags & AWR_QUALIFY_TARGET_CREATE))
		return awr__fail(-ENOENT, "%s does not exist: give an existing directory (qualify "
				 "makes its scratch file in it), file or block device, or --create "
				 "to make the file %s for the run and remove it at the end", path,
				 path);
	ret = file_path(t, path, false);
	return ret ? ret : create_file(t, flags);
}

/* PATH: a directory (scratch file inside), a file (made when missing) or a block device. */
static int setup(struct awr_qualify_target *t, const char *path, unsigned int flags)
{
	struct stat st;
	int ret;

	if (stat(path, &st)) {
		if (errno != ENOENT)
			return awr__fail(-errno, "cannot examine %s: %s", path, strerror(errno));
		return missing_target(t, path, flags);
	}
	if (S_ISBLK(st.st_mode))
		return block_target(t, path, flags);
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return awr__fail(-EINVAL, "%s is neither a directory, a regular file nor a "
				 "block device: give a directory on the filesystem to qualify, a "
				 "file, or a block device", path);
	ret = file_path(t, path, S_ISDIR(st.st_mode));
	if (ret)
		return ret;
	if (S_ISDIR(st.st_mode))
		return create_file(t, flags);
	/* a file holding data is refused: give its directory, an empty file, or the force flag */
	return open_target(t, flags);
}

int awr_qualify_target_open(const char *path, unsigned int flags, struct awr_qualify_target *t)
{
	int ret;

	*t = (struct awr_qualify_target){ .size = sizeof(*t), .fd = -1 };
	if (!path || (flags & ~(AWR_QUALIFY_TARGET_CREATE | AWR_QUALIFY_TARGET_FORCE)))
		return awr__fail(-EINVAL, "awr_qualify_target_open: no path, or unknown flags");
	ret = setup(t, path, flags);
	if (ret)
		awr_qualify_target_close(t);	/* a scratch file made is removed */
	return ret;
}

void awr_qualify_target_close(struct awr_qualify_target *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (t->created) {
		unlink(t->path);
		live_target[0] = '\0';
	}
	t->created = false;
}

/* Also called from a signal handler: unlink only. */
void awr__q_target_cleanup(void)
{
	if (live_target[0])
		unlink(live_target);
	live_target[0] = '\0';
}
