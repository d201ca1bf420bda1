// SPDX-License-Identifier: MIT
/*
 * Discovery source: the filesystem view of a file. Type and block size
 * (fstatfs), statx's atomic limits, XFS geometry (XFS_IOC_FSGEOMETRY), the
 * file's extent size hint (FS_IOC_FSGETXATTR), the mount's max_atomic_write
 * option (mountinfo), ext4 bigalloc (its superblock) and the hardware atomic
 * limits of the block device below (sysfs).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel.h"
#include "private.h"
#include "discover/discover.h"

struct mount_opts {
	unsigned int maj, min;
	char *type, *source, *opts;
	size_t tlen, slen, olen;
};

static int match_mount(const struct awr__mount *m, void *arg)
{
	struct mount_opts *o = arg;

	if (m->major != o->maj || m->minor != o->min)
		return 0;
	snprintf(o->type, o->tlen, "%.15s", m->fstype);
	snprintf(o->opts, o->olen, "%.4000s", m->fs_options);
	snprintf(o->source, o->slen, "%.4000s", m->source);
	return 1;
}

/* mountinfo: the filesystem type, source and super options of the mount of device maj:min. */
static void mount_options(unsigned int maj, unsigned int min, char *type, size_t tlen,
			  char *source, size_t slen, char *opts, size_t olen)
{
	struct mount_opts o = { maj, min, type, source, opts, tlen, slen, olen };

	awr__mountinfo_each(NULL, match_mount, &o);
}

/* "max_atomic_write=64k" in the super options (xfs_fs_show_options, 6.16+, prints KiB). */
static uint64_t opt_max_atomic_write(const char *opts)
{
	const char *p = strstr(opts, "max_atomic_write=");
	char val[32];
	uint64_t v;

	if (!p)
		return 0;
	p += strlen("max_atomic_write=");
	snprintf(val, sizeof(val), "%.*s", (int)strcspn(p, ","), p);
	return awr_parse_size(val, &v) ? 0 : v;
}

static void view_device(struct awr_fs_view *v, unsigned int maj, unsigned int min)
{
	struct awr_sysfs_view y;

	if (awr_sysfs_lookup(maj, min, &y))
		return;
	snprintf(v->device, sizeof(v->device), "%s", y.partition[0] ? y.partition : y.disk);
	/* a partition whose start is not aligned has no atomic writes
	 * (blkdev_atomic_write_valid) */
	v->hw_atomic = y.unit_max && (!y.partition[0] || y.part_aligned);
	if (v->hw_atomic) {
		v->hw_unit_min = y.unit_min;
		v->hw_unit_max = y.unit_max;
	}
}

/*
 * The cap the allocation group size sets on atomic writes (xfs_calc_group_awu_max(),
 * fs/xfs/xfs_mount.c; xfs_calc_perag_awu_max() in 6.16): with a device that writes
 * atomically the largest power of two dividing agblocks (max_pow_of_two_factor(), so
 * that an AG-aligned unit is also aligned on the device), else agblocks rounded down to
 * a power of two (6.16 rounded m_ag_max_usable, a few blocks less). It bounds statx
 * unit_max on the software path and unit_max_opt, so an odd agsize leaves one block.
 */
static uint64_t xfs_ag_cap(uint64_t agblocks, uint32_t blocksize, bool hw_atomic)
{
	uint64_t p = 1;

	if (!agblocks)
		return 0;
	if (hw_atomic)
		return (agblocks & -agblocks) * blocksize;
	while (p <= agblocks / 2)
		p <<= 1;
	return p * blocksize;
}

/*
 * XFS. The software (copy-on-write) path exists on 6.16+ with reflink
 * (xfs_can_sw_atomic_write() in fs/xfs/xfs_inode.h); then statx unit_max is its
 * maximum (xfs_get_atomic_write_max(), fs/xfs/xfs_iops.c) and unit_max_opt the
 * hardware one (xfs_get_atomic_write_max_opt(): min(awu_max, bt_awu_max), 0
 * when the device has none). Before 6.16, or without reflink, only the
 * hardware path: one block (6.13) or the device's unit (6.16 without reflink).
 */
