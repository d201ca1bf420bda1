/* SPDX-License-Identifier: MIT */
/* The data files of a database directory (dbfiles.c), for the verdict in lib/decide/db.c. */
#ifndef AWR_DISCOVER_DBFILES_H
#define AWR_DISCOVER_DBFILES_H

#include <stdbool.h>

#include "libatomicwr.h"

struct awr__db_entry {
	char rel[4096];		/* relative to the data directory */
	bool skip;		/* named, but not a page file (a redo log, the temporary tablespace) */
	char why[160];		/* why it is skipped */
};

struct awr__db_list {
	unsigned int nr, cap;
	struct awr__db_entry *e;
};

/*
 * The files of the data directory @dfd that hold @engine's pages, sorted:
 * InnoDB ibdata*, undoNNN, *.ibd (one directory down), with redo logs and
 * ibtmp1 listed as skipped; PostgreSQL the relation files of base/ and global/.
 */
int awr__db_list_files(int dfd, enum awr_db_engine engine, struct awr__db_list *l);
void awr__db_list_free(struct awr__db_list *l);

#endif
