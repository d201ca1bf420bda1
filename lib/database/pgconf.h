/* SPDX-License-Identifier: MIT */
/* PostgreSQL's configuration files as the server reads them (pgconf.c), for lib/database/db.c. */
#ifndef AWR_DATABASE_PGCONF_H
#define AWR_DATABASE_PGCONF_H

#include <stddef.h>

/* One setting: its last value and where it was set ("FILE:LINE"). */
struct awr__pg_setting {
	char value[256];
	char where[512];
};

/*
 * awr__pg_conf_main() - the main configuration file of the cluster in @datadir: @config_file
 * when given (the server's config_file), else DATADIR/postgresql.conf, else (Debian's layout)
 * the /etc/postgresql/VERSION/CLUSTER/postgresql.conf whose data_directory is @datadir.
 * Return: 0 with the path in @out; -ENOENT when none is found.
 */
int awr__pg_conf_main(const char *datadir, const char *config_file, char *out, size_t len);

/*
 * awr__pg_conf_get() - @name's value as the server would read it at start: @conf (with its
 * include, include_if_exists and include_dir), then DATADIR/postgresql.auto.conf; the last
 * setting wins, names compare without case.
 * Return: 1 set (in @out), 0 not set, -errno when @conf cannot be read.
 */
int awr__pg_conf_get(const char *conf, const char *datadir, const char *name,
		     struct awr__pg_setting *out);

#endif
