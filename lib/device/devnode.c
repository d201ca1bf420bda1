// SPDX-License-Identifier: MIT
/*
 * Which device node answers identify / VPD queries for a path: a block disk
 * (partitions map to it), /dev/ngXnY, /dev/nvmeX or /dev/sgN, found in sysfs.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The first entry of a sysfs directory (scsi_generic/sgN, block/sdX), "" when none. */
static void first_entry(const char *dir, char *out, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	out[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			awr__strcopy(out, len, e->d_name);
			break;
		}
	closedir(d);
}

static bool is_nvme_ns_name(const char *name)
{
	unsigned int c, n;
	char extra;

	return sscanf(name, "nvme%un%u%c", &c, &n, &extra) == 2;
}

int awr__devnode_from_disk(const char *disk, struct awr_devnode *out)
{
	char base[PATH_MAX], dir[PATH_MAX + 32];

	memset(out, 0, sizeof(*out));
	snprintf(base, sizeof(base), "%s/block/%s", awr__sysfs_root(), disk);
	if (access(base, F_OK))
		return -ENOENT;
	awr__strcopy(out->disk, sizeof(out->disk), disk);
	awr__strjoin(out->node, sizeof(out->node), "/dev/", disk);
	snprintf(dir, sizeof(dir), "%s/device/scsi_generic", base);
	if (is_nvme_ns_name(disk)) {
		out->kind = AWR_NODE_NVME_NS;
		awr__strjoin(out->generic, sizeof(out->generic), "ng", disk + 4);
		return 0;
	}
	first_entry(dir, out->generic, sizeof(out->generic));
	snprintf(dir, sizeof(dir), "%s/device/scsi_disk", base);
	if (!out->generic[0] && access(dir, F_OK))
		return -ENODEV;		/* neither sg nor sd: not SCSI */
	out->kind = AWR_NODE_SCSI;
	return 0;
}

/* The whole disk holding a block device number (itself, or a partition's parent). */
static int block_disk(uint32_t maj, uint32_t min, char *disk, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX], part[PATH_MAX + 16];
	char *slash;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", awr__sysfs_root(), maj, min);
	if (!realpath(link, real))
		return -errno;
	snprintf(part, sizeof(part), "%s/partition", real);
	if (!access(part, F_OK)) {
		slash = strrchr(real, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
	awr__strcopy(disk, len, base_name(real));
	return 0;
}

/* A char device's class (nvme-generic, nvme, scsi_generic) and its sysfs path. */
static int char_class(uint32_t maj, uint32_t min, char *cls, size_t clen, char *real)
{
	char link[PATH_MAX], sub[PATH_MAX + 16], subreal[PATH_MAX];

	snprintf(link, sizeof(link), "%s/dev/char/%u:%u", awr__sysfs_root(), maj, min);
	if (!realpath(link, real))
		return -errno;
	snprintf(sub, sizeof(sub), "%s/subsystem", real);
	if (!realpath(sub, subreal))
		return -errno;
	awr__strcopy(cls, clen, base_name(subreal));
	return 0;
}

static int from_char(uint32_t maj, uint32_t min, const char *path, struct awr_devnode *out)
{
	char cls[64], real[PATH_MAX], dir[PATH_MAX + 16];
	const char *name;
	int ret = char_class(maj, min, cls, sizeof(cls), real);

	if (ret)
		return ret == -ENOENT ? -ENODEV : ret;
	name = base_name(real);
	awr__strcopy(out->generic, sizeof(out->generic), name);
	if (path)
		awr__strcopy(out->node, sizeof(out->node), path);
	else
		awr__strjoin(out->node, sizeof(out->node), "/dev/", name);
	if (!strcmp(cls, "nvme-generic") && !strncmp(name, "ng", 2)) {
		out->kind = AWR_NODE_NVME_NS;
		awr__strjoin(dir, sizeof(dir), "nvme", name + 2);
		if (is_nvme_ns_name(dir))
			awr__strcopy(out->disk, sizeof(out->disk), dir);
	} else if (!strcmp(cls, "nvme")) {
		out->kind = AWR_NODE_NVME_CTRL;
	} else if (!strcmp(cls, "scsi_generic")) {
		out->kind = AWR_NODE_SCSI;
		snprintf(dir, sizeof(dir), "%s/device/block", real);
		first_entry(dir, out->disk, sizeof(out->disk));
	} else {
		return -ENODEV;
	}
	return 0;
}

int awr__devnode_from_mode(uint32_t mode, uint32_t maj, uint32_t min, const char *path,
			   struct awr_devnode *out)
{
	char disk[64];
	int ret;

	memset(out, 0, sizeof(*out));
	if (S_ISCHR(mode))
		return from_char(maj, min, path, out);
	if (!S_ISBLK(mode))
		return -ENODEV;
	ret = block_disk(maj, min, disk, sizeof(disk));
	return ret ? ret : awr__devnode_from_disk(disk, out);
}