static void view_xfs(int fd, struct awr_fs_view *v, const char *opts)
{
	struct awr_xfs_geom g;
	struct fsxattr fx;
	bool large = awr_kernel_has(awr__kernel_or_running(0), AWR_KRULE_FS_LARGE);

	memset(&g, 0, sizeof(g));
	if (!ioctl(fd, AWR_XFS_IOC_FSGEOMETRY, &g)) {
		v->block_size = g.blocksize;
		v->ag_size = (uint64_t)g.agblocks * g.blocksize;
		v->ag_count = g.agcount;
		v->reflink = g.flags & AWR_XFS_GEOM_FLAGS_REFLINK;
		v->has_rtdev = g.rtblocks > 0;
		v->stripe_unit = (uint64_t)g.sunit *
				 g.blocksize; /* sb_unit, in blocks (xfs_fs_geometry()) */
	}
	memset(&fx, 0, sizeof(fx));
	if (!ioctl(fd, FS_IOC_FSGETXATTR, &fx)) {
		v->realtime = fx.fsx_xflags & FS_XFLAG_REALTIME;
		if (fx.fsx_xflags & (FS_XFLAG_EXTSIZE | FS_XFLAG_EXTSZINHERIT))
			v->extsize_hint = fx.fsx_extsize;
	}
	v->max_atomic_write_opt = opt_max_atomic_write(opts);
	if (large && v->reflink && v->block_size)
		v->ag_atomic_max =
			xfs_ag_cap(v->ag_size / v->block_size, v->block_size, v->hw_atomic);
	if (v->atomic && v->reflink && large)
		v->software_max = v->unit_max;
	if (v->unit_max_opt)
		v->hardware_max = v->unit_max_opt;
	else if (v->atomic && v->hw_atomic && !v->software_max)
		v->hardware_max = v->unit_max;
	else if (v->atomic && v->hw_atomic && v->unit_max == v->block_size &&
		 v->hw_unit_min <= v->block_size && v->block_size <= v->hw_unit_max)
		/* unit_max_opt is 0 when unit_max is one block (xfs_get_atomic_write_max_opt()),
		 * yet a one-block write the device covers takes the hardware path
		 * (xfs_bmap_hw_atomic_write_possible(): one block is always aligned) */
		v->hardware_max = v->block_size;
}

/*
 * ext4: hardware only (no software path). ext4_inode_can_atomic_write()
 * (fs/ext4/ext4.h, 6.13+) needs an extent-mapped regular file and
 * s_awu_min > 0; ext4_atomic_write_init() (fs/ext4/super.c, 6.16) sets
 * s_awu_max to min(cluster size, device unit_max) with bigalloc, else one
 * block. Bigalloc and the cluster size come from the superblock (read-only
 * access to the device needed).
 */
static void view_ext4(struct awr_fs_view *v, unsigned int maj, unsigned int min, const char *source)
{
	uint8_t sb[1024];
	char dev[64];
	struct stat st;
	int fd;

	v->cluster_size = v->block_size;
	snprintf(dev, sizeof(dev), "/dev/block/%u:%u", maj, min);
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	/* no /dev/block links (containers): the mount's source, if it is that very device */
	if (fd < 0 && source[0] == '/' && !stat(source, &st) && S_ISBLK(st.st_mode) &&
	    major(st.st_rdev) == maj && minor(st.st_rdev) == min)
		fd = open(source, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (pread(fd, sb, sizeof(sb), 1024) == (ssize_t)sizeof(sb) &&
		    (sb[0x38] | sb[0x39] << 8) == AWR_EXT4_SUPER_MAGIC) {
			uint32_t log_cluster = awr__get_le32(sb + 0x1c);
			uint32_t ro_compat = awr__get_le32(sb + 0x64);

			v->bigalloc_known = true;
			v->bigalloc = ro_compat & 0x200; /* EXT4_FEATURE_RO_COMPAT_BIGALLOC */
			if (v->bigalloc && log_cluster < 20)
				v->cluster_size = 1024ULL << log_cluster;
		}
		close(fd);
	}
	if (v->atomic)
		v->hardware_max = v->unit_max;
}

