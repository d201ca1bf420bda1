/* SPDX-License-Identifier: MIT */
/* The data files of a database directory (dbfiles.c), for the verdict in lib/database/db.c. */
#ifndef AWR_DATABASE_DBFILES_H
#define AWR_DATABASE_DBFILES_H

#include <stdbool.h>

#include "libatomicwr.h"

struct awr__db_entry {
	char rel[4096];		/* relative to the data directory */
	bool skip; /* named, but not a page file (a redo log, the temporary tablespace) */
	char why[160];		/* why it is skipped */
};

struct awr__db_list {
	unsigned int nr, cap;
	struct awr__db_entry *e;
};

/*
 * The files of the data directory @dfd that hold @engine's pages, sorted:
 * InnoDB ibdata*, undoNNN, *.ibd (one directory down), with redo logs and
 * ibtmp1 listed as skipped; PostgreSQL the relation files of base/, global/ and
 * the tablespaces (pg_tblspc/TSOID/PG_.../DBOID/NNN, through the link), with
 * pg_wal/ and the SLRU directories (pg_xact/, ...) listed as skipped.
 * A symlink named as a data file that leads to a regular file is one; every
 * other named entry that is not a regular file (a FIFO, a dangling symlink, a
 * symlink to a directory) and a subdirectory that cannot be read are listed
 * as skipped with why. Only the data directory itself failing is an error.
 */
int awr__db_list_files(int dfd, enum awr_db_engine engine, struct awr__db_list *l);
/*
 * The engine whose files the data directory @dfd (named @name) holds into @engine: ibdata1 or
 * mysql.ibd InnoDB, global/pg_control with PG_VERSION PostgreSQL.
 * Return: 0, or -EMEDIUMTYPE for neither or both, with awr_last_error() saying which.
 */
int awr__db_engine_of(int dfd, const char *name, enum awr_db_engine *engine);
void awr__db_list_free(struct awr__db_list *l);

/*
 * Open the data file @rel of @dfd to read, never blocking: a symlink is
 * followed (its target written to @via, else @via is ""), and anything but a
 * regular file at its end (a FIFO, a device) is refused with -EINVAL.
 * Return: the descriptor, or -errno.
 */
int awr__db_open(int dfd, const char *rel, char *via, size_t via_len);

/*
 * awr_innodb_page_size() and awr_pg_control_block_size() with the sentence in @why on success
 * too ("FSP flags 0x15 (full_crc32 layout): 16384-byte pages"), for the report's page_size_from.
 */
int awr__innodb_page_size(const void *page0, size_t len, uint32_t *page_size, char *why,
			  size_t why_len);
int awr__pg_control_block_size(const void *buf, size_t len, uint32_t *blcksz, char *why,
			       size_t why_len);

/*
 * pg_control's data_checksum_version (0: no data checksums) into @version, from the start of
 * global/pg_control as awr_pg_control_block_size() reads it (its CRC-32C good).
 * Return: 0, or -EINVAL (not a pg_control this reader knows, or one older than 9.3).
 */
int awr__pg_control_checksums(const void *buf, size_t len, uint32_t *version);

#endif
