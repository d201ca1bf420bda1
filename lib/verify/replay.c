// SPDX-License-Identifier: MIT
/*
 * Replaying a dm-log-writes log onto a target: the range asked for (up to an entry, a flush
 * point or a mark, from an entry), the target opened as every awr writer opens one
 * (awr_target_open()), every entry of the range checked to lie within the target before
 * the first write, then each write copied and each discard zeroed in log order, and the target
 * flushed: the state a power cut just after the range's last entry may leave on a disk with a
 * volatile write cache (fstests' replay-log does the same). Private to awr replay, as the
 * reader (logwrites.c); it says where it stopped and why in struct awr__lw_replay.
 */
#include <errno.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "logwrites.h"

#define REPLAY_CHUNK		(1U << 20)	/* bytes copied per read and write */

/* ---- why a replay stopped, in words ---------------------------------------------------- */

static void say(struct awr__lw_replay *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct awr__lw_replay *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

int awr__lw_bound_check(const struct awr__lw_bound *b, bool target, bool force,
			struct awr__lw_replay *r)
{
	int bounds = (b->to_entry >= 0) + (b->to_flush >= 0) + !!b->to_mark;

	if (bounds > 1)
		say(r, "replay: give one of --to-entry, --to-flush and --to-mark");
	else if (!target && (bounds || b->from_entry >= 0 || force))
		say(r, "replay: --to-entry, --to-flush, --to-mark, --from-entry and --force need "
		    "--target DEV (without it awr replay lists the log)");
	else if (!b->to_entry || !b->to_flush || !b->from_entry)
		say(r, "replay: %s 0: entries and flush points count from 1", !b->to_entry ?
		    "--to-entry" : !b->to_flush ? "--to-flush" : "--from-entry");
	else if (b->to_mark && !*b->to_mark)
		say(r, "replay: --to-mark needs a mark's name");
	else
		return 0;
	return -EINVAL;
}

/*
 * --force covers what a target holds (a filesystem, a partition table), never a target in use:
 * mounted, held (dm, md), opened exclusively or locked by another program (awr_target_safety()).
 */
static int in_use(const char *path, struct awr__lw_replay *r)
{
	struct awr_safety s;

	if (awr_target_safety(path, &s) || !(s.reasons & (AWR_UNSAFE_MOUNTED | AWR_UNSAFE_BUSY)))
		return 0;
	say(r, "refusing to replay onto %s: it %s. Nothing was written (--force covers a "
	    "filesystem or partition table on the target, never a target in use)", path, s.detail);
	return -EBUSY;
}

/* The range asked for is not in the log: which bound, and what the log has. */
static void say_range(const struct awr__lw_log *log, const struct awr__lw_bound *b,
		      struct awr__lw_replay *r, int ret)
{
	if (ret == -EINVAL)
		say(r, "%s: --from-entry %" PRIu64 " lies after the last entry to replay (%" PRIu64
		    ")", r->log_path, r->from, r->to);
	else if (b->to_entry > 0)
		say(r, "%s: --to-entry %lld: the log has %" PRIu64 " entries", r->log_path,
		    b->to_entry, log->nr_entries);
	else if (b->to_flush > 0)
		say(r, "%s: --to-flush %lld: the log has %" PRIu64 " flush points (entries with "
		    "FLUSH or FUA)", r->log_path, b->to_flush, r->flushes);
	else
		say(r, "%s: --to-mark '%s': no mark of that name in the log (awr replay %s lists "
		    "them)", r->log_path, b->to_mark, r->log_path);
}

/* The target cannot take the range: the log itself, too small, or of no known size. */
static void say_target(const struct awr__lw_log *log, struct awr__lw_replay *r, int ret)
{
	const struct awr__lw_entry *e = &r->bad;

	if (ret == -ELOOP)
		say(r, "refusing to replay %s onto itself: give another target", r->log_path);
	else if (ret == -ENOSPC)
		say(r, "%s: entry %" PRIu64 ": %s of sectors %" PRIu64 "..%" PRIu64 " (%" PRIu32
		    " bytes each) ends at byte %" PRIu64 ", past the end of %s (%" PRIu64
		    " bytes): give a target at least as large as the logged device",
		    r->log_path, e->index,
		    (e->flags & AWR__LW_DISCARD) ? "a discard" : "a write", e->sector,
		    e->sector + e->nr_sectors - 1, log->sectorsize,
		    (e->sector + e->nr_sectors) * log->sectorsize, r->target_path, r->target_end);
	else
		say(r, "cannot tell the size of %s: %s", r->target_path, strerror(-ret));
}

/* A write of the replay failed, or the flush after it. */
static void say_replay(struct awr__lw_replay *r, int ret)
{
	if (r->flush_failed)
		say(r, "cannot flush %s after the replay: %s", r->target_path, strerror(-ret));
	else
		say(r, "%s: entry %" PRIu64 ": replaying it onto %s failed: %s", r->log_path,
		    r->bad.index, r->target_path,
		    ret == -ENODATA ? "the log could not be read" : strerror(-ret));
}

/* @ret of a stage, with its sentence in @r->message; the log's own problem when it is damaged. */
static int stopped(const struct awr__lw_log *log, const struct awr__lw_bound *b,
		   struct awr__lw_replay *r, int ret)
{
	if (r->log_damaged)
		say(r, "%s: %s", r->log_path, r->why.message);
	else if (b)
		say_range(log, b, r, ret);
	else if (r->stage == AWR__LW_AT_TARGET)
		say_target(log, r, ret);
	else
		say_replay(r, ret);
	return ret;
}

/* ---- the range ----------------------------------------------------------------------- */

/* Does @e end the range asked for? */
static bool range_end(const struct awr__lw_bound *o, const struct awr__lw_entry *e,
		      uint64_t *flushes)
{
	if (awr__lw_flush_point(e))
		(*flushes)++;
	if (o->to_entry > 0)
		return e->index == (uint64_t)o->to_entry;
	if (o->to_flush > 0)
		return awr__lw_flush_point(e) && *flushes == (uint64_t)o->to_flush;
	if (o->to_mark)
		return (e->flags & AWR__LW_MARK) && !strcmp(e->mark, o->to_mark);
	return e->index == 0;	/* no bound: the whole log */
}

static int range(struct awr__lw_log *log, const struct awr__lw_bound *o, struct awr__lw_replay *r)
{
	struct awr__lw_entry e;
	int ret;

	awr__lw_rewind(log);
	while ((ret = awr__lw_next(log, &e, &r->why)) > 0)
		if (range_end(o, &e, &r->flushes))
			break;
	if (ret < 0) {
		r->log_damaged = true;
		return ret;
	}
	if (ret == 0 && (o->to_entry > 0 || o->to_flush > 0 || o->to_mark))
		return -ENOENT;
	r->from = o->from_entry > 0 ? (uint64_t)o->from_entry : 1;
	r->to = ret ? e.index : log->nr_entries;
	return r->from > r->to ? -EINVAL : 0;
}

static int find_range(struct awr__lw_log *log, const struct awr__lw_bound *b,
		      struct awr__lw_replay *r)
{
	int ret = range(log, b, r);

	return ret ? stopped(log, b, r, ret) : 0;
}

/* ---- the target ---------------------------------------------------------------------- */

static int target_size(int fd, struct awr__lw_replay *r)
{
	struct stat st;
	uint64_t size;

	if (fstat(fd, &st))
		return -errno;
	r->blockdev = S_ISBLK(st.st_mode);
	if (r->blockdev) {
		if (ioctl(fd, BLKGETSIZE64, &size))
			return -errno;
		r->target_end = size;
	} else {
		/* a regular file is the device's image: its size is the end; an empty one grows */
		r->target_end = st.st_size ? (uint64_t)st.st_size : UINT64_MAX;
	}
	return 0;
}

/* Is the target the log itself (the same block device, or the same file)? */
static bool same_file(int a, int b)
{
	struct stat x, y;

	if (fstat(a, &x) || fstat(b, &y))
		return false;
	if (S_ISBLK(x.st_mode) && S_ISBLK(y.st_mode))
		return x.st_rdev == y.st_rdev;
	return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Every entry of the range within the target, checked before the first write. */
static int check_target_end(struct awr__lw_log *log, struct awr__lw_replay *r)
{
	struct awr__lw_entry e;
	int ret = 0;

	awr__lw_rewind(log);
	while (log->next_index <= r->to && (ret = awr__lw_next(log, &e, &r->why)) > 0) {
		uint64_t end = (e.sector + e.nr_sectors) * log->sectorsize;

		if (e.index < r->from || !e.nr_sectors || end <= r->target_end)
			continue;
		r->bad = e;
		return -ENOSPC;
	}
	r->log_damaged = ret < 0;
	return ret < 0 ? ret : 0;
}

static int check_target(int fd, struct awr__lw_log *log, struct awr__lw_replay *r)
{
	int ret = target_size(fd, r);

	r->stage = AWR__LW_AT_TARGET;
	if (!ret)
		ret = same_file(fd, log->fd) ? -ELOOP : check_target_end(log, r);
	return ret ? stopped(log, NULL, r, ret) : 0;
}

/* ---- the writes ---------------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

static int zero_write(int fd, uint64_t off, uint64_t len)
{
	static const char zeros[65536];
	int ret = 0;

	while (len && !ret) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);

		ret = write_all(fd, zeros, n, off);
		off += n;
		len -= n;
	}
	return ret;
}

/*
 * A discard zeroes its range: BLKZEROOUT on a block device (it reads back zeros on every
 * device, where a discard may not: fstests' replay-log writes zeros when a discarded range does
 * not read back as zeros), a punched hole in a regular file (zeros written where the
 * filesystem cannot punch), and a file that grows is extended over the range.
 */
static int zero_range(int fd, struct awr__lw_replay *r, uint64_t off, uint64_t len)
{
	uint64_t range[2] = { off, len };
	struct stat st;

	if (r->blockdev) {
		r->discard_method = "blkzeroout";
		/* the earlier buffered writes reach the device first: BLKZEROOUT drops cached
		 * pages */
		if (fdatasync(fd) || ioctl(fd, BLKZEROOUT, range))
			return -errno;
		return 0;
	}
	if (fstat(fd, &st))
		return -errno;
	if (off + len > (uint64_t)st.st_size && ftruncate(fd, (off_t)(off + len)))
		return -errno;
	if (!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len)) {
		r->discard_method = "punch_hole";
		return 0;
	}
	if (errno != EOPNOTSUPP)
		return -errno;
	r->discard_method = "zeroes_written";
	return zero_write(fd, off, len);
}

static int copy_entry(int fd, const struct awr__lw_log *log, const struct awr__lw_entry *e,
		      char *buf)
{
	uint64_t total = awr__lw_bytes(log, e), base = e->sector * log->sectorsize;
	int ret = 0;

	for (uint64_t off = 0; off < total && !ret; off += REPLAY_CHUNK) {
		uint64_t n = total - off < REPLAY_CHUNK ? total - off : REPLAY_CHUNK;

		ret = awr__lw_read_data(log, e, off, buf, n);
		if (ret)
			return ret == -EIO ? -ENODATA : ret;
		ret = write_all(fd, buf, (size_t)n, base + off);
	}
	return ret;
}

static int replay_entry(int fd, const struct awr__lw_log *log, const struct awr__lw_entry *e,
			char *buf, struct awr__lw_replay *r)
{
	uint64_t bytes = awr__lw_bytes(log, e);
	int ret;

	r->entries++;
	if (!bytes)
		return 0;	/* a flush without data, a mark */
	if (e->flags & AWR__LW_DISCARD) {
		r->discards++;
		r->bytes_discarded += bytes;
		return zero_range(fd, r, e->sector * log->sectorsize, bytes);
	}
	ret = copy_entry(fd, log, e, buf);
	r->writes++;
	r->bytes_written += bytes;
	return ret;
}

static int write_range(int fd, struct awr__lw_log *log, struct awr__lw_replay *r)
{
	struct awr__lw_entry e;
	char *buf = malloc(REPLAY_CHUNK);
	int ret = 0, err = 0;

	r->stage = AWR__LW_AT_REPLAY;
	if (!buf)
		return stopped(log, NULL, r, -ENOMEM);
	awr__lw_rewind(log);
	while (!err && log->next_index <= r->to && (ret = awr__lw_next(log, &e, &r->why)) > 0) {
		if (e.index < r->from)
			continue;
		err = replay_entry(fd, log, &e, buf, r);
		if (err)
			r->bad = e;
	}
	free(buf);
	if (!err && ret < 0) {
		r->log_damaged = true;
		err = ret;
	}
	if (!err && fdatasync(fd)) {
		err = -errno;
		r->flush_failed = true;
	}
	return err ? stopped(log, NULL, r, err) : 0;
}

/* ---- the whole replay ---------------------------------------------------------------- */

/* The target, opened once as every awr writer opens one (awr_target_open()). */
static int open_target(struct awr__lw_replay *r, bool force)
{
	unsigned int flags = AWR_TARGET_CREATE | AWR_TARGET_KEEP_DATA |
			     (force ? AWR_TARGET_FORCE : 0);
	int fd = awr_target_open(r->target_path, O_RDWR, flags, &r->safety);

	r->stage = AWR__LW_AT_TARGET;
	if (fd < 0) {	/* the library's sentence, naming awr replay */
		awr_target_refusal(&r->safety, fd, r->target_path, O_RDWR, "replay");
		say(r, "%s", awr_last_error());
	}
	r->forced = fd >= 0 && r->safety.reasons;
	return fd;
}

int awr__lw_replay_onto(struct awr__lw_log *log, const struct awr__lw_bound *b, bool force,
			struct awr__lw_replay *r)
{
	int fd, ret = find_range(log, b, r);

	if (!ret && force)
		ret = in_use(r->target_path, r);
	if (ret)
		return ret;
	fd = open_target(r, force);
	if (fd < 0)
		return fd;
	ret = check_target(fd, log, r);
	if (!ret)
		ret = write_range(fd, log, r);
	close(fd);
	return ret;
}
