# SPDX-License-Identifier: MIT
# Description: the mutants of opening what awr writes: awr_target_open()'s refusal said once, in
# the library, for awr and for a C caller alike; awr write's target opened and its range checked by
# the library's write job (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant target-refusal-unsaid "awr_target_open() refuses without a sentence in awr_last_error()" \
	"safety" lib/decide/safety.c \
	'	return fd < 0 ? awr_target_refusal(s, fd, path, oflags, NULL) : fd;' \
	'	return fd;'

mutant target-refusal-verb-dropped "a refusal names no awr command: (awr VERB) left out" \
	"safety write_target_open" lib/decide/safety.c \
	$'\tif (verb)\n\t\tsnprintf(who, sizeof(who), " (awr %.32s)", verb);\n' \
	''

mutant job-range-unchecked "awr_write_job_run() takes a range awr_write_job_check() refuses" \
	"write_uring_engine" lib/write/job.c \
	$'\tint ret = awr_write_job_check(j);\n\n\tif (ret)\n\t\treturn ret;\n' \
	''

mutant job-open-unnamed "awr_write_job_open() refuses a file without naming awr write" \
	"write_uring_engine" lib/write/job.c \
	'		return awr_target_refusal(why, fd, path, O_RDWR | O_DIRECT, "write");' \
	'		return awr_target_refusal(why, fd, path, O_RDWR | O_DIRECT, NULL);'

mutant job-refusal-advice-dropped "a refused unit's sentence says no what to do" \
	"write_uring_engine" lib/write/job.c \
	'	return todo ? todo : "";' \
	'	return "";'

mutant job-routes-queued "a job asks for routes through a queue and silently gets none" \
	"write_uring_engine" lib/write/job.c \
	$'\tif ((j->flags & AWR_JOB_ROUTES) && (!j->file || j->qd))\n\t\treturn routes_refused();\n' \
	''

mutant job-open-routes-unchecked "awr write --report-path --engine uring runs without routes" \
	"write_uring_engine prepare_extents" lib/write/job.c \
	$'\tif ((j->flags & AWR_JOB_ROUTES) && e != AWR_JOB_SYNC)\n' \
	$'\tif (0)\n'
