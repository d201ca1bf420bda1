/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/discover.h - discovery: statx, sysfs, the probe and its findings, the
 * machine's block devices, stacked devices, the filesystem view, extent maps
 * and the route an atomic write takes.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_DISCOVER_H
#define LIBATOMICWR_DISCOVER_H

#include <libatomicwr/device.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What statx(STATX_WRITE_ATOMIC | STATX_DIOALIGN) said. */
struct awr_statx_view {
	uint32_t mask;			/* stx_mask as returned */
	uint64_t attributes;		/* stx_attributes */
	bool atomic_reported;		/* STATX_WRITE_ATOMIC set in mask */
	uint32_t unit_min;
	uint32_t unit_max;
	uint32_t segments_max;
	uint32_t unit_max_opt;
	bool dio_reported;		/* STATX_DIOALIGN set in mask */
	uint32_t dio_mem_align;
	uint32_t dio_offset_align;
	uint32_t mode;			/* st_mode */
	uint64_t size;
	uint32_t dev_major, dev_minor;	/* filesystem's device (st_dev) */
	uint32_t rdev_major, rdev_minor;/* device number of a block device */
	uint32_t reserved[8];
};

/*
 * queue/write_cache of the disk a write goes to (a partition's disk; a dm or md device's own, which
 * the kernel stacks from its legs). Untorn is not durable: with a volatile cache ("write back") an
 * acknowledged write, atomic or not, is lost on a power cut until a flush (fsync, fdatasync,
 * O_DSYNC, RWF_DSYNC) reaches the device; RWF_ATOMIC only forbids tearing.
 */
enum awr_write_cache {
	AWR_WRITE_CACHE_UNKNOWN = 0,	/* not read (no such attribute) */
	AWR_WRITE_CACHE_WRITE_THROUGH,	/* "write through": no volatile cache the kernel knows */
	AWR_WRITE_CACHE_WRITE_BACK,	/* "write back": volatile; the kernel sends flushes */
};

/*
 * queue/fua: whether the device takes Force Unit Access writes itself. Without it the block layer
 * sends a FUA write (RWF_DSYNC on O_DIRECT, a journal commit) as the write and then a cache flush
 * (blk_flush_policy(), block/blk-flush.c).
 */
enum awr_fua {
	AWR_FUA_UNKNOWN = 0,		/* not read */
	AWR_FUA_NO,			/* queue/fua 0: FUA emulated by write + flush */
	AWR_FUA_YES,			/* queue/fua 1 */
};

/**
 * awr_write_cache_name() - queue/write_cache's own words for a write cache
 * @wc:		the write cache of a sysfs view
 *
 * Return: "write back", "write through", or NULL when it was not read.
 */
const char *awr_write_cache_name(enum awr_write_cache wc);

/* What sysfs of the backing block device said. */
struct awr_sysfs_view {
	char disk[64];			/* "nvme0n1" */
	char partition[64];		/* "nvme0n1p1", or "" for a whole disk */
	bool has_atomic_attrs;		/* queue/atomic_write_* exist (6.11+) */
	uint32_t unit_min;		/* queue/atomic_write_unit_min_bytes */
	uint32_t unit_max;		/* queue/atomic_write_unit_max_bytes */
	uint32_t max_bytes;		/* queue/atomic_write_max_bytes */
	uint32_t boundary;		/* queue/atomic_write_boundary_bytes */
	uint32_t logical_block_size;
	uint32_t physical_block_size;
	uint64_t max_hw_bytes;		/* queue/max_hw_sectors_kb in bytes */
	uint32_t max_segments;
	uint64_t part_start;		/* partition start in bytes */
	bool part_aligned;		/* start a multiple of part_align */
	uint64_t size;			/* device size in bytes */
	bool read_only;			/* the "ro" attribute of the disk or partition */
	/*
	 * what the running kernel checks the start against: max(unit_min, boundary); from 6.14
	 * (6.13.2) hw_unit_min for unit_min, when a device view gives it (sysfs shows the capped
	 * unit_min only)
	 */
	uint32_t part_align;
	enum awr_write_cache write_cache;	/* queue/write_cache of @disk: volatile or not */
	enum awr_fua fua;		/* queue/fua of @disk: FUA writes native or emulated */
	uint32_t reserved[4];
};

struct awr_probe;

/* awr_probe_path() flags */
#define AWR_PROBE_NO_DEVICE	(1U << 0)	/* skip NVMe/SCSI device views */

