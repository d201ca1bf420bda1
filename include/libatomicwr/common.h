/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/common.h - what every area shares: the library's version, sizes, the kernel
 * rules table (which atomic write rule applies on which Linux release), the
 * limits a write is checked against and the rule that refuses it, findings.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_COMMON_H
#define LIBATOMICWR_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * awr_version() - the library's version string
 *
 * Return: a static string such as "0.1.0".
 */
const char *awr_version(void);

/* --- errors -------------------------------------------------------------- */

/*
 * A call that fails returns a negative errno (or NULL, as its page says); one
 * that has more to say than the errno leaves a sentence saying what failed
 * and, where there is one, what to do, in the calling thread, and
 * awr_last_error() returns it. As
 * with dlerror(), the sentence is the thread's own; unlike dlerror(), reading
 * it does not clear it and a later call that succeeds leaves it as it is: it
 * is kept until the thread's next failing call replaces it. Read it right
 * after the call that failed. A result that carries its own sentence (struct
 * awr_verdict's message, struct awr_write_result's, struct awr_safety's) is a
 * result, not an error: it is not copied here.
 */

/**
 * awr_last_error() - the sentence of this thread's last failing call
 *
 * Return: a string owned by the thread, valid until its next failing call
 * into the library; never NULL, "" when no call of this thread has left one.
 */
const char *awr_last_error(void);

/* --- sizes --------------------------------------------------------------- */

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

/* --- kernel rules: which atomic write rule applies on which Linux release */

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
	/* 6.17, 6.15.10, 6.16.1: chunk_sectors < hw_max turns atomics off */
	AWR_KRULE_CHUNK_LIMIT,
	AWR_KRULE_BOUNDARY_CHUNK_EITHER,/* 6.18: boundary and chunk multiples of each other */
	AWR_KRULE_NVME_NO_AWUPF,	/* 7.0: NVMe ignores AWUPF */
	AWR_KRULE_DM_CRYPT_STACK,	/* 6.19: dm-crypt stacking, no split of an atomic bio */
	AWR_KRULE_DM_MPATH_STACK,	/* 7.0: dm-multipath stacking */
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

/* --- limits and the rules a write is checked against --------------------- */

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
	/* AWR_KERNEL() whose rules awr_check() follows; 0 the running one */
	uint32_t kernel;
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
	/* beyond the device's own atomic limits (passthrough): -EINVAL */
	AWR_RULE_DEVICE_LIMIT,
	AWR_RULE_DEVICE_ERROR,		/* the device refused the command (status/sense): -EIO */
	AWR_RULE_BEYOND_END,		/* write starts at or past the end of the device: -ENOSPC */
	/* offset + length beyond the largest file offset: -EINVAL */
	AWR_RULE_OFFSET_RANGE,
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

/* --- findings: one explained disagreement or noteworthy fact ------------- */

enum awr_severity {
	AWR_SEV_INFO = 0,
	AWR_SEV_WARN,
	AWR_SEV_ERROR,
};

struct awr_finding {
	const char *id;			/* stable snake_case id, e.g. "partition_misaligned" */
	enum awr_severity severity;
	char message[256];		/* one sentence with the numbers */
	const char *what_to_do;		/* one sentence for warn and error, else NULL */
};

/**
 * awr_severity_name() - a finding's severity as awr prints it
 * @s:		the severity
 *
 * Return: "info", "warn" or "error".
 */
const char *awr_severity_name(enum awr_severity s);

/* --- test seam: where sysfs is read -------------------------------------- */

#ifdef AWR_TEST_HOOKS
/**
 * awr_set_sysfs_root() - read sysfs below another root (for tests)
 * @root:	a directory standing for /sys, or NULL for the default
 *
 * Only in a library built with the meson option -Dtest_hooks=true (the test
 * command's builds): a default build and the installed library have no seam.
 * The environment variable AWR_SYSFS_ROOT (read with secure_getenv) does the
 * same for programs there. The setting is process-wide.
 */
void awr_set_sysfs_root(const char *root);
#endif

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_COMMON_H */
