// SPDX-License-Identifier: MIT
/*
 * awr version / awr --version: library and tool versions, the running kernel and what it supports.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "awr.h"
#include "config.h"

/* Each rule of the library's kernel table, and whether it applies on @kernel. */
static void rules_print(uint32_t kernel)
{
	char since[64];

	for (int r = 0; r < AWR_KRULE__COUNT; r++)
		printf("  %-3s %-26s %s [from %s]\n", awr_kernel_has(kernel, r) ? "yes" : "no",
		       awr_kernel_rule_name(r), awr_kernel_rule_text(r),
		       awr_kernel_rule_since(r, since, sizeof(since)));
}

/* One rule of the kernel table as the document gives it */
struct rule_row {
	bool applies;
	char since[64];
	const char *text;
};

static const struct field rule_fields[] = {
	FLD(struct rule_row, applies, FLD_BOOL, "applies"),
	FLD(struct rule_row, since, FLD_CHARS, "since"),
	FLD(struct rule_row, text, FLD_STR, "text"),
	FLD_END
};

static struct json_object *rules_json(uint32_t kernel)
{
	struct json_object *o = json_object_new_object();
	struct rule_row x;

	for (int r = 0; r < AWR_KRULE__COUNT; r++) {
		x.applies = awr_kernel_has(kernel, r);
		awr_kernel_rule_since(r, x.since, sizeof(x.since));
		x.text = awr_kernel_rule_text(r);
		json_object_object_add(o, awr_kernel_rule_name(r), fld_json(rule_fields, &x));
	}
	return o;
}

int cmd_version(int argc, const char **argv)
{
	struct poptOption table[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct json_object *o, *k;
	struct utsname u;
	struct cmd_ctx c;
	uint32_t kernel;

	if (cmd_parse(&c, argc, argv, table, NULL, false))
		return AWR_EXIT_USAGE;
	if (c.operand) {
		out_error("version: unexpected argument '%s'", c.operand);
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	kernel = awr_kernel_running();
	if (out_mode == OUT_NORMAL) {
		printf("awr %s\nlibatomicwr %s\nkernel %s\n", AWR_VERSION_STRING, awr_version(),
		       u.release);
		rules_print(kernel);
	} else {
		o = json_object_new_object();
		json_object_object_add(o, "awr", json_object_new_string(AWR_VERSION_STRING));
		json_object_object_add(o, "libatomicwr", json_object_new_string(awr_version()));
		k = json_object_new_object();
		json_object_object_add(k, "release", json_object_new_string(u.release));
		json_object_object_add(k, "rules", rules_json(kernel));
		json_object_object_add(o, "kernel", k);
		out_print_json(o);
	}
	cmd_done(&c);
	return AWR_EXIT_OK;
}
