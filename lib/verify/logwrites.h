/* SPDX-License-Identifier: MIT */
/*
 * A reader of dm-log-writes logs (Documentation/admin-guide/device-mapper/log-writes.rst): the
 * log device the kernel's log-writes target fills with every write bio of the device it sits on,
 * in completion order, with its FLUSH/FUA marks. Private to awr replay (no public API: nothing
 * else reads these logs); compiled into awr only, not into the library.
 *
 * The format, as drivers/md/dm-log-writes.c writes it (log_writes_kthread(), log_one_block(),
 * log_super(); WRITE_LOG_VERSION 1 since the target came in Linux 4.1; read here from the logs
 * of 6.18.15 and 7.3.4 in the guest, tests/vm/guest/logwrites.sh), all little-endian:
 *   block 0            struct log_write_super: magic, version, nr_entries, sectorsize
 *   then per entry     one block: struct log_write_entry (sector, nr_sectors, flags, data_len),
 *                      a mark's name after it (data_len bytes, no NUL); then, unless a discard,
 *                      nr_sectors blocks of the data written
 * where a block is `sectorsize` bytes (the data device's logical block size, log_writes_ctr()),
 * and an entry's sector and nr_sectors count such blocks too, not 512-byte sectors
 * (bio_to_dev_sectors()). The super's nr_entries is rewritten after each FUA or mark entry
 * (log_writes_kthread()) and at removal (log_writes_dtr() logs the mark "dm-log-writes-end"):
 * entries after the last of them are not counted and not read.
 */
#ifndef AWR_VERIFY_LOGWRITES_H
#define AWR_VERIFY_LOGWRITES_H

#include <stdbool.h>
#include <stdint.h>

#include "libatomicwr.h"

#define AWR__LW_MAGIC		0x6a736677736872ULL	/* WRITE_LOG_MAGIC */
#define AWR__LW_VERSION		1ULL			/* WRITE_LOG_VERSION */
#define AWR__LW_SUPER_SIZE	28U	/* struct log_write_super (packed fields) */
#define AWR__LW_ENTRY_SIZE	32U	/* struct log_write_entry */

/* struct log_write_entry's flags (LOG_*_FLAG) */
#define AWR__LW_FLUSH		(1ULL << 0)
#define AWR__LW_FUA		(1ULL << 1)
#define AWR__LW_DISCARD		(1ULL << 2)
#define AWR__LW_MARK		(1ULL << 3)
#define AWR__LW_METADATA	(1ULL << 4)
#define AWR__LW_KNOWN		((1ULL << 5) - 1)

/* a mark's name: sectorsize - 32 - 1 bytes at most (log_mark()), for a sector of 4096 */
#define AWR__LW_MARK_MAX	4063U

/* What is wrong with a log (awr__lw_problem.reason). */
enum awr__lw_reason {
	AWR__LW_OK,
	AWR__LW_SHORT_SUPER,	/* shorter than a super block */
	AWR__LW_BAD_MAGIC,	/* not WRITE_LOG_MAGIC */
	AWR__LW_BAD_VERSION,	/* not WRITE_LOG_VERSION */
	AWR__LW_BAD_SECTORSIZE,	/* not a power of two of 512 to 64 KiB */
	AWR__LW_TRUNCATED,	/* an entry or its data beyond the log's end */
	AWR__LW_UNKNOWN_FLAG,	/* a flag bit no kernel writes */
	AWR__LW_BAD_MARK,	/* a mark with data, or a name too long or with a NUL */
	AWR__LW_BAD_DATA_LEN,	/* data_len on an entry that is not a mark */
	AWR__LW_BAD_RANGE,	/* sector + nr_sectors beyond 2^64 bytes */
	AWR__LW_IO,		/* reading the log failed */
};

struct awr__lw_problem {
	enum awr__lw_reason reason;
	uint64_t entry;		/* the entry (1-based), 0 for the super block */
	char message[320];	/* "entry 7: ..." */
};

struct awr__lw_log {
	int fd;			/* the log, only read */
	uint64_t size;		/* bytes of the log file or device */
	uint32_t sectorsize;	/* the super's */
	uint64_t nr_entries;	/* the super's */
	uint64_t next_index;	/* the entry awr__lw_next() reads next (1-based) */
	uint64_t next_off;	/* where it starts in the log */
};

struct awr__lw_entry {
	uint64_t index;		/* 1-based, in log order */
	uint64_t sector;	/* in blocks of the log's sectorsize */
	uint64_t nr_sectors;	/* the same unit */
	uint64_t flags;		/* AWR__LW_* */
	uint64_t data_len;	/* a mark's name length */
	uint64_t data_off;	/* where the data written starts in the log (none for a discard) */
	char mark[AWR__LW_MARK_MAX + 1];	/* a mark's name, else "" */
};

/*
 * awr__lw_open() - read the super block of the log open on @fd
 * Return: 0, or -EINVAL (not a log: @why says why), -EIO, or another negative errno.
 */
