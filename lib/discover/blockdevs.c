// SPDX-License-Identifier: MIT
/*
 * Every block device of the machine with its atomic write limits (what
 * lsblk lacks): sysfs /sys/block/<disk> (queue limits, partitions, holders),
 * /proc/self/mountinfo for mounted filesystems, and the device's own
 * AWUPF/NAWUPF or MAXIMUM ATOMIC TRANSFER LENGTH when it can be read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "private.h"
#include "device/device.h"

#define MAX_PARTS	128

/* The first line of DIR/NAME, trailing blanks cut; "" when absent. */
static void read_line(const char *dir, const char *name, char *buf, size_t len)
{
	if (awr__sysfs_read_str(dir, name, buf, len))
		buf[0] = '\0';
	awr__rtrim(buf);
}

static int read_devno(const char *dir, unsigned int *major, unsigned int *minor)
{
	char buf[32];

	read_line(dir, "dev", buf, sizeof(buf));
	return sscanf(buf, "%u:%u", major, minor) == 2 ? 0 : -ENOENT;
}

static void append(char *dst, size_t len, const char *word)
{
	size_t n = strlen(dst);

	snprintf(dst + n, len - n, "%s%s", n ? " " : "", word);
}

/* dm and md devices: stacks over disks, which a fleet wants listed */
static bool is_stack(const char *name)
{
	return !strncmp(name, "dm-", 3) || !strncmp(name, "md", 2);
}

/*
 * A disk with a device below it (DIR/device: the driver's device, the link device_add_disk()
 * makes from disk_to_dev()->parent); loop, zram, brd (ram) and nbd disks have none.
 */
static bool has_device(const char *dir)
{
	char path[PATH_MAX + 8];

	snprintf(path, sizeof(path), "%s/device", dir);
	return !access(path, F_OK);
}

/* "nvme", "scsi", "virtio", ... from device/subsystem; else from the name. */
static void transport(const char *dir, const char *name, char *buf, size_t len)
{
	char link[PATH_MAX + 32], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "%s/device/subsystem", dir);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		awr__strcopy(buf, len, !strncmp(base, "nvme", 4) ? "nvme" : base);
		return;
	}
	if (!strncmp(name, "loop", 4))
		snprintf(buf, len, "loop");
	else if (!strncmp(name, "dm-", 3))
		snprintf(buf, len, "dm");
	else if (!strncmp(name, "md", 2))
		snprintf(buf, len, "md");
	else
		snprintf(buf, len, "virtual");
}

static void holders(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/holders", dir);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			append(buf, len, e->d_name);
	closedir(d);
}

struct mount_list {
	const char *name;
	unsigned int major, minor;
	struct awr_blockdev *b;
};