/**
 * awr_probe_path() - discover the atomic write limits of a file or device
 * @path:	a regular file, a block device or (for device views) a char device
 * @flags:	AWR_PROBE_* flags
 * @out:	the new probe, freed with awr_probe_free()
 *
 * Collects each source that applies (statx, sysfs, device) separately, then
 * the effective limits and findings explaining every disagreement.
 *
 * Return: 0, or a negative errno when @path cannot be examined at all.
 */
int awr_probe_path(const char *path, unsigned int flags, struct awr_probe **out);

/**
 * awr_probe_fd() - like awr_probe_path() for an open file descriptor
 * @fd:		the descriptor (not closed, not kept)
 * @flags:	AWR_PROBE_* flags
 * @out:	the new probe
 *
 * Return: 0 or a negative errno.
 */
int awr_probe_fd(int fd, unsigned int flags, struct awr_probe **out);

/**
 * awr_probe_free() - free a probe
 * @p:	the probe, may be NULL
 */
void awr_probe_free(struct awr_probe *p);

/**
 * awr_probe_statx() - the statx view
 * @p:	the probe
 *
 * Return: the view, or NULL when statx could not be called.
 */
const struct awr_statx_view *awr_probe_statx(const struct awr_probe *p);

/**
 * awr_probe_sysfs() - the sysfs view of the backing block device
 * @p:	the probe
 *
 * Return: the view, or NULL when no block device in sysfs backs the path.
 */
const struct awr_sysfs_view *awr_probe_sysfs(const struct awr_probe *p);

/**
 * awr_probe_effective() - the limits that will hold for RWF_ATOMIC writes
 * @p:	the probe
 *
 * Return: the limits; ->supported false when the kernel refuses atomic writes.
 */
const struct awr_limits *awr_probe_effective(const struct awr_probe *p);

/**
 * awr_probe_nr_findings() - number of findings
 * @p:	the probe
 *
 * Return: the count.
 */
unsigned int awr_probe_nr_findings(const struct awr_probe *p);

/**
 * awr_probe_finding() - one finding
 * @p:	the probe
 * @i:	index below awr_probe_nr_findings()
 *
 * Return: the finding, or NULL when @i is out of range.
 */
const struct awr_finding *awr_probe_finding(const struct awr_probe *p, unsigned int i);

/**
 * awr_probe_path_name() - the path the probe was made for
 * @p:	the probe
 *
 * Return: the path, or "" for a probe made from an fd.
 */
const char *awr_probe_path_name(const struct awr_probe *p);

/**
 * awr_probe_new_file() - whether the answer is that of a new file in a directory
 * @p:	the probe
 *
 * A probe of a directory answers for a file made there: its statx view, effective limits and
 * findings are those of an O_TMPFILE made in the directory (and removed at once).
 *
 * Return: true when the probe was made for a directory and such a file could be made.
 */
bool awr_probe_new_file(const struct awr_probe *p);

/**
 * awr_probe_kind() - what the probed path is, in one word
 * @p:	the probe
 *
 * Return: "file", "block", "char", "directory" (also when the probe answers for a
 * new file made in it), "other", or "unknown" when its statx failed.
 */
const char *awr_probe_kind(const struct awr_probe *p);

/**
 * awr_sysfs_lookup() - read the sysfs view of a block device number
 * @major:	device major
 * @minor:	device minor
 * @out:	filled on success
 *
 * Return: 0, -ENOENT when no such device is in sysfs, other negative errno.
 */
int awr_sysfs_lookup(unsigned int major, unsigned int minor, struct awr_sysfs_view *out);

/* A filesystem mounted on a disk or one of its partitions (awr_blockdev.mounts). */
struct awr_blockdev_mount {
	char device[64];		/* the disk or the partition: "nvme0n1p2" */
	char fstype[32];		/* "xfs" */
	char target[4096];		/* the mount point as it is (blanks, tabs, backslashes) */
};

