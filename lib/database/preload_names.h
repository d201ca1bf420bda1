/* SPDX-License-Identifier: MIT */
/*
 * The files AWR_PRELOAD_FILES names: one rule, compiled into both libatomicwr-preload
 * (preload/preload.c, at open and at start) and the database verdict (db.c, which reads a
 * running server's environment), so the two can never disagree on what a pattern names.
 */
#ifndef AWR_DATABASE_PRELOAD_NAMES_H
#define AWR_DATABASE_PRELOAD_NAMES_H

#include <stdbool.h>
#include <stddef.h>

struct awr__names {
	char **pat;		/* the patterns as given, then each with its directory resolved */
	unsigned int nr;	/* all of them */
	unsigned int nr_given;	/* the first nr_given are as given */
};

/*
 * awr__names_parse() - the ':'-separated absolute patterns of @list (fnmatch(3) without
 * FNM_PATHNAME: '*' also matches '/'). A pattern whose literal directory (the part before its
 * first wildcard, up to a '/') resolves elsewhere through a symlink (/var/lib/mysql ->
 * /srv/mysql) is kept a second time with that directory resolved, as /proc/self/fd shows it.
 * Return: 0; -EINVAL when a pattern is not absolute; -ENOENT when @list names nothing (unset,
 * empty, separators only); -ENOMEM. On an error @why says what is wrong.
 */
int awr__names_parse(const char *list, struct awr__names *n, char *why, size_t len);
/* awr__names_match() - does a pattern match @path (absolute: as given or as resolved)? */
bool awr__names_match(const struct awr__names *n, const char *path);
/* awr__names_dir() - pattern @i's literal directory (before its first wildcard) into @buf */
void awr__names_dir(const struct awr__names *n, unsigned int i, char *buf, size_t len);
void awr__names_free(struct awr__names *n);

#endif
