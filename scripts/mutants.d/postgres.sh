# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Mutants of the PostgreSQL verdict (issue 39 item 1, lib/database/db.c, lib/database/dbfiles.c):
# direct I/O from the running state, PG_VERSION, debug_io_direct on the postmaster's command line
# or in the files; full_page_writes and data checksums as PostgreSQL reads them; the one line
# without direct I/O; relation files only, the tablespaces, WAL and SLRU skipped; the patterns.

mutant pg-running-state-ignored "the relation files a server process holds open not read for O_DIRECT" \
	"db_postgres" lib/database/db.c \
	$'\tif (holder && held > 0) {\n\t\tr->direct_io = direct;' \
	$'\tif (0) {\n\t\tr->direct_io = direct;'

mutant pg-any-open-file-counts "pg_control held open taken as a relation file (the running state)" \
	"db_postgres" lib/database/db.c \
	$' && name &&\n\t       isdigit((unsigned char)name[1]);' \
	';'

mutant pg-version-ignored "PG_VERSION 15 not read: a 15 taken as having debug_io_direct" \
	"db_postgres" lib/database/db.c \
	$'\tif (v && v < 16) {\n\t\tr->direct_io = false;' \
	$'\tif (0) {\n\t\tr->direct_io = false;'

mutant pg-io-direct-any-value "any debug_io_direct value taken as data" \
	"db_postgres" lib/database/db.c \
	'	r->direct_io = ret > 0 && io_direct_data(s.value);' \
	'	r->direct_io = ret > 0;'

mutant pg-cmdline-ignored "the postmaster's command line not read: the files decide" \
	"db_postgres" lib/database/db.c \
	'	if (r->server_pid && cmdline_setting(r->server_pid, name, s) == 1)' \
	'	if (0)'

mutant pg-postmaster-ignored "the server taken as the process holding the most files, not postmaster.pid's" \
	"db_postgres" lib/database/db.c \
	'	const pid_t pid = pm ? pm : holder;' \
	'	const pid_t pid = holder;'

mutant pg-conf-ignored "PostgreSQL's configuration files not read (full_page_writes, debug_io_direct)" \
	"db_postgres" lib/database/db.c \
	'	ret = awr__pg_conf_get(conf, r->datadir, name, s);' \
	'	ret = 0;'

mutant pg-buffered-noise "buffered PostgreSQL files judged down to the device under the one line" \
	"db_postgres db_verdict" lib/database/db.c \
	$'\t\tjudge_buffered(f, buffered);\n\t\tgoto out;' \
	$'\t\tjudge_buffered(f, buffered);'

mutant pg-advice-old-patterns "the advice names every file of base/ and global/ (pg_control too)" \
	"db_postgres" lib/database/db.c \
	$'"AWR_PRELOAD_FILES=\'%s/base/*/[0-9]*:"' \
	$'"AWR_PRELOAD_FILES=\'%s/base/*:"'

mutant pg-checksum-offset "data_checksum_version read at blcksz + 32 (float8ByVal)" \
	"db_postgres" lib/database/dbfiles.c \
	'	dcv = at + 8 + 36;' \
	'	dcv = at + 8 + 32;'

mutant pg-tblspc-not-scanned "the tablespaces under pg_tblspc not judged" \
	"db_postgres" lib/database/dbfiles.c \
	'		return S_ISDIR(st->st_mode) ? scan_tblspc(dfd, l) : 0;' \
	'		return 0;'

mutant pg-wal-silent "pg_wal left out without being named as skipped" \
	"db_postgres" lib/database/dbfiles.c \
	'	if (!strcmp(n, "pg_wal"))' \
	'	if (0)'

mutant pg17-multipage-ignored "PostgreSQL 17's multi-page pwritev not held against plain direct writes" \
	"db_postgres" lib/database/db.c \
	'	if (r->engine == AWR_DB_POSTGRESQL && (!r->engine_version || r->engine_version >= 17))' \
	'	if (0)'
