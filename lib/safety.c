// SPDX-License-Identifier: MIT
/*
 * Target safety: a write tool must not touch a mounted, held or formatted
 * block device. Mounts from /proc/self/mountinfo (the device or any of its
 * partitions), holders and O_EXCL from the kernel, signatures from libblkid.
 */
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "private.h"

static void add_detail(struct awr_safety *s, unsigned int reason, const char *what, const char *arg)
{
	size_t used = strlen(s->detail);

	s->reasons |= reason;
	if (used && used < sizeof(s->detail) - 2) {
		s->detail[used++] = ';';
		s->detail[used++] = ' ';
		s->detail[used] = '\0';
	}
	snprintf(s->detail + used, sizeof(s->detail) - used, "%s%s", what, arg);
}

static bool sysfs_dev_path(unsigned int maj, unsigned int min, char *real)
{
	char link[PATH_MAX];

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", awr__sysfs_root(), maj, min);
	return realpath(link, real) != NULL;
}

/* Is the device maj:min (from mountinfo) @dev itself or a partition of it? */
static bool same_or_child(const char *dev, unsigned int maj, unsigned int min)
{
	char real[PATH_MAX];
	size_t n = strlen(dev);

	if (!sysfs_dev_path(maj, min, real))
		return false;
	return !strncmp(real, dev, n) && (real[n] == '\0' || (real[n] == '/' && !strchr(real + n + 1, '/')));
}

static void check_mounts(const char *dev, struct awr_safety *s)
{
	char line[4096], mnt[PATH_MAX];
	unsigned int maj, min;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mnt) != 3)
			continue;
		if (same_or_child(dev, maj, min)) {
			add_detail(s, AWR_UNSAFE_MOUNTED, "mounted on ", mnt);
			break;
		}
	}
	fclose(f);
}

static void check_holders(const char *dev, struct awr_safety *s)
{
	char path[PATH_MAX + 16];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/holders", dev);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		add_detail(s, AWR_UNSAFE_BUSY, "held by ", d->d_name);
		break;
	}
	closedir(dir);
}

static void check_exclusive(const char *path, struct awr_safety *s)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	else if (errno == EBUSY && !(s->reasons & AWR_UNSAFE_MOUNTED))
		add_detail(s, AWR_UNSAFE_BUSY, "opened exclusively by another program", "");
}

/* libblkid: a signature, several conflicting ones (-2: data for sure) or a failed probe. */
static void check_signatures(const char *path, struct awr_safety *s)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *val;
	int rc;

	if (!pr) {
		add_detail(s, AWR_UNSAFE_SIGNATURE, "cannot be examined for signatures", "");
		return;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &val, NULL))
			add_detail(s, AWR_UNSAFE_SIGNATURE, "holds a filesystem or volume signature: ", val);
		if (!blkid_probe_lookup_value(pr, "PTTYPE", &val, NULL))
			add_detail(s, AWR_UNSAFE_PTABLE, "holds a partition table: ", val);
	} else if (rc == -2) {
		add_detail(s, AWR_UNSAFE_SIGNATURE, "holds several conflicting signatures", "");
	} else if (rc < 0) {
		add_detail(s, AWR_UNSAFE_SIGNATURE, "cannot be examined for signatures", "");
	}
	blkid_free_probe(pr);
}

int awr_target_safety(const char *path, struct awr_safety *out)
{
	char dev[PATH_MAX];
	struct stat st;

	if (!path || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (stat(path, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return 0;
	out->is_block_device = true;
	if (sysfs_dev_path(major(st.st_rdev), minor(st.st_rdev), dev)) {
		check_mounts(dev, out);
		check_holders(dev, out);
	}
	check_exclusive(path, out);
	check_signatures(path, out);
	return 0;
}
