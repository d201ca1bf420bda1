// SPDX-License-Identifier: MIT
/*
 * awr extents FILE [--unit U]: the FIEMAP extents, which are aligned to U, and the misaligned
 * ranges.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

#define E(m, k) FLD(struct awr_extent_report, m, FLD_SIZE, k)
static const struct field head_fields[] = {
	E(unit, "unit"),
	E(file_size, "file_size"),
	E(ag_size, "ag_size"),
	FLD_END
};

static const struct field sum_fields[] = {
	E(aligned_bytes, "aligned_bytes"),
	E(total_bytes, "total_bytes"),
	FLD_END
};
#undef E

static const struct field extent_fields[] = {
	FLD(struct awr_extent, logical, FLD_SIZE, "logical"),
	FLD(struct awr_extent, physical, FLD_SIZE, "physical"),
	FLD(struct awr_extent, length, FLD_SIZE, "length"),
	FLD(struct awr_extent, flags, FLD_UINT, "flags"),
	FLD(struct awr_extent, aligned, FLD_BOOL, "aligned"),
	FLD_END
};

static const struct field path_field[] = {
	{ .key = "path", .type = FLD_STR },	/* a const char * at offset 0 */
	FLD_END
};

static struct json_object *extents_json(const char *path, const struct awr_extent_report *r)
{
	struct json_object *o = fld_json(path_field, &path);

	fld_json_add(o, head_fields, r);
	json_object_object_add(o, "extents", fld_json_array(extent_fields, r->extents,
							    sizeof(*r->extents), r->nr_extents));
	fld_json_add(o, sum_fields, r);
	json_object_object_add(o, "misaligned", extents_ranges_json(r));
	return o;
}

static void extents_print(const char *path, const struct awr_extent_report *r)
{
	char a[32], b[32], c[32];

	printf("%s: %u extent%s, unit %s%s%s\n\n", path, r->nr_extents,
	       r->nr_extents == 1 ? "" : "s",
	       out_size(r->unit, a, sizeof(a)),
	       r->ag_size ? ", physical offsets judged within their allocation group of " : "",
	       r->ag_size ? out_size(r->ag_size, b, sizeof(b)) : "");
	printf("  %-16s %-16s %-12s %-8s %s\n", "logical", "physical", "length", "flags",
	       "aligned");
	for (unsigned int i = 0; i < r->nr_extents; i++) {
		const struct awr_extent *e = &r->extents[i];

		printf("  %-16" PRIu64 " %-16" PRIu64 " %-12s 0x%-6x %s\n", e->logical, e->physical,
		       out_size(e->length, a, sizeof(a)), e->flags, e->aligned ? "yes" : "no");
	}
	printf("\naligned: %s of %s (%" PRIu64 "%%) lie in whole %s units on aligned extents\n",
	       out_size(r->aligned_bytes, a, sizeof(a)), out_size(r->total_bytes, b, sizeof(b)),
	       r->total_bytes ? r->aligned_bytes * 100 / r->total_bytes : 0,
	       out_size(r->unit, c, sizeof(c)));
	if (r->nr_misaligned)
		printf("misaligned ranges:\n");
	for (unsigned int i = 0; i < r->nr_misaligned; i++)
		printf("  %" PRIu64 " .. %" PRIu64 " (%s)\n", r->misaligned[i].offset,
		       r->misaligned[i].offset + r->misaligned[i].length,
		       out_size(r->misaligned[i].length, a, sizeof(a)));
}

int cmd_extents(int argc, const char **argv)
{
	char *unit_s = NULL;
	struct poptOption table[] = {
		{ "unit", 0, POPT_ARG_STRING, &unit_s, 0,
		  "judge alignment against U (default: the hardware path's maximum, else the "
		  "block)", "U" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_extent_report *r = NULL;
	struct cmd_ctx c;
	uint64_t unit = 0;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "FILE", true))
		return AWR_EXIT_USAGE;
	if (unit_s && (parse_size_arg("unit", unit_s, &unit) || !unit || (unit & (unit - 1)))) {
		if (unit)
			out_error("--unit %s is not a power of two: atomic units are powers of two "
				  "(e.g. 16k)", unit_s);
		else if (unit_s && !strcmp(unit_s, "0"))
			out_error("--unit 0: give a power of two such as 16k");
		goto out;
	}
	if (awr_extents_read_path(c.operand, unit, &r)) {
		out_error("%s", awr_last_error());
		goto out;
	}
	if (out_mode == OUT_JSON)
		out_print_json(extents_json(c.operand, r));
	else
		extents_print(c.operand, r);
	rc = AWR_EXIT_OK;
out:
	awr_extent_report_free(r);
	cmd_done(&c);
	return rc;
}
