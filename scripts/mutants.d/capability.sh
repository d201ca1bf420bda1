# SPDX-License-Identifier: MIT
# Description: the mutants caught by the C tests that call a capability of the library directly
# (tests/README, "Where a test lives"; sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant prepare-data-unchecked "awr_prepare() prepares a file that holds data" \
	"prepare_fiemap" lib/write/prepare.c \
	$'\tif (st.st_size || st.st_blocks)' \
	$'\tif (0 && (st.st_size || st.st_blocks))'

mutant db-statx-none-guaranteed "the verdict under atomic writes ignores a file statx gives none" \
	"db_verdict_lib" lib/database/db.c \
	'if (!fs.atomic)' \
	'if (0 && !fs.atomic)'

mutant jserve-mac-unchecked "the journal server takes a client whose authentication MAC is wrong" \
	"journal_serve_lib" lib/verify/serve.c \
	'if (!awr__rj_mac_equal(mac, auth + AWR_RJ_AUTH_BODY)) {' \
	'if (0 && !awr__rj_mac_equal(mac, auth + AWR_RJ_AUTH_BODY)) {'

mutant job-nvme-depth-unchecked "awr_write_job_engine() gives the nvme engine a depth past 64" \
	"write_uring_engine" lib/write/job.c \
	$'\tif (*v > max[e] && (qd || e == AWR_JOB_NVME))' \
	$'\tif (*v > max[e] && !qd && e == AWR_JOB_NVME)'