int awr__lw_open(int fd, struct awr__lw_log *log, struct awr__lw_problem *why);
/*
 * awr__lw_next() - read the next entry's header (and a mark's name) into @e, checking it and
 * that its data lies within the log
 * Return: 1 an entry, 0 past the last one, -EINVAL a corrupt or truncated entry (@why), -EIO.
 */
int awr__lw_next(struct awr__lw_log *log, struct awr__lw_entry *e, struct awr__lw_problem *why);
/* awr__lw_rewind() - the next awr__lw_next() reads entry 1 again */
void awr__lw_rewind(struct awr__lw_log *log);
/*
 * awr__lw_read_data() - @len bytes of @e's data from byte @off of it into @buf
 * Return: 0, -EINVAL (beyond the entry's data), -EIO (a short read) or a negative errno.
 */
int awr__lw_read_data(const struct awr__lw_log *log, const struct awr__lw_entry *e, uint64_t off,
		      void *buf, uint64_t len);
/* The bytes an entry covers on the data device (0 for a mark or a flush without data). */
static inline uint64_t awr__lw_bytes(const struct awr__lw_log *log, const struct awr__lw_entry *e)
{
	return e->nr_sectors * log->sectorsize;
}
/* A point a power cut may land just after: FLUSH or FUA. */
static inline bool awr__lw_flush_point(const struct awr__lw_entry *e)
{
	return e->flags & (AWR__LW_FLUSH | AWR__LW_FUA);
}

/* awr__lw_flag_name() - flag bit @bit by name ("flush" for AWR__LW_FLUSH), NULL past the last */
const char *awr__lw_flag_name(unsigned int bit);
/* awr__lw_flags_text() - @flags as "FLUSH|FUA", "-" for none; returns @buf */
char *awr__lw_flags_text(uint64_t flags, char *buf, size_t len);

/* What to replay (replay.c): one bound at most (none: the whole log), and the first entry */
struct awr__lw_bound {
	long long to_entry, to_flush, from_entry;	/* 0 or -1: not given */
	const char *to_mark;
};

/* A replay: its range, what it did, and where it stopped */
struct awr__lw_replay {
	uint64_t from, to;
	uint64_t target_end;	/* bytes; UINT64_MAX: a regular file that grows */
	bool blockdev;
	uint64_t entries, writes, bytes_written, discards, bytes_discarded;
	const char *discard_method;	/* "blkzeroout", "punch_hole", "zeroes_written", or NULL */
	uint64_t flushes;		/* flush points read while looking for the bound */
	struct awr__lw_entry bad;	/* the entry past the target's end, or whose replay failed
					   */
	bool log_damaged;		/* the log's reader stopped: @why says why */
	bool flush_failed;		/* the target's fdatasync after the replay failed */
	struct awr__lw_problem why;
	const char *log_path, *target_path;	/* set by the caller: the sentence names them */
	struct awr_safety safety;	/* what awr_target_open() found on the target */
	bool forced;			/* the target was opened in spite of @safety: --force */
	enum { AWR__LW_AT_RANGE, AWR__LW_AT_TARGET, AWR__LW_AT_REPLAY } stage;
	char message[512];		/* why a stage failed, in one sentence with what to do */
};

/*
 * awr__lw_bound_check() - the bounds of awr replay's options: one at most, each from 1, and
 * none (nor @force) without a @target
 * Return: 0, or -EINVAL with the sentence in @r->message.
 */
int awr__lw_bound_check(const struct awr__lw_bound *b, bool target, bool force,
			struct awr__lw_replay *r);
/*
 * awr__lw_list() - every entry of the log in order to @fn, counting flush points and marks
 * Return: 0, or the negative errno of a damaged log (@why says why).
 */
struct awr__lw_listing {
	uint64_t flush_points, marks;
};
typedef void (*awr__lw_entry_fn)(const struct awr__lw_entry *e, void *arg);
int awr__lw_list(struct awr__lw_log *log, awr__lw_entry_fn fn, void *arg,
		 struct awr__lw_listing *n, struct awr__lw_problem *why);

/*
 * awr__lw_replay_onto() - replay the range @b asks for onto @r->target_path: every header up
 * to the range's last entry read (a damaged log stops before any write); with @force a target
 * in use (mounted, held, opened exclusively or locked) still refused, which --force never
 * covers; the target opened once by awr_target_open() (made when missing, its data kept),
 * every entry checked to lie within it, then the entries written in log order and the target
 * flushed
 * Return: 0, or the negative errno of the stage @r->stage names with its sentence in
 * @r->message (the log's problem, the bound not found, the target refused or too small, the
 * write that failed): -ENOENT the bound is not in the log, -EINVAL --from-entry lies after the
 * last entry, -EBUSY in use, awr_target_open()'s refusals, -ELOOP the target is the log
 * itself, -ENOSPC an entry (@r->bad) ends past the target's end, -ENODATA the log could not
 * be read at @r->bad.
 */
int awr__lw_replay_onto(struct awr__lw_log *log, const struct awr__lw_bound *b, bool force,
			struct awr__lw_replay *r);

#endif /* AWR_VERIFY_LOGWRITES_H */
