// SPDX-License-Identifier: MIT
/*
 * Target safety: one open that every write path uses. The target is opened
 * once (O_EXCL for a block device, O_CREAT|O_EXCL for a new file, never
 * through a symlink to a file), every check runs on that descriptor (fstat,
 * sysfs by dev_t, mountinfo, libblkid, loop devices, swap) and the caller
 * keeps it for the whole run, so nothing can claim the target in between.
 * Safety decisions read the real /sys, never the discovery override.
 */
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "private.h"
#include "decide/decide.h"

#define REAL_SYSFS "/sys"

static void add_detail(struct awr_safety *s, unsigned int reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_detail(struct awr_safety *s, unsigned int reason, const char *fmt, ...)
{
	size_t used = strlen(s->detail);
	va_list ap;

	s->reasons |= reason;
	if (used && used < sizeof(s->detail) - 2) {
		s->detail[used++] = ';';
		s->detail[used++] = ' ';
		s->detail[used] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(s->detail + used, sizeof(s->detail) - used, fmt, ap);
	va_end(ap);
}

static bool sysfs_dev_path(dev_t dev, char *real)
{
	char link[PATH_MAX];

	snprintf(link, sizeof(link), REAL_SYSFS "/dev/block/%u:%u", major(dev), minor(dev));
	return realpath(link, real) != NULL;
}

/* Is the device @dev (from mountinfo) the disk at sysfs path @disk or a partition of it? */
static bool same_or_child(const char *disk, dev_t dev)
{
	char real[PATH_MAX];
	size_t n = strlen(disk);

	if (!sysfs_dev_path(dev, real))
		return false;
	return !strncmp(real, disk, n) &&
	       (real[n] == '\0' || (real[n] == '/' && !strchr(real + n + 1, '/')));
}

struct mount_check {
	const char *disk;
	struct awr_safety *s;
};

static int mounted_here(const struct awr__mount *m, void *arg)
{
	struct mount_check *c = arg;

	if (!same_or_child(c->disk, makedev(m->major, m->minor)))
		return 0;
	add_detail(c->s, AWR_UNSAFE_MOUNTED, "is mounted on %.200s", m->target);
	return 1;
}

/* Mounts of the disk at sysfs path @disk or of one of its partitions. */
static void check_mounts(const char *disk, struct awr_safety *s)
{
	struct mount_check c = { disk, s };
	int ret = awr__mountinfo_each(NULL, mounted_here, &c);

	if (ret < 0)
		add_detail(s, AWR_UNSAFE_BUSY, "cannot be checked for mounts (%s: %s)",
			   "/proc/self/mountinfo", strerror(-ret));
}

static void check_holders(const char *disk, struct awr_safety *s)
{
	char path[PATH_MAX + 16];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/holders", disk);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		add_detail(s, AWR_UNSAFE_BUSY, "is held by %.64s", d->d_name);
		break;
	}
	closedir(dir);
}

/* libblkid on the open descriptor: a signature, several conflicting ones (-2) or a failed probe. */
static void check_signatures(int fd, struct awr_safety *s)
{
	blkid_probe pr = blkid_new_probe();
	const char *val;
	int rc, rfd;

	/* a buffered read-only view of the same open device (the caller's may be O_DIRECT) */
	rfd = awr__reopen(fd, O_RDONLY | O_NONBLOCK);
	if (!pr || rfd < 0 || blkid_probe_set_device(pr, rfd, 0, 0)) {
		add_detail(s, AWR_UNSAFE_SIGNATURE, "cannot be examined for signatures");
		blkid_free_probe(pr);
		if (rfd >= 0)
			close(rfd);
		return;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &val, NULL))
			add_detail(s, AWR_UNSAFE_SIGNATURE, "holds a filesystem or volume "
							    "signature: %.32s", val);
		if (!blkid_probe_lookup_value(pr, "PTTYPE", &val, NULL))
			add_detail(s, AWR_UNSAFE_PTABLE, "holds a partition table: %.32s", val);
	} else if (rc == -2) {
		add_detail(s, AWR_UNSAFE_SIGNATURE, "holds several conflicting signatures");
	} else if (rc < 0) {
		add_detail(s, AWR_UNSAFE_SIGNATURE, "cannot be examined for signatures");
	}
	blkid_free_probe(pr);
	close(rfd);
}

