// SPDX-License-Identifier: MIT
/* awr report FILE.json --html OUT: draw a saved qualification report (awr qualify --report or -o json). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

int cmd_report(int argc, const char **argv)
{
	char *html = NULL;
	int force = 0;
	struct poptOption table[] = {
		{ "html", 0, POPT_ARG_STRING, &html, 0, "write the report as one self-contained HTML page to OUT "
		  "(a new file, or a report awr wrote before)", "OUT" },
		{ "force", 0, POPT_ARG_NONE, &force, 0, "replace OUT even if it holds something else", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct json_object *doc = NULL;
	struct cmd_ctx c;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "FILE.json", true))
		return AWR_EXIT_USAGE;
	if (!html) {
		out_error("no output named: give --html OUT (awr report renders a saved awr qualify report as HTML)");
		goto out;
	}
	doc = json_object_from_file(c.operand);
	if (!doc) {
		out_error("cannot read %s as JSON: %s; give a report that awr qualify --report FILE or -o json wrote",
			  c.operand, errno ? strerror(errno) : json_util_get_last_err());
		goto out;
	}
	if (!report_html_is_report(doc)) {
		out_error("%s is JSON but not an awr qualify report (it has no \"checks\" and \"verdict\"): give a "
			  "report that awr qualify --report FILE or -o json wrote", c.operand);
		goto out;
	}
	if (report_html_dest_ok(html, force) || report_html_file(doc, html))
		goto out;
	rc = AWR_EXIT_OK;
out:
	json_object_put(doc);
	cmd_done(&c);
	return rc;
}
