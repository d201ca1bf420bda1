// SPDX-License-Identifier: MIT
/*
 * awr replay LOG [--target DEV --to-entry N | --to-flush K | --to-mark NAME [--from-entry M]]:
 * list a dm-log-writes log (every write of a device with its FLUSH/FUA marks, as the kernel's
 * log-writes target recorded it), or write the device's state at an entry, a flush point or a
 * mark to a target: the state a power cut just after that point may leave on a disk with a
 * volatile write cache (fstests' replay-log does the same for generic/455 and others).
 * The log is read by lib/verify/logwrites.c; the target is opened as every awr write tool
 * opens one (target_open()).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"
#include "../lib/verify/logwrites.h"

#define REPLAY_SCHEMA_VERSION	1	/* the document of awr replay (man/awr.1) */
#define REPLAY_CHUNK		(1U << 20)	/* bytes copied per read and write */

static const struct { uint64_t bit; const char *name; } flag_names[] = {
	{ AWR__LW_FLUSH, "flush" }, { AWR__LW_FUA, "fua" }, { AWR__LW_DISCARD, "discard" },
	{ AWR__LW_MARK, "mark" }, { AWR__LW_METADATA, "metadata" },
};
#define NR_FLAG_NAMES (sizeof(flag_names) / sizeof(flag_names[0]))

/* What the command line asks. */
struct replay_opts {
	const char *log_path;
	char *target;
	long long to_entry, to_flush, from_entry;	/* -1: not given */
	char *to_mark;
	int force;
};

/* The range to replay and what replaying it did. */
struct replay_run {
	uint64_t from, to;
	uint64_t target_end;	/* bytes; UINT64_MAX: a regular file that grows */
	bool blockdev;
	uint64_t entries, writes, bytes_written, discards, bytes_discarded;
	const char *discard_method;	/* "blkzeroout", "punch_hole", "zeroes_written", or NULL */
};

/* ---- listing ------------------------------------------------------------------------- */

static void flags_text(uint64_t flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NR_FLAG_NAMES; i++) {
		if (!(flags & flag_names[i].bit))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s", n ? "|" : "");
		for (const char *p = flag_names[i].name; *p && n + 1 < len; p++)
			buf[n++] = (char)(*p - 'a' + 'A');
		buf[n] = '\0';
	}
	if (!n)
		snprintf(buf, len, "-");
}

static struct json_object *flags_json(uint64_t flags)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < NR_FLAG_NAMES; i++)
		if (flags & flag_names[i].bit)
			json_object_array_add(a, json_object_new_string(flag_names[i].name));
	return a;
}

static const struct field entry_fields[] = {
	FLD(struct awr__lw_entry, index, FLD_UINT, "index"),
	FLD(struct awr__lw_entry, sector, FLD_UINT, "sector"),
	FLD(struct awr__lw_entry, nr_sectors, FLD_UINT, "nr_sectors"),
	FLD_END
};

static struct json_object *entry_json(const struct awr__lw_entry *e)
{
	struct json_object *o = fld_json(entry_fields, e);

	json_object_object_add(o, "flags", flags_json(e->flags));
	json_object_object_add(o, "mark",
			       (e->flags & AWR__LW_MARK) ? json_object_new_string(e->mark) : NULL);
	return o;
}

static void entry_print(const struct awr__lw_entry *e)
{
	char f[64];

	flags_text(e->flags, f, sizeof(f));
	printf("%8" PRIu64 " %14" PRIu64 " %9" PRIu64 "  ", e->index, e->sector, e->nr_sectors);
	if (e->flags & AWR__LW_MARK)
		printf("%-22s %s\n", f, e->mark);
	else
		printf("%s\n", f);
}

static void log_error(const char *path, const struct awr__lw_problem *why)
{
	out_error("%s: %s", path, why->message);
}

struct listing {
	struct json_object *entries, *flush_points, *marks;
	uint64_t nr_flush, nr_marks;
};

static void listing_add(struct listing *l, const struct awr__lw_entry *e)
{
	struct json_object *m;

	if (awr__lw_flush_point(e)) {
		l->nr_flush++;
		if (l->flush_points)
			json_object_array_add(l->flush_points, out_u64(e->index));
	}
	if (e->flags & AWR__LW_MARK) {
		l->nr_marks++;
		if (l->marks) {
			m = json_object_new_object();
			json_object_object_add(m, "name", json_object_new_string(e->mark));
			json_object_object_add(m, "index", out_u64(e->index));
			json_object_array_add(l->marks, m);
		}
	}
	if (l->entries)
		json_object_array_add(l->entries, entry_json(e));
	else
		entry_print(e);
}

