// SPDX-License-Identifier: MIT
/* awr check PATH --offset O --length L: would this write be atomic? */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

/* The document: the verdict, then the write it is about */
struct check_doc {
	struct awr_verdict v;
	const char *path;
	uint64_t offset, length;
};

FLD_ENUM_NAME(awr_rule_name, enum awr_rule)

#define C(m, t, k, ...) FLD(struct check_doc, m, t, k, __VA_ARGS__)
static const struct field doc_fields[] = {
	C(v.rule, FLD_BOOL, "atomic", .flags = FLD_NOT),	/* AWR_RULE_OK */
	C(v.rule, FLD_ENUM, "rule", .name = awr_rule_name_int),
	C(v.error, FLD_ENUM, "errno", .name = awr__errno_name),
	C(v.message, FLD_CHARS, "message"),
	C(path, FLD_STR, "path"),
	C(offset, FLD_SIZE, "offset"),
	C(length, FLD_SIZE, "length"),
	FLD_END
};
#undef C

int cmd_check(int argc, const char **argv)
{
	char *offset_s = NULL, *length_s = NULL;
	int buffered = 0, segments = 1;
	struct poptOption table[] = {
		{ "offset", 0, POPT_ARG_STRING, &offset_s, 0, "byte offset of the write", "O" },
		{ "length", 0, POPT_ARG_STRING, &length_s, 0, "length of the write", "L" },
		{ "buffered", 0, POPT_ARG_NONE, &buffered, 0,
		  "judge a write on a descriptor opened without O_DIRECT", NULL },
		{ "segments", 0, POPT_ARG_INT, &segments, 0, "number of iovecs (default 1)", "N" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_write_plan plan = { .nr_segs = 1 };
	struct check_doc d = { .offset = 0 };
	struct awr_probe *p;
	struct cmd_ctx c;
	int ret;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	if (parse_size_arg("offset", offset_s, &plan.offset) ||
	    parse_size_arg("length", length_s, &plan.length)) {
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	if (segments < 1) {
		out_error("--segments %d: the number of iovecs must be at least 1", segments);
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	plan.nr_segs = (unsigned int)segments;
	plan.open_flags = O_RDWR | (buffered ? 0 : O_DIRECT);
	ret = awr_probe_path(c.operand, 0, &p);
	if (ret) {
		out_error("cannot probe %s: %s", c.operand, strerror(-ret));
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	ret = awr_check(awr_probe_effective(p), &plan, &d.v);
	d.path = c.operand;
	d.offset = plan.offset;
	d.length = plan.length;
	if (out_mode == OUT_JSON)
		out_print_json(fld_json(doc_fields, &d));
	else if (!ret)
		printf("atomic: %s\n", d.v.message);
	else
		printf("not atomic: %s (rule %s; the kernel returns %s)\n", d.v.message,
		       awr_rule_name(d.v.rule), awr__errno_name(d.v.error));
	awr_probe_free(p);
	cmd_done(&c);
	if (ret)
		out_outcome("not_atomic");
	return ret ? AWR_EXIT_FAIL : AWR_EXIT_OK;
}