/* Does loop device @name (loopN) use the file dev/ino as its backing file? */
static bool loop_backs(const char *name, const struct stat *st)
{
	struct loop_info64 info = {0}; /* valgrind does not know that LOOP_GET_STATUS64 fills it */
	char node[64], file[PATH_MAX + 16], path[PATH_MAX];
	struct stat bst;
	bool hit = false;
	FILE *f;
	int fd;

	snprintf(node, sizeof(node), "/dev/%.32s", name);
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		/* LOOP_GET_STATUS64 names the backing file by device and inode: exact */
		if (!ioctl(fd, LOOP_GET_STATUS64, &info)) {
			close(fd);
			return info.lo_inode == st->st_ino && info.lo_device == st->st_dev;
		}
		close(fd);
		if (errno == ENXIO)
			return false;	/* not bound */
	}
	/* no node: the backing file's path from sysfs */
	snprintf(file, sizeof(file), REAL_SYSFS "/block/%.32s/loop/backing_file", name);
	f = fopen(file, "re");
	if (!f)
		return false;
	if (fgets(path, sizeof(path), f)) {
		path[strcspn(path, "\n")] = '\0';
		hit = !stat(path, &bst) && bst.st_ino == st->st_ino && bst.st_dev == st->st_dev;
	}
	fclose(f);
	return hit;
}

static void check_loop_backing(const struct stat *st, struct awr_safety *s)
{
	DIR *dir = opendir(REAL_SYSFS "/block");
	struct dirent *d;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "loop", 4) || !loop_backs(d->d_name, st))
			continue;
		add_detail(s, AWR_UNSAFE_LOOP, "backs the loop device /dev/%.32s", d->d_name);
		break;
	}
	closedir(dir);
}

/* An active swap area: /proc/swaps names it (a file by inode, a device by number). */
static void check_swap(const struct stat *st, struct awr_safety *s)
{
	char *line = NULL;
	size_t cap = 0;
	struct stat sst;
	FILE *f = fopen("/proc/swaps", "re");

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, " \t\n")] = '\0';
		awr__unmangle(line);
		if (line[0] != '/' || stat(line, &sst))
			continue;
		if (S_ISBLK(st->st_mode) ? (S_ISBLK(sst.st_mode) && sst.st_rdev == st->st_rdev)
					 : (sst.st_ino == st->st_ino && sst.st_dev == st->st_dev)) {
			add_detail(s, AWR_UNSAFE_BUSY, "is an active swap area");
			break;
		}
	}
	free(line);
	fclose(f);
}

/* Who claims a block device: mounts (it or a partition), holders, swap. */
static void examine_claims(const struct stat *st, struct awr_safety *s)
{
	char disk[PATH_MAX];

	s->is_block_device = true;
	if (sysfs_dev_path(st->st_rdev, disk)) {
		check_mounts(disk, s);
		check_holders(disk, s);
	}
	check_swap(st, s);
}

/* Every check of a block device, on its descriptor. */
static void examine_block(int fd, const struct stat *st, struct awr_safety *s)
{
	examine_claims(st, s);
	check_signatures(fd, s);
}

static void examine_file(int fd, const struct stat *st, bool created, struct awr_safety *s)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	check_loop_backing(st, s);
	check_swap(st, s);
	if (st->st_size && !created)
		add_detail(s, AWR_UNSAFE_DATA, "holds %lld bytes of data", (long long)st->st_size);
	/* another awr (or any program that locks it) writing the same file */
	if (fcntl(fd, F_OFD_SETLK, &lk) && (errno == EAGAIN || errno == EACCES))
		add_detail(s, AWR_UNSAFE_BUSY, "is locked for writing by another program");
}

