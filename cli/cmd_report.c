// SPDX-License-Identifier: MIT
/*
 * awr report FILE.json --html OUT: draw a saved qualification report (awr qualify --report or
 * -o json), also one of another awr version or a damaged one: the page names what it lacks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

/* Why FILE.json could not be read: the system's error, or json-c's (one line). */
static const char *read_error(char *buf, size_t len)
{
	const char *e = json_util_get_last_err();

	snprintf(buf, len, "%s", errno ? strerror(errno) : e ? e : "");
	buf[strcspn(buf, "\n")] = '\0';
	/* json-c's words for a file with nothing in it, or with null */
	if (!*buf || strstr(buf, "failed: success") || strstr(buf, "failed: continue"))
		snprintf(buf, len, "it holds no JSON value but null, or nothing");
	return buf;
}

int cmd_report(int argc, const char **argv)
{
	char *html = NULL, why_read[256];
	int force = 0;
	struct poptOption table[] = {
		{ "html", 0, POPT_ARG_STRING, &html, 0, "write the report as one self-contained "
		  "HTML page to OUT (a new file, or a report awr wrote before)", "OUT" },
		{ "force", 0, POPT_ARG_NONE, &force, 0, "replace OUT even if it holds something "
		  "else", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct json_object *doc = NULL;
	const char *why;
	struct cmd_ctx c;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "FILE.json", true))
		return AWR_EXIT_USAGE;
	if (!html) {
		out_error("no output named: give --html OUT (awr report renders a saved awr "
			  "qualify report as HTML)");
		goto out;
	}
	errno = 0;
	doc = json_object_from_file(c.operand);
	if (!doc) {
		out_error("cannot read %s as JSON: %s; give a report that awr qualify --report "
			  "FILE or -o json wrote", c.operand,
			  read_error(why_read, sizeof(why_read)));
		goto out;
	}
	why = report_html_not_report(doc);
	if (why) {
		out_error("%s is JSON but not an awr qualify report (%s): give a report that awr "
			  "qualify --report FILE or -o json wrote, a JSON object with \"checks\", "
			  "\"verdict\" and the counts", c.operand, why);
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
