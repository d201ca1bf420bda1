# SPDX-License-Identifier: MIT
# Description: the mutants of awr report --html and -o prometheus (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant report-counts-swapped "the HTML run line shows the failed count as passed and back" \
	"cli_report_html" cli/report_html.c \
	'		struct json_object *v = typed(doc, counts[i].key, NUMBER);' \
	'		struct json_object *v = typed(doc, counts[i ^ (i < 2)].key, NUMBER);'

mutant report-key-unescaped "the HTML report writes an object key into data-key unescaped" \
	"cli_report_html" cli/report_html.c \
	'		html(f, "<td data-key=\"%s\">", k2);' \
	'		fprintf(f, "<td data-key=\"%s\">", k2);'

mutant report-missing-limits "the HTML report draws the limits table without checking for limits" \
	"cli_report_html" cli/report_html.c \
	$'\tif (lim)\n\t\tkv_table(f, "limits", lim);' \
	$'\tif (1)\n\t\tkv_table(f, "limits", lim);'

mutant report-html-unescaped "the HTML report's html() writes a string of a %s as it is" \
	"cli_report_html" cli/report_html.c \
	'			esc(f, va_arg(ap, const char *));' \
	'			fputs(va_arg(ap, const char *), f);'

mutant report-array-untyped "the HTML report takes any member as an array (json-c asserts)" \
	"cli_report_html" cli/report_html.c \
	'	return is(a, ARRAY) ? json_object_array_length(a) : 0;' \
	'	return a ? json_object_array_length(a) : 0;'

mutant report-walk-elements-skipped "the HTML report does not walk the members of array elements" \
	"cli_report_html" cli/report_html.c \
	$'\t\telse if (f->sub)\n\t\t\twalk(pg, at(v, i), el, f->sub, ran);' \
	$'\t\telse if (0)\n\t\t\twalk(pg, at(v, i), el, f->sub, ran);'

mutant report-check-path-by-index "the HTML report names a check by its index in what it lacks" \
	"cli_report_html" cli/report_html.c \
	'		if (f->rule == NAMED && typed(at(v, i), "name", STRING))' \
	'		if (0 && typed(at(v, i), "name", STRING))'

mutant prom-utf8 "-o prometheus writes label bytes that are not UTF-8 as they are" \
	"list_prometheus qualify_prometheus" cli/output.c \
	'		size_t n = awr__utf8_len((const unsigned char *)v);' \
	'		size_t n = awr__utf8_len((const unsigned char *)"a");'

mutant prom-misaligned-all "awr_partitions_misaligned counts every partition of the disk" \
	"list_prometheus" cli/cmd_list.c \
	'list[i].nr_parts - list[i].nr_parts_aligned,' \
	'list[i].nr_parts,'

mutant json-utf8-raw "JSON documents carry bytes that are not UTF-8 as they are (no reader takes them)" \
	"qualify_prometheus" cli/output.c \
	$'\tjson_utf8(obj);\n\tif (json_object_is_type(obj, json_type_object)' \
	$'\tif (json_object_is_type(obj, json_type_object)'

mutant qualify-require-hardware-ignored "--require-hardware passes a target of the software path alone" \
	"qualify_lib qualify_xfs" lib/qualify/scope.c \
	'	r->requirement_met = !r->require_hardware || r->scope == AWR_QUALIFY_SCOPE_HARDWARE;' \
	'	r->requirement_met = true;'
