# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Mutants of the database verdict's engine side (lib/database/db.c): what the preload in the server
# covers, its live counters, the server's own setting, speed kept apart from safety.

mutant db-preload-any "any process with the preload mapped taken as covering every file (issue 38.1)" \
	"db_preload" lib/database/db.c \
	$'\tif (!r->atomic_writes || c->read == 1)\n\t\treturn;\n\tif (c->read < 0) {' \
	$'\tif (1)\n\t\treturn;\n\tif (c->read < 0) {'

mutant db-preload-page-size "AWR_PRELOAD_PAGE_SIZE not compared with the file's page" \
	"db_preload" lib/database/db.c \
	'	else if (f->page_size && c->page_size != f->page_size)' \
	'	else if (0)'

mutant db-preload-given-only "a preload pattern matched against the path as given, never as resolved" \
	"db_preload" lib/database/db.c \
	'!awr__names_match(&c->names, g) && !awr__names_match(&c->names, res)' \
	'!awr__names_match(&c->names, g)'

mutant names-no-resolve "AWR_PRELOAD_FILES patterns kept only as given (no symlink resolved)" \
	"db_preload" lib/database/preload_names.c \
	$'\tfor (unsigned int i = 0; !ret && i < n->nr_given; i++)\n\t\tret = add_resolved(n, i);' \
	''

mutant db-counters-ignored "the preload's live counters not read into the verdict" \
	"db_preload" lib/database/db.c \
	$'\tif (!r->atomic_writes || c->read || c->stats_err)\n\t\treturn;' \
	$'\treturn;'

mutant db-plain-server-atomic "--atomic-writes believed over a running server without the preload" \
	"db_preload db_verdict" lib/database/db.c \
	$'\t} else if (pid && (flags & AWR_DB_ATOMIC_WRITES)) {\n' \
	$'\t} else if (pid && (flags & AWR_DB_ATOMIC_WRITES)) {\n\t\tr->atomic_writes = true;\n'

mutant db-skip-option-on "--skip-innodb-doublewrite read as ON" \
	"db_preload" lib/database/db.c \
	$'strcmp(o, "disable-innodb-doublewrite"))\n\t\treturn 0;' \
	$'strcmp(o, "disable-innodb-doublewrite"))\n\t\treturn 1;'

mutant db-no-warning "the protection off where a page can tear gives no warning (issue 38.3)" \
	"db_preload" lib/database/db.c \
	'	if (r->protection != 0 || r->verdict == AWR_DB_GUARANTEED' \
	'	if (1 || r->verdict == AWR_DB_GUARANTEED'

mutant db-speed-in-verdict "guaranteed on the copy-on-write path advised as 'keep the buffer' (issue 38.3)" \
	"db_preload db_verdict" lib/database/db.c \
	'"Turn %s off: it is safe here when the server runs as: %.290s %s "' \
	'"Keep %s: it is safe here when the server runs as: %.290s %s "'

mutant db-skipped-dropped "skipped entries past the report's lines vanish without a count" \
	"db_files" lib/database/db.c \
	'	else if (r->nr_skipped + 1 == room)' \
	'	else if (0)'

mutant db-verdict-text-snake "the verdict in words spelled as JSON's snake_case (device_implicit)" \
	"db_verdict_lib" lib/database/db.c \
	'	return v == AWR_DB_DEVICE_IMPLICIT ? "device-implicit" : v == AWR_DB_NOT_SAFE ? "not safe" :' \
	'	return v == AWR_DB_DEVICE_IMPLICIT ? "device_implicit" : v == AWR_DB_NOT_SAFE ? "not safe" :'

mutant db-no-report-silent "awr_db_qualify() finds no data file and does not say which it looked for" \
	"db_verdict_lib" lib/database/db.c \
	$'\tif (ret == -ENODATA)\n\t\treturn awr__fail(ret, "%s holds no %s data file (%s): is it the data directory, "' \
	$'\tif (ret == -ENODATA)\n\t\treturn ret;\n\tif (0)\n\t\treturn awr__fail(ret, "%s holds no %s data file (%s): is it the data directory, "'

mutant db-reasons-each-new "a reason given again counted as a new file's group, never added to its own" \
	"db_reasons" lib/database/reasons.c \
	$'\tif (j < r->nr_reason_groups)\n\t\tr->reason_groups[j].files++;\n\telse if' \
	$'\tif (0)\n\t\tr->reason_groups[j].files++;\n\telse if'

mutant db-reasons-room "the reason groups' room overrun by one (65 groups, none counted past it)" \
	"db_reasons" lib/database/reasons.c \
	'else if (j < AWR_DB_MAX_REASON_GROUPS)' \
	'else if (j <= AWR_DB_MAX_REASON_GROUPS)'

mutant preload-totals-append "the preload's O_APPEND writes left out of the plain writes' sum" \
	"preload_stats" lib/database/preload_stats.c \
	$'\t\t     s->plain_position + s->plain_append;' \
	$'\t\t     s->plain_position;'

mutant preload-totals-files-refused "a named file refused not counted as a refusal" \
	"preload_stats" lib/database/preload_stats.c \
	'	out->refused = s->refused || s->files_refused;' \
	'	out->refused = s->refused;'

mutant db-by-verdict-uncounted "the report's files by verdict never counted" \
	"db_verdict_lib" lib/database/db.c \
	$'\t\tr->nr_files_by_verdict[v]++;\n' \
	''
