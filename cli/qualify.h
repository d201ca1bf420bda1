/* SPDX-License-Identifier: MIT */
/*
 * awr qualify: the report of awr_qualify_run() rendered (qualify_out.c).
 */
#ifndef AWR_CLI_QUALIFY_H
#define AWR_CLI_QUALIFY_H

#include <stdbool.h>

#include "awr.h"
#include "libatomicwr/qualify.h"

/* "PASS", "FAIL", "SKIP", "INFO": the words of the text and the JSON */
const char *q_status_word(enum awr_qualify_status s);

/* The report as `awr qualify -o json` prints it (schema keys of the JSON report). */
struct json_object *q_report_json(const struct awr_qualify_report *r, const char *path,
				  bool scratch_file);

#endif /* AWR_CLI_QUALIFY_H */