static struct json_object *listing_doc(const char *path, const struct awr__lw_log *log,
				       struct listing *l)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "schema_version", json_object_new_int(REPLAY_SCHEMA_VERSION));
	json_object_object_add(o, "log", json_object_new_string(path));
	json_object_object_add(o, "sector_size", out_u64(log->sectorsize));
	json_object_object_add(o, "nr_entries", out_u64(log->nr_entries));
	json_object_object_add(o, "entries", l->entries);
	json_object_object_add(o, "flush_points", l->flush_points);
	json_object_object_add(o, "marks", l->marks);
	return o;
}

static int list_log(const char *path, struct awr__lw_log *log)
{
	struct listing l = { 0 };
	struct awr__lw_problem why;
	struct awr__lw_entry e;
	int ret;

	if (out_mode == OUT_JSON) {
		l.entries = json_object_new_array();
		l.flush_points = json_object_new_array();
		l.marks = json_object_new_array();
	} else {
		printf("%s: dm-log-writes log, sector size %" PRIu32 ", %" PRIu64 " entries\n\n",
		       path, log->sectorsize, log->nr_entries);
		printf("%8s %14s %9s  %-22s %s\n", "index", "sector", "sectors", "flags", "mark");
	}
	while ((ret = awr__lw_next(log, &e, &why)) > 0)
		listing_add(&l, &e);
	if (ret < 0) {
		fflush(stdout);
		log_error(path, &why);
		json_object_put(listing_doc(path, log, &l));
		return AWR_EXIT_USAGE;
	}
	if (out_mode == OUT_JSON)
		out_print_json(listing_doc(path, log, &l));
	else
		printf("\n%" PRIu64 " entries, %" PRIu64 " flush points, %" PRIu64 " marks\n",
		       log->nr_entries, l.nr_flush, l.nr_marks);
	return AWR_EXIT_OK;
}

/* ---- the range ----------------------------------------------------------------------- */

/* Does @e end the range asked for? */
static bool range_end(const struct replay_opts *o, const struct awr__lw_entry *e, uint64_t *flushes)
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

static void range_missing(const struct replay_opts *o, const struct awr__lw_log *log,
			  uint64_t flushes)
{
	if (o->to_entry > 0)
		out_error("%s: --to-entry %lld: the log has %" PRIu64 " entries", o->log_path,
			  o->to_entry, log->nr_entries);
	else if (o->to_flush > 0)
		out_error("%s: --to-flush %lld: the log has %" PRIu64 " flush points (entries "
			  "with FLUSH or FUA)", o->log_path, o->to_flush, flushes);
	else
		out_error("%s: --to-mark '%s': no mark of that name in the log (awr replay %s "
			  "lists them)", o->log_path, o->to_mark, o->log_path);
}

/* The last entry to replay: read every header up to it, so a corrupt log stops before any write. */
static int resolve_range(const struct replay_opts *o, struct awr__lw_log *log, struct replay_run *r)
{
	struct awr__lw_problem why;
	struct awr__lw_entry e;
	uint64_t flushes = 0;
	int ret;

	awr__lw_rewind(log);
	while ((ret = awr__lw_next(log, &e, &why)) > 0)
		if (range_end(o, &e, &flushes))
			break;
	if (ret < 0) {
		log_error(o->log_path, &why);
		return ret;
	}
	if (ret == 0 && (o->to_entry > 0 || o->to_flush > 0 || o->to_mark)) {
		range_missing(o, log, flushes);
		return -ENOENT;
	}
	r->from = o->from_entry > 0 ? (uint64_t)o->from_entry : 1;
	r->to = ret ? e.index : log->nr_entries;
	if (r->from > r->to) {
		out_error("%s: --from-entry %" PRIu64 " lies after the last entry to replay "
			  "(%" PRIu64 ")", o->log_path, r->from, r->to);
		return -EINVAL;
	}
	return 0;
}

/* ---- the target ---------------------------------------------------------------------- */