/* One block device of the machine (awr_blockdev_list()). */
struct awr_blockdev {
	char name[64];			/* "nvme0n1", "sda", "loop0" */
	char model[64];			/* device/model, "" when none */
	char serial[64];		/* device/serial, SCSI VPD page 80h, "" when none */
	char firmware[32];		/* device/firmware_rev (NVMe), device/rev (SCSI), "" none */
	/* no driver below it (no device/ in sysfs: loop, zram, ram, nbd); dm and md are not */
	bool is_virtual;
	/* "nvme", "scsi", "virtio", "loop", "dm", "md", "virtual", ... */
	char transport[16];
	unsigned int major, minor;
	struct awr_sysfs_view sysfs;	/* the disk's queue limits */
	unsigned int nr_parts;
	/* partitions by start: ->partition, ->part_start, ->part_aligned */
	struct awr_sysfs_view *parts;
	char holders[256];		/* holders of the disk and its partitions: "dm-0 md127" */
	unsigned int nr_mounts;
	/* the filesystems mounted on the disk and its partitions, in mountinfo order */
	struct awr_blockdev_mount *mounts;
	int32_t awupf;			/* NVMe AWUPF (0's based), -1 unknown */
	int32_t nawupf;			/* NVMe NAWUPF when NSFEAT bit 1 is set, -1 otherwise */
	/* SCSI MAXIMUM ATOMIC TRANSFER LENGTH (blocks), -1 unknown */
	int64_t scsi_matl;
	char provider[8];		/* a cloud provider's own statement read ("AWS"), "" none */
	uint32_t provider_unit;		/* its bytes (awr_device_provider()): unit, granularity, */
	uint32_t provider_granularity;	/* boundary (0 none) */
	uint32_t provider_boundary;
	unsigned int nr_parts_aligned;	/* partitions whose start is ->part_aligned */
	uint32_t reserved[2];
};

/**
 * awr_blockdev_list() - every block device of the machine with its atomic limits
 * @out:	the list, sorted by name; free with awr_blockdev_list_free()
 * @nr:		its length
 *
 * Each disk of sysfs /sys/block (below awr_set_sysfs_root()): its queue
 * limits, partitions and whether each is aligned, holders (dm, md),
 * mounted filesystems (/proc/self/mountinfo), model, serial and firmware
 * revision from sysfs, whether it is virtual, and for NVMe and SCSI disks
 * the device's own AWUPF/NAWUPF or MAXIMUM ATOMIC TRANSFER LENGTH when its
 * identify or VPD data can be read (root).
 *
 * Return: 0, -ENOMEM, other negative errno when sysfs cannot be read.
 */
int awr_blockdev_list(struct awr_blockdev **out, unsigned int *nr);

/**
 * awr_blockdev_list_free() - free a list from awr_blockdev_list()
 * @list:	the list, may be NULL
 * @nr:		its length
 */
void awr_blockdev_list_free(struct awr_blockdev *list, unsigned int nr);

/**
 * awr_blockdev_verdict() - one word for a block device's atomic writes
 * @b:	the device
 *
 * Return: "atomic" (more than one block), "single_block", "none" (unit_max
 * 0), "misaligned" (atomic, but a partition starts off the atomic alignment)
 * or "unknown" (a kernel without the sysfs attributes, before 6.11).
 */
const char *awr_blockdev_verdict(const struct awr_blockdev *b);

/* --- stacked devices (dm, md, NVMe multipath heads) ------------------------ */

#define AWR_STACK_MAX_LEGS	16

/* One leg of a stacked device, as its sysfs shows it. A plain value type. */
struct awr_stack_leg {
	char name[64];			/* "loop0", "sda1", "nvme0c0n1" */
	bool has_atomic_attrs;		/* its queue/ has atomic_write_* (6.11+) */
	uint32_t unit_min, unit_max;	/* its queue/atomic_write_unit_{min,max}_bytes */
	uint32_t max_bytes, boundary;	/* its queue/atomic_write_{max,boundary}_bytes */
	uint32_t logical_block_size;
	/* where the stacked data starts in it (partition, table, md offset) */
	uint64_t start;
	uint32_t reserved[4];
};

/* A stacked device, its legs and what the kernel stacks from them. A plain value type. */
struct awr_stack_view {
	/* dm-linear, dm-stripe, dm-mirror, dm (table unread), md-raid0/1/10, nvme-multipath */
	char type[24];
	char disk[64];			/* "dm-0", "md0", "nvme0n1" */
	unsigned int nr_legs;
	struct awr_stack_leg legs[AWR_STACK_MAX_LEGS];
	uint64_t chunk_bytes;		/* stripe chunk (md chunk_size, dm-stripe table), 0 none */
	/* dm: the table was read (DM_TABLE_STATUS, needs CAP_SYS_ADMIN) */
	bool table_read;
	uint32_t kernel;		/* AWR_KERNEL() the result follows */
	bool kernel_stacks;		/* that release stacks this type's atomic limits */
	/* the stacked result, as sysfs of @disk should read */
	struct awr_device_limits derived;
	char why[128];			/* why the result is off, "" when it is not */
	int why_leg;			/* the leg @why is about, -1 for none */
	uint32_t reserved[8];
};

