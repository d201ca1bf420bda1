// SPDX-License-Identifier: MIT
/*
 * The passthrough engines of awr write (--engine nvme|scsi): open the queue
 * on the device, guard its block disk like any target, and read back through
 * the block disk with O_DIRECT. Partitions are refused: a passthrough command
 * addresses the whole namespace or disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "awr.h"

struct pt_target {
	struct awr_queue *q;
	int read_fd;		/* the block disk, O_DIRECT, for read-back; -1 none */
};

/* A partition's offset 0 would be LBA 0 of its disk: say which node to give instead. */
static int refuse_partition(const char *path, bool nvme)
{
	struct awr_sysfs_view y;
	struct stat st;

	if (stat(path, &st) || !S_ISBLK(st.st_mode) ||
	    awr_sysfs_lookup(major(st.st_rdev), minor(st.st_rdev), &y) || !y.partition[0])
		return 0;
	if (nvme && !strncmp(y.disk, "nvme", 4))
		out_error("%s is a partition of %s: the passthrough engines write whole namespaces "
			  "and disks: use /dev/%s or /dev/ng%s, or --engine sync for a partition",
			  path, y.disk, y.disk, y.disk + 4);
	else
		out_error(
			"%s is a partition of %s: the passthrough engines write whole namespaces "
			"and disks: use /dev/%s or its /dev/sgN, or --engine sync for a partition",
			path, y.disk, y.disk);
	return -EINVAL;
}

/* No block disk to examine (an sg node with no sd bound, an ngXnY without its nvmeXnY): its content
 * is unknown. */
static int guard_unbound(const char *path, bool force)
{
	if (force) {
		out_error("warning: cannot tell whether %s holds data (no block device is bound to "
			  "it): --force given",
			  path);
		return 0;
	}
	out_error("cannot tell whether %s holds data: no block device is bound to it. Nothing was "
		  "written. Use --force to write it anyway.",
		  path);
	return -EBUSY;
}

/*
 * Guard the block disk behind the passthrough node like any target: claim it
 * with awr_target_open() (O_EXCL) and keep that descriptor, also for the
 * read-back, so nothing can mount or claim the disk while awr writes it.
 */
static int pt_guard(struct pt_target *t, const char *path, bool force)
{
	const char *disk = awr_device_disk(awr_queue_device(t->q));
	char node[128];
	int fd;

	snprintf(node, sizeof(node), "/dev/%s", disk);
	if (!*disk || access(node, F_OK))
		return guard_unbound(path, force);
	fd = target_open("write", node, O_RDONLY | O_DIRECT, 0, force);
	if (fd < 0)
		return fd;
	t->read_fd = fd;
	return 0;
}

/*
 * @qd: the queue depth (0: one command at a time), settled at open: nvme with
 * the eager submit, scsi through the sg driver's asynchronous interface
 */
int pt_open(const char *engine, const char *path, unsigned int qd, bool force,
	    struct pt_target **out)
{
	bool nvme = !strcmp(engine, "nvme");
	struct pt_target *t;
	int ret = refuse_partition(path, nvme);

	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->read_fd = -1;
	ret = awr_queue_open(nvme ? AWR_QUEUE_NVME : AWR_QUEUE_SCSI, path, NULL,
			     nvme && !qd ? 1 : qd, AWR_QUEUE_SUBMIT_EACH, &t->q);
	if (ret == -ENODEV)
		out_error("%s is not an %s device%s", path, nvme ? "NVMe namespace" : "SCSI",
			  nvme ? " (use /dev/ngXnY or /dev/nvmeXnY)" :
			  qd ? " with an sg node for --qd (use /dev/sgN or /dev/sdX; the sg module "
			       "must be loaded)" :
			  " (use /dev/sgN or /dev/sdX)");
	else if (ret)
		out_error("cannot open %s for %s passthrough: %s", path, engine, strerror(-ret));
	if (!ret)
		ret = pt_guard(t, path, force);
	if (ret) {
		pt_close(t);
		return ret;
	}
	*out = t;
	return 0;
}

/* The queue on the device: its depth the one pt_open() was given. */
struct awr_queue *pt_queue(const struct pt_target *t)
{
	return t->q;
}

int pt_read_fd(const struct pt_target *t)
{
	return t->read_fd;
}

void pt_close(struct pt_target *t)
{
	if (!t)
		return;
	awr_queue_close(t->q);
	if (t->read_fd >= 0)
		close(t->read_fd);
	free(t);
}