static int target_size(int fd, struct replay_run *r)
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
static int check_target_end(const struct replay_opts *o, struct awr__lw_log *log,
			    const struct replay_run *r)
{
	struct awr__lw_problem why;
	struct awr__lw_entry e;
	int ret = 0;

	awr__lw_rewind(log);
	while (log->next_index <= r->to && (ret = awr__lw_next(log, &e, &why)) > 0) {
		uint64_t end = (e.sector + e.nr_sectors) * log->sectorsize;

		if (e.index < r->from || !e.nr_sectors || end <= r->target_end)
			continue;
		out_error("%s: entry %" PRIu64 ": %s of sectors %" PRIu64 "..%" PRIu64 " (%" PRIu32
			  " bytes each) ends at byte %" PRIu64 ", past the end of %s (%" PRIu64
			  " bytes): give a target at least as large as the logged device",
			  o->log_path, e.index,
			  (e.flags & AWR__LW_DISCARD) ? "a discard" : "a write", e.sector,
			  e.sector + e.nr_sectors - 1, log->sectorsize, end, o->target,
			  r->target_end);
		return -ENOSPC;
	}
	if (ret < 0)
		log_error(o->log_path, &why);
	return ret < 0 ? ret : 0;
}

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
static int zero_range(int fd, struct replay_run *r, uint64_t off, uint64_t len)
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
			char *buf, struct replay_run *r)
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

static int replay_range(const struct replay_opts *o, int fd, struct awr__lw_log *log,
			struct replay_run *r)
{
	struct awr__lw_problem why;
	struct awr__lw_entry e;
	char *buf = malloc(REPLAY_CHUNK);
	int ret = 0, err = 0;

	if (!buf)
		return -ENOMEM;
	awr__lw_rewind(log);
	while (!err && log->next_index <= r->to && (ret = awr__lw_next(log, &e, &why)) > 0) {
		if (e.index < r->from)
			continue;
		err = replay_entry(fd, log, &e, buf, r);
		if (err)
			out_error("%s: entry %" PRIu64 ": replaying it onto %s failed: %s",
				  o->log_path, e.index, o->target,
				  err == -ENODATA ? "the log could not be read" : strerror(-err));
	}
	free(buf);
	if (!err && ret < 0) {
		log_error(o->log_path, &why);
		err = ret;
	}
	if (!err && fdatasync(fd)) {
		err = -errno;
		out_error("cannot flush %s after the replay: %s", o->target, strerror(errno));
	}
	return err;
}

#define R(m, t, k, ...) FLD(struct replay_run, m, t, k, __VA_ARGS__)
static const struct field run_fields[] = {
	R(from, FLD_UINT, "from_entry"),
	R(to, FLD_UINT, "to_entry"),
	R(entries, FLD_UINT, "entries_replayed"),
	R(writes, FLD_UINT, "writes"),
	R(bytes_written, FLD_SIZE, "bytes_written"),
	R(discards, FLD_UINT, "discards"),
	R(bytes_discarded, FLD_SIZE, "bytes_discarded"),
	R(discard_method, FLD_STR, "discard_method", .flags = FLD_NULL_ZERO),
	FLD_END
};
#undef R

static void replay_report(const struct replay_opts *o, const struct awr__lw_log *log,
			  const struct replay_run *r)
{
	struct json_object *d;
	char a[32], b[32];

	if (out_mode != OUT_JSON) {
		printf("%s: replayed entries %" PRIu64 "..%" PRIu64 " onto %s: %" PRIu64
		       " writes (%s)", o->log_path, r->from, r->to, o->target, r->writes,
		       out_size(r->bytes_written, a, sizeof(a)));
		if (r->discards)
			printf(", %" PRIu64 " discards (%s zeroed by %s)", r->discards,
			       out_size(r->bytes_discarded, b, sizeof(b)), r->discard_method);
		printf("\n");
		return;
	}
	d = json_object_new_object();
	json_object_object_add(d, "schema_version", json_object_new_int(REPLAY_SCHEMA_VERSION));
	json_object_object_add(d, "log", json_object_new_string(o->log_path));
	json_object_object_add(d, "target", json_object_new_string(o->target));
	json_object_object_add(d, "sector_size", out_u64(log->sectorsize));
	fld_json_add(d, run_fields, r);
	out_print_json(d);
}

/*
 * --force covers what a target holds (a filesystem, a partition table), never a target in use:
 * mounted, held (dm, md), opened exclusively or locked by another program.
 */
static int refuse_in_use(const char *path)
{
	struct awr_safety s;

	if (awr_target_safety(path, &s) || !(s.reasons & (AWR_UNSAFE_MOUNTED | AWR_UNSAFE_BUSY)))
		return 0;
	out_error("refusing to replay onto %s: it %s. Nothing was written (--force covers a "
		  "filesystem or partition table on the target, never a target in use)", path,
		  s.detail);
	return -EBUSY;
}

