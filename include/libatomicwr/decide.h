/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/decide.h - decisions: the rule checker (may this write be atomic here?)
 * and target safety (may this target be written at all?).
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_DECIDE_H
#define LIBATOMICWR_DECIDE_H

#include <libatomicwr/common.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/* A size a caller needs written untorn (awr probe --require) and whether limits take it. */
struct awr_requirement {
	uint64_t size;		/* the bytes asked */
	bool met;		/* a naturally aligned write of size is atomic within the limits */
	char reason[160];	/* not met: why, one sentence with the sizes; "" when met */
};

/**
 * awr_limits_require() - may a write of @size be atomic within @lim?
 * @lim:	the limits (awr_probe_effective())
 * @size:	the bytes a caller needs written untorn, such as a database's page
 * @out:	what was asked and the outcome
 *
 * Met when @lim take atomic writes and @size is a power of two from unit_min
 * to unit_max: the size alone, before any offset or descriptor (awr_check()
 * judges a whole write).
 *
 * Return: 0 when met; -EOPNOTSUPP when @lim take no atomic write, -EINVAL when
 * @size is outside them, with the sentence in @out->reason and awr_last_error()
 * ("required size 64 KiB is not atomic here: atomic writes are powers of two
 * from 4 KiB to 16 KiB").
 */
int awr_limits_require(const struct awr_limits *lim, uint64_t size,
		       struct awr_requirement *out);

/**
 * awr_rule_errno() - the negative errno the kernel returns for a rule
 * @rule:	the rule
 *
 * Return: 0 for AWR_RULE_OK, else -EINVAL, -EOPNOTSUPP, -EBADF, -ENOSPC, or -EIO
 * (AWR_RULE_DEVICE_ERROR: a passthrough command failed on the device).
 */
int awr_rule_errno(enum awr_rule rule);

/* Why a target must not be written without --force. */
#define AWR_UNSAFE_MOUNTED	(1U << 0)	/* it or a partition is mounted */
#define AWR_UNSAFE_BUSY		(1U << 1)	/* opened exclusively elsewhere / has holders */
/* holds a filesystem, RAID, LVM or swap signature */
#define AWR_UNSAFE_SIGNATURE	(1U << 2)
#define AWR_UNSAFE_PTABLE	(1U << 3)	/* holds a partition table */
#define AWR_UNSAFE_DATA		(1U << 4)	/* a regular file that holds data */
#define AWR_UNSAFE_LOOP		(1U << 5)	/* a regular file that backs a loop device */
/* a symbolic link to something else than a block device */
#define AWR_UNSAFE_SYMLINK	(1U << 6)
/* neither a regular file nor a block device (never forced) */
#define AWR_UNSAFE_TYPE		(1U << 7)

struct awr_safety {
	unsigned int reasons;		/* AWR_UNSAFE_* bits; 0 = safe to write */
	bool is_block_device;
	char detail[256];		/* "mounted on /mnt/x", "xfs signature", ... */
	/*
	 * awr_target_open() made the file (AWR_TARGET_CREATE); in what was padding: the struct's
	 * size is that of 0.x before it
	 */
	bool created;
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
/* create a missing regular file (O_CREAT | O_EXCL) */
#define AWR_TARGET_CREATE	(1U << 0)
/* open even when in use, formatted or holding data */
#define AWR_TARGET_FORCE	(1U << 1)
/* a regular file holding data is fine: the caller writes only a named range */
#define AWR_TARGET_KEEP_DATA	(1U << 2)

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
 * what was found and awr_last_error() the refusal in a sentence with what to
 * do (awr_target_refusal() with no verb). With AWR_TARGET_FORCE only the type
 * and open errors refuse.
 */
int awr_target_open(const char *path, int oflags, unsigned int flags, struct awr_safety *why);

/**
 * awr_target_refusal() - say why awr_target_open() refused, as awr VERB says it
 * @why:	what awr_target_open() found (may be NULL)
 * @err:	what it returned
 * @path:	the path it was given
 * @oflags:	the open flags it was given
 * @verb:	the awr command that writes (the sentence names "awr @verb"), or NULL:
 *		a write, no command named (awr_target_open()'s own sentence)
 *
 * "refusing to write PATH (awr VERB): it is mounted on /mnt. Nothing was written.
 * Use --force to write it anyway and lose its data."; "cannot VERB PATH: no such
 * file or directory"; a character device given for O_DIRECT is pointed to NVMe
 * passthrough.
 *
 * Return: @err, with the sentence in awr_last_error().
 */
int awr_target_refusal(const struct awr_safety *why, int err, const char *path, int oflags,
		       const char *verb);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_DECIDE_H */
