// SPDX-License-Identifier: MIT
/*
 * awr version / awr --version: library and tool versions, the running kernel and what it supports.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "awr.h"
#include "config.h"

/* One rule of the library's kernel table, and whether it applies on the running kernel */
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

/* Each rule: a line of text, or a member of @o (JSON) named after the rule */
static void rules_render(uint32_t kernel, struct json_object *o)
{
	struct rule_row x;

	for (int r = 0; r < AWR_KRULE__COUNT; r++) {
		const char *name = awr_kernel_rule_name(r);

		x.applies = awr_kernel_has(kernel, r);
		awr_kernel_rule_since(r, x.since, sizeof(x.since));
		x.text = awr_kernel_rule_text(r);
		if (o)
			json_object_object_add(o, name, fld_json(rule_fields, &x));
		else
			printf("  %-3s %-26s %s [from %s]\n", x.applies ? "yes" : "no", name,
			       x.text, x.since);
	}
}

/* The document: the versions, then the kernel's release and rules */
struct version_doc {
	const char *awr, *libatomicwr;
};

static const struct field version_fields[] = {
	FLD(struct version_doc, awr, FLD_STR, "awr"),
	FLD(struct version_doc, libatomicwr, FLD_STR, "libatomicwr"),
	FLD_END
};

static const struct field kernel_fields[] = {
	FLD(struct utsname, release, FLD_CHARS, "release"),
	FLD_END
};

int cmd_version(int argc, const char **argv)
{
	struct poptOption table[] = {
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct json_object *o, *k, *rules;
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
		rules_render(kernel, NULL);
	} else {
		o = fld_json(version_fields, &(struct version_doc){ AWR_VERSION_STRING,
								     awr_version() });
		k = fld_json(kernel_fields, &u);
		rules_render(kernel, rules = json_object_new_object());
		json_object_object_add(k, "rules", rules);
		json_object_object_add(o, "kernel", k);
		out_print_json(o);
	}
	cmd_done(&c);
	return AWR_EXIT_OK;
}
