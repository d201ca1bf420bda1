# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Mutants of the database verdict's file side (lib/database/dbfiles.c, the file checks in
# lib/database/db.c): the worst file decides, each check that changes a file's verdict, the InnoDB
# page size readers, hostile entries (issue 38 items 2, 4, 5).

mutant db-last-file-ignored "the directory's verdict taken without its last file" \
	"db_files" lib/database/db.c \
	$'\tfor (unsigned int i = 0; i < r->nr_files; i++) {\n\t\tenum awr_db_verdict v = r->files[i].verdict;' \
	$'\tfor (unsigned int i = 0; i + 1 < r->nr_files; i++) {\n\t\tenum awr_db_verdict v = r->files[i].verdict;'

mutant db-stripe-ignored "any XFS stripe unit taken as keeping a growing file's pages aligned" \
	"db_files" lib/database/db.c \
	'	if (!P || (f->grow_align && f->grow_align % P == 0))' \
	'	if (!P || f->grow_align)'

mutant db-unit-max-ignored "a page above statx's atomic unit_max taken as accepted" \
	"db_files" lib/database/db.c \
	'f->page_size < fs.unit_min || f->page_size > fs.unit_max' \
	'f->page_size < fs.unit_min'

mutant innodb-old-layout "the older FSP flags' PAGE_SSIZE read from bits 5..8" \
	"innodb_pages db_files" lib/database/dbfiles.c \
	'	ssize = (flags >> 6) & 15U;' \
	'	ssize = (flags >> 5) & 15U;'

mutant innodb-zip-ignored "a ROW_FORMAT=COMPRESSED tablespace taken at its in-memory page size" \
	"innodb_pages db_files" lib/database/dbfiles.c \
	'		*page_size = 1U << (zip + 9);' \
	'		*page_size = logical;'

mutant innodb-zero-page0 "an unwritten (all-zero) page 0 taken as damage" \
	"innodb_pages db_files" lib/database/dbfiles.c \
	'	if (unwritten(p, len))' \
	'	if (0)'

mutant db-fifo-blocks "a data file opened without O_NONBLOCK (a FIFO ibdata1 blocks for good)" \
	"db_files" lib/database/dbfiles.c \
	'O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY' \
	'O_RDONLY | O_CLOEXEC | O_NOCTTY'

mutant db-symlink-skipped "a symlink named as a data file left out silently" \
	"db_files" lib/database/dbfiles.c \
	'		return add_link(l, fd, n, rel, k);' \
	'		return 0;'

mutant db-unreadable-dir-fatal "a subdirectory that cannot be read fails the whole run" \
	"db_files" lib/database/dbfiles.c \
	$'\tif (ret == -ENOMEM)\n\t\treturn ret;' \
	$'\tif (ret)\n\t\treturn ret;'