/* What a symbolic link's target is, in words (a block device is followed, not named). */
static const char *type_name(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	return awr__file_type_name(m, "not a regular file or block device");
}

/* Open once; block devices exclusively. A symlink is followed only to a block device. */
static int open_once(const char *path, int oflags, unsigned int flags, bool *created,
		     struct awr_safety *s)
{
	int base = oflags | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK;
	char real[PATH_MAX];
	struct stat st;
	int fd, tries;

	for (tries = 0; tries < 4; tries++) {
		fd = open(path, base | O_EXCL);
		if (fd >= 0 || errno != ENOENT || !(flags & AWR_TARGET_CREATE))
			break;
		fd = open(path, (base & ~O_NONBLOCK) | O_CREAT | O_EXCL, 0644);
		if (fd >= 0) {
			*created = true;
			break;
		}
		if (errno != EEXIST)
			break;
	}
	if (fd < 0 && errno == ELOOP && realpath(path, real) && !stat(real, &st)) {
		if (!S_ISBLK(st.st_mode)) {
			add_detail(s, AWR_UNSAFE_SYMLINK, "is a symbolic link to %s (%.200s): give "
							  "the real path",
				   type_name(st.st_mode), real);
			errno = ELOOP;
			return -1;
		}
		fd = open(real, base | O_EXCL);	/* /dev/disk/by-id/... to a block device */
	}
	if (fd < 0 && errno == EBUSY && (flags & AWR_TARGET_FORCE)) {
		add_detail(s, AWR_UNSAFE_BUSY, "is claimed by another user (mounted, held or "
					       "opened exclusively)");
		fd = open(path, base);
	}
	return fd;
}

/* A character device given for O_DIRECT: most likely an NVMe generic node meant for passthrough. */
static bool char_device(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISCHR(st.st_mode);
}

/* What to do about a refusal of what the target holds or who uses it. */
static const char *refusal_advice(int err)
{
	if (err == -ELOOP)
		return "";
	return err == -EEXIST ? " Give a new or empty file, or --force to overwrite its data." :
	       " Use --force to write it anyway and lose its data.";
}

int awr_target_refusal(const struct awr_safety *why, int err, const char *path, int oflags,
		       const char *verb)
{
	const char *v = verb ? verb : "write";
	unsigned int r = why ? why->reasons : 0;
	char who[48] = "";

	if (!path)
		return awr__fail(err, "no target path given");
	if (verb)
		snprintf(who, sizeof(who), " (awr %.32s)", verb);
	if (err == -EINVAL && (oflags & O_DIRECT) && char_device(path))
		return awr__fail(err, "cannot %s %s: it is a character device, not a block device "
				 "or a file; for NVMe passthrough give /dev/ngXnY with --engine "
				 "nvme", v, path);
	if (err == -EINVAL && (r & AWR_UNSAFE_TYPE))
		return awr__fail(err, "cannot %s %s: it %s; give a regular file or a block device",
				 v, path, why->detail);
	if ((err == -ELOOP && (r & AWR_UNSAFE_SYMLINK)) ||
	    ((err == -EBUSY || err == -EEXIST) && r))
		return awr__fail(err, "refusing to write %s%s: it %s. Nothing was written.%s", path,
				 who, why->detail, refusal_advice(err));
	if (err == -ELOOP)
		return awr__fail(err, "refusing to write %s%s: it is a symbolic link that leads "
				 "nowhere usable: give the real path", path, who);
	if (err == -ENOENT)
		return awr__fail(err, "cannot %s %s: no such file or directory", v, path);
	if (err == -EINVAL && (oflags & O_DIRECT))
		return awr__fail(err, "cannot open %s for direct I/O (O_DIRECT): %s; its "
				 "filesystem may not support it", path, strerror(-err));
	return awr__fail(err, "cannot open %s to %s it: %s", path, v, strerror(-err));
}