static int add_mount(const struct awr__mount *m, void *arg)
{
	struct mount_list *l = arg;
	struct awr_blockdev_mount *grown, *e;

	if (m->major != l->major || m->minor != l->minor)
		return 0;
	grown = realloc(l->b->mounts, (l->b->nr_mounts + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	l->b->mounts = grown;
	e = &grown[l->b->nr_mounts++];
	awr__strcopy(e->device, sizeof(e->device), l->name);
	awr__strcopy(e->fstype, sizeof(e->fstype), m->fstype);
	awr__strcopy(e->target, sizeof(e->target), m->target);
	return 0;
}

/* The mounts of device MAJ:MIN (/proc/self/mountinfo) added to @b's. */
static void mounts(const char *name, unsigned int major, unsigned int minor,
		   struct awr_blockdev *b)
{
	struct mount_list l = { name, major, minor, b };

	awr__mountinfo_each(NULL, add_mount, &l);
}

/*
 * The serial of a SCSI disk from the Unit Serial Number VPD page (80h) the sd driver keeps
 * (device/vpd_pg80, scsi_attach_vpd() in drivers/scsi/scsi.c): PAGE LENGTH at bytes 2-3, the
 * serial from byte 4, blank padded.
 */
static void vpd80_serial(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX + 32];
	uint8_t page[256];
	ssize_t n;
	size_t sl;
	int fd;

	snprintf(path, sizeof(path), "%s/device/vpd_pg80", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, page, sizeof(page));
	close(fd);
	if (n < 4 || page[1] != 0x80)
		return;
	sl = (size_t)page[2] << 8 | page[3];
	if (sl > (size_t)n - 4)
		sl = (size_t)n - 4;
	snprintf(buf, len, "%.*s", (int)sl, (const char *)page + 4);
	awr__rtrim(buf);
	while (*buf == ' ')
		memmove(buf, buf + 1, strlen(buf));
}

/*
 * Model, serial and firmware revision as the driver publishes them: NVMe's controller
 * (device/model, serial, firmware_rev: nvme_sysfs_show_*() in drivers/nvme/host/sysfs.c), SCSI's
 * INQUIRY (device/model, device/rev; the serial from VPD page 80h), virtio's serial (serial of
 * the disk itself, virtblk_serial_show()).
 */
static void identity(const char *dir, struct awr_blockdev *b)
{
	read_line(dir, "device/model", b->model, sizeof(b->model));
	read_line(dir, "device/serial", b->serial, sizeof(b->serial));
	if (!b->serial[0])
		read_line(dir, "serial", b->serial, sizeof(b->serial));
	if (!b->serial[0])
		vpd80_serial(dir, b->serial, sizeof(b->serial));
	read_line(dir, "device/firmware_rev", b->firmware, sizeof(b->firmware));
	if (!b->firmware[0])
		read_line(dir, "device/rev", b->firmware, sizeof(b->firmware));
}

/* The content of @path (at most 1 MiB) in *buf (free()); its length, or -errno. */
static ssize_t read_small_file(const char *path, char **buf)
{
	size_t cap = 1 << 20, n = 0;
	ssize_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*buf = malloc(cap);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	while (n < cap && (got = read(fd, *buf + n, cap - n)) > 0)
		n += (size_t)got;
	if (got < 0) {
		got = -errno;
		free(*buf);
		*buf = NULL;
		close(fd);
		return got;
	}
	close(fd);
	return (ssize_t)n;
}

/*
 * Under a sysfs root other than /sys (awr_set_sysfs_root(), AWR_SYSFS_ROOT)
 * the disks are not this machine's, so /dev/NAME would be another device:
 * their own pages are the files of ROOT/awr-device/NAME/, any pieces
 * awr_input_add() takes (Identify or Block Limits dumps, nvme-cli or sg_vpd
 * output). None there: no device fields, as for a device that cannot be read.
 */
static int tree_device(const char *root, const char *name, struct awr_device **out)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], missing[512];
	struct awr_input in;
	struct dirent *e;
	char *buf = NULL;
	int ret = 0;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/awr-device/%s", root, name);
	d = opendir(dir);
	if (!d)
		return -errno;
	awr_input_init(&in);
	while (!ret && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = read_small_file(path, &buf);
		if (n < 0) {
			ret = (int)n;
			break;
		}
		ret = awr_input_add(buf, (size_t)n, &in);
		free(buf);
	}
	closedir(d);
	return ret ? ret : awr_input_device(&in, NULL, out, missing, sizeof(missing));
}

/* The device's own atomic field, when its identify/VPD data can be read. */
static void device_fields(struct awr_blockdev *b)
{
	const char *root = awr__sysfs_root();
	char path[96];
	struct awr_device *d;

	if (strcmp(b->transport, "nvme") && strcmp(b->transport, "scsi"))
		return;
	snprintf(path, sizeof(path), "/dev/%s", b->name);
	if (strcmp(root, "/sys") ? tree_device(root, b->name, &d) : awr_device_open(path, &d))
		return;
	if (awr_device_provider(d) && awr_device_provider(d)->read) {
		snprintf(b->provider, sizeof(b->provider), "%.7s",
			 awr_device_provider(d)->provider);
		b->provider_unit = awr_device_provider(d)->unit;
		b->provider_granularity = awr_device_provider(d)->granularity;
		b->provider_boundary = awr_device_provider(d)->boundary;
	}
	if (d->type == AWR_DEVICE_NVME && d->nvme.have_ctrl) {
		b->awupf = d->nvme.awupf;
		if (d->nvme.have_ns && (d->nvme.nsfeat & 2))
			b->nawupf = d->nvme.nawupf;
	} else if (d->type == AWR_DEVICE_SCSI && d->scsi.have_vpd && d->scsi.vpd_has_atomic) {
		b->scsi_matl = d->scsi.max_atomic_transfer_length;
	}
	awr_device_free(d);
}

