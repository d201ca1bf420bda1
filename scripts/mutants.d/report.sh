# SPDX-License-Identifier: MIT
# Description: the mutants of awr report --html and -o prometheus (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant report-counts-swapped "the HTML report's run line shows failed as passed and passed as failed" \
	"report_html" cli/report_html.c \
	'		struct json_object *v = typed(doc, counts[i].key, NUMBER);' \
	'		struct json_object *v = typed(doc, counts[i ^ (i < 2)].key, NUMBER);'

mutant report-key-unescaped "the HTML report writes an object key into data-key unescaped" \
	"report_html" cli/report_html.c \
	$'\t\tput(f, "<td data-key=\\"", k2);\n\t\tfputs("\\">", f);' \
	$'\t\tfprintf(f, "<td data-key=\\"%s\\">", k2);'

mutant report-missing-limits "the HTML report draws the limits table without checking there are limits" \
	"report_html" cli/report_html.c \
	$'\tif (lim)\n\t\tkv_table(f, "limits", lim);' \
	$'\tif (1)\n\t\tkv_table(f, "limits", lim);'

mutant report-array-untyped "the HTML report takes any member as an array (json-c asserts on an object)" \
	"report_html" cli/report_html.c \
	'	return is(a, json_type_array) ? json_object_array_length(a) : 0;' \
	'	return a ? json_object_array_length(a) : 0;'
