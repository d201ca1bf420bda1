// SPDX-License-Identifier: MIT
/*
 * The probe's device view: for a path on an NVMe or SCSI device, read the
 * device's own data, then compare the limits derived from it with sysfs.
 * Device I/O failures become findings, never probe errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/device.h"
#include "kernel.h"
#include "discover/discover.h"

static bool same_as_sysfs(const struct awr_device_limits *l, const struct awr_sysfs_view *y)
{
	return l->unit_min == y->unit_min && l->unit_max == y->unit_max &&
	       l->max_bytes == y->max_bytes && l->boundary == y->boundary;
}

/*
 * sysfs against what THIS kernel derives (the kernel rules table); when it
 * matches the answer of other releases instead, say which.
 */
static void compare_sysfs(struct awr_probe *p, const struct awr_device *d)
{
	const struct awr_sysfs_view *y = &p->sysfs;
	const struct awr_device_limits *l = &d->kder;
	char kv[16];

	if (!p->have_sysfs || !y->has_atomic_attrs || strcmp(y->disk, d->disk) ||
	    (d->type == AWR_DEVICE_NVME && !d->nvme.have_ns) ||
	    (d->type == AWR_DEVICE_SCSI && !d->scsi.logical_block_size))
		return;
	if (same_as_sysfs(l, y))
		return;
	awr_kernel_format(d->kernel, kv, sizeof(kv));
	if (d->have_alt && same_as_sysfs(&d->alt, y)) {
		awr__probe_finding(p, AWR_FIND(nvme_kernel_ignores_awupf), y->disk, y->unit_min,
				   y->unit_max, d->nvme.awupf, kv);
		return;
	}
	for (unsigned int i = 0; i < d->nr_ranges; i++)
		if (same_as_sysfs(&d->ranges[i].l, y)) {
			awr__probe_finding(p, AWR_FIND(kernel_rules_mismatch), y->disk,
					   d->ranges[i].label, kv);
			return;
		}
	awr__probe_finding(p, AWR_FIND(device_sysfs_mismatch), l->unit_min, l->unit_max,
			   l->max_bytes, l->boundary, kv, y->disk, y->unit_min, y->unit_max,
			   y->max_bytes, y->boundary, d->type == AWR_DEVICE_NVME ?
			   " (the kernel keeps the AWUPF it read first: a format may have "
			   "changed it since)" : "");
}

/* A char device (/dev/sgN, /dev/ngXnY) shows the sysfs view of its block disk. */
static void sysfs_of_disk(struct awr_probe *p, const char *disk)
{
	char dir[PATH_MAX], buf[32];
	unsigned int maj, min;
	ssize_t n;
	int fd;

	if (p->have_sysfs || !disk[0])
		return;
	snprintf(dir, sizeof(dir), "%s/block/%s/dev", awr__sysfs_root(), disk);
	fd = open(dir, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%u:%u", &maj, &min) == 2)
		p->have_sysfs = !awr_sysfs_lookup(maj, min, &p->sysfs);
}

static int find_node(const struct awr_probe *p, struct awr_devnode *n)
{
	const struct awr_statx_view *s = &p->statx;

	if (S_ISCHR(s->mode))
		return awr__devnode_from_mode(s->mode, s->rdev_major, s->rdev_minor,
					      p->path[0] ? p->path : NULL, n);
	if (!p->have_sysfs)
		return -ENODEV;
	return awr__devnode_from_disk(p->sysfs.disk, n);
}

void awr__probe_device(struct awr_probe *p, unsigned int flags)
{
	struct awr_devnode n;
	char err[256] = "";
	int ret;

	if ((flags & AWR_PROBE_NO_DEVICE) || !p->have_statx)
		return;
	if (find_node(p, &n))
		return;		/* not on NVMe or SCSI (loop, dm, md, network ...) */
	if (S_ISCHR(p->statx.mode))
		sysfs_of_disk(p, n.disk);
	ret = awr__device_read(&n, &p->device, err, sizeof(err));
	if (ret) {
		awr__probe_finding(p, AWR_FIND(device_query_failed),
				   n.kind == AWR_NODE_SCSI ? "SCSI VPD" : "NVMe identify", n.node,
				   err[0] ? err : strerror(-ret));
		if (n.kind != AWR_NODE_SCSI && awr__provider_sysfs(n.disk, err, sizeof(err)))
			awr__probe_finding(p, AWR_FIND(aws_unread_identify_failed), err);
		return;
	}
	for (unsigned int i = 0; i < p->device->nr_findings; i++)
		awr__finding_copy(p->findings, &p->nr_findings, AWR_MAX_FINDINGS,
				  &p->device->findings[i]);
	compare_sysfs(p, p->device);
	/* from 6.14 the kernel checks a partition's start against hw_unit_min (not in sysfs) */
	if (p->have_sysfs && p->sysfs.partition[0] && p->device->derived.supported)
		awr__sysfs_part_check(&p->sysfs, p->device->derived.hw_unit_min);
}

const struct awr_device *awr_probe_device(const struct awr_probe *p)
{
	return p->device;
}
