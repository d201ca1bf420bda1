// SPDX-License-Identifier: MIT
/*
 * awr preload-stats FILE: the counters of a program run under libatomicwr-preload
 * (AWR_PRELOAD_STATS).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

/* The file's header, then its counters: one row each in JSON, one line each in text */
#define C(f, t) FLD(struct awr_preload_stats, f, FLD_UINT, #f, .help = t)
static const struct field head[] = {
	C(pid, NULL),
	C(page_size, NULL),
	FLD_END
};

static const struct field counters[] = {
	C(files_named, "opens of named files (each takes atomic writes of a page)"),
	C(files_refused, "opens of named files refused: they cannot take atomic writes of a page"),
	C(atomic_pwrite, "page writes made atomic: pwrite, pwritev, pwritev2"),
	C(atomic_uring, "page writes made atomic: io_uring (liburing's io_uring_submit)"),
	C(atomic_aio, "page writes made atomic: libaio (io_submit)"),
	C(split_pwrite, "writes of several whole pages split into atomic page writes (pwrite "
			"family)"),
	C(plain_size, "writes left as they were: not one page (pwrite family: not whole pages)"),
	C(plain_misaligned, "writes left as they were: offset not a multiple of the page"),
	C(plain_buffered, "writes left as they were: the descriptor has no O_DIRECT"),
	C(plain_segments, "writes left as they were: several iovecs (pwrite family: a page across "
	  "two)"),
	C(plain_position, "writes left as they were: at the file position (no offset)"),
	C(plain_append, "writes left as they were: O_APPEND or RWF_APPEND (written at the end)"),
	C(refused, "atomic page writes the kernel refused (the error went to the program)"),
	C(uring_fixed_files, "io_uring writes to registered files: not looked at"),
	FLD_END
};
#undef C

/* The file the counters came from (JSON's first key), then their sums after them */
static const struct field file_field[] = {
	FLD(struct cmd_ctx, operand, FLD_STR, "file"),
	FLD_END
};

static const struct field sums[] = {
	FLD(struct awr_preload_totals, atomic, FLD_UINT, "atomic"),
	FLD(struct awr_preload_totals, plain, FLD_UINT, "plain"),
	FLD_END
};

static void render(const struct cmd_ctx *c, const struct awr_preload_stats *s,
		   const struct awr_preload_totals *t)
{
	struct json_object *o;
	char ps[32];

	if (out_mode == OUT_JSON) {
		o = fld_json(file_field, c);
		fld_json_add(o, head, s);
		fld_json_add(o, counters, s);
		fld_json_add(o, sums, t);
		out_print_json(o);
		return;
	}
	printf("%s: pid %" PRIu64 ", %s pages: %" PRIu64 " page writes made atomic, %" PRIu64
	       " writes to named files left as they were, %" PRIu64 " refused\n", c->operand,
	       s->pid, out_size(s->page_size, ps, sizeof(ps)), t->atomic, t->plain, s->refused);
	fld_print(counters, s, 18, 12);
}

int cmd_preload_stats(int argc, const char **argv)
{
	struct poptOption table[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_preload_totals t;
	struct awr_preload_stats s;
	struct cmd_ctx c;

	if (cmd_parse(&c, argc, argv, table, "FILE", true))
		return AWR_EXIT_USAGE;
	if (awr_preload_stats_read(c.operand, &s)) {
		out_error("%s: %s", c.operand, awr_last_error());
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	awr_preload_stats_totals(&s, &t);
	render(&c, &s, &t);
	cmd_done(&c);
	/* 1: the kernel refused an atomic page write, or a named file was refused */
	out_outcome("refused");
	return t.refused ? AWR_EXIT_FAIL : AWR_EXIT_OK;
}