/**
 * awr_stack_lookup() - the stacked view of a block disk
 * @disk:	its name in sysfs, "dm-0", "md0", "nvme0n1"
 * @kernel:	AWR_KERNEL() whose stacking rules apply, 0 the running one
 * @out:	filled on success
 *
 * Legs from sysfs slaves/ (dm, md) or multipath/ (an NVMe head; before 6.15,
 * which has no multipath/, the head's paths nvmeXcYnZ in /sys/block), each with
 * its limits; the dm target from DM_TABLE_STATUS when readable; the md level
 * and chunk from md/; then blk_stack_atomic_writes_limits() of @kernel (md
 * from 6.13, dm from 6.14, heads from 6.15) and the top's block layer caps.
 *
 * Return: 0, -ENOENT when @disk is not a stacked device of these kinds,
 * -EINVAL for a bad name.
 */
int awr_stack_lookup(const char *disk, uint32_t kernel, struct awr_stack_view *out);

/**
 * awr_probe_stack() - the stacked view a probe found
 * @p:	the probe
 *
 * Return: the view (owned by @p), or NULL when the path's disk is not a dm,
 * md or NVMe multipath head device.
 */
const struct awr_stack_view *awr_probe_stack(const struct awr_probe *p);

/**
 * awr_probe_device() - the device view a probe found
 * @p:	the probe
 *
 * Return: the view (owned by @p), or NULL when the path is on no NVMe or
 * SCSI device, device I/O failed (see the findings) or AWR_PROBE_NO_DEVICE.
 */
const struct awr_device *awr_probe_device(const struct awr_probe *p);

/* --- filesystem view, extent maps, the route a write takes --------------- */

enum awr_fs_type {
	/* any other filesystem: atomic writes as statx says, path unknown */
	AWR_FS_OTHER = 0,
	AWR_FS_XFS,
	AWR_FS_EXT4,
	AWR_FS_BLOCK,		/* a block device, no filesystem: the device's own limits */
};

/* What a filesystem gives a file's atomic writes (a plain value, filled by awr_fs_view_*). */
struct awr_fs_view {
	enum awr_fs_type type;
	char type_name[16];		/* "xfs", "ext4", "tmpfs", "block", ... */
	/* a directory was given: the view of an O_TMPFILE made in it */
	bool tmpfile;
	uint32_t block_size;		/* filesystem block size in bytes */
	/* statx of the file (STATX_WRITE_ATOMIC) */
	bool atomic;			/* the kernel accepts atomic writes on this file */
	uint32_t unit_min, unit_max, unit_max_opt;
	/* XFS (XFS_IOC_FSGEOMETRY, FS_IOC_FSGETXATTR, the mount's options) */
	/* reflink=1: the copy-on-write software path exists (6.16+) */
	bool reflink;
	uint64_t ag_size;		/* allocation group size in bytes */
	uint32_t ag_count;
	bool realtime;			/* the file's data is on the realtime device */
	bool has_rtdev;			/* the filesystem has a realtime section */
	uint64_t extsize_hint;		/* the file's extent size hint in bytes, 0 when none */
	uint64_t max_atomic_write_opt;	/* mount option max_atomic_write=, 0 when not given */
	/* largest atomic write the software path serves, 0 when none */
	uint64_t software_max;
	/* ext4 (the superblock: s_log_cluster_size, RO_COMPAT_BIGALLOC) */
	bool bigalloc;
	/* the superblock could be read (needs read access to the device) */
	bool bigalloc_known;
	uint64_t cluster_size;		/* bytes; the block size without bigalloc */
	/* the block device below (sysfs queue/atomic_write_unit_*_bytes) */
	char device[64];		/* "nvme0n1", "" when none */
	bool hw_atomic;			/* the device writes atomically itself */
	uint32_t hw_unit_min, hw_unit_max;
	/* largest atomic write that can take the hardware path, 0 none */
	uint64_t hardware_max;
	/*
	 * XFS 6.16+ with reflink: the cap the AG size sets on atomic writes
	 * (xfs_calc_group_awu_max()), 0 when none is computed
	 */
	uint64_t ag_atomic_max;
	/*
	 * XFS: the stripe unit in bytes (mkfs.xfs -d su=), to which new extents at a file's end are
	 * aligned where space allows; 0 when none
	 */
	uint64_t stripe_unit;
	/* statx STATX_ATTR_DAX: the file's data is accessed directly (DAX) */
	bool dax;
	/*
	 * statx STATX_DIOALIGN offset 0: O_DIRECT writes go through the page cache (ext4
	 * data=journal, inline data, fs-verity)
	 */
	bool no_direct_io;
	uint32_t reserved[11];
};

