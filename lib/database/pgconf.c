// SPDX-License-Identifier: MIT
/*
 * PostgreSQL's configuration files, read as the server reads them at start
 * (PostgreSQL 15..17 src/backend/utils/misc/guc-file.l: ParseConfigFp(),
 * ParseConfigDirectory(); guc.c ProcessConfigFileInternal()):
 *   - one setting a line, "name [=] value", '#' to the end of the line a
 *     comment; a value is a word or a quoted string ('' and \' are a quote);
 *   - include 'FILE', include_if_exists 'FILE', include_dir 'DIR' (its
 *     *.conf files not starting with '.', in strcmp order); a relative path is
 *     relative to the directory of the file naming it (AbsoluteConfigLocation());
 *     at most 10 levels deep (CONF_FILE_MAX_DEPTH);
 *   - names compare without case (guc_name_compare()); the last one wins;
 *   - postgresql.auto.conf in the data directory is read after the main file.
 * A line the server would refuse as a syntax error is skipped here.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "database/pgconf.h"

#define CONF_FILE_MAX_DEPTH	10

struct lookup {
	const char *name;
	struct awr__pg_setting *out;
	int found;
};

static int parse_file(const char *path, int depth, bool must_exist, struct lookup *l);

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* a quoted value from @p (after the quote) into @out: the end, or NULL when not closed */
static const char *quoted(const char *p, char *out, size_t len)
{
	size_t n = 0;

	for (; *p && *p != '\n'; p++) {
		if (*p == '\'' && p[1] == '\'')
			p++;
		else if (*p == '\\' && p[1] && p[1] != '\n')
			p++;
		else if (*p == '\'')
			break;
		if (n + 1 < len)
			out[n++] = *p;
	}
	out[n] = '\0';
	return *p == '\'' ? p + 1 : NULL;
}

/* "name [=] value [# comment]": 0 with @name and @value, -1 a blank line, -EINVAL not one */
static int split(const char *line, char *name, size_t nlen, char *value, size_t vlen)
{
	const char *p = skip_blank(line);
	size_t n = 0;

	if (!*p || *p == '#' || *p == '\n')
		return -1;
	while ((isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$' || (*p & 0x80)) &&
	       n + 1 < nlen)
		name[n++] = *p++;
	name[n] = '\0';
	if (!n)
		return -EINVAL;
	p = skip_blank(p);
	if (*p == '=')
		p = skip_blank(p + 1);
	if (*p == '\'') {
		p = quoted(p + 1, value, vlen);
		if (!p)
			return -EINVAL;
	} else {
		n = 0;
		while (*p && *p != ' ' && *p != '\t' && *p != '#' && *p != '\n' && *p != '\r' &&
		       n + 1 < vlen)
			value[n++] = *p++;
		value[n] = '\0';
		if (!n)
			return -EINVAL;
	}
	p = skip_blank(p);
	return !*p || *p == '#' || *p == '\n' ? 0 : -EINVAL;
}

/* @rel relative to the directory of @from */
static void relative_to(const char *from, const char *rel, char *out, size_t len)
{
	const char *slash = strrchr(from, '/');

	if (rel[0] == '/' || !slash)
		snprintf(out, len, "%s", rel);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - from), from, rel);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int parse_dir(const char *dir, int depth, struct lookup *l)
{
	char **names = NULL, path[PATH_MAX];
	unsigned int nr = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nn;

		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".conf"))
			continue;
		nn = realloc(names, (nr + 1) * sizeof(*names));
		if (!nn || !(nn[nr] = strdup(de->d_name))) {
			names = nn ? nn : names;
			ret = -ENOMEM;
			break;
		}
		names = nn;
		nr++;
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_names);
	for (unsigned int i = 0; i < nr; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%.3800s/%.250s", dir, names[i]);
		if (!ret && !stat(path, &st) && S_ISREG(st.st_mode))
			ret = parse_file(path, depth + 1, true, l);
		free(names[i]);
	}
	free(names);
	return ret;
}

static int one_line(const char *path, unsigned int lineno, const char *line, int depth,
		    struct lookup *l)
{
	char name[128], value[PATH_MAX], inc[PATH_MAX];

	if (split(line, name, sizeof(name), value, sizeof(value)))
		return 0;
	if (!strcasecmp(name, "include") || !strcasecmp(name, "include_if_exists")) {
		relative_to(path, value, inc, sizeof(inc));
		return parse_file(inc, depth + 1, !strcasecmp(name, "include"), l);
	}
	if (!strcasecmp(name, "include_dir")) {
		relative_to(path, value, inc, sizeof(inc));
		return parse_dir(inc, depth, l);
	}
	if (strcasecmp(name, l->name))
		return 0;
	snprintf(l->out->value, sizeof(l->out->value), "%.250s", value);
	snprintf(l->out->where, sizeof(l->out->where), "%.490s:%u", path, lineno);
	l->found = 1;
	return 0;
}

static int parse_file(const char *path, int depth, bool must_exist, struct lookup *l)
{
	char line[4096];
	unsigned int lineno = 0;
	FILE *f;
	int ret = 0;

	if (depth > CONF_FILE_MAX_DEPTH)
		return -ELOOP;
	f = fopen(path, "re");
	if (!f)
		return must_exist ? -errno : 0;
	while (!ret && fgets(line, sizeof(line), f))
		ret = one_line(path, ++lineno, line, depth, l);
	fclose(f);
	return ret;
}

int awr__pg_conf_get(const char *conf, const char *datadir, const char *name,
		     struct awr__pg_setting *out)
{
	struct lookup l = { .name = name, .out = out };
	char autoconf[PATH_MAX];
	int ret;

	memset(out, 0, sizeof(*out));
	ret = parse_file(conf, 0, true, &l);
	if (ret)
		return ret;
	snprintf(autoconf, sizeof(autoconf), "%s/postgresql.auto.conf", datadir);
	ret = parse_file(autoconf, 0, false, &l);
	return ret ? ret : l.found;
}

/* Debian's clusters: /etc/postgresql/VERSION/CLUSTER/postgresql.conf, data_directory = @datadir */
static int debian_conf(const char *datadir, char *out, size_t len)
{
	char real[PATH_MAX], other[PATH_MAX];
	struct awr__pg_setting s;
	glob_t g;
	int ret = -ENOENT;

	if (!realpath(datadir, real) || glob("/etc/postgresql/*/*/postgresql.conf", 0, NULL, &g))
		return -ENOENT;
	for (size_t i = 0; ret && i < g.gl_pathc; i++) {
		if (awr__pg_conf_get(g.gl_pathv[i], "/nonexistent", "data_directory", &s) == 1 &&
		    realpath(s.value, other) && !strcmp(other, real)) {
			snprintf(out, len, "%s", g.gl_pathv[i]);
			ret = 0;
		}
	}
	globfree(&g);
	return ret;
}

int awr__pg_conf_main(const char *datadir, const char *config_file, char *out, size_t len)
{
	struct stat st;

	if (config_file && *config_file) {	/* the server's, relative to its data directory */
		if (config_file[0] == '/')
			snprintf(out, len, "%s", config_file);
		else
			snprintf(out, len, "%s/%s", datadir, config_file);
		return 0;
	}
	snprintf(out, len, "%s/postgresql.conf", datadir);
	if (!stat(out, &st))
		return 0;
	return debian_conf(datadir, out, len);
}
