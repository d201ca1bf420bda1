// SPDX-License-Identifier: MIT
/* awr version / awr --version: library and tool versions, the running kernel and what it supports. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "awr.h"
#include "config.h"

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

	if (cmd_parse(&c, argc, argv, table, NULL, false))
		return AWR_EXIT_USAGE;
	if (c.operand) {
		out_error("version: unexpected argument '%s'", c.operand);
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (out_mode == OUT_NORMAL) {
		printf("awr %s\nlibatomicwr %s\nkernel %s\n", AWR_VERSION_STRING, awr_version(), u.release);
	} else {
		o = json_object_new_object();
		json_object_object_add(o, "awr", json_object_new_string(AWR_VERSION_STRING));
		json_object_object_add(o, "libatomicwr", json_object_new_string(awr_version()));
		k = json_object_new_object();
		json_object_object_add(k, "release", json_object_new_string(u.release));
		json_object_object_add(o, "kernel", k);
		out_print_json(o);
	}
	cmd_done(&c);
	return AWR_EXIT_OK;
}
