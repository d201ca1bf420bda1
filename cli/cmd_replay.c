// SPDX-License-Identifier: MIT
/*
 * awr replay LOG [--target DEV --to-entry N | --to-flush K | --to-mark NAME [--from-entry M]]:
 * list a dm-log-writes log (every write of a device with its FLUSH/FUA marks, as the kernel's
 * log-writes target recorded it), or write the device's state at an entry, a flush point or a
 * mark to a target: the state a power cut just after that point may leave on a disk with a
 * volatile write cache (fstests' replay-log does the same for generic/455 and others).
 * The log is read by lib/verify/logwrites.c and replayed by lib/verify/replay.c, which opens
 * the target as every awr write tool opens one (awr_target_open()).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"
#include "../lib/verify/logwrites.h"

#define REPLAY_SCHEMA_VERSION	1	/* the document of awr replay (man/awr.1) */

/* What the command line asks. */
struct replay_opts {
	const char *log_path;
	char *target;
	long long to_entry, to_flush, from_entry;	/* -1: not given */
	char *to_mark;
	int force;
};

/* ---- listing ------------------------------------------------------------------------- */

static struct json_object *flags_json(uint64_t flags)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; awr__lw_flag_name(i); i++)
		if (flags & (1ULL << i))
			json_object_array_add(a, json_object_new_string(awr__lw_flag_name(i)));
	return a;
}

static const struct field entry_fields[] = {
	FLD(struct awr__lw_entry, index, FLD_UINT, "index"),
	FLD(struct awr__lw_entry, sector, FLD_UINT, "sector"),
	FLD(struct awr__lw_entry, nr_sectors, FLD_UINT, "nr_sectors"),
	FLD_END
};

static const struct field mark_fields[] = {
	FLD(struct awr__lw_entry, mark, FLD_CHARS, "name"),
	FLD(struct awr__lw_entry, index, FLD_UINT, "index"),
	FLD_END
};

/* awr replay LOG -o json: the entries, the flush points' indexes and the marks as they come */
struct listing {
	struct json_object *entries, *flush_points, *marks;
};

static void entry_json(const struct awr__lw_entry *e, void *arg)
{
	struct listing *l = arg;
	struct json_object *o = fld_json(entry_fields, e);

	json_object_object_add(o, "flags", flags_json(e->flags));
	json_object_object_add(o, "mark",
			       (e->flags & AWR__LW_MARK) ? json_object_new_string(e->mark) : NULL);
	json_object_array_add(l->entries, o);
	if (awr__lw_flush_point(e))
		json_object_array_add(l->flush_points, out_u64(e->index));
	if (e->flags & AWR__LW_MARK)
		json_object_array_add(l->marks, fld_json(mark_fields, e));
}

static void entry_print(const struct awr__lw_entry *e, void *arg)
{
	char f[64];

	(void)arg;
	awr__lw_flags_text(e->flags, f, sizeof(f));
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

/* The head of both documents: the schema, the log, [the target,] its sector size */
struct doc_head {
	int schema_version;
	const char *log, *target;
	uint64_t sector_size;
};

static const struct field head_fields[] = {
	FLD(struct doc_head, schema_version, FLD_INT, "schema_version"),
	FLD(struct doc_head, log, FLD_STR, "log"),
	FLD(struct doc_head, target, FLD_STR, "target"),
	FLD(struct doc_head, sector_size, FLD_UINT, "sector_size"),
	FLD_END
};

static struct json_object *doc_head(const char *log_path, const char *target,
				    const struct awr__lw_log *log)
{
	struct doc_head h = { REPLAY_SCHEMA_VERSION, log_path, target, log->sectorsize };
	struct json_object *o = json_object_new_object();

	for (const struct field *f = head_fields; f->key; f++)
		if (target || strcmp(f->key, "target"))
			json_object_object_add(o, f->key, fld_json_value(f, &h));
	return o;
}

static int list_log(const char *path, struct awr__lw_log *log)
{
	struct listing l = { json_object_new_array(), json_object_new_array(),
			     json_object_new_array() };
	bool json = out_mode == OUT_JSON;
	struct awr__lw_listing n;
	struct awr__lw_problem why;
	struct json_object *o;
	int ret;

	if (!json) {
		printf("%s: dm-log-writes log, sector size %" PRIu32 ", %" PRIu64 " entries\n\n",
		       path, log->sectorsize, log->nr_entries);
		printf("%8s %14s %9s  %-22s %s\n", "index", "sector", "sectors", "flags", "mark");
	}
	ret = awr__lw_list(log, json ? entry_json : entry_print, &l, &n, &why);
	o = doc_head(path, NULL, log);
	json_object_object_add(o, "nr_entries", out_u64(log->nr_entries));
	json_object_object_add(o, "entries", l.entries);
	json_object_object_add(o, "flush_points", l.flush_points);
	json_object_object_add(o, "marks", l.marks);
	if (ret < 0) {
		fflush(stdout);
		log_error(path, &why);
		json_object_put(o);
		return AWR_EXIT_USAGE;
	}
	if (json)
		out_print_json(o);
	else
		printf("\n%" PRIu64 " entries, %" PRIu64 " flush points, %" PRIu64 " marks\n",
		       log->nr_entries, n.flush_points, n.marks);
	if (!json)
		json_object_put(o);
	return AWR_EXIT_OK;
}

/* ---- the replay: lib/verify/replay.c; why it stopped, said here ------------------------ */

#define R(m, t, k, ...) FLD(struct awr__lw_replay, m, t, k, __VA_ARGS__)
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
			  const struct awr__lw_replay *r)
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
	d = doc_head(o->log_path, o->target, log);
	fld_json_add(d, run_fields, r);
	out_print_json(d);
}

static int replay_log(const struct replay_opts *o, struct awr__lw_log *log)
{
	struct awr__lw_bound b = { o->to_entry, o->to_flush, o->from_entry, o->to_mark };
	struct awr__lw_replay r = { .log_path = o->log_path, .target_path = o->target };
	int ret = awr__lw_replay_onto(log, &b, o->force, &r);

	if (r.forced)
		out_error("warning: writing %s although it %s: --force given", o->target,
			  r.safety.detail);
	if (!ret) {
		replay_report(o, log, &r);
		return AWR_EXIT_OK;
	}
	out_error("%s", r.message);
	if (r.stage != AWR__LW_AT_REPLAY)
		return AWR_EXIT_USAGE;
	out_outcome("write_failed");
	return AWR_EXIT_FAIL;
}

/* ---- the command --------------------------------------------------------------------- */

static int check_options(const struct replay_opts *o)
{
	struct awr__lw_bound b = { o->to_entry, o->to_flush, o->from_entry, o->to_mark };
	struct awr__lw_replay r;

	if (!awr__lw_bound_check(&b, o->target, o->force, &r))
		return 0;
	out_error("%s", r.message);
	return -EINVAL;
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
