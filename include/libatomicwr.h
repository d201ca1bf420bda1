/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr - discover, check, perform and verify Linux atomic (untorn)
 * block writes (RWF_ATOMIC, Linux 6.11+).
 *
 * Data flows one way: discover -> decide -> write -> verify.
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; errno is never relied upon.
 */
#ifndef LIBATOMICWR_H
#define LIBATOMICWR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AWR_VERSION_MAJOR 0
#define AWR_VERSION_MINOR 1

/**
 * awr_version() - the library's version string
 *
 * Return: a static string such as "0.1.0".
 */
const char *awr_version(void);

/* ------------------------------------------------------------------------ */
/* Sizes                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * awr_parse_size() - parse a human size such as "4096", "16k", "16KiB", "1M"
 * @str:	the text; suffixes k/K/KiB/KB, m/M/MiB/MB, g/G/GiB/GB, t/T/TiB/TB,
 *		all powers of 1024; an optional "B" alone means bytes
 * @out:	where the value in bytes is stored
 *
 * Return: 0, -EINVAL for garbage or a negative number, -ERANGE on overflow.
 */
int awr_parse_size(const char *str, uint64_t *out);

/**
 * awr_format_size() - format a byte count as "16 KiB", "1 MiB", "4097 B"
 * @bytes:	the value
 * @buf:	destination
 * @len:	size of @buf (32 is always enough)
 *
 * Exact multiples of a binary unit use that unit; other values print in bytes.
 *
 * Return: @buf.
 */
char *awr_format_size(uint64_t bytes, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Kernel rules: which atomic write rule applies on which Linux release     */
/* ------------------------------------------------------------------------ */

/* A kernel release as one number: 6.12.57 is 6012057 (each part 0..999). */
#define AWR_KERNEL(major, minor, patch) \
	((uint32_t)(major) * 1000000U + (uint32_t)(minor) * 1000U + (uint32_t)(patch))
#define AWR_KERNEL_MAJOR(k)	((k) / 1000000U)
#define AWR_KERNEL_MINOR(k)	((k) / 1000U % 1000U)
#define AWR_KERNEL_PATCH(k)	((k) % 1000U)

/* The rules that changed between kernels (kernel-abi, "What changed"). */
enum awr_kernel_rule {
	AWR_KRULE_ATOMIC_WRITES = 0,	/* 6.11: RWF_ATOMIC, statx, NVMe and SCSI limits */
	AWR_KRULE_BLK_SANITY,		/* 6.13: blk_validate_atomic_write_limits sanity checks */
	AWR_KRULE_DIRECT_PER_WRITE,	/* 6.13, 6.11.11, 6.12.2: O_DIRECT checked per write */
	AWR_KRULE_FS_ONE_BLOCK,		/* 6.13: XFS/ext4 one-block atomic files */
	AWR_KRULE_MD_STACK,		/* 6.13: md raid0/1/10 stacking */
	AWR_KRULE_DM_STACK,		/* 6.14: dm-linear/stripe/mirror stacking */
	AWR_KRULE_PART_HW_UNIT_MIN,	/* 6.14, 6.13.2: partition start vs hw_unit_min */
	AWR_KRULE_NVME_MPATH_HEAD,	/* 6.15, 6.14.10: NVMe multipath head limits */
	AWR_KRULE_FS_LARGE,		/* 6.16: XFS large atomics, unit_max_opt, ext4 bigalloc */
	AWR_KRULE_CHUNK_LIMIT,		/* 6.17, 6.15.10, 6.16.1: chunk_sectors < hw_max turns atomics off */
	AWR_KRULE_BOUNDARY_CHUNK_EITHER,/* 6.18: boundary and chunk multiples of each other */
	AWR_KRULE_NVME_NO_AWUPF,	/* 7.0: NVMe ignores AWUPF */
	AWR_KRULE_DM_CRYPT_STACK,	/* 6.19: dm-crypt stacking, no split of an atomic bio */
	AWR_KRULE_DM_MPATH_STACK,	/* 6.19: dm-multipath stacking */
	AWR_KRULE_XFS_MAX_ATOMIC_WRITE,	/* 6.16: XFS mount option max_atomic_write= */
	AWR_KRULE_XFS_MAW_REFLINK,	/* 6.17: max_atomic_write= above one block needs reflink */
	AWR_KRULE_DAX_NO_ATOMIC,	/* 6.17: no atomic writes on DAX files */
	AWR_KRULE_LIO_ATOMIC,		/* 6.19: the SCSI target (LIO) takes WRITE ATOMIC(16) */
	AWR_KRULE_SHORT_PIN_FIXED,	/* 7.4 (posted): a short atomic pin fails the write */
	AWR_KRULE__COUNT
};

/* A range of releases over which the derived device limits can differ. */
struct awr_kernel_range {
	const char *label;	/* "6.11-6.12", "7.0+" */
	uint32_t first;		/* AWR_KERNEL() of its first release */
	uint32_t last;		/* and of its last */
};

/**
 * awr_kernel_parse() - parse a kernel release as uname -r prints it
 * @release:	"6.12.57+deb13-amd64", "7.3.4+deb13-amd64", "6.18.15-1-pve", "7.0"
 * @out:	the release as AWR_KERNEL(major, minor, patch)
 *
 * MAJOR.MINOR with an optional .PATCH, then anything (a distribution suffix).
 *
 * Return: 0, or -EINVAL when @release does not start with MAJOR.MINOR.
 */
int awr_kernel_parse(const char *release, uint32_t *out);

/**
 * awr_kernel_running() - the release of the running kernel (uname)
 *
 * Return: AWR_KERNEL() of it, or 0 when uname gives no parseable release.
 */
uint32_t awr_kernel_running(void);

/**
 * awr_kernel_format() - a release as "6.12.57" (or "7.0" for patch 0)
 * @kernel:	AWR_KERNEL() value
 * @buf:	destination (16 bytes are enough)
 * @len:	its size
 *
 * Return: @buf.
 */
char *awr_kernel_format(uint32_t kernel, char *buf, size_t len);

/**
 * awr_kernel_has() - does a rule apply on a release?
 * @kernel:	AWR_KERNEL() value
 * @rule:	the rule
 *
 * A rule applies from its mainline release on, and in an older series from
 * the stable release it was backported to (6.12.2 for
 * AWR_KRULE_DIRECT_PER_WRITE, but not 6.12.1).
 *
 * Return: true when it applies.
 */
bool awr_kernel_has(uint32_t kernel, enum awr_kernel_rule rule);

/**
 * awr_kernel_rule_name() - stable snake_case name of a rule ("chunk_limit")
 * @rule:	the rule
 *
 * Return: a static string; "unknown" out of range.
 */
const char *awr_kernel_rule_name(enum awr_kernel_rule rule);

/**
 * awr_kernel_rule_text() - what a rule does, one sentence
 * @rule:	the rule
 *
 * Return: a static string; "unknown" out of range.
 */
const char *awr_kernel_rule_text(enum awr_kernel_rule rule);

/**
 * awr_kernel_rule_since() - the releases a rule applies from
 * @rule:	the rule
 * @buf:	destination, e.g. "6.17 (also 6.15.10, 6.16.1)"
 * @len:	its size (64 is enough)
 *
 * Return: @buf.
 */
char *awr_kernel_rule_since(enum awr_kernel_rule rule, char *buf, size_t len);

/**
 * awr_kernel_nr_ranges() - how many release ranges the derivations know
 *
 * Return: the count (6.11-6.12, 6.13-6.14, 6.15-6.16, 6.17, 6.18-6.19, 7.0+).
 */
unsigned int awr_kernel_nr_ranges(void);

/**
 * awr_kernel_range() - one release range
 * @i:	index below awr_kernel_nr_ranges()
 *
 * Return: the range (static), or NULL out of range.
 */
const struct awr_kernel_range *awr_kernel_range(unsigned int i);

/**
 * awr_kernel_range_of() - the range a release falls in
 * @kernel:	AWR_KERNEL() value
 *
 * Return: its index, or -1 for a release before 6.11.
 */
int awr_kernel_range_of(uint32_t kernel);

/* ------------------------------------------------------------------------ */
/* Limits and rule checking (decide)                                        */
/* ------------------------------------------------------------------------ */

/*
 * The limits that decide whether one write is atomic. A plain value type:
 * all sizes in bytes, 0 meaning "none" (boundary) or "unsupported" (unit_*).
 */
struct awr_limits {
	bool supported;		/* the kernel accepts RWF_ATOMIC on this target */
	uint32_t unit_min;	/* smallest atomic write, power of two */
	uint32_t unit_max;	/* largest atomic write, power of two */
	uint32_t max_bytes;	/* device maximum (may exceed unit_max); 0 unknown */
	uint32_t boundary;	/* no atomic write may cross a multiple of it; 0 none */
	uint32_t segments_max;	/* iovecs per atomic write (1 today) */
	uint32_t unit_max_opt;	/* writes up to it take the fast (hardware) path; 0 no hint */
	uint32_t mem_align;	/* O_DIRECT buffer alignment; 0 unknown */
	uint32_t offset_align;	/* O_DIRECT offset alignment; 0 unknown */
	uint64_t dev_size;	/* block device size in bytes; 0 for files or unknown */
	uint32_t flags;		/* AWR_LIMITS_* */
	uint32_t kernel;	/* AWR_KERNEL() whose rules awr_check() follows; 0 the running one */
	uint32_t reserved[4];
};

/* struct awr_limits flags */
#define AWR_LIMITS_FILE	(1U << 0)	/* a filesystem's file: the size range is checked first */
#define AWR_LIMITS_READ_ONLY	(1U << 1)	/* a read-only block device: writes get -EPERM */

/* Which rule a planned atomic write breaks. */
enum awr_rule {
	AWR_RULE_OK = 0,
	AWR_RULE_UNSUPPORTED,		/* target has no atomic support: -EOPNOTSUPP */
	AWR_RULE_NOT_WRITABLE,		/* fd not opened for writing: -EBADF */
	AWR_RULE_SEGMENTS,		/* more iovecs than segments_max: -EINVAL */
	AWR_RULE_NOT_POWER_OF_TWO,	/* length not a power of two: -EINVAL */
	AWR_RULE_MISALIGNED,		/* offset not a multiple of length: -EINVAL */
	AWR_RULE_NOT_DIRECT,		/* fd not O_DIRECT: -EOPNOTSUPP */
	AWR_RULE_TOO_SMALL,		/* length < unit_min: -EINVAL */
	AWR_RULE_TOO_LARGE,		/* length > unit_max: -EINVAL */
	AWR_RULE_CROSSES_BOUNDARY,	/* write crosses the atomic boundary: -EINVAL */
	AWR_RULE_BUFFER_ALIGNMENT,	/* buffer not aligned for O_DIRECT: -EINVAL */
	AWR_RULE_PAST_END,		/* write ends past the end of the device: -EINVAL */
	AWR_RULE_DEVICE_LIMIT,		/* beyond the device's own atomic limits (passthrough): -EINVAL */
	AWR_RULE_DEVICE_ERROR,		/* the device refused the command (status/sense): -EIO */
	AWR_RULE_BEYOND_END,		/* write starts at or past the end of the device: -ENOSPC */
	AWR_RULE_OFFSET_RANGE,		/* offset + length beyond the largest file offset: -EINVAL */
	AWR_RULE_READ_ONLY,		/* a read-only block device: -EPERM */
	AWR_RULE__COUNT
};

/* The verdict of a check: the rule, the errno the kernel gives, a sentence. */
struct awr_verdict {
	enum awr_rule rule;
	int error;		/* 0 or the negative errno the kernel returns */
	char message[192];	/* "offset 4096 is not a multiple of the length 16384" */
};

/* A planned write, as the kernel will see it. */
struct awr_write_plan {
	uint64_t offset;
	uint64_t length;
	const void *buf;	/* NULL: buffer alignment not checked */
	unsigned int nr_segs;	/* iovecs; 0 means 1 */
	int open_flags;		/* fcntl(F_GETFL) of the fd, or -1: not checked */
};

/**
 * awr_check() - check one planned atomic write against limits
 * @lim:	the target's limits (from a probe or awr_file_limits())
 * @plan:	the write
 * @v:		optional; filled with the rule broken and a sentence with numbers
 *
 * Rules are checked in the kernel's order, so the result predicts its errno.
 *
 * Return: 0 when the write is atomic, else the negative errno the kernel
 * would return (-EINVAL, -EOPNOTSUPP or -EBADF).
 */
int awr_check(const struct awr_limits *lim, const struct awr_write_plan *plan,
	      struct awr_verdict *v);

/**
 * awr_rule_name() - stable snake_case name of a rule ("misaligned")
 * @rule:	the rule
 *
 * Return: a static string; "unknown" for values out of range.
 */
const char *awr_rule_name(enum awr_rule rule);

/**
 * awr_rule_errno() - the negative errno the kernel returns for a rule
 * @rule:	the rule
 *
 * Return: 0 for AWR_RULE_OK, else -EINVAL, -EOPNOTSUPP, -EBADF, -ENOSPC, or -EIO
 * (AWR_RULE_DEVICE_ERROR: a passthrough command failed on the device).
 */
int awr_rule_errno(enum awr_rule rule);

/* ------------------------------------------------------------------------ */
/* Discovery (discover)                                                     */
/* ------------------------------------------------------------------------ */

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
	uint32_t part_align;		/* what the running kernel checks the start against: max(unit_min,
					 * boundary); from 6.14 (6.13.2) hw_unit_min for unit_min, when a
					 * device view gives it (sysfs shows the capped unit_min only) */
	enum awr_write_cache write_cache;	/* queue/write_cache of @disk: volatile or not */
	enum awr_fua fua;		/* queue/fua of @disk: FUA writes native or emulated */
	uint32_t reserved[4];
};