/**
 * awr_fs_view_fd() - the filesystem view of an open file
 * @fd:		a regular file or block device (not closed, not kept)
 * @out:	filled on success
 *
 * Return: 0, or a negative errno when @fd cannot be examined.
 */
int awr_fs_view_fd(int fd, struct awr_fs_view *out);

/**
 * awr_fs_view_path() - the filesystem view of a path
 * @path:	a regular file, a block device, or a directory: then the view of
 *		an O_TMPFILE made in it (what a new file there gets), removed again
 * @out:	filled on success
 *
 * Return: 0 or a negative errno (-EOPNOTSUPP: the directory's filesystem has
 * no O_TMPFILE).
 */
int awr_fs_view_path(const char *path, struct awr_fs_view *out);

/* Sizes from..to (bytes) that take one path on a filesystem view (awr_fs_paths()). */
struct awr_fs_band {
	uint64_t from, to;
	const char *path;		/* "hardware", "software" or "unknown" */
	const char *why;		/* in a few words: "copy-on-write: the device has ..." */
};

#define AWR_FS_MAX_BANDS	3

/**
 * awr_fs_paths() - which sizes of atomic write take which path on a filesystem
 * @v:		the view (awr_fs_view_fd(), awr_fs_view_path())
 * @band:	room for AWR_FS_MAX_BANDS bands, filled smallest sizes first
 *
 * The hardware path (unit_min up to the device's hardware_max: on XFS in
 * place where the unit lies on one aligned extent, else copy-on-write), the
 * software path above it (XFS copy-on-write up to software_max), or one
 * "unknown" band when the file takes atomic writes by a path the view does
 * not know.
 *
 * Return: the number of bands, 0 when the file takes no atomic writes.
 */
unsigned int awr_fs_paths(const struct awr_fs_view *v, struct awr_fs_band *band);

/**
 * awr_fs_default_unit() - the unit a file's extents are judged against when none is given
 * @v:	the view
 *
 * Return: the hardware path's maximum, else the file's atomic unit_min, else the block size.
 */
uint64_t awr_fs_default_unit(const struct awr_fs_view *v);

/* One extent as FIEMAP reports it. */
struct awr_extent {
	uint64_t logical;		/* byte offset in the file */
	uint64_t physical;		/* byte offset on the device */
	uint64_t length;		/* bytes */
	uint32_t flags;			/* FIEMAP_EXTENT_* */
	bool aligned;			/* logical and physical both multiples of the unit */
};

/* A byte range of a file. */
struct awr_range {
	uint64_t offset;
	uint64_t length;
};

/* The extent map of a file judged against an atomic unit. */
struct awr_extent_report {
	uint64_t unit;			/* the unit the map was judged against */
	uint64_t file_size;
	uint64_t total_bytes;		/* bytes mapped by extents */
	uint64_t aligned_bytes;		/* bytes in whole units, each inside one extent whose
					   logical and physical offsets agree modulo the unit */
	unsigned int nr_extents;
	struct awr_extent *extents;
	unsigned int nr_misaligned;	/* mapped ranges outside aligned_bytes, in file order */
	struct awr_range *misaligned;
	/*
	 * XFS: physical offsets are judged within their allocation group of this size, as the
	 * kernel does; 0: as device offsets
	 */
	uint64_t ag_size;
};

/**
 * awr_extents_read() - read a file's extent map (FIEMAP) and judge it against a unit
 * @fd:		the file
 * @unit:	the atomic unit in bytes, a power of two; 0: awr_fs_default_unit() of the
 *		file's view (the hardware path's maximum, else unit_min, else the block),
 *		without a view the file's st_blksize
 * @out:	the new report, freed with awr_extent_report_free()
 *
 * Return: 0, -EINVAL for a unit that is not a power of two, -EOPNOTSUPP when
 * the filesystem has no FIEMAP, other negative errno.
 */