int awr__unlink_if_same(const char *path, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) || lstat(path, &b))
		return -errno;
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -ESTALE;		/* another program put another file there: leave it */
	return unlink(path) ? -errno : 0;
}

/* awr_target_open() on valid arguments: the descriptor, or the negative errno of a refusal. */
static int open_checked(const char *path, int oflags, unsigned int flags, struct awr_safety *s)
{
	bool created = false;
	struct stat st;
	int fd, err;

	/*
	 * A look first that opens nothing for reading or writing (O_PATH, the link itself): a
	 * character device, FIFO, socket or directory is refused before any open of it, which
	 * could act on it (a tape rewinds, a FIFO's writer meets a reader).
	 */
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		err = fstat(fd, &st) ? -errno : 0;
		close(fd);
		if (!err && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISLNK(st.st_mode)) {
			add_detail(s, AWR_UNSAFE_TYPE, "is %s", type_name(st.st_mode));
			return -EINVAL;
		}
	}
	fd = open_once(path, oflags, flags, &created, s);
	if (fd < 0) {
		err = -errno;
		if (err == -EBUSY && !s->reasons) {
			/* claimed: say by what, from a look that opens nothing for writing */
			if (!stat(path, &st) && S_ISBLK(st.st_mode))
				examine_claims(&st, s);
			if (!s->reasons)
				add_detail(s, AWR_UNSAFE_BUSY, "is opened exclusively by another "
							       "program");
		} else if ((err == -ENXIO || err == -EISDIR || err == -ENODEV) &&
			   !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
			add_detail(s, AWR_UNSAFE_TYPE, "is %s", type_name(st.st_mode));
			err = -EINVAL;
		}
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (S_ISBLK(st.st_mode))
		examine_block(fd, &st, s);
	else if (S_ISREG(st.st_mode))
		examine_file(fd, &st, created, s);
	else
		add_detail(s, AWR_UNSAFE_TYPE, "is %s", type_name(st.st_mode));
	if (flags & AWR_TARGET_KEEP_DATA)
		s->reasons &= ~AWR_UNSAFE_DATA;
	if ((s->reasons & AWR_UNSAFE_TYPE) || (s->reasons && !(flags & AWR_TARGET_FORCE))) {
		if (created)
			awr__unlink_if_same(path, fd);
		close(fd);
		return (s->reasons & AWR_UNSAFE_TYPE) ? -EINVAL :
		       s->reasons == AWR_UNSAFE_DATA ? -EEXIST : -EBUSY;
	}
	s->created = created;
	/* O_NONBLOCK only kept a FIFO from blocking the open */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) && errno != EINVAL) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int awr_target_open(const char *path, int oflags, unsigned int flags, struct awr_safety *s)
{
	struct awr_safety tmp;
	int fd;

	if (!s)
		s = &tmp;
	memset(s, 0, sizeof(*s));
	if (!path || (oflags & ~(O_ACCMODE | O_DIRECT | O_DSYNC | O_SYNC)) ||
	    (flags & ~(AWR_TARGET_CREATE | AWR_TARGET_FORCE | AWR_TARGET_KEEP_DATA)))
		return awr__fail(-EINVAL, "awr_target_open: no path, or unknown flags");
	fd = open_checked(path, oflags, flags, s);
	return fd < 0 ? awr_target_refusal(s, fd, path, oflags, NULL) : fd;
}

int awr_target_safety(const char *path, struct awr_safety *out)
{
	struct stat st;
	int fd;

	if (!path || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (S_ISBLK(st.st_mode)) {
		int ex = open(path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);

		examine_block(fd, &st, out);
		if (ex >= 0)
			close(ex);
		else if (errno == EBUSY && !(out->reasons & (AWR_UNSAFE_MOUNTED | AWR_UNSAFE_BUSY)))
			add_detail(out, AWR_UNSAFE_BUSY, "opened exclusively by another program");
	} else if (S_ISREG(st.st_mode)) {
		check_loop_backing(&st, out);
		check_swap(&st, out);
	}
	close(fd);
	return 0;
}