static int replay_log(const struct replay_opts *o, struct awr__lw_log *log)
{
	struct replay_run r = { 0 };
	int fd, ret;

	if (resolve_range(o, log, &r) || (o->force && refuse_in_use(o->target)))
		return AWR_EXIT_USAGE;
	fd = target_open("replay", o->target, O_RDWR, AWR_TARGET_CREATE | AWR_TARGET_KEEP_DATA,
			 o->force);
	if (fd < 0)
		return AWR_EXIT_USAGE;
	ret = target_size(fd, &r);
	if (ret)
		out_error("cannot tell the size of %s: %s", o->target, strerror(-ret));
	else if (same_file(fd, log->fd)) {
		out_error("refusing to replay %s onto itself: give another target", o->log_path);
		ret = -EINVAL;
	} else {
		ret = check_target_end(o, log, &r);
	}
	if (ret) {
		close(fd);
		return AWR_EXIT_USAGE;
	}
	ret = replay_range(o, fd, log, &r);
	close(fd);
	if (ret) {
		out_outcome("write_failed");
		return AWR_EXIT_FAIL;
	}
	replay_report(o, log, &r);
	return AWR_EXIT_OK;
}

/* ---- the command --------------------------------------------------------------------- */

static int check_options(const struct replay_opts *o)
{
	int bounds = (o->to_entry >= 0) + (o->to_flush >= 0) + !!o->to_mark;

	if (bounds > 1) {
		out_error("replay: give one of --to-entry, --to-flush and --to-mark");
		return -EINVAL;
	}
	if (!o->target && (bounds || o->from_entry >= 0 || o->force)) {
		out_error("replay: --to-entry, --to-flush, --to-mark, --from-entry and --force "
			  "need --target DEV (without it awr replay lists the log)");
		return -EINVAL;
	}
	if (!o->to_entry || !o->to_flush || !o->from_entry) {
		out_error("replay: %s 0: entries and flush points count from 1", !o->to_entry ?
			  "--to-entry" : !o->to_flush ? "--to-flush" : "--from-entry");
		return -EINVAL;
	}
	if (o->to_mark && !*o->to_mark) {
		out_error("replay: --to-mark needs a mark's name");
		return -EINVAL;
	}
	return 0;
}

static int run(struct replay_opts *o)
{
	struct awr__lw_problem why;
	struct awr__lw_log log;
	int fd, rc;

	fd = open(o->log_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		out_error("cannot open the log %s: %s", o->log_path, strerror(errno));
		return AWR_EXIT_USAGE;
	}
	if (awr__lw_open(fd, &log, &why)) {
		log_error(o->log_path, &why);
		close(fd);
		return AWR_EXIT_USAGE;
	}
	rc = o->target ? replay_log(o, &log) : list_log(o->log_path, &log);
	close(fd);
	return rc;
}

int cmd_replay(int argc, const char **argv)
{
	struct replay_opts o = { .to_entry = -1, .to_flush = -1, .from_entry = -1 };
	struct poptOption table[] = {
		{ "target", 0, POPT_ARG_STRING, &o.target, 0,
		  "write the logged device's state to DEV (a block device or a regular file)",
		  "DEV" },
		{ "to-entry", 0, POPT_ARG_LONGLONG, &o.to_entry, 0,
		  "replay entries up to N (inclusive)", "N" },
		{ "to-flush", 0, POPT_ARG_LONGLONG, &o.to_flush, 0,
		  "replay up to the K-th flush point (an entry with FLUSH or FUA), inclusive",
		  "K" },
		{ "to-mark", 0, POPT_ARG_STRING, &o.to_mark, 0,
		  "replay up to and including the mark NAME", "NAME" },
		{ "from-entry", 0, POPT_ARG_LONGLONG, &o.from_entry, 0,
		  "start at entry M (default 1): continue an earlier replay onto the same target",
		  "M" },
		{ "force", 0, POPT_ARG_NONE, &o.force, 0,
		  "write a target that holds a filesystem or partition table (its data is lost)",
		  NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct cmd_ctx c;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "LOG", true))
		return AWR_EXIT_USAGE;
	o.log_path = c.operand;
	if (o.target)	/* the error document names what is written, the log otherwise */
		out_set_command(c.name, o.target);
	if (!check_options(&o))
		rc = run(&o);
	cmd_done(&c);
	return rc;
}