static int add_partitions(const char *dir, struct awr_blockdev *b)
{
	struct awr_sysfs_view v;
	char part[PATH_MAX + 300];
	unsigned int ma, mi;
	struct dirent *e;
	uint64_t x;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((e = readdir(d)) && b->nr_parts < MAX_PARTS) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(part, sizeof(part), "%s/%s", dir, e->d_name);
		if (awr__sysfs_read_u64(part, "partition", &x) || read_devno(part, &ma, &mi) ||
		    awr_sysfs_lookup(ma, mi, &v))
			continue;
		b->nr_parts_aligned += v.part_aligned;
		b->parts[b->nr_parts++] = v;
		holders(part, b->holders, sizeof(b->holders));
		mounts(e->d_name, ma, mi, b);
	}
	closedir(d);
	return 0;
}

static int cmp_part(const void *a, const void *b)
{
	const struct awr_sysfs_view *x = a, *y = b;

	return x->part_start < y->part_start ? -1 : x->part_start > y->part_start;
}

static int read_disk(const char *root, const char *name, struct awr_blockdev *b)
{
	char dir[PATH_MAX];
	unsigned int ma, mi;
	int ret;

	memset(b, 0, sizeof(*b));
	b->awupf = b->nawupf = -1;
	b->scsi_matl = -1;
	snprintf(dir, sizeof(dir), "%s/block/%s", root, name);
	awr__strcopy(b->name, sizeof(b->name), name);
	/*
	 * A hidden disk (GENHD_FL_HIDDEN: the path disks nvmeScCnH of an NVMe
	 * multipath head) has no dev_t: device_add_disk() in block/genhd.c sets
	 * ddev->devt only for disks that are not hidden (since 5.15), so there
	 * is no "dev" file and no /sys/dev/block link; it is left out here and
	 * shown as a leg of its head by awr_stack_lookup().
	 */
	ret = read_devno(dir, &ma, &mi);
	if (!ret)
		ret = awr_sysfs_lookup(ma, mi, &b->sysfs);
	if (ret)
		return ret;
	b->major = ma;
	b->minor = mi;
	identity(dir, b);
	transport(dir, name, b->transport, sizeof(b->transport));
	b->is_virtual = !is_stack(name) && !has_device(dir);
	b->parts = calloc(MAX_PARTS, sizeof(*b->parts));
	if (!b->parts)
		return -ENOMEM;
	holders(dir, b->holders, sizeof(b->holders));
	mounts(name, ma, mi, b);
	add_partitions(dir, b);
	qsort(b->parts, b->nr_parts, sizeof(*b->parts), cmp_part);
	device_fields(b);
	return 0;
}

static void free_one(struct awr_blockdev *b)
{
	free(b->parts);
	free(b->mounts);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct awr_blockdev *)a)->name,
		      ((const struct awr_blockdev *)b)->name);
}

int awr_blockdev_list(struct awr_blockdev **out, unsigned int *nr)
{
	char dir[PATH_MAX];
	struct awr_blockdev *list = NULL, *grown;
	unsigned int n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (!out || !nr)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/block", awr__sysfs_root());
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown)
				goto nomem;
			list = grown;
		}
		if (read_disk(awr__sysfs_root(), e->d_name, &list[n]) == 0)
			n++;
		else
			free_one(&list[n]);
	}
	closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), cmp_name);
	*out = list;
	*nr = n;
	return 0;
nomem:
	closedir(d);
	awr_blockdev_list_free(list, n);
	return -ENOMEM;
}

void awr_blockdev_list_free(struct awr_blockdev *list, unsigned int nr)
{
	for (unsigned int i = 0; list && i < nr; i++)
		free_one(&list[i]);
	free(list);
}

const char *awr_blockdev_verdict(const struct awr_blockdev *b)
{
	return awr__atomic_verdict(b->sysfs.has_atomic_attrs, b->sysfs.unit_max,
				   b->sysfs.logical_block_size, b->nr_parts_aligned < b->nr_parts);
}