int awr_fs_view_fd(int fd, struct awr_fs_view *out)
{
	char opts[4096] = "", source[4096] = "";
	struct statfs sf;
	struct stat st;
	struct awr_statx_view sx;
	unsigned int maj, min;

	if (!out)
		return -EINVAL;
	if (fd < 0)
		return -EBADF;
	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) || fstatfs(fd, &sf))
		return -errno;
	memset(&sx, 0, sizeof(sx));
	if (!awr__statx_fd(fd, NULL, &sx)) {
		out->dax = sx.attributes & STATX_ATTR_DAX;
		out->no_direct_io = S_ISREG(st.st_mode) && sx.dio_reported && !sx.dio_offset_align;
	}
	if (sx.atomic_reported && sx.unit_min) {
		out->atomic = true;
		out->unit_min = sx.unit_min;
		out->unit_max = sx.unit_max;
		out->unit_max_opt = sx.unit_max_opt;
	}
	if (S_ISBLK(st.st_mode)) {
		out->type = AWR_FS_BLOCK;
		strcpy(out->type_name, "block");
		view_device(out, major(st.st_rdev), minor(st.st_rdev));
		out->hardware_max = out->atomic ? out->unit_max : 0;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	maj = major(st.st_dev);
	min = minor(st.st_dev);
	out->block_size = sf.f_bsize;
	mount_options(maj, min, out->type_name, sizeof(out->type_name), source, sizeof(source),
		      opts, sizeof(opts));
	view_device(out, maj, min);
	if (sf.f_type == AWR_XFS_SUPER_MAGIC) {
		out->type = AWR_FS_XFS;
		view_xfs(fd, out, opts);
	} else if (sf.f_type == AWR_EXT4_SUPER_MAGIC && !strcmp(out->type_name, "ext4")) {
		out->type = AWR_FS_EXT4;
		view_ext4(out, maj, min, source);
	}
	/* A DAX write goes through dax_iomap_rw(), which has no atomic path: from 6.17 it refuses
	 * IOCB_ATOMIC (EIO) and XFS reports no atomic unit (AWR_KRULE_DAX_NO_ATOMIC); before, the
	 * write went through as a plain one, whatever statx said (a reflink XFS on DAX reported
	 * software atomics in 6.16) */
	if (out->dax ||
	    out->no_direct_io) /* and ext4_dio_write_iter() buffers what takes no O_DIRECT */
		out->hardware_max = out->software_max = 0;
	return 0;
}

int awr_fs_view_path(const char *path, struct awr_fs_view *out)
{
	struct stat st;
	int fd, ret;
	bool dir;

	if (!path || !*path || !out)
		return -EINVAL;
	if (stat(path, &st))
		return -errno;
	dir = S_ISDIR(st.st_mode);
	if (!dir && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return -EINVAL;	/* never open a FIFO or a character device just to look */
	fd = dir ? open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)
		 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return (dir && errno == EISDIR) ? -EOPNOTSUPP : -errno;
	ret = awr_fs_view_fd(fd, out);
	out->tmpfile = dir;
	close(fd);
	return ret;
}

uint64_t awr_fs_default_unit(const struct awr_fs_view *v)
{
	if (v->hardware_max)
		return v->hardware_max;
	return v->unit_min ? v->unit_min : v->block_size;
}

unsigned int awr_fs_paths(const struct awr_fs_view *v, struct awr_fs_band *band)
{
	unsigned int n = 0;

	if (!v->atomic || !v->unit_min)
		return 0;
	if (v->hardware_max >= v->unit_min)
		band[n++] = (struct awr_fs_band){ v->unit_min, v->hardware_max, "hardware",
			v->type == AWR_FS_XFS ? "in place where the unit lies on one aligned "
						"extent, else copy-on-write"
			: v->type == AWR_FS_EXT4 ? "in place (ext4 has no other path)"
			: "the device writes it" };
	if (v->software_max > v->hardware_max)
		band[n++] = (struct awr_fs_band){
			v->hardware_max >= v->unit_min ? v->hardware_max * 2 : v->unit_min,
			v->software_max, "software",
			v->hardware_max ? "above the device's atomic unit: copy-on-write"
			: "copy-on-write: the device has no atomic support" };
	if (v->unit_max && !v->hardware_max && !v->software_max)
		band[n++] = (struct awr_fs_band){ v->unit_min, v->unit_max, "unknown",
						  "the filesystem's path is not known" };
	return n;
}
