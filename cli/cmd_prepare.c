// SPDX-License-Identifier: MIT
/*
 * awr prepare FILE --size S --unit U: aligned preallocation for atomic writes of U, and its report.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "awr.h"

/* The document: what was asked, then what was done */
struct prepare_doc {
	const char *path;
	uint64_t size, unit;
};

static const struct field doc_fields[] = {
	FLD(struct prepare_doc, path, FLD_STR, "path"),
	FLD(struct prepare_doc, size, FLD_SIZE, "size"),
	FLD(struct prepare_doc, unit, FLD_SIZE, "unit"),
	FLD_END
};

#define P(m, t, k) FLD(struct awr_prepare_result, m, t, k)
static const struct field result_fields[] = {
	P(extsize_hint, FLD_SIZE, "extsize_hint"),
	P(aligned_bytes, FLD_SIZE, "aligned_bytes"),
	P(total_bytes, FLD_SIZE, "total_bytes"),
	P(message, FLD_CHARS, "message"),
	FLD_END
};
#undef P

static void prepare_report(const char *path, uint64_t size, uint64_t unit,
			   const struct awr_prepare_result *res,
			   int fd)
{
	struct awr_extent_report *r = NULL;
	struct json_object *o;
	struct awr_fs_view v;
	bool have_v = !awr_fs_view_fd(fd, &v);
	char a[32], b[32];

	if (awr_extents_read(fd, unit, &r))
		r = NULL;
	if (out_mode == OUT_NORMAL) {
		printf("%s: prepared %s for atomic writes of %s: %s\n", path,
		       awr__human_bytes(size, a, sizeof(a)), awr__human_bytes(unit, b, sizeof(b)),
		       res->message);
		if (have_v)
			fs_view_print(&v, r);
	} else {
		o = fld_json(doc_fields, &(struct prepare_doc){ path, size, unit });
		fld_json_add(o, result_fields, res);
		json_object_object_add(o, "fs", have_v ? fs_view_json(&v, r) : NULL);
		out_print_json(o);
	}
	awr_extent_report_free(r);
}

int cmd_prepare(int argc, const char **argv)
{
	char *size_s = NULL, *unit_s = NULL, a[32], b[32];
	int hint_only = 0;
	struct poptOption table[] = {
		{ "size", 0, POPT_ARG_STRING, &size_s, 0,
		  "bytes to preallocate, a multiple of the unit", "SIZE" },
		{ "unit", 0, POPT_ARG_STRING, &unit_s, 0, "the atomic write unit (a power of two)",
		  "U" },
		{ "hint-only", 0, POPT_ARG_NONE, &hint_only, 0,
		  "XFS: set the extent size hint and fallocate, without aligned placement", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_prepare_result res;
	struct cmd_ctx c;
	uint64_t size = 0, unit = 0;
	int fd = -1, ret, rc = AWR_EXIT_USAGE;
	bool created = false;

	if (cmd_parse(&c, argc, argv, table, "FILE", true))
		return AWR_EXIT_USAGE;
	if (!size_s || !unit_s) {
		out_error("give --size S and --unit U (e.g. --size 64m --unit 16k)");
		goto out;
	}
	if (parse_size_arg("size", size_s, &size) || parse_size_arg("unit", unit_s, &unit))
		goto out;
	/*
	 * A new file is made; an existing one must be empty (target_open, then awr_prepare, check).
	 * Whether this run made it comes from the library's own open (O_CREAT | O_EXCL), never from
	 * a
	 * look before it, which another program's file made in between would fool.
	 */
	fd = target_open_as("prepare", c.operand, O_RDWR, AWR_TARGET_CREATE | AWR_TARGET_KEEP_DATA,
			    false,
			    &created);
	if (fd < 0)
		goto out;
	{
		struct progress_file pf = { .fd = fd, .total = hint_only ? 0 : size };
		struct progress *pr = progress_start("prepare",
						     hint_only ? NULL : progress_allocated, &pf);

		ret = awr_prepare(fd, size, unit, hint_only ? AWR_PREPARE_HINT_ONLY : 0, &res);
		progress_stop(pr);
	}
	if (ret) {
		out_error("cannot prepare %s: %s (%s)", c.operand, res.message,
			  awr_prepare_refusal_name(res.refusal));
		if (created && res.refusal != AWR_PREPARE_FAILED && awr__same_file(c.operand, fd))
			unlink(c.operand);	/* refused before any change: leave nothing behind
						   */
		rc = res.refusal == AWR_PREPARE_FAILED ? AWR_EXIT_FAIL : AWR_EXIT_USAGE;
		out_outcome("prepare_failed");
		goto out;
	}
	prepare_report(c.operand, size, unit, &res, fd);
	/* the promise is a fully aligned file: say so by the exit status */
	rc = res.aligned_bytes == size ? AWR_EXIT_OK : AWR_EXIT_FAIL;
	out_outcome("not_aligned");
	if (rc)
		out_error("%s: only %s of %s are on aligned extents: free space is in pieces "
			  "smaller than the unit; prepare a new file on a less full filesystem",
			  c.operand, awr__human_bytes(res.aligned_bytes, a, sizeof(a)),
			  awr__human_bytes(size, b, sizeof(b)));
out:
	if (fd >= 0)
		close(fd);
	cmd_done(&c);
	return rc;
}