/* One explained disagreement or noteworthy fact. */
enum awr_severity {
	AWR_SEV_INFO = 0,
	AWR_SEV_WARN,
	AWR_SEV_ERROR,
};

struct awr_finding {
	const char *id;			/* stable snake_case id, e.g. "partition_misaligned" */
	enum awr_severity severity;
	char message[256];		/* one sentence with the numbers */
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
 * awr_set_sysfs_root() - read sysfs below another root (for tests)
 * @root:	a directory standing for /sys, or NULL for the default
 *
 * The environment variable AWR_SYSFS_ROOT (read with secure_getenv) does the
 * same for programs. The setting is process-wide.
 */
void awr_set_sysfs_root(const char *root);

/**
 * awr_sysfs_lookup() - read the sysfs view of a block device number
 * @major:	device major
 * @minor:	device minor
 * @out:	filled on success
 *
 * Return: 0, -ENOENT when no such device is in sysfs, other negative errno.
 */
int awr_sysfs_lookup(unsigned int major, unsigned int minor, struct awr_sysfs_view *out);

/* One block device of the machine (awr_blockdev_list()). */
struct awr_blockdev {
	char name[64];			/* "nvme0n1", "sda", "loop0" */
	char model[64];			/* device/model, "" when none */
	char transport[16];		/* "nvme", "scsi", "virtio", "loop", "dm", "md", "virtual", ... */
	unsigned int major, minor;
	struct awr_sysfs_view sysfs;	/* the disk's queue limits */
	unsigned int nr_parts;
	struct awr_sysfs_view *parts;	/* partitions by start: ->partition, ->part_start, ->part_aligned */
	char holders[256];		/* holders of the disk and its partitions: "dm-0 md127" */
	char mounts[1024];		/* "NAME:MOUNTPOINT(FSTYPE)" of the disk and its partitions */
	int32_t awupf;			/* NVMe AWUPF (0's based), -1 unknown */
	int32_t nawupf;			/* NVMe NAWUPF when NSFEAT bit 1 is set, -1 otherwise */
	int64_t scsi_matl;		/* SCSI MAXIMUM ATOMIC TRANSFER LENGTH (blocks), -1 unknown */
	char provider[8];		/* a cloud provider's own statement read ("AWS"), "" none */
	uint32_t provider_unit;		/* its bytes (awr_device_provider()): unit, granularity, */
	uint32_t provider_granularity;	/* boundary (0 none) */
	uint32_t provider_boundary;
	uint32_t reserved[3];
};

/**
 * awr_blockdev_list() - every block device of the machine with its atomic limits
 * @out:	the list, sorted by name; free with awr_blockdev_list_free()
 * @nr:		its length
 *
 * Each disk of sysfs /sys/block (below awr_set_sysfs_root()): its queue
 * limits, partitions and whether each is aligned, holders (dm, md),
 * mounted filesystems (/proc/self/mountinfo), and for NVMe and SCSI disks
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
 * Return: "atomic" (more than one block), "single-block", "none" (unit_max
 * 0), "misaligned" (atomic, but a partition starts off the atomic alignment)
 * or "unknown" (a kernel without the sysfs attributes, before 6.11).
 */
const char *awr_blockdev_verdict(const struct awr_blockdev *b);

/* ------------------------------------------------------------------------ */
/* Writing (write): an open target with its limits, synchronous engine      */
/* ------------------------------------------------------------------------ */

struct awr_file;

/* awr_file_open() flags */
#define AWR_OPEN_DSYNC		(1U << 0)	/* open O_DSYNC: every write durable */
#define AWR_OPEN_BUFFERED	(1U << 1)	/* do not open O_DIRECT (tests only: atomic writes then fail) */
#define AWR_OPEN_READONLY	(1U << 2)	/* open read-only */

/* awr_pwrite() flags */
#define AWR_WRITE_DSYNC		(1U << 0)	/* RWF_DSYNC: durable when it returns */
#define AWR_WRITE_NOCHECK	(1U << 1)	/* skip the rule check (tests: let the kernel judge) */

/**
 * awr_file_open() - open a file or block device for atomic writes
 * @path:	the target
 * @flags:	AWR_OPEN_* flags
 * @out:	the new handle, closed with awr_file_close()
 *
 * Opens O_RDWR | O_DIRECT (| O_DSYNC) and probes its limits once.
 * It does not check whether the target is in use: a tool opens with
 * awr_target_open() and hands the descriptor to awr_file_adopt().
 *
 * Return: 0 or a negative errno.
 */
int awr_file_open(const char *path, unsigned int flags, struct awr_file **out);

/**
 * awr_file_from_fd() - wrap an open descriptor (not closed by awr_file_close())
 * @fd:		the descriptor
 * @out:	the new handle
 *
 * Return: 0 or a negative errno.
 */
int awr_file_from_fd(int fd, struct awr_file **out);

/**
 * awr_file_adopt() - like awr_file_from_fd(), but the handle owns @fd
 * @fd:		an open descriptor, e.g. from awr_target_open(); closed by
 *		awr_file_close(), also when this call fails
 * @out:	the new handle
 *
 * Return: 0 or a negative errno.
 */
int awr_file_adopt(int fd, struct awr_file **out);

/**
 * awr_file_close() - close the handle (and the fd when it opened it)
 * @f:	the handle, may be NULL
 */
void awr_file_close(struct awr_file *f);

/**
 * awr_file_fd() - the descriptor
 * @f:	the handle
 *
 * Return: the fd.
 */
int awr_file_fd(const struct awr_file *f);

/**
 * awr_file_limits() - the effective limits found at open
 * @f:	the handle
 *
 * Return: the limits.
 */
const struct awr_limits *awr_file_limits(const struct awr_file *f);

/**
 * awr_file_probe() - the probe made at open
 * @f:	the handle
 *
 * Return: the probe, owned by @f.
 */
const struct awr_probe *awr_file_probe(const struct awr_file *f);

/**
 * awr_file_check() - check one write against the handle's limits and fd
 * @f:		the handle
 * @buf:	the buffer (alignment is checked)
 * @len:	length
 * @offset:	file offset
 * @v:		optional verdict
 *
 * Return: 0 or the negative errno the kernel would give.
 */
int awr_file_check(const struct awr_file *f, const void *buf, size_t len,
		   uint64_t offset, struct awr_verdict *v);

/**
 * awr_pwrite() - one synchronous atomic write (pwritev2 with RWF_ATOMIC)
 * @f:		the handle
 * @buf:	data, aligned to the limits' mem_align
 * @len:	length, a power of two within [unit_min, unit_max]
 * @offset:	a multiple of @len
 * @flags:	AWR_WRITE_* flags
 * @v:		optional verdict, filled when a rule is broken before the syscall
 *
 * The write is refused before the syscall when a rule is broken.
 *
 * Return: bytes written (always @len), or a negative errno.
 */
ssize_t awr_pwrite(struct awr_file *f, const void *buf, size_t len, uint64_t offset,
		   unsigned int flags, struct awr_verdict *v);

/**
 * awr_pwrite_raw() - pwritev2 with RWF_ATOMIC on any fd, no checks
 * @fd:		the descriptor
 * @iov:	the iovecs (struct iovec *)
 * @iovcnt:	their number
 * @offset:	file offset
 * @flags:	AWR_WRITE_* flags
 *
 * For tests and tools that want the kernel's own answer.
 *
 * Return: bytes written or a negative errno.
 */
ssize_t awr_pwrite_raw(int fd, const void *iov, int iovcnt, uint64_t offset, unsigned int flags);

/* ------------------------------------------------------------------------ */
/* Target safety (prepare)                                                  */
/* ------------------------------------------------------------------------ */

/* Why a target must not be written without --force. */
#define AWR_UNSAFE_MOUNTED	(1U << 0)	/* it or a partition is mounted */
#define AWR_UNSAFE_BUSY		(1U << 1)	/* opened exclusively elsewhere / has holders */
#define AWR_UNSAFE_SIGNATURE	(1U << 2)	/* holds a filesystem, RAID, LVM or swap signature */
#define AWR_UNSAFE_PTABLE	(1U << 3)	/* holds a partition table */
#define AWR_UNSAFE_DATA		(1U << 4)	/* a regular file that holds data */
#define AWR_UNSAFE_LOOP		(1U << 5)	/* a regular file that backs a loop device */
#define AWR_UNSAFE_SYMLINK	(1U << 6)	/* a symbolic link to something else than a block device */
#define AWR_UNSAFE_TYPE		(1U << 7)	/* neither a regular file nor a block device (never forced) */

struct awr_safety {
	unsigned int reasons;		/* AWR_UNSAFE_* bits; 0 = safe to write */
	bool is_block_device;
	char detail[256];		/* "mounted on /mnt/x", "xfs signature", ... */
	bool created;			/* awr_target_open() made the file (AWR_TARGET_CREATE); in what was
					 * padding: the struct's size is that of 0.x before it */
};

/**
 * awr_target_safety() - would writing to @path destroy something?
 * @path:	the target
 * @out:	filled with the reasons found
 *
 * Regular files are always safe (reasons 0). A block device is unsafe when it
 * or one of its partitions is mounted, it is held or opened exclusively, or it
 * carries a filesystem/RAID/swap signature or a partition table (libblkid).
 *
 * Return: 0 when examined (see @out->reasons), else a negative errno.
 */
int awr_target_safety(const char *path, struct awr_safety *out);

/* awr_target_open() flags */
#define AWR_TARGET_CREATE	(1U << 0)	/* create a missing regular file (O_CREAT | O_EXCL) */
#define AWR_TARGET_FORCE	(1U << 1)	/* open even when in use, formatted or holding data */
#define AWR_TARGET_KEEP_DATA	(1U << 2)	/* a regular file holding data is fine: the caller writes only a named range */

/**
 * awr_target_open() - open a write target once, safely, and keep it
 * @path:	a regular file or a block device
 * @oflags:	O_RDONLY, O_WRONLY or O_RDWR, optionally with O_DIRECT, O_DSYNC, O_SYNC
 * @flags:	AWR_TARGET_* flags
 * @why:	filled with every reason found (may be NULL)
 *
 * The one open that a writing tool uses. A block device is opened with O_EXCL
 * (so nothing can mount, claim or exclusively open it while the descriptor is
 * held); a new file is created with O_CREAT | O_EXCL; O_NOFOLLOW always (a
 * symlink is followed only to a block device, as /dev/disk/by-id links are).
 * Then every check runs on that descriptor: a block device mounted (it or a
 * partition, from mountinfo by device number), held, swapped on, or carrying
 * a signature or a partition table; a regular file that backs a loop device,
 * is an active swap file, holds data, or is locked for writing by another
 * program (an open-file-description write lock is taken and kept). Mounts and
 * holders are read from the real /sys, whatever awr_set_sysfs_root() says.
 *
 * Return: the descriptor (close it when done), or -EBUSY (in use), -EEXIST
 * (a file holding data), -EINVAL (not a regular file or block device, or bad
 * arguments), -ELOOP (a symlink) or another negative errno, with @why saying
 * what was found. With AWR_TARGET_FORCE only the type and open errors refuse.
 */
int awr_target_open(const char *path, int oflags, unsigned int flags, struct awr_safety *why);

/* --- device views (NVMe / SCSI) ----------------------------------------- */

/*
 * The device's own description of its atomic writes (NVMe Identify, SCSI
 * Block Limits VPD), decoded raw, and the limits the Linux driver and block
 * layer derive from it. Dumps saved by `nvme id-ctrl -b`, `nvme id-ns -b`
 * and `sg_vpd -p bl -r` decode the same way as a live device.
 */

#define AWR_NVME_ID_SIZE	4096	/* Identify Controller / Namespace data */
#define AWR_SCSI_VPD_BL_ATOMIC_LEN 0x3C	/* page length carrying the atomic fields */

/* NVMe identify fields that matter for atomic writes, as the device reports them. */
struct awr_nvme_id {
	bool have_ctrl;		/* Identify Controller decoded */
	bool have_ns;		/* Identify Namespace decoded */
	bool have_dn;		/* feature 0Ah (Write Atomicity Normal) was read */
	bool dn;		/* its DN bit: only (N)AWUPF honoured */
	uint8_t mdts;		/* max data transfer size, 2^n min pages; 0 none */
	uint16_t awun;		/* 0's based, logical blocks */
	uint16_t awupf;		/* 0's based */
	uint16_t acwu;		/* 0's based */
	uint32_t nsid;		/* namespace id, 0 when unknown */
	uint64_t nsze;		/* namespace size in logical blocks */
	uint8_t nsfeat;		/* bit 1: NAWUN/NAWUPF/NACWU valid */
	uint8_t nlbaf;		/* number of LBA formats, 0's based */
	uint8_t flbas;		/* formatted LBA size field as reported */
	uint8_t lbaf_index;	/* LBA format in use (FLBAS bits 3:0 and 6:5) */
	uint8_t lbads;		/* log2 of the block size of that format */
	uint16_t lba_ms;	/* metadata bytes per block of that format */
	uint16_t nawun, nawupf, nacwu;	/* 0's based */
	uint16_t nabsn;		/* 0 none, else 0's based */
	uint16_t nabo;		/* LBA of the first boundary, not 0's based */
	uint16_t nabspf;	/* 0 none, else 0's based */
	uint16_t noiob;		/* optimal I/O boundary in blocks, 0 none */
	uint32_t lba_size;	/* 1 << lbads in bytes, 0 when the namespace is unknown */
	uint16_t vid;		/* PCI vendor ID, Identify Controller bytes 1:0 */
	uint8_t model;		/* AWR_NVME_MODEL_*: the model (MN, bytes 63:24) recognised */
	uint8_t vendor_have;	/* AWR_NVME_HAVE_*: which of vid, model, ntwp* were read */
	uint16_t ntwpu, ntwpg;	/* Amazon's namespace vendor bytes 256:257, 258:259, 0's based */
	uint32_t ntwpb;		/* 260:263: 0 no boundary, else 0's based */
	uint32_t reserved[5];
};

/* awr_nvme_id.model: controllers whose provider states a guarantee (awr_device_provider()) */
#define AWR_NVME_MODEL_OTHER		0	/* another model, or not known */
#define AWR_NVME_MODEL_AWS_EBS		1	/* "Amazon Elastic Block Store" */
#define AWR_NVME_MODEL_AWS_INSTANCE	2	/* "Amazon EC2 NVMe Instance Storage" */
#define AWR_NVME_MODEL_AZURE		3	/* "MSFT NVMe Accelerator", "Microsoft NVMe Direct" */
#define AWR_NVME_MODEL_GCP		4	/* "nvme_card", "nvme_card-pd" (Google) */

/* awr_nvme_id.vendor_have */
#define AWR_NVME_HAVE_VID	(1U << 0)
#define AWR_NVME_HAVE_MODEL	(1U << 1)
#define AWR_NVME_HAVE_NTWP	(1U << 2)	/* the namespace's vendor bytes 256:263 */
#define AWR_NVME_VID_AMAZON	0x1d0f

/* SCSI Block Limits VPD (B0h) atomic fields and block sizes. */
struct awr_scsi_id {
	bool have_vpd;			/* a Block Limits page was decoded */
	bool vpd_has_atomic;		/* page length >= 0x3C: atomic fields present */
	uint16_t vpd_page_length;	/* PAGE LENGTH (bytes 2-3) */
	uint32_t max_transfer_length;	/* bytes 8-11, blocks, 0 none */
	uint32_t max_atomic_transfer_length;		/* bytes 44-47, blocks */
	uint32_t atomic_alignment;			/* bytes 48-51, blocks, 0 none */
	uint32_t atomic_granularity;			/* bytes 52-55, blocks, 0 none */
	uint32_t max_atomic_transfer_length_with_boundary;/* bytes 56-59, blocks */
	uint32_t max_atomic_boundary_size;		/* bytes 60-63, blocks */
	uint32_t logical_block_size;	/* bytes, 0 unknown */
	uint32_t physical_block_size;	/* bytes, 0 unknown */
	bool have_capacity;		/* READ CAPACITY(16) decoded */
	bool prot_en;			/* its PROT_EN bit */
	uint8_t p_type;			/* its P_TYPE (PI type = p_type + 1 when prot_en) */
	uint64_t nr_blocks;		/* logical blocks, 0 unknown */
	int write_atomic16;		/* WRITE ATOMIC(16): 1 supported, 0 not, -1 unknown */
	uint32_t reserved[8];
};

/* Inputs of the block layer's caps; 0 = unknown (then the caps are skipped). */
struct awr_queue_caps {
	uint32_t max_segments;		/* queue/max_segments */
	uint64_t max_hw_bytes;		/* queue/max_hw_sectors_kb * 1024 */
	uint32_t page_size;		/* 0: the system's page size */
	uint64_t chunk_bytes;		/* queue/chunk_sectors * 512; 0: none (NVMe: from NOIOB) */
};

/* Limits derived the kernel's way, in bytes; 0 = unsupported / none. */
struct awr_device_limits {
	bool supported;		/* the block layer keeps atomic writes on */
	bool capped;		/* the block layer's caps were applied */
	uint32_t hw_max;	/* what the driver sets: atomic_write_hw_max */
	uint32_t hw_unit_min;
	uint32_t hw_unit_max;
	uint32_t hw_boundary;
	uint32_t unit_min;	/* what sysfs should say */
	uint32_t unit_max;
	uint32_t max_bytes;
	uint32_t boundary;
	uint32_t reserved[6];
};

/* awr_nvme_derive() flags */
#define AWR_NVME_IGNORE_AWUPF	(1U << 0)	/* kernels with "nvme: stop using AWUPF" */

enum awr_device_type {
	AWR_DEVICE_NONE = 0,
	AWR_DEVICE_NVME,
	AWR_DEVICE_SCSI,
};

struct awr_device;

/**
 * awr_dump_parse() - turn a saved dump (binary or hex text) into bytes
 * @data:	the file's content
 * @len:	its length
 * @out:	destination
 * @cap:	size of @out
 *
 * Text made only of printable characters and whitespace is read as hex:
 * plain pairs, optional "0x", offsets such as "0000:" (nvme-cli, xxd),
 * hexdump -C (with "*" for repeated lines) and sg_vpd -H; ASCII columns are
 * ignored. Anything else is taken as binary and copied.
 *
 * Return: the number of bytes, -EINVAL for malformed text (bad digit, odd
 * digit count, offsets out of order), -EOVERFLOW when it exceeds @cap.
 */
ssize_t awr_dump_parse(const void *data, size_t len, void *out, size_t cap);

/**
 * awr_nvme_decode_ctrl() - decode Identify Controller data
 * @buf:	the data (little-endian, as the device returns it)
 * @len:	its length; at least 534 bytes (through ACWU), normally 4096
 * @id:		the controller fields are filled, others kept
 *
 * Return: 0, -EINVAL for a NULL pointer, -EMSGSIZE when @len is too short.
 */
int awr_nvme_decode_ctrl(const void *buf, size_t len, struct awr_nvme_id *id);

/**
 * awr_nvme_decode_ns() - decode Identify Namespace data
 * @buf:	the data
 * @len:	its length; 4096 (a shorter namespace page is an error)
 * @id:		the namespace fields are filled, others kept
 *
 * The LBA format in use is FLBAS bits 3:0, plus bits 6:5 as the high bits
 * when NLBAF >= 16; it must not exceed NLBAF and its LBADS must be 9..31.
 *
 * Return: 0, -EINVAL for a NULL pointer or an invalid LBA format,
 * -EMSGSIZE when @len is below 4096.
 */
int awr_nvme_decode_ns(const void *buf, size_t len, struct awr_nvme_id *id);

/**
 * awr_scsi_decode_bl_vpd() - decode a Block Limits VPD page (B0h)
 * @buf:	the page from byte 0 (peripheral byte, page code, page length)
 * @len:	bytes available
 * @id:		the VPD fields are filled, others kept
 *
 * Fields beyond the page length (or @len) are left 0; a page length below
 * 0x3C leaves ->vpd_has_atomic false.
 *
 * Return: 0, -EINVAL when it is not page B0h or is NULL, -EMSGSIZE when
 * shorter than its 4-byte header.
 */
int awr_scsi_decode_bl_vpd(const void *buf, size_t len, struct awr_scsi_id *id);

/**
 * awr_nvme_derive() - the limits Linux derives from NVMe identify data
 * @id:		decoded identify data (controller and namespace)
 * @flags:	AWR_NVME_* flags
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the result
 *
 * The driver's rule (nvme_configure_atomic_write), then the block layer's
 * validation and caps. A pure function.
 *
 * Return: 0, -EINVAL when @id lacks the namespace or a block size.
 */
int awr_nvme_derive(const struct awr_nvme_id *id, unsigned int flags,
		    const struct awr_queue_caps *caps, struct awr_device_limits *out);

/**
 * awr_scsi_derive() - the limits Linux derives from SCSI Block Limits VPD
 * @id:		decoded VPD and block sizes
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the result
 *
 * The sd driver's rule (sd_config_atomic), then the block layer's validation
 * and caps. A pure function.
 *
 * Return: 0, -EINVAL when the logical block size is unknown.
 */
int awr_scsi_derive(const struct awr_scsi_id *id, const struct awr_queue_caps *caps,
		    struct awr_device_limits *out);

/**
 * awr_device_from_nvme() - a device view from decoded NVMe identify data
 * @id:		the identify fields (copied)
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the new view, freed with awr_device_free()
 *
 * Derives the limits both ways (with and without AWUPF) and the findings.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int awr_device_from_nvme(const struct awr_nvme_id *id, const struct awr_queue_caps *caps,
			 struct awr_device **out);

/**
 * awr_device_from_scsi() - a device view from decoded SCSI data
 * @id:		the VPD and block size fields (copied)
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the new view
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int awr_device_from_scsi(const struct awr_scsi_id *id, const struct awr_queue_caps *caps,
			 struct awr_device **out);

/**
 * awr_device_open() - read the device view of an NVMe or SCSI device
 * @path:	/dev/nvmeX, /dev/nvmeXnY[pZ], /dev/ngXnY, /dev/sdX[N] or /dev/sgN
 * @out:	the new view
 *
 * Identify (libnvme) or INQUIRY VPD B0h, READ CAPACITY(16) and REPORT
 * SUPPORTED OPERATION CODES (libsgutils2). A partition maps to its disk.
 * The block layer caps come from the disk's sysfs when it has one.
 *
 * Return: 0, -ENODEV when @path is neither NVMe nor SCSI, -EIO when the
 * device answered with an error, other negative errno.
 */
int awr_device_open(const char *path, struct awr_device **out);

/**
 * awr_device_free() - free a device view
 * @d:	the view, may be NULL
 */
void awr_device_free(struct awr_device *d);

/**
 * awr_device_type() - which kind of device the view describes
 * @d:	the view
 *
 * Return: AWR_DEVICE_NVME or AWR_DEVICE_SCSI.
 */
enum awr_device_type awr_device_type(const struct awr_device *d);

/**
 * awr_device_name() - the device node the data came from
 * @d:	the view
 *
 * Return: "nvme0n1", "ng0n1", "sg0", ..., or "" for decoded dumps.
 */
const char *awr_device_name(const struct awr_device *d);

/**
 * awr_device_disk() - the block disk of the device (for sysfs and read-back)
 * @d:	the view
 *
 * Return: "nvme0n1", "sda", ..., or "" when it has none or for dumps.
 */
const char *awr_device_disk(const struct awr_device *d);

/**
 * awr_device_nvme() - the NVMe identify fields
 * @d:	the view
 *
 * Return: the fields, or NULL for a SCSI view.
 */
const struct awr_nvme_id *awr_device_nvme(const struct awr_device *d);

/**
 * awr_device_scsi() - the SCSI fields
 * @d:	the view
 *
 * Return: the fields, or NULL for an NVMe view.
 */
const struct awr_scsi_id *awr_device_scsi(const struct awr_device *d);

/**
 * awr_device_derived() - the limits the kernel derives
 * @d:	the view
 *
 * For NVMe this is the interpretation that uses AWUPF (Linux up to 6.18);
 * see awr_device_derived_alt().
 *
 * Return: the limits; ->supported false when Linux turns atomics off.
 */
const struct awr_device_limits *awr_device_derived(const struct awr_device *d);

/**
 * awr_device_derived_alt() - the other interpretation, when there is one
 * @d:	the view
 *
 * Return: for NVMe whose namespace gives no NAWUPF, the limits of kernels
 * that ignore AWUPF (one logical block); NULL otherwise.
 */
const struct awr_device_limits *awr_device_derived_alt(const struct awr_device *d);

/**
 * awr_device_caps() - the block layer caps' inputs used
 * @d:	the view
 *
 * Return: the caps; fields 0 when unknown.
 */
const struct awr_queue_caps *awr_device_caps(const struct awr_device *d);

/**
 * awr_device_nr_findings() - number of findings about the device's data
 * @d:	the view
 *
 * Return: the count.
 */
unsigned int awr_device_nr_findings(const struct awr_device *d);

/**
 * awr_device_finding() - one finding
 * @d:	the view
 * @i:	index below awr_device_nr_findings()
 *
 * Return: the finding, or NULL when @i is out of range.
 */
const struct awr_finding *awr_device_finding(const struct awr_device *d, unsigned int i);

/**
 * awr_nvme_derive_kernel() - the limits a given kernel derives from NVMe identify data
 * @id:		decoded identify data
 * @kernel:	AWR_KERNEL() of the release, 0 for the running one
 * @caps:	block layer caps' inputs (and chunk_sectors), or NULL when unknown
 * @out:	the result
 *
 * nvme_configure_atomic_write() of that release (AWUPF used before 7.0,
 * ignored from 7.0), chunk_sectors from @caps or else from NOIOB, then the
 * block layer's validation of that release (see awr_kernel_has()).
 *
 * Return: 0, -EINVAL without namespace data, -ENODATA when AWUPF is needed
 * and no controller data was decoded.
 */
int awr_nvme_derive_kernel(const struct awr_nvme_id *id, uint32_t kernel,
			   const struct awr_queue_caps *caps, struct awr_device_limits *out);

/**
 * awr_scsi_derive_kernel() - the limits a given kernel derives from SCSI Block Limits VPD
 * @id:		decoded VPD and block sizes
 * @kernel:	AWR_KERNEL() of the release, 0 for the running one
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the result
 *
 * Return: 0, -EINVAL when the logical block size is unknown.
 */
int awr_scsi_derive_kernel(const struct awr_scsi_id *id, uint32_t kernel,
			   const struct awr_queue_caps *caps, struct awr_device_limits *out);

/**
 * awr_device_set_kernel() - answer for another kernel release
 * @d:		the view
 * @kernel:	AWR_KERNEL() of the release, 0 for the running one (the default)
 *
 * Derives the view's limits and findings again for that release.
 *
 * Return: 0, -EINVAL for a release below 2.0.
 */
int awr_device_set_kernel(struct awr_device *d, uint32_t kernel);

/**
 * awr_device_kernel() - the release awr_device_derived_kernel() answers for
 * @d:	the view
 *
 * Return: AWR_KERNEL() of it.
 */
uint32_t awr_device_kernel(const struct awr_device *d);

/**
 * awr_device_derived_kernel() - the limits the view's kernel derives
 * @d:	the view
 *
 * The running kernel's answer unless awr_device_set_kernel() chose another.
 *
 * Return: the limits (all 0 when the data does not allow a derivation).
 */
const struct awr_device_limits *awr_device_derived_kernel(const struct awr_device *d);

/**
 * awr_device_chunk_bytes() - the chunk_sectors the derivation applied
 * @d:	the view
 *
 * From the disk's sysfs queue/chunk_sectors, or for NVMe without it from
 * NOIOB (in 512-byte sectors, when a power of two: nvme_set_chunk_sectors).
 *
 * Return: bytes, 0 for none.
 */
uint64_t awr_device_chunk_bytes(const struct awr_device *d);

/**
 * awr_device_nr_kernel_ranges() - release ranges whose answer differs
 * @d:	the view
 *
 * Return: how many ranges of awr_kernel_range() derive other limits than
 * awr_device_derived_kernel() (neighbours with one answer merged).
 */
unsigned int awr_device_nr_kernel_ranges(const struct awr_device *d);

/**
 * awr_device_kernel_range() - one differing range
 * @d:		the view
 * @i:		index below awr_device_nr_kernel_ranges()
 * @label:	optional; set to the releases, "6.11-6.19", "7.0+"
 *
 * Return: the limits derived there, or NULL out of range.
 */
const struct awr_device_limits *awr_device_kernel_range(const struct awr_device *d, unsigned int i,
							const char **label);

/* --- stacked devices (dm, md, NVMe multipath heads) ------------------------ */

#define AWR_STACK_MAX_LEGS	16

/* One leg of a stacked device, as its sysfs shows it. A plain value type. */
struct awr_stack_leg {
	char name[64];			/* "loop0", "sda1", "nvme0c0n1" */
	bool has_atomic_attrs;		/* its queue/ has atomic_write_* (6.11+) */
	uint32_t unit_min, unit_max;	/* its queue/atomic_write_unit_{min,max}_bytes */
	uint32_t max_bytes, boundary;	/* its queue/atomic_write_{max,boundary}_bytes */
	uint32_t logical_block_size;
	uint64_t start;			/* where the stacked data starts in it (partition, table, md offset) */
	uint32_t reserved[4];
};

/* A stacked device, its legs and what the kernel stacks from them. A plain value type. */
struct awr_stack_view {
	char type[24];			/* dm-linear, dm-stripe, dm-mirror, dm (table unread), md-raid0/1/10, nvme-multipath */
	char disk[64];			/* "dm-0", "md0", "nvme0n1" */
	unsigned int nr_legs;
	struct awr_stack_leg legs[AWR_STACK_MAX_LEGS];
	uint64_t chunk_bytes;		/* stripe chunk (md chunk_size, dm-stripe table), 0 none */
	bool table_read;		/* dm: the table was read (DM_TABLE_STATUS, needs CAP_SYS_ADMIN) */
	uint32_t kernel;		/* AWR_KERNEL() the result follows */
	bool kernel_stacks;		/* that release stacks this type's atomic limits */
	struct awr_device_limits derived;	/* the stacked result, as sysfs of @disk should read */
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

/* --- what users have in hand: nvme-cli and sg3_utils output, dumps ------ */

/*
 * An input record collects the atomic-write facts of one device from any
 * number of pieces: nvme-cli `id-ctrl` / `id-ns` output (normal, -H,
 * -o json), sg3_utils `sg_vpd -p bl` and `sg_readcap` text, and binary or
 * hex Identify / VPD dumps. The format is recognised, never told. Fields the
 * pieces lack stay unknown (->have) and are named by awr_input_device().
 */

/* awr_input.formats: what was recognised */
#define AWR_INPUT_NVME_TEXT	(1U << 0)	/* nvme id-ctrl / id-ns */
#define AWR_INPUT_NVME_HUMAN	(1U << 1)	/* ... -H */
#define AWR_INPUT_NVME_JSON	(1U << 2)	/* ... -o json */
#define AWR_INPUT_SG_VPD	(1U << 3)	/* sg_vpd -p bl */
#define AWR_INPUT_SG_READCAP	(1U << 4)	/* sg_readcap [-l] */
#define AWR_INPUT_DUMP		(1U << 5)	/* binary or hex page (awr_dump_parse) */
#define AWR_INPUT_ELIDED	(1U << 6)	/* "[...]" or "..." lines: parts left out */

/* awr_input.have: bit (1ULL << field) per field read */
enum awr_input_field {
	AWR_IF_MDTS, AWR_IF_AWUN, AWR_IF_AWUPF, AWR_IF_ACWU,
	AWR_IF_NSZE, AWR_IF_NSFEAT, AWR_IF_NLBAF, AWR_IF_FLBAS,
	AWR_IF_NAWUN, AWR_IF_NAWUPF, AWR_IF_NACWU, AWR_IF_NABSN, AWR_IF_NABO, AWR_IF_NABSPF,
	AWR_IF_NOIOB,
	AWR_IF_LBAF,		/* the in-use LBA format's data size */
	AWR_IF_VPD_BL,		/* a Block Limits page */
	AWR_IF_MAX_XFER, AWR_IF_MATL, AWR_IF_ATOMIC_ALIGN, AWR_IF_ATOMIC_GRAN,
	AWR_IF_MATL_BNDRY, AWR_IF_MAX_BNDRY,
	AWR_IF_LBS, AWR_IF_PBS,	/* SCSI block sizes (sg_readcap) */
	AWR_IF_VID, AWR_IF_MODEL,	/* NVMe vid, mn (read, never assumed) */
	AWR_IF_NTWPU, AWR_IF_NTWPG, AWR_IF_NTWPB,	/* Amazon's (nvme id-ns -v, -b) */
	AWR_IF__COUNT
};

struct awr_input {
	unsigned int formats;		/* AWR_INPUT_* seen */
	uint64_t have;			/* fields read */
	struct awr_nvme_id nvme;	/* ->have_ctrl / ->have_ns when complete */
	struct awr_scsi_id scsi;
	uint32_t lbaf_size[64];		/* LBA format data sizes seen (bytes), 0 unknown */
	int lbaf_in_use;		/* index marked "(in use)", -1 none */
	uint32_t line;			/* the text line being read (1-based; 0 in JSON or dumps) */
	uint32_t conflict;		/* 1 + the AWR_IF_* field first given twice with two values */
	uint32_t conflict_line;		/* the line of its second value, 0 when not text */
	uint32_t conflict_first[2];	/* its first value (low, high 32 bits) */
	uint32_t conflict_second[2];	/* the contradicting value */
	uint32_t sn_hash;		/* the controller serial (sn) read, hashed; 0 none */
};

/**
 * awr_input_init() - an empty input record
 * @in:	the record
 */
void awr_input_init(struct awr_input *in);

/**
 * awr_input_add() - recognise one piece of input and add its fields
 * @buf:	the piece (a file's content), need not be NUL-terminated
 * @len:	its length
 * @in:		the record (awr_input_init() first); fields accumulate
 *
 * Text from nvme-cli (`id-ctrl`, `id-ns`: normal, -H, -o json; several in
 * one piece), `sg_vpd -p bl` and `sg_readcap` is read by its field names;
 * other content goes through awr_dump_parse() and is recognised as an
 * Identify Controller page, an Identify Namespace page or a Block Limits
 * VPD page. A field given twice with different values is an error.
 *
 * Return: 0, -ENOMSG when the piece is none of these, -EINVAL for a
 * malformed value or a conflict, -EMSGSIZE for a page too short.
 */
int awr_input_add(const void *buf, size_t len, struct awr_input *in);

/**
 * awr_input_field_name() - a field's name as the tools print it
 * @f:	the field
 *
 * Return: "AWUPF", "NSFEAT", "Maximum atomic transfer length", ...
 */
const char *awr_input_field_name(enum awr_input_field f);

/**
 * awr_input_device() - the device view of what the record holds
 * @in:		the record
 * @caps:	block layer caps' inputs, or NULL
 * @out:	the view (awr_device_free()), made with the missing fields
 *		assumed as @missing says
 * @missing:	receives "" when nothing needed was missing, else a sentence
 *		naming what is missing, the assumption made and the answer under
 *		it ("NSFEAT and the LBA format are missing: if the namespace uses
 *		the controller's fields and 4 KiB blocks, 256 KiB")
 * @len:	size of @missing
 *
 * Return: 0, -ENODATA when the record holds no NVMe or SCSI atomic field,
 * -EINVAL when it holds both, -ENOMEM.
 */
int awr_input_device(const struct awr_input *in, const struct awr_queue_caps *caps,
		     struct awr_device **out, char *missing, size_t len);

/**
 * awr_device_assumed() - the fields a view assumed instead of reading
 * @d:	the view
 *
 * A view made by awr_input_device() from a partial paste holds a value for
 * every field; those the input did not hold are assumed (0, or as @missing
 * said). No finding of the view states an assumed field as read.
 *
 * Return: a mask of (1 << AWR_IF_*) bits; 0 for a view read from a device or
 * from whole Identify / VPD pages.
 */
uint64_t awr_device_assumed(const struct awr_device *d);

/**
 * awr_input_split() - where the first reading of a transcript ends
 * @buf:	a piece of text (need not be NUL-terminated)
 * @len:	its length
 *
 * A shell transcript may hold readings of one device from before and after
 * `nvme format` (which can change AWUPF and the LBA format). A reading ends
 * with the line that runs `nvme format` or that nvme-cli answers with
 * "Success formatting namespace".
 *
 * Return: the length of the first reading (the piece up to and with that
 * line), @len when the piece holds no such line.
 */
size_t awr_input_split(const void *buf, size_t len);

/**
 * awr_input_update() - a later reading of the same device over an earlier one
 * @in:		the earlier reading; receives every field @later holds
 * @later:	the later reading
 *
 * Return: a mask of (1 << AWR_IF_*) bits: the fields both hold with
 * different values (what changed between the readings).
 */
uint64_t awr_input_update(struct awr_input *in, const struct awr_input *later);

/* A guarantee a cloud provider documents for its disks, beside what Linux derives. */
struct awr_provider_atomic {
	char provider[16];		/* "AWS", "Azure", "Google Cloud" */
	char known_by[96];		/* how the controller is known: PCI vendor, model */
	char source[128];		/* where the guarantee is read, or why it cannot be */
	bool readable;			/* the device itself publishes the guarantee */
	bool read;			/* ... and it was read: unit, granularity, boundary */
	uint32_t unit;			/* bytes: no write up to it is torn (NTWPU) */
	uint32_t granularity;		/* bytes: sizes are multiples, offsets aligned (NTWPG) */
	uint32_t boundary;		/* bytes: no guarantee across it (NTWPB), 0 none */
	uint32_t reserved[8];
};

/**
 * awr_device_provider() - the cloud provider's own statement about the device
 * @d:	the view
 *
 * Amazon (PCI vendor 0x1d0f; EBS and EC2 instance storage) publishes its
 * torn write prevention in the Identify Namespace vendor-specific data
 * (NTWPU, NTWPG, NTWPB), which Linux does not read; Azure's NVMe managed
 * disks report NAWUPF/NABSPF, which it does; Google's disks publish none.
 * The guarantee stands beside the kernel's derivation and never changes it.
 *
 * Return: the statement, or NULL when the controller is not known as a
 * cloud provider's.
 */
const struct awr_provider_atomic *awr_device_provider(const struct awr_device *d);

/* Passthrough writes: the device does not refuse a too-large write, so these check first. */

struct awr_nvme;
struct awr_scsi;

/* awr_nvme_write() / awr_scsi_write() flags */
#define AWR_PT_FUA		(1U << 0)	/* force unit access: durable on completion */
#define AWR_PT_NOCHECK		(1U << 1)	/* skip the library's checks (tests only) */

/**
 * awr_nvme_open() - open an NVMe namespace char device for passthrough writes
 * @path:	/dev/ngXnY (a /dev/nvmeXnY path is mapped to its ngXnY)
 * @flags:	0 or AWR_RING_SUBMIT_EACH (see awr_nvme_open_queue())
 * @out:	the handle, closed with awr_nvme_close()
 *
 * Reads the identify data and sets up an io_uring with SQE128 | CQE32 for
 * AWR_NVME_QUEUE_MAX commands in flight (awr_nvme_open_queue() with that depth).
 *
 * Return: 0, -ENODEV when it is not an NVMe namespace, -EINVAL when @path is a
 * partition (passthrough addresses the whole namespace), -EOPNOTSUPP when the
 * kernel lacks uring_cmd passthrough, other negative errno.
 */
int awr_nvme_open(const char *path, unsigned int flags, struct awr_nvme **out);

/**
 * awr_nvme_open_queue() - awr_nvme_open() with the queue settled at open
 * @path:	/dev/ngXnY (a /dev/nvmeXnY path is mapped to its ngXnY)
 * @depth:	commands in flight at most, 1 to AWR_NVME_QUEUE_MAX: the ring's
 *		size, the -EBUSY of awr_nvme_queue_write() and the depth the reaps
 *		are counted against (awr_nvme_stats() reaps_below_depth)
 * @flags:	0, or AWR_RING_SUBMIT_EACH: at a depth above 1 each command goes
 *		to the kernel as it is queued (one io_uring_enter() each), as the
 *		RWF_ATOMIC engine's ring does, instead of at the next reap
 * @out:	the handle, closed with awr_nvme_close()
 *
 * Return: as awr_nvme_open(); -EINVAL for a depth out of range or an unknown flag.
 */
int awr_nvme_open_queue(const char *path, unsigned int depth, unsigned int flags,
			struct awr_nvme **out);

/**
 * awr_nvme_close() - close the handle
 * @h:	the handle, may be NULL
 */
void awr_nvme_close(struct awr_nvme *h);

/**
 * awr_nvme_device() - the device view read at open
 * @h:	the handle
 *
 * Return: the view, owned by @h.
 */
const struct awr_device *awr_nvme_device(const struct awr_nvme *h);

/**
 * awr_nvme_check() - would the device write this atomically (power fail)?
 * @h:		the handle
 * @len:	bytes
 * @offset:	byte offset in the namespace
 * @v:		optional verdict
 *
 * The write must be whole blocks, within NAWUPF (or AWUPF) blocks, and must
 * not cross a NABSPF boundary (counted from NABO).
 *
 * Return: 0, or -EINVAL with the rule in @v.
 */
int awr_nvme_check(const struct awr_nvme *h, size_t len, uint64_t offset,
		   struct awr_verdict *v);

/**
 * awr_nvme_write() - one NVMe Write through io_uring uring_cmd
 * @h:		the handle
 * @buf:	data (4096-byte aligned is safest)
 * @len:	bytes, a multiple of the block size
 * @offset:	byte offset, a multiple of the block size
 * @flags:	AWR_PT_* flags
 * @v:		optional verdict, filled on a refusal or a device error
 *
 * Return: @len, -EINVAL when refused (nothing sent), -EIO when the device
 * returned an error status (in @v), other negative errno.
 */
ssize_t awr_nvme_write(struct awr_nvme *h, const void *buf, size_t len, uint64_t offset,
		       unsigned int flags, struct awr_verdict *v);

struct awr_completion;
struct awr_ring_stats;

/* Commands one NVMe handle keeps in flight at most (awr_nvme_queue_write()). */
#define AWR_NVME_QUEUE_MAX	64U

/**
 * awr_nvme_queue_write() - queue one NVMe Write; awr_nvme_reap() submits it
 * @h:		the handle
 * @buf:	@len bytes, unchanged until the write is reaped
 * @len:	bytes, a multiple of the block size
 * @offset:	byte offset on the namespace
 * @tag:	returned in the completion
 * @flags:	AWR_PT_*
 * @v:		optional; the rule broken when the write is refused
 *
 * The same checks as awr_nvme_write(), made before anything is queued.
 *
 * Return: 0 when queued, -EBUSY when the handle's depth (AWR_NVME_QUEUE_MAX for
 * awr_nvme_open()) are outstanding, or the negative errno of the rule broken
 * (nothing queued); with AWR_RING_SUBMIT_EACH the negative errno of the
 * submission (the command stays queued for the next reap).
 */
int awr_nvme_queue_write(struct awr_nvme *h, const void *buf, size_t len, uint64_t offset,
			 uint64_t tag, unsigned int flags, struct awr_verdict *v);

/**
 * awr_nvme_reap() - submit the queued NVMe Writes and collect completions
 * @h:		the handle
 * @out:	@max completions: the tag, @len or a negative errno (-EIO with
 *		AWR_RULE_DEVICE_ERROR when the device returned an error status)
 * @max:	room in @out
 * @wait_nr:	wait until this many completed (0: do not wait)
 *
 * One io_uring_enter() submits what was queued and waits, as awr_ring_reap().
 *
 * Return: the number of completions, or a negative errno.
 */
int awr_nvme_reap(struct awr_nvme *h, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr);

/**
 * awr_nvme_stats() - how full the handle kept its queue
 * @h:		the handle
 * @out:	the counters of struct awr_ring_stats (setup_flags 0)
 */
void awr_nvme_stats(const struct awr_nvme *h, struct awr_ring_stats *out);

/**
 * awr_scsi_open() - open a SCSI device for WRITE ATOMIC(16)
 * @path:	/dev/sgN or /dev/sdX
 * @flags:	0
 * @out:	the handle, closed with awr_scsi_close()
 *
 * Return: 0, -ENODEV when it is not a SCSI device, -EINVAL when @path is a
 * partition (passthrough addresses the whole disk), other negative errno.
 */
int awr_scsi_open(const char *path, unsigned int flags, struct awr_scsi **out);

/**
 * awr_scsi_close() - close the handle
 * @h:	the handle, may be NULL
 */
void awr_scsi_close(struct awr_scsi *h);

/**
 * awr_scsi_device() - the device view read at open
 * @h:	the handle
 *
 * Return: the view, owned by @h.
 */
const struct awr_device *awr_scsi_device(const struct awr_scsi *h);

/**
 * awr_scsi_check() - would WRITE ATOMIC(16) accept this write?
 * @h:		the handle
 * @len:	bytes
 * @offset:	byte offset
 * @boundary:	ATOMIC BOUNDARY field in blocks (0: the whole write is one unit)
 * @v:		optional verdict
 *
 * Checks whole blocks, the opcode's support, granularity, alignment and the
 * maximum lengths of the Block Limits VPD.
 *
 * Return: 0, -EOPNOTSUPP (no WRITE ATOMIC(16)), or -EINVAL with the rule in @v.
 */
int awr_scsi_check(const struct awr_scsi *h, size_t len, uint64_t offset,
		   uint32_t boundary, struct awr_verdict *v);

/**
 * awr_scsi_write() - one WRITE ATOMIC(16) through SG_IO
 * @h:		the handle
 * @buf:	data
 * @len:	bytes
 * @offset:	byte offset
 * @boundary:	ATOMIC BOUNDARY in blocks (0: the whole write is one unit)
 * @flags:	AWR_PT_* flags
 * @v:		optional verdict; on a CHECK CONDITION it holds the decoded sense
 *
 * Return: @len, -EINVAL when refused (nothing sent), -EIO when the device
 * returned sense data (decoded in @v), other negative errno.
 */
ssize_t awr_scsi_write(struct awr_scsi *h, const void *buf, size_t len, uint64_t offset,
		       uint32_t boundary, unsigned int flags, struct awr_verdict *v);

/* Commands one queued SCSI handle keeps in flight at most: the sg driver's SG_MAX_QUEUE. */
#define AWR_SCSI_QUEUE_MAX	16U

/**
 * awr_scsi_open_queue() - awr_scsi_open() with a queue of WRITE ATOMIC(16) commands
 * @path:	/dev/sgN or /dev/sdX (its /dev/sgN must exist: the sg module)
 * @depth:	commands in flight at most, 0 (no queue: awr_scsi_open()) to
 *		AWR_SCSI_QUEUE_MAX
 * @flags:	0
 * @out:	the handle, closed with awr_scsi_close()
 *
 * The queue is the sg driver's asynchronous interface on the disk's /dev/sgN:
 * awr_scsi_queue_write() hands each command to the device as it is queued
 * (write() of a struct sg_io_hdr), awr_scsi_reap() reads completions back.
 *
 * Return: as awr_scsi_open(); -ENODEV when the disk has no sg node; -EINVAL
 * for a depth above AWR_SCSI_QUEUE_MAX or a flag.
 */
int awr_scsi_open_queue(const char *path, unsigned int depth, unsigned int flags,
			struct awr_scsi **out);

/**
 * awr_scsi_queue_write() - send one WRITE ATOMIC(16) without waiting for it
 * @h:		a handle from awr_scsi_open_queue() with a depth
 * @buf:	@len bytes, unchanged until the write is reaped
 * @len:	bytes
 * @offset:	byte offset
 * @boundary:	ATOMIC BOUNDARY in blocks (0: the whole write is one unit)
 * @tag:	returned in the completion
 * @flags:	AWR_PT_* flags
 * @v:		optional; the rule broken when the write is refused
 *
 * The checks of awr_scsi_write() come first; a refused write is not sent.
 *
 * Return: 0 when sent, -EBUSY when the handle's depth is outstanding, -EINVAL
 * when refused (or the handle has no queue), other negative errno.
 */
int awr_scsi_queue_write(struct awr_scsi *h, const void *buf, size_t len, uint64_t offset,
			 uint32_t boundary, uint64_t tag, unsigned int flags, struct awr_verdict *v);

/**
 * awr_scsi_reap() - collect completed queued writes
 * @h:		the handle
 * @out:	@max completions: the tag, @len or -EIO with AWR_RULE_DEVICE_ERROR
 *		(awr_scsi_last_error() names the sense)
 * @max:	room in @out
 * @wait_nr:	wait until this many completed (0: do not wait)
 *
 * Return: the number of completions, or a negative errno.
 */
int awr_scsi_reap(struct awr_scsi *h, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr);

/**
 * awr_scsi_stats() - how full the handle kept its queue
 * @h:		the handle
 * @out:	the counters of struct awr_ring_stats (setup_flags 0), against its depth
 */
void awr_scsi_stats(const struct awr_scsi *h, struct awr_ring_stats *out);

/**
 * awr_scsi_last_error() - the sense of the last queued write the device failed
 * @h:		the handle
 *
 * Return: a sentence owned by @h, or NULL when none failed.
 */
const char *awr_scsi_last_error(const struct awr_scsi *h);

/* --- io_uring engine and page batches ----------------------------------- */

/*
 * An asynchronous engine on io_uring for one struct awr_file: atomic writes
 * (IORING_OP_WRITE with RWF_ATOMIC) are queued without a system call, sent to
 * the kernel in batches and reaped with the caller's tag. Every atomic write
 * passes the rule checker when queued: a refused write never reaches the
 * kernel and completes at once with the rule's errno and the rule.
 * Registered buffers (IORING_OP_WRITE_FIXED) serve plain writes only: the
 * kernel refuses RWF_ATOMIC on them (-EINVAL). A ring is used by one thread,
 * the one that created it (IORING_SETUP_SINGLE_ISSUER where the kernel has it).
 */
struct awr_ring;

/* awr_ring_create() flags */
#define AWR_RING_REGISTER_FILE	(1U << 0)	/* register the fd (IOSQE_FIXED_FILE) */
#define AWR_RING_SQPOLL		(1U << 1)	/* a kernel thread polls the queue (IORING_SETUP_SQPOLL) */
/*
 * Hand each write to the kernel as it is queued (awr_ring_submit() inside
 * awr_ring_queue_write(): one io_uring_enter() per write): the device starts on
 * it at once instead of at the next reap, and with DEFER_TASKRUN the same call
 * posts the completions that are ready, so the reap finds them waiting instead
 * of sleeping. For a queue kept full (QD above 1). Ignored at depth 1, where
 * the reap's one call already submits and waits.
 */
#define AWR_RING_SUBMIT_EACH	(1U << 2)

/* awr_ring_queue_write() / awr_write_units() flags, besides AWR_WRITE_DSYNC and AWR_WRITE_NOCHECK */
#define AWR_WRITE_PLAIN		(1U << 8)	/* a plain O_DIRECT write: no RWF_ATOMIC, no rule check */

/* One completed write. A plain value type. */
struct awr_completion {
	uint64_t tag;		/* the caller's tag given to awr_ring_queue_write() */
	int32_t res;		/* bytes written, or a negative errno */
	enum awr_rule rule;	/* the rule that refused it before the kernel; AWR_RULE_OK otherwise */
};

/**
 * awr_ring_create() - create an io_uring engine for an open target
 * @f:		the target (its limits and fd flags are used by the rule check);
 *		it must stay open while the ring lives
 * @depth:	queue depth: the most writes queued and not yet reaped, 1..32768
 * @flags:	AWR_RING_* flags
 * @out:	the new ring, freed with awr_ring_free()
 *
 * Return: 0, -EINVAL for a bad @depth, or the negative errno of io_uring
 * setup (-ENOSYS or -EPERM when io_uring is unavailable or disabled).
 */
int awr_ring_create(struct awr_file *f, unsigned int depth, unsigned int flags,
		    struct awr_ring **out);

/**
 * awr_ring_free() - tear the ring down
 * @r:	the ring, may be NULL
 *
 * Writes still in the kernel complete before the ring is gone; their buffers
 * must stay valid until then (reap everything first).
 */
void awr_ring_free(struct awr_ring *r);

/**
 * awr_ring_queue_write() - queue one write (no system call)
 * @r:		the ring
 * @buf:	data, aligned for O_DIRECT; it must stay valid until reaped
 * @len:	length (for atomic writes a power of two within the limits)
 * @offset:	file offset (for atomic writes a multiple of @len)
 * @tag:	returned in the completion
 * @flags:	AWR_WRITE_DSYNC (RWF_DSYNC), AWR_WRITE_PLAIN (no RWF_ATOMIC),
 *		AWR_WRITE_NOCHECK (skip the rule check: let the kernel judge)
 *
 * An atomic write that breaks a rule is not sent: its completion carries the
 * rule's errno in res and the rule in rule, and is returned by the next
 * awr_ring_reap() ahead of kernel completions.
 *
 * With AWR_RING_SUBMIT_EACH the write is also handed to the kernel (one
 * system call); should that call fail, the write stays queued and goes with
 * the next awr_ring_reap(), which reports the error.
 *
 * Return: 0 when a completion will follow (also for a refused write),
 * -EBUSY when @depth writes are already queued and not reaped, -EINVAL for a
 * NULL @buf or a @len over 4 GiB - 1.
 */
int awr_ring_queue_write(struct awr_ring *r, const void *buf, size_t len, uint64_t offset,
			 uint64_t tag, unsigned int flags);

/**
 * awr_ring_submit() - send the queued writes to the kernel (one system call)
 * @r:	the ring
 *
 * Return: the number of writes sent, or a negative errno.
 */
int awr_ring_submit(struct awr_ring *r);

/**
 * awr_ring_reap() - collect completions, submitting and waiting if needed
 * @r:		the ring
 * @out:	array for the completions
 * @max:	its size
 * @wait_nr:	wait until at least this many are collected (capped at the
 *		number outstanding); 0 never waits
 *
 * Refused writes come first, then kernel completions. Writes queued since
 * the last call are always submitted, in the same system call that collects
 * or waits: one io_uring_enter() per call in the usual loop (queue, reap).
 *
 * Return: the number of completions stored (0..@max), or a negative errno.
 */
int awr_ring_reap(struct awr_ring *r, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr);

/**
 * awr_ring_depth() - the queue depth given at creation
 * @r:	the ring
 *
 * Return: the depth.
 */
unsigned int awr_ring_depth(const struct awr_ring *r);

/**
 * awr_ring_outstanding() - writes queued and not yet reaped
 * @r:	the ring
 *
 * Return: the count (refused writes not yet reaped included).
 */
unsigned int awr_ring_outstanding(const struct awr_ring *r);

/**
 * awr_ring_file() - the target the ring writes
 * @r:	the ring
 *
 * Return: the handle given to awr_ring_create().
 */
struct awr_file *awr_ring_file(const struct awr_ring *r);

/* Counters of a ring (awr_ring_stats()). A plain value type. */
struct awr_ring_stats {
	uint64_t submitted;		/* writes handed to the kernel */
	uint64_t completed;		/* kernel completions reaped */
	uint64_t submit_calls;		/* submissions and waits (each at most one io_uring_enter()) */
	uint64_t reaps;			/* awr_ring_reap() calls that found writes in the kernel */
	uint64_t inflight_sum;		/* writes in the kernel at those reaps, summed */
	uint64_t reaps_below_depth;	/* of those, reaps with fewer than the depth in the kernel */
	uint32_t inflight_last;		/* writes in the kernel at the last such reap */
	uint32_t inflight_min;
	uint32_t inflight_max;
	uint32_t setup_flags;		/* the IORING_SETUP_* flags the kernel accepted */
	uint32_t wait_flags;		/* IORING_ENTER_* added to each wait: NO_IOWAIT (1 << 7) on 6.15+ */
	uint32_t reserved32;
	uint64_t reserved[3];
};

/**
 * awr_ring_stats() - how full the ring kept the queue
 * @r:		the ring
 * @out:	the counters since awr_ring_create()
 *
 * "In the kernel at a reap" is counted right after the reap handed its queued
 * writes over: writes submitted whose completion the caller has not taken.
 */
void awr_ring_stats(const struct awr_ring *r, struct awr_ring_stats *out);

/**
 * awr_ring_register_buffers() - register buffers for awr_ring_queue_write_fixed()
 * @r:		the ring
 * @iov:	the buffers (pinned by the kernel until the ring is freed)
 * @nr:		how many
 *
 * Return: 0 or the negative errno of IORING_REGISTER_BUFFERS (-ENOMEM when
 * RLIMIT_MEMLOCK is too small on old kernels).
 */
struct iovec;
int awr_ring_register_buffers(struct awr_ring *r, const struct iovec *iov, unsigned int nr);

/**
 * awr_ring_queue_write_fixed() - queue one plain write from a registered buffer
 * @r:		the ring
 * @buf_index:	index of the registered buffer that holds @buf
 * @buf:	data within that buffer
 * @len:	length
 * @offset:	file offset
 * @tag:	returned in the completion
 * @flags:	must hold AWR_WRITE_PLAIN; AWR_WRITE_DSYNC optional
 *
 * Return: 0, -EBUSY when the depth is reached, -EINVAL without
 * AWR_WRITE_PLAIN: the kernel refuses RWF_ATOMIC with a registered buffer.
 */
int awr_ring_queue_write_fixed(struct awr_ring *r, unsigned int buf_index, const void *buf,
			       size_t len, uint64_t offset, uint64_t tag, unsigned int flags);

/* The outcome of a page batch. A plain value type. */
struct awr_batch_result {
	uint64_t units_done;		/* units that landed whole */
	uint64_t units_failed;		/* units refused or failed */
	int error;			/* 0 or the first error (lowest offset) */
	uint64_t error_offset;		/* offset of the unit that failed first */
	struct awr_verdict verdict;	/* its verdict: a rule, or AWR_RULE_OK when the kernel refused */
	uint32_t reserved[8];
};

/**
 * awr_write_units() - write a range as naturally aligned units through a ring
 * @r:		an idle ring (no writes outstanding)
 * @buf:	@length bytes of data, aligned for O_DIRECT
 * @offset:	file offset of the first unit
 * @length:	a multiple of @unit
 * @unit:	the size of each write (a database page), at most 4 GiB - 1
 * @flags:	AWR_WRITE_DSYNC, AWR_WRITE_PLAIN (plain O_DIRECT writes, to
 *		compare), AWR_WRITE_NOCHECK
 * @res:	optional: units landed, the first error and its verdict
 *
 * Each unit is one atomic write (each page untorn, not the whole range).
 * Units are queued as the ring has room and submitted with each reap, or each
 * as it is queued when the ring was made with AWR_RING_SUBMIT_EACH (the faster
 * way at a depth above 1: the device is kept fed); it returns when all queued
 * units completed. After the first failure no further units
 * are queued; those in flight complete.
 *
 * Return: 0 when every unit landed; else the first error (the unit at the
 * lowest offset that failed); -EBUSY when the ring has writes outstanding;
 * -EINVAL for a zero @unit, a @length that is not a multiple of it, or NULL.
 */
int awr_write_units(struct awr_ring *r, const void *buf, uint64_t offset, uint64_t length,
		    uint64_t unit, unsigned int flags, struct awr_batch_result *res);


/* --- stamped units and verification ------------------------------------- */

/*
 * The stamped-unit format (awr-stamp(5)). A unit of U bytes (a multiple of
 * 512) is split in 512-byte sectors; each sector starts with a 40-byte stamp
 * (little endian): magic "AWRSTMP1", unit index, generation, sector index,
 * writer id, unit size, reserved. The rest is filler derived from the stamp,
 * and the unit's last 8 bytes hold XXH3_64bits of its first U - 8 bytes.
 */
#define AWR_STAMP_SECTOR	512
#define AWR_STAMP_MAGIC		0x31504d5453525741ULL	/* "AWRSTMP1" */

/* What a unit read back holds. */
enum awr_unit_class {
	AWR_UNIT_NEVER_WRITTEN = 0,	/* no sector carries the magic (all zero or foreign data) */
	AWR_UNIT_INTACT,		/* every sector of one generation, checksum good */
	AWR_UNIT_TORN,			/* sectors of different generations (0: unstamped) */
	AWR_UNIT_CORRUPT,		/* stamps agree, the checksum (or writer) does not */
	AWR_UNIT_MISPLACED,		/* a stamp of another unit, sector or unit size */
	AWR_UNIT__COUNT
};

/* The classification of one unit: a plain value type. */
struct awr_unit_state {
	enum awr_unit_class cls;
	bool all_zero;			/* never written: every byte is zero */
	uint64_t generation;		/* intact, corrupt: its generation; torn: sector 0's (0 = unstamped) */
	uint64_t other_generation;	/* torn: the generation of bad_sector */
	uint64_t newest_generation;	/* highest generation of any sector */
	uint32_t writer;		/* writer id of sector 0's stamp */
	uint32_t bad_sector;		/* torn, corrupt, misplaced: first sector that disagrees */
	uint64_t found_unit;		/* misplaced: unit index found at bad_sector */
	uint32_t found_sector;		/* misplaced: sector index found there */
	uint32_t found_unit_size;	/* misplaced: unit size found there */
	uint32_t reserved[6];
};

/**
 * awr_stamp_fill() - fill a buffer with one stamped unit
 * @buf:	destination, @unit_size bytes
 * @unit_size:	unit size in bytes, a non-zero multiple of AWR_STAMP_SECTOR
 * @unit:	the unit's index in the target (its offset / @unit_size)
 * @generation:	the generation, at least 1 (0 means "never written")
 * @writer:	the writer's id
 *
 * Every sector gets a stamp, the filler is a function of the stamp, and the
 * last 8 bytes the checksum (awr-stamp(5)).
 *
 * Return: 0, or -EINVAL for a bad size or generation 0.
 */
int awr_stamp_fill(void *buf, uint32_t unit_size, uint64_t unit, uint64_t generation,
		   uint32_t writer);

/**
 * awr_stamp_classify() - classify a unit read back
 * @buf:	the unit's content, @unit_size bytes
 * @unit_size:	unit size in bytes, a non-zero multiple of AWR_STAMP_SECTOR
 * @unit:	the index the unit is expected to carry
 * @out:	the classification
 *
 * Misplaced is decided first, then torn, then corrupt; else intact or never
 * written.
 *
 * Return: 0, or -EINVAL for a bad size.
 */
int awr_stamp_classify(const void *buf, uint32_t unit_size, uint64_t unit,
		       struct awr_unit_state *out);

/**
 * awr_unit_class_name() - stable snake_case name of a unit class ("torn")
 * @cls:	the class
 *
 * Return: a static string; "unknown" for values out of range.
 */
const char *awr_unit_class_name(enum awr_unit_class cls);


/* awr_stress_opts.flags */
#define AWR_STRESS_DSYNC	(1U << 0)	/* RWF_DSYNC: each acknowledged write is durable */
#define AWR_STRESS_PLAIN	(1U << 1)	/* plain O_DIRECT writes, no RWF_ATOMIC (a control run) */
#define AWR_STRESS_FORCE	(1U << 2)	/* awr_stress_run(): write a target in use or holding data */

/* What awr_stress_run() does. */
struct awr_stress_opts {
	uint32_t unit;		/* bytes per atomic write (the stamped unit) */
	uint32_t threads;	/* writer threads, at most 256; 0 means 4 */
	uint64_t span;		/* bytes from offset 0 to write; 0: the whole file or device */
	uint64_t writes;	/* stop after this many writes in all; 0: no count limit */
	uint64_t duration_ms;	/* stop after this time; 0: no time limit */
	unsigned int flags;	/* AWR_STRESS_* */
	const char *journal;	/* record intents and acknowledgements here (implies DSYNC) */
	uint32_t reserved[8];
	/*
	 * The journal is a new file or a journal (first record valid), never a
	 * link, device or FIFO; true: a regular file holding other data (or a
	 * journal damaged before its end) is emptied and used instead of refused.
	 */
	bool journal_force;
	/*
	 * A journal "tcp://HOST:PORT[/NAME]" is kept by awr_journal_serve() on
	 * another machine (NAME defaults to this host's name): a record counts
	 * as durable once the server has written and fdatasync'd it and said so.
	 * Its shared secret is read from this file (not readable by group or
	 * others), or when NULL from $AWR_JOURNAL_SECRET (secure_getenv).
	 */
	const char *journal_secret_file;
};

/* What a stress run did. */
struct awr_stress_result {
	uint64_t writes;		/* acknowledged atomic writes */
	uint64_t bytes;			/* their bytes */
	uint64_t units;			/* units in the span */
	uint64_t first_generation;	/* the run's first generation */
	uint64_t last_generation;	/* the highest generation issued */
	uint64_t nsec;			/* run time */
	uint64_t journal_syncs;		/* journal fdatasync calls */
	int error;			/* 0, or the negative errno of the write that ended the run */
	uint64_t error_offset;		/* that write's offset */
	int journal_error;		/* 0, or the negative errno of a failed journal append or sync */
	struct awr_verdict verdict;	/* a rule broken by the unit before any write */
	uint32_t reserved[8];
};

/**
 * awr_stress_run() - concurrent stamped atomic writers over a target
 * @path:	a regular file (created when missing, extended to @o->span) or a
 *		block device, opened by awr_target_open(): one in use or holding
 *		data is refused (-EBUSY, -EEXIST) unless AWR_STRESS_FORCE
 * @o:		the run's options; one of @o->writes and @o->duration_ms is needed
 * @out:	what the run did
 *
 * Writer threads overwrite units of the span, half of their writes on a hot
 * set of 8 units so that writers overlap, with unique increasing generations
 * from one atomic counter (awr-stamp(5)). With a journal each generation is
 * recorded (durably) before its write and acknowledged after it. A failed
 * write (EIO after a shutdown or power loss) ends the run for every writer.
 *
 * Return: 0 when the run ran (a write error is in @out->error, a journal
 * error in @out->journal_error), or a negative errno when it could not
 * start (-EINVAL with @out->verdict when the unit breaks a rule of the
 * target's limits).
 */
int awr_stress_run(const char *path, const struct awr_stress_opts *o,
		   struct awr_stress_result *out);

/**
 * awr_stress_run_fd() - awr_stress_run() on a descriptor the caller holds
 * @fd:		a regular file or block device opened O_RDWR | O_DIRECT, e.g. by
 *		awr_target_open(); not closed
 * @o:		the run's options (AWR_STRESS_FORCE is not looked at: the caller
 *		has decided)
 * @out:	what the run did
 *
 * Return: as awr_stress_run().
 */
int awr_stress_run_fd(int fd, const struct awr_stress_opts *o, struct awr_stress_result *out);

/**
 * awr_stress_stop() - ask the running awr_stress_run() to stop early
 *
 * Async-signal-safe: meant for a SIGINT or SIGTERM handler. Each writer
 * finishes the write it has in flight, journals its acknowledgement, and
 * the run returns 0 with the writes made so far in its result; the journal
 * is consistent for awr_verify_run(). The request ends with that run (the
 * next awr_stress_run() starts afresh).
 */
void awr_stress_stop(void);

/* One offending unit found by awr_verify_run(). */
struct awr_verify_issue {
	uint64_t unit;			/* unit index */
	uint64_t offset;		/* byte offset of the unit */
	struct awr_unit_state state;	/* its classification */
	bool lost;			/* an acknowledged write is missing */
	bool unjournaled;		/* holds a generation the journal never issued for it */
	uint64_t acked_generation;	/* lost: the newest acknowledged generation */
};

/* What awr_verify_run() checks. */
struct awr_verify_opts {
	uint32_t unit;		/* unit size the target was stamped with */
	uint64_t span;		/* bytes from offset 0 to scan; 0: the whole file or device */
	const char *journal;	/* a stress journal: also find lost writes; NULL: no */
	uint64_t crash_time_ns;	/* CLOCK_REALTIME of the crash: later acks count as in flight; 0 none */
	/* called for every offending unit in offset order; non-zero stops the scan */
	int (*issue)(const struct awr_verify_issue *is, void *arg);
	void *arg;
	uint32_t reserved[8];
	/* the secret of a tcp:// journal, as awr_stress_opts.journal_secret_file */
	const char *journal_secret_file;
};

/* What a scan found. */
struct awr_verify_result {
	uint64_t units;				/* units scanned */
	uint64_t count[AWR_UNIT__COUNT];	/* units per class */
	uint64_t lost;				/* units missing an acknowledged write */
	uint64_t unjournaled;			/* units with a generation not issued for them */
	uint64_t journal_records;		/* valid journal records read */
	uint64_t acked_writes;			/* acknowledged writes in the span */
	uint64_t acked_units;			/* units with an acknowledged write */
	uint64_t acked_late;			/* acks at or after crash_time_ns (in flight) */
	uint32_t journal_unit;			/* the unit size the journal's runs used */
	bool direct;				/* read with O_DIRECT */
	uint64_t bytes;				/* bytes read */
	uint64_t nsec;				/* scan time */
	uint32_t reserved[8];
};

/**
 * awr_verify_run() - scan a stamped target for torn, corrupt, misplaced and lost units
 * @path:	the file or block device written by awr_stress_run()
 * @o:		unit size, span, optional journal and issue callback
 * @out:	counts per class and of lost units
 *
 * Reads with large O_DIRECT reads, the next one while the current chunk is
 * classified. With a journal a unit has lost a write
 * when the journal acknowledges a write to it that was issued after the
 * write of the generation it holds had been acknowledged, or acknowledges
 * any write to a unit that holds none (the rule in awr-stamp(5)).
 *
 * Return: 0 when the scan completed (problems are in @out), -EINVAL when
 * the journal's unit size differs (@out->journal_unit), -EBADMSG for a
 * damaged journal, -EISDIR for a directory, -ENODEV for a target that is
 * not a regular file or block device (a FIFO is never waited on), other
 * negative errno for I/O errors.
 */
int awr_verify_run(const char *path, const struct awr_verify_opts *o,
		   struct awr_verify_result *out);

/* awr_journal_serve_opts.flags */
#define AWR_JSERVE_ALLOW_REMOTE	(1U << 0)	/* accept peers that are not on a loopback address */

/* What awr_journal_serve() does. */
struct awr_journal_serve_opts {
	const char *listen;	/* "ADDR:PORT" or "[IPV6]:PORT"; port 0 picks a free one */
	const char *dir;	/* each client's journal is DIR/NAME.journal */
	const char *secret_file;	/* the shared secret; NULL: $AWR_JOURNAL_SECRET */
	unsigned int max_clients;	/* connections at once; 0 means 16, at most 1024 */
	unsigned int flags;		/* AWR_JSERVE_* */
	/* called once listening, with the address and port bound (NULL: nothing) */
	void (*ready)(const char *addr, void *arg);
	/* every connection, refusal and error as one line naming the peer (NULL: stderr) */
	void (*log)(const char *line, void *arg);
	void *arg;
	uint32_t reserved[8];
};

/**
 * awr_journal_serve() - keep stress journals for clients on other machines
 * @o:		address, directory, secret, limits
 *
 * Serves the journals named "tcp://HOST:PORT[/NAME]" by awr_stress_run()
 * and awr_verify_run() until awr_journal_serve_stop(). A client proves the
 * shared secret with HMAC-SHA256 over a fresh nonce of the server's, and every
 * frame either way carries an HMAC-SHA256 under a key of both sides' nonces.
 * A record is acknowledged once written and fdatasync'd. Without
 * AWR_JSERVE_ALLOW_REMOTE the address must be a loopback or wildcard one and
 * peers off loopback are refused. Refused peers, bad MACs, oversize or
 * malformed frames end that connection only (logged with the peer address).
 *
 * Return: 0 once stopped, or a negative errno: -EINVAL (a malformed address),
 * -EADDRNOTAVAIL (not a loopback address, without AWR_JSERVE_ALLOW_REMOTE,
 * or unknown), -ENOKEY, -EPERM (the secret as for awr_stress_run()),
 * -ENOTDIR / -ENOENT (@o->dir), or the errno of bind() or listen().
 */
int awr_journal_serve(const struct awr_journal_serve_opts *o);

/**
 * awr_journal_serve_stop() - end the running awr_journal_serve()
 *
 * Async-signal-safe (a SIGINT or SIGTERM handler): the server stops taking
 * connections, ends the open ones after the frame in hand and returns 0.
 */
void awr_journal_serve_stop(void);

/* ------------------------------------------------------------------------ */
/* Filesystem view, extent maps, aligned preallocation, the path a write    */
/* took (discover: fs.c, extents.c; write: prepare.c, path.c)                */
/* ------------------------------------------------------------------------ */

enum awr_fs_type {
	AWR_FS_OTHER = 0,	/* any other filesystem: atomic writes as statx says, path unknown */
	AWR_FS_XFS,
	AWR_FS_EXT4,
	AWR_FS_BLOCK,		/* a block device, no filesystem: the device's own limits */
};

/* What a filesystem gives a file's atomic writes (a plain value, filled by awr_fs_view_*). */
struct awr_fs_view {
	enum awr_fs_type type;
	char type_name[16];		/* "xfs", "ext4", "tmpfs", "block", ... */
	bool tmpfile;			/* a directory was given: the view of an O_TMPFILE made in it */
	uint32_t block_size;		/* filesystem block size in bytes */
	/* statx of the file (STATX_WRITE_ATOMIC) */
	bool atomic;			/* the kernel accepts atomic writes on this file */
	uint32_t unit_min, unit_max, unit_max_opt;
	/* XFS (XFS_IOC_FSGEOMETRY, FS_IOC_FSGETXATTR, the mount's options) */
	bool reflink;			/* reflink=1: the copy-on-write software path exists (6.16+) */
	uint64_t ag_size;		/* allocation group size in bytes */
	uint32_t ag_count;
	bool realtime;			/* the file's data is on the realtime device */
	bool has_rtdev;			/* the filesystem has a realtime section */
	uint64_t extsize_hint;		/* the file's extent size hint in bytes, 0 when none */
	uint64_t max_atomic_write_opt;	/* mount option max_atomic_write=, 0 when not given */
	uint64_t software_max;		/* largest atomic write the software path serves, 0 when none */
	/* ext4 (the superblock: s_log_cluster_size, RO_COMPAT_BIGALLOC) */
	bool bigalloc;
	bool bigalloc_known;		/* the superblock could be read (needs read access to the device) */
	uint64_t cluster_size;		/* bytes; the block size without bigalloc */
	/* the block device below (sysfs queue/atomic_write_unit_*_bytes) */
	char device[64];		/* "nvme0n1", "" when none */
	bool hw_atomic;			/* the device writes atomically itself */
	uint32_t hw_unit_min, hw_unit_max;
	uint64_t hardware_max;		/* largest atomic write that can take the hardware path, 0 none */
	uint64_t ag_atomic_max;		/* XFS 6.16+ with reflink: the cap the AG size sets on atomic writes
					   (xfs_calc_group_awu_max()), 0 when none is computed */
	uint64_t stripe_unit;		/* XFS: the stripe unit in bytes (mkfs.xfs -d su=), to which new extents
					   at a file's end are aligned where space allows; 0 when none */
	bool dax;			/* statx STATX_ATTR_DAX: the file's data is accessed directly (DAX) */
	bool no_direct_io;		/* statx STATX_DIOALIGN offset 0: O_DIRECT writes go through the page
					   cache (ext4 data=journal, inline data, fs-verity) */
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
	uint64_t ag_size;		/* XFS: physical offsets are judged within their allocation group
					   of this size, as the kernel does; 0: as device offsets */
};

/**
 * awr_extents_read() - read a file's extent map (FIEMAP) and judge it against a unit
 * @fd:		the file
 * @unit:	the atomic unit in bytes, a power of two; 0: the file system block
 * @out:	the new report, freed with awr_extent_report_free()
 *
 * Return: 0, -EINVAL for a unit that is not a power of two, -EOPNOTSUPP when
 * the filesystem has no FIEMAP, other negative errno.
 */
int awr_extents_read(int fd, uint64_t unit, struct awr_extent_report **out);

/**
 * awr_extent_report_free() - free a report
 * @r:	the report, may be NULL
 */
void awr_extent_report_free(struct awr_extent_report *r);

/* Which path an atomic write takes or took. */
enum awr_write_path {
	AWR_PATH_UNKNOWN = 0,	/* cannot be told (e.g. the range was not mapped before) */
	AWR_PATH_HARDWARE,	/* one REQ_ATOMIC write in place */
	AWR_PATH_SOFTWARE,	/* the filesystem's copy-on-write path */
	AWR_PATH_REFUSED,	/* the kernel refuses the write */
};

/**
 * awr_write_path_name() - "hardware", "software", "unknown", "refused"
 * @p:	the path
 *
 * Return: a static string.
 */
const char *awr_write_path_name(enum awr_write_path p);

/**
 * awr_path_predict() - the path an atomic write of @length at @offset takes by the filesystem's rule
 * @fs:		the file's filesystem view
 * @r:		the file's extent report (any unit), or NULL for a range not yet allocated
 * @offset:	byte offset of the write
 * @length:	its length
 * @why:	a sentence saying why, or NULL
 * @why_len:	size of @why
 *
 * Return: an enum awr_write_path.
 */
enum awr_write_path awr_path_predict(const struct awr_fs_view *fs, const struct awr_extent_report *r,
				     uint64_t offset, uint64_t length, char *why, size_t why_len);

/* awr_prepare() refusals */
enum awr_prepare_refusal {
	AWR_PREPARE_OK = 0,
	AWR_PREPARE_HAS_DATA,		/* the file is not empty or has blocks */
	AWR_PREPARE_NOT_POW2,		/* the unit is not a power of two */
	AWR_PREPARE_UNIT_SMALL,		/* below the filesystem block */
	AWR_PREPARE_UNIT_FS,		/* above what the filesystem writes atomically */
	AWR_PREPARE_UNIT_DEVICE,	/* above what the device writes atomically */
	AWR_PREPARE_SIZE,		/* the size is 0 or not a multiple of the unit */
	AWR_PREPARE_FS,			/* not XFS or ext4, or no atomic writes on this file */
	AWR_PREPARE_FAILED,		/* a system call failed (see error) */
};

struct awr_prepare_result {
	enum awr_prepare_refusal refusal;
	int error;			/* 0 or a negative errno */
	char message[256];		/* why it was refused, or what was done */
	uint64_t extsize_hint;		/* the hint now set (XFS), bytes */
	uint64_t cluster_size;		/* ext4: the cluster, the largest atomic write */
	uint64_t total_bytes;		/* the file's mapped bytes afterwards */
	uint64_t aligned_bytes;		/* of which aligned to the unit */
	uint32_t reserved[8];
};

/* awr_prepare() flags */
#define AWR_PREPARE_HINT_ONLY	(1U << 0)	/* XFS: set the hint and fallocate, no aligned placement */

/**
 * awr_prepare() - preallocate a new or empty file for atomic writes of @unit
 * @fd:		the file, open for writing
 * @size:	bytes to preallocate, a multiple of @unit
 * @unit:	the atomic unit, a power of two
 * @flags:	AWR_PREPARE_* flags
 * @res:	what was done, or the refusal with its reason
 *
 * XFS: sets the extent size hint to @unit, then places every unit on a
 * physically aligned extent. ext4: preallocates; bigalloc clusters are aligned.
 *
 * Return: 0, or a negative errno (-EEXIST: the file holds data; -EINVAL: the
 * unit or size; -EOPNOTSUPP: the filesystem) with @res saying why.
 */
int awr_prepare(int fd, uint64_t size, uint64_t unit, unsigned int flags, struct awr_prepare_result *res);

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
 * awr_path_compare() - which path a write took, from the range's mapping before and after it
 * @before:	awr_unit_map_read() before the write
 * @after:	the same range after the write completed
 *
 * In place (every extent at the same device offset): hardware; moved:
 * software (copy-on-write); not mapped before: unknown.
 *
 * Return: an enum awr_write_path.
 */
enum awr_write_path awr_path_compare(const struct awr_unit_map *before, const struct awr_unit_map *after);
/* --- the untorn page store ---------------------------------------------- */

/*
 * A file (or block device) of fixed-size pages, each page write untorn on
 * any storage: by RWF_ATOMIC where the stack offers it, else through the
 * store's own doublewrite area, with recovery when the store is opened.
 * See awr_pages_open(3).
 */
struct awr_pages;

/* One page of a batch: the caller fills buf and page_no; status is set per page. */
struct awr_page {
	const void *buf;	/* page_size bytes */
	uint64_t page_no;	/* written at page_no * page_size */
	int status;		/* out: 0 or -errno */
};

enum awr_pages_mode {
	AWR_PAGES_MODE_HARDWARE = 1,	/* RWF_ATOMIC on the device's own atomic writes */
	AWR_PAGES_MODE_SOFTWARE,	/* RWF_ATOMIC through the filesystem's copy-on-write path */
	AWR_PAGES_MODE_DOUBLEWRITE,	/* the store's doublewrite area, then in place */
};

/* awr_pages_open() flags: AWR_PAGES_CREATE and at most one mode */
#define AWR_PAGES_AUTO		0U		/* the fastest untorn mode on this target */
#define AWR_PAGES_HARDWARE	(1U << 0)
#define AWR_PAGES_SOFTWARE	(1U << 1)
#define AWR_PAGES_DOUBLEWRITE	(1U << 2)
#define AWR_PAGES_CREATE	(1U << 8)	/* create a missing store file */

/**
 * awr_pages_open() - open (or create) a page store and recover it
 * @path:	a regular file or a block device not in use
 * @page_size:	the page size: a power of two, 512 .. 1 MiB
 * @flags:	AWR_PAGES_CREATE, and AWR_PAGES_AUTO or one forced mode
 * @out:	the store, or NULL on failure
 *
 * Picks the mode (see awr_pages_explain()), then repairs every page that the
 * doublewrite area `PATH.awr-dw` records as written by the last batch and
 * whose copy in place is torn or older.
 *
 * Return: 0, or -EOPNOTSUPP when a forced mode cannot be honoured here,
 * -EEXIST when PATH.awr-dw is not this store's area, -EBUSY for a target in
 * use, -EINVAL for bad arguments, another negative errno. The reason of a
 * failure is given by awr_pages_explain(NULL) in the same thread.
 */
int awr_pages_open(const char *path, uint32_t page_size, unsigned int flags, struct awr_pages **out);

/**
 * awr_pages_write() - write pages, each untorn, durable on return
 * @s:		the store
 * @pages:	the pages; a page_no given twice: the last copy wins
 * @n:		number of pages
 *
 * Return: 0 when every page is durable; else the first error, with each
 * page's @status set (0 or -errno).
 */
int awr_pages_write(struct awr_pages *s, struct awr_page *pages, unsigned int n);

/**
 * awr_pages_read() - read one page
 * @s:		the store
 * @buf:	page_size bytes
 * @page_no:	the page; a page beyond the end reads as zeros
 *
 * Return: 0 or a negative errno.
 */
int awr_pages_read(struct awr_pages *s, void *buf, uint64_t page_no);

/**
 * awr_pages_close() - close a store
 * @s:	the store (NULL is fine)
 *
 * Every write returned is durable already: closing syncs nothing.
 *
 * Return: 0.
 */
int awr_pages_close(struct awr_pages *s);

/**
 * awr_pages_mode() - the mode the store writes in
 * @s:	the store
 *
 * Return: AWR_PAGES_MODE_HARDWARE, _SOFTWARE or _DOUBLEWRITE.
 */
enum awr_pages_mode awr_pages_mode(const struct awr_pages *s);

/**
 * awr_pages_mode_name() - "hardware", "software" or "doublewrite"
 * @m:	a mode
 *
 * Return: the name, or "unknown".
 */
const char *awr_pages_mode_name(enum awr_pages_mode m);

/**
 * awr_pages_explain() - why the store chose its mode, in one sentence
 * @s:	the store, or NULL: why this thread's last awr_pages_open() failed
 *
 * Return: a string owned by the store (or the thread). AUTO rewrites it once,
 * inside the write that settles its choice (the 8th batch).
 */
const char *awr_pages_explain(const struct awr_pages *s);

/**
 * awr_pages_recovered() - pages repaired from the doublewrite area on open
 * @s:	the store
 *
 * Return: the number of pages restored by awr_pages_open().
 */
unsigned int awr_pages_recovered(const struct awr_pages *s);

/**
 * awr_pwrite_path() - awr_pwrite() that also reports the path the write took
 * @f:		the file (a regular file; for a block device the path is hardware)
 * @buf:	the data
 * @len:	its length, one atomic unit
 * @off:	the offset
 * @flags:	AWR_WRITE_* flags
 * @v:		the broken rule when refused, may be NULL
 * @path:	the path the write took
 *
 * Return: as awr_pwrite().
 */
ssize_t awr_pwrite_path(struct awr_file *f, const void *buf, size_t len, uint64_t off,
			unsigned int flags, struct awr_verdict *v, enum awr_write_path *path);

/* ------------------------------------------------------------------------ */
/* Databases: may an engine's own torn-page protection be turned off here?  */

enum awr_db_engine {
	AWR_DB_INNODB = 1,	/* MySQL / MariaDB: innodb_doublewrite */
	AWR_DB_POSTGRESQL,	/* PostgreSQL: full_page_writes */
};

enum awr_db_verdict {
	AWR_DB_UNKNOWN = 0,	/* a fact the answer needs could not be read (see the reasons) */
	AWR_DB_NOT_SAFE,	/* a page write can be torn (see the reasons) */
	AWR_DB_DEVICE_IMPLICIT,	/* plain page writes reach the device whole, within its atomic unit */
	AWR_DB_GUARANTEED,	/* every page write is RWF_ATOMIC and the kernel accepts it */
};

/* awr_db_qualify() flags */
#define AWR_DB_ATOMIC_WRITES	(1U << 0)	/* the engine's page writes are RWF_ATOMIC (libatomicwr-preload) */

#define AWR_DB_MAX_REASONS	8

/* One data file of the directory and its verdict. */
struct awr_db_file {
	char path[4096];		/* relative to the data directory */
	uint32_t page_size;		/* bytes, read from the engine's files; 0: unknown */
	enum awr_db_verdict verdict;
	char fs[16];			/* "xfs", "ext4", ... */
	char device[64];		/* the disk below, "" none */
	bool statx_atomic;		/* statx: the file takes atomic writes */
	uint32_t unit_min, unit_max;	/* statx's atomic unit */
	bool hw_atomic;			/* the device writes atomically itself */
	bool by_provider;		/* device-implicit on its cloud provider's word, not the kernel's unit
					 * (awr_device_provider()); in what was padding */
	uint32_t hw_unit_max;
	enum awr_write_path write_path;	/* the path an RWF_ATOMIC page write takes (awr_path_predict) */
	uint64_t mapped_bytes;		/* FIEMAP: bytes mapped */
	uint64_t aligned_bytes;		/* of those, in whole pages aligned on the device */
	uint64_t device_offset_align;	/* the largest power of two dividing every start below (partition, dm, md) */
	uint64_t grow_align;		/* the device alignment of the extents a growing file gets: XFS's stripe
					   unit, ext4's cluster (bigalloc) or block; 0 when unknown or not a file */
	unsigned int nr_reasons;	/* why not safe / unknown, one sentence each with the numbers */
	char reasons[AWR_DB_MAX_REASONS][256];
};

/* The verdict for a data directory. */
struct awr_db_report {
	enum awr_db_engine engine;
	char datadir[4096];
	uint32_t page_size;		/* the engine's page size (InnoDB: of the system tablespace) */
	char page_size_from[256];	/* where it was read, e.g. "ibdata1 page 0: FSP flags 0x15 (full_crc32)" */
	bool direct_io;			/* the engine writes pages with O_DIRECT (see direct_io_from) */
	bool atomic_writes;		/* the engine's page writes are RWF_ATOMIC */
	char atomic_why[256];		/* why atomic_writes is what it is */
	uint32_t kernel;		/* AWR_KERNEL() of the running kernel */
	enum awr_db_verdict verdict;	/* the directory's: the worst of its files */
	char advice[512];		/* one line: keep the protection, or turn it off and how */
	unsigned int nr_conditions;	/* device-implicit: what makes it true and what would break it */
	char conditions[8][256];
	unsigned int nr_skipped;	/* files named and left out (redo logs, temporary tablespaces) */
	char skipped[8][256];
	unsigned int nr_files;
	struct awr_db_file *files;
	int server_pid;			/* the running server (the process holding the most page files), 0 none */
	int protection;			/* its innodb_doublewrite / full_page_writes: 1 on, 0 off, -1 unknown */
	char protection_from[256];	/* where that was read (its command line; PostgreSQL's configuration
					   files), or why it could not be */
	char warning[768];		/* the protection is off and a page write can be torn: what to run; "" */
	char speed[512];		/* safe, but the atomic writes take a software path: how to measure it */
	char direct_io_from[256];	/* where direct_io was read: the server's descriptors (fdinfo), its
					   command line, a configuration file (FILE:LINE), or the version */
	unsigned int engine_version;	/* PostgreSQL: the major version PG_VERSION names; 0 unknown */
	int data_checksum_version;	/* PostgreSQL: pg_control's (0: no data checksums); -1 unknown */
};

/**
 * awr_innodb_page_size() - the page size an InnoDB tablespace's page 0 records
 * @page0:	the first bytes of the tablespace (at least 58)
 * @len:	their length
 * @page_size:	the physical page size in bytes (the compressed size for ROW_FORMAT=COMPRESSED)
 * @why:	a sentence naming the flags and their layout (or what is wrong), may be NULL
 * @why_len:	size of @why
 *
 * The FSP header's FSP_SPACE_FLAGS (big endian at byte 54): MariaDB's
 * full_crc32 layout (marker bit 4, page size in bits 0..3) or the older
 * MySQL/MariaDB one (page size in bits 6..9, 0 = 16 KiB; compressed size in 1..4).
 * A page 0 whose first 1 KiB (or all of @len, if less) is zeros has not been
 * written yet: InnoDB creates a tablespace as zeros and writes page 0 at its
 * first flush, a minute or more after CREATE TABLE.
 *
 * Return: 0; -ENODATA when page 0 is not written yet (all zeros: the page size
 * is the instance's, innodb_page_size, e.g. ibdata1's); -EINVAL when page 0 is
 * not an FSP header page or the flags hold no valid size.
 */
int awr_innodb_page_size(const void *page0, size_t len, uint32_t *page_size, char *why, size_t why_len);

/**
 * awr_pg_control_block_size() - the block size global/pg_control records
 * @buf:	the file's contents (PostgreSQL writes 8192 bytes; the data is at the start)
 * @len:	their length
 * @blcksz:	the block size in bytes
 * @why:	what was read, or what is wrong, may be NULL
 * @why_len:	size of @why
 *
 * ControlFileData: blcksz follows floatFormat (1234567.0) in every version;
 * the CRC-32C at the end of the structure must match.
 *
 * Return: 0, or -EINVAL when the file is not a pg_control this reader knows (or its CRC fails).
 */
int awr_pg_control_block_size(const void *buf, size_t len, uint32_t *blcksz, char *why, size_t why_len);

/**
 * awr_db_qualify() - may @engine's torn-page protection be turned off for @datadir?
 * @datadir:	the data directory (opened read-only; nothing is created in it)
 * @engine:	AWR_DB_INNODB or AWR_DB_POSTGRESQL
 * @flags:	AWR_DB_ATOMIC_WRITES when the engine's page writes are RWF_ATOMIC
 * @out:	the report, freed with awr_db_report_free()
 *
 * Reads the page size from the engine's own files, then judges every data
 * file: its filesystem view, its extents against the page, the stack below,
 * the device's atomic unit and what could split one page write. A running
 * server is fine: only reads are made.
 *
 * Return: 0 (the verdict is in the report), -ENOTDIR / -ENOENT for a
 * @datadir that is not a directory, -ENODATA when it holds no data file of
 * @engine, other negative errno.
 */
int awr_db_qualify(const char *datadir, enum awr_db_engine engine, unsigned int flags,
		   struct awr_db_report **out);

/**
 * awr_db_report_free() - free a report
 * @r:	the report, may be NULL
 */
void awr_db_report_free(struct awr_db_report *r);

/**
 * awr_db_verdict_name() - "guaranteed", "device-implicit", "not safe", "unknown"
 * @v:	the verdict
 *
 * Return: a static string.
 */
const char *awr_db_verdict_name(enum awr_db_verdict v);

/* ------------------------------------------------------------------------ */
/* libatomicwr-preload: the counters of a program run under it              */

#define AWR_PRELOAD_STATS_MAGIC		"AWRPRLD1"
#define AWR_PRELOAD_STATS_VERSION	1

/*
 * The file AWR_PRELOAD_STATS names holds exactly this structure (native byte
 * order), updated in place by the running program (a shared mapping), so the
 * counts survive a kill -9 of the program.
 */
struct awr_preload_stats {
	char magic[8];			/* AWR_PRELOAD_STATS_MAGIC */
	uint64_t version;		/* AWR_PRELOAD_STATS_VERSION */
	uint64_t pid;			/* the program's process id */
	uint64_t page_size;		/* AWR_PRELOAD_PAGE_SIZE */
	uint64_t files_named;		/* opens of named files that take atomic writes of a page */
	uint64_t files_refused;		/* opens of named files refused (they cannot) */
	uint64_t atomic_pwrite;		/* page writes made RWF_ATOMIC: pwrite, pwritev, pwritev2 */
	uint64_t atomic_uring;		/*   through liburing's io_uring_submit family */
	uint64_t atomic_aio;		/*   through libaio's io_submit */
	uint64_t plain_size;		/* writes to named files left as they were: not one page (pwrite
					 * family: not a whole number of pages, or more than IOV_MAX) */
	uint64_t plain_misaligned;	/*   at an offset that is not a multiple of the page */
	uint64_t plain_buffered;	/*   on a descriptor without O_DIRECT */
	uint64_t plain_segments;	/*   in more than one iovec (pwrite family: an iovec that is not a
					 * whole number of pages) */
	uint64_t plain_position;	/*   at the file position (no offset given) */
	uint64_t refused;		/* pwrite family: the kernel refused the atomic write (its error returned) */
	uint64_t uring_fixed_files;	/* io_uring writes to registered files (not looked at) */
	uint64_t plain_append;		/* left as they were: O_APPEND or RWF_APPEND (they land at the end) */
	uint64_t split_pwrite;		/* pwrite family: writes of several pages split into atomic page
					 * writes (each page written counted in atomic_pwrite) */
	uint64_t reserved[14];
};

/**
 * awr_preload_stats_read() - read the counters a program under the preload keeps
 * @path:	the file AWR_PRELOAD_STATS named (with %p replaced by the pid)
 * @out:	the counters
 *
 * Return: 0, -EINVAL when the file is not such a file (magic, version or
 * size), other negative errno.
 */
int awr_preload_stats_read(const char *path, struct awr_preload_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_H */