int awr_extents_read(int fd, uint64_t unit, struct awr_extent_report **out);

/**
 * awr_extents_read_path() - awr_extents_read() of the file at @path
 * @path:	the file (a symbolic link is not followed)
 * @unit:	as awr_extents_read()
 * @out:	the new report, freed with awr_extent_report_free()
 *
 * Return: 0 or a negative errno as awr_extents_read() (-EINVAL also: not a regular file);
 * awr_last_error() says why ("the filesystem of PATH has no extent map (FIEMAP)").
 */
int awr_extents_read_path(const char *path, uint64_t unit, struct awr_extent_report **out);

/**
 * awr_extent_report_free() - free a report
 * @r:	the report, may be NULL
 */
void awr_extent_report_free(struct awr_extent_report *r);

/**
 * awr_fs_findings() - what a filesystem view means for atomic writes, as findings
 * @v:		the view (awr_fs_view_fd(), awr_fs_view_path())
 * @r:		the file's extent report (awr_extents_read()), or NULL
 * @out:	room for @max findings
 * @max:	how many @out holds; the rest are left out
 *
 * Which sizes take the hardware path and which copy-on-write, what caps them
 * (no reflink, the AG size, the mount's max_atomic_write=, a DAX or
 * journalled file, ext4 without bigalloc) and how much of the file lies on
 * aligned extents: each an id ("fs_no_reflink") and a sentence with the
 * numbers, severity AWR_SEV_INFO, by the running kernel's rules.
 *
 * Return: the number of findings written to @out.
 */
unsigned int awr_fs_findings(const struct awr_fs_view *v, const struct awr_extent_report *r,
			     struct awr_finding *out, unsigned int max);

/* Which path an atomic write takes or took. */
/* The route an atomic write takes or took ("path" is kept for file paths). */
enum awr_write_route {
	AWR_ROUTE_UNKNOWN = 0,	/* cannot be told (e.g. the range was not mapped before) */
	AWR_ROUTE_HARDWARE,	/* one REQ_ATOMIC write in place */
	AWR_ROUTE_SOFTWARE,	/* the filesystem's copy-on-write route */
	AWR_ROUTE_REFUSED,	/* the kernel refuses the write */
};

/**
 * awr_write_route_name() - "hardware", "software", "unknown", "refused"
 * @r:	the route
 *
 * Return: a static string.
 */
const char *awr_write_route_name(enum awr_write_route r);

/**
 * awr_route_predict() - the route an atomic write of @length at @offset takes (the fs's rule)
 * @fs:		the file's filesystem view
 * @r:		the file's extent report (any unit), or NULL for a range not yet allocated
 * @offset:	byte offset of the write
 * @length:	its length
 *
 * Return: an enum awr_write_route; for AWR_ROUTE_REFUSED and AWR_ROUTE_UNKNOWN
 * awr_last_error() says why (the rule the write breaks, what is not known).
 */
enum awr_write_route awr_route_predict(const struct awr_fs_view *fs,
				       const struct awr_extent_report *r, uint64_t offset,
				       uint64_t length);

/* The mapping of one unit's range, taken before and after a write. */
struct awr_unit_map {
	uint64_t offset, length;
	bool mapped;			/* the whole range is mapped by extents */
	unsigned int nr_parts;		/* extents covering the range, up to 8 kept */
	struct awr_extent part[8];	/* each extent cut to the range */
};

/**
 * awr_unit_map_read() - the extent mapping of one byte range (FIEMAP)
 * @fd:		the file
 * @offset:	the range
 * @length:	its length
 * @out:	filled on success
 *
 * Return: 0 or a negative errno.
 */
int awr_unit_map_read(int fd, uint64_t offset, uint64_t length, struct awr_unit_map *out);

/**
 * awr_route_compare() - which route a write took, from the range's mapping before and after it
 * @before:	awr_unit_map_read() before the write
 * @after:	the same range after the write completed
 *
 * In place (every extent at the same device offset): hardware; moved:
 * software (copy-on-write); not mapped before: unknown.
 *
 * Return: an enum awr_write_route.
 */
enum awr_write_route awr_route_compare(const struct awr_unit_map *before,
				       const struct awr_unit_map *after);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_DISCOVER_H */
