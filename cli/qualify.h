/* SPDX-License-Identifier: MIT */
/*
 * awr qualify: the report of awr_qualify_run() rendered (qualify_out.c), and the performance
 * check, still run here between the library's crash and hardware_path checks (qualify_perf.c).
 */
#ifndef AWR_CLI_QUALIFY_H
#define AWR_CLI_QUALIFY_H

#include <stdbool.h>

#include "awr.h"
#include "libatomicwr/qualify.h"

/* The performance check: a short awr bench of database-style page writes. */
struct qperf {
	bool ran;
	enum awr_qualify_status status;
	char reason[512];
	struct json_object *figures;	/* owned */
	double seconds;
};

void q_performance(int fd, const struct awr_qualify_report *r, struct qperf *c);

/* "PASS", "FAIL", "SKIP", "INFO": the words of the text and the JSON */
const char *q_status_word(enum awr_qualify_status s);

/* The report as `awr qualify -o json` prints it (schema keys of the JSON report). */
struct json_object *q_report_json(const struct awr_qualify_report *r, const struct qperf *perf,
				  const char *path, bool scratch_file);

#endif /* AWR_CLI_QUALIFY_H */
