// SPDX-License-Identifier: MIT
/* Reading a device view from a device node: open, query, take the caps from sysfs, derive. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"

/* Block sizes from sysfs when READ CAPACITY(16) did not answer. */
static void scsi_sizes_from_sysfs(const char *disk, struct awr_scsi_id *id)
{
	char q[PATH_MAX];
	uint64_t v;

	if (!disk[0] || id->logical_block_size)
		return;
	snprintf(q, sizeof(q), "%s/block/%s/queue", awr__sysfs_root(), disk);
	if (!awr__sysfs_read_u64(q, "logical_block_size", &v) && v <= UINT32_MAX)
		id->logical_block_size = (uint32_t)v;
	if (!awr__sysfs_read_u64(q, "physical_block_size", &v) && v <= UINT32_MAX)
		id->physical_block_size = (uint32_t)v;
}

static int query(const struct awr_devnode *n, struct awr_device *d, char *err, size_t errlen)
{
	int fd = open(n->node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", n->node, strerror(errno));
		return -errno;
	}
	if (n->kind == AWR_NODE_SCSI)
		ret = awr__scsi_read(fd, &d->scsi, err, errlen);
	else
		ret = awr__nvme_read(fd, n->kind == AWR_NODE_NVME_NS, &d->nvme, err, errlen);
	close(fd);
	return ret;
}

/* An NVMe multipath head node lists its path nodes in sysfs multipath/. */
static bool is_mpath_head(const char *disk)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!disk[0] || snprintf(dir, sizeof(dir), "%s/block/%s/multipath", awr__sysfs_root(),
				 disk) >= (int)sizeof(dir))
		return false;
	return !stat(dir, &st) && S_ISDIR(st.st_mode);
}

/*
 * sd reads the Block Limits page the SCSI midlayer cached at scan time (drivers/scsi/sd.c
 * sd_read_block_limits(): sdkp->device->vpd_pgb0), not the device: without that page sd sets no
 * atomic limits (sd_config_atomic() is never reached) whatever the device would answer. The page
 * shows as device/vpd_pgb0 in sysfs; a real SCSI device directory also has scsi_level. Seen on
 * 7.3.4: a tcm_loop LUN (LIO) whose midlayer device holds no VPD page at all.
 */
bool awr__scsi_kernel_lacks_vpd(const char *disk)
{
	char dev[PATH_MAX], f[PATH_MAX + 16];
	struct stat st;

	if (!disk[0] || snprintf(dev, sizeof(dev), "%s/block/%s/device", awr__sysfs_root(), disk) >=
				(int)sizeof(dev))
		return false;
	snprintf(f, sizeof(f), "%s/scsi_level", dev);
	if (stat(f, &st))
		return false;	/* not a SCSI device's directory as the kernel makes it */
	snprintf(f, sizeof(f), "%s/vpd_pgb0", dev);
	return stat(f, &st) != 0;
}

int awr__device_read(const struct awr_devnode *n, struct awr_device **out, char *err, size_t errlen)
{
	struct awr_device *d;
	const char *base;
	int ret;

	d = awr__device_new(n->kind == AWR_NODE_SCSI ? AWR_DEVICE_SCSI : AWR_DEVICE_NVME);
	if (!d)
		return -ENOMEM;
	base = strrchr(n->node, '/');
	awr__strjoin(d->name, sizeof(d->name), "", base ? base + 1 : n->node);
	awr__strjoin(d->disk, sizeof(d->disk), "", n->disk);
	ret = query(n, d, err, errlen);
	if (ret) {
		awr_device_free(d);
		return ret;
	}
	if (d->type == AWR_DEVICE_SCSI)
		scsi_sizes_from_sysfs(n->disk, &d->scsi);
	awr__caps_from_sysfs(n->disk, &d->caps);
	d->mpath_head = is_mpath_head(n->disk);
	d->scsi_kernel_no_vpd = d->type == AWR_DEVICE_SCSI && awr__scsi_kernel_lacks_vpd(n->disk);
	awr__device_derive(d);
	*out = d;
	return 0;
}

int awr_device_open(const char *path, struct awr_device **out)
{
	struct awr_devnode n;
	char err[256];
	struct stat st;
	int ret;

	if (!path || !out)
		return -EINVAL;
	if (stat(path, &st))
		return -errno;
	ret = awr__devnode_from_mode(st.st_mode, major(st.st_rdev), minor(st.st_rdev),
				     S_ISCHR(st.st_mode) ? path : NULL, &n);
	if (ret)
		return ret == -ENOENT ? -ENODEV : ret;
	return awr__device_read(&n, out, err, sizeof(err));
}
