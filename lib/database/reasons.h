/* SPDX-License-Identifier: MIT */
/* The reasons of a database report grouped across its files (reasons.c), for lib/database/db.c. */
#ifndef AWR_DATABASE_REASONS_H
#define AWR_DATABASE_REASONS_H

#include <libatomicwr/database.h>

/*
 * awr__db_group_reasons() - fill @r's reason groups from its files' reasons: each distinct
 * sentence once, in the order the files give them first, with how many files give it and the
 * first; past AWR_DB_MAX_REASON_GROUPS, each file's reason is counted in reason_groups_more.
 */
void awr__db_group_reasons(struct awr_db_report *r);

#endif /* AWR_DATABASE_REASONS_H */
