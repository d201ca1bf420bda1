// SPDX-License-Identifier: MIT
/* The files AWR_PRELOAD_FILES names (preload_names.h). */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload_names.h"

static int add(struct awr__names *n, const char *p, size_t plen, const char *tail)
{
	char **np = realloc(n->pat, (n->nr + 1) * sizeof(*n->pat));
	size_t tl = tail ? strlen(tail) : 0;

	if (!np)
		return -ENOMEM;
	n->pat = np;
	np[n->nr] = malloc(plen + tl + 1);
	if (!np[n->nr])
		return -ENOMEM;
	memcpy(np[n->nr], p, plen);
	if (tail)
		memcpy(np[n->nr] + plen, tail, tl);
	np[n->nr][plen + tl] = '\0';
	n->nr++;
	return 0;
}

void awr__names_dir(const struct awr__names *n, unsigned int i, char *buf, size_t len)
{
	const char *p = n->pat[i];
	size_t w = strcspn(p, "*?[\\"), d = w;

	while (d > 0 && p[d] != '/')
		d--;
	if (p[w] == '\0')		/* no wildcard: the file's own directory */
		d = strrchr(p, '/') - p;
	snprintf(buf, len, "%.*s", d ? (int)d : 1, p);
}

/* pattern @i again with its literal directory (no wildcard: the file) resolved, if that differs */
static int add_resolved(struct awr__names *n, unsigned int i)
{
	char dir[PATH_MAX], real[PATH_MAX];
	size_t dl;

	if (!n->pat[i][strcspn(n->pat[i], "*?[\\")]) {	/* no wildcard: the file itself resolved */
		if (!realpath(n->pat[i], real) || !strcmp(real, n->pat[i]))
			return 0;
		return add(n, real, strlen(real), NULL);
	}
	awr__names_dir(n, i, dir, sizeof(dir));
	dl = strlen(dir);
	if (!realpath(dir, real) || !strcmp(real, dir))
		return 0;
	return add(n, real, strlen(real), n->pat[i] + (dl == 1 ? 0 : dl));
}

int awr__names_parse(const char *list, struct awr__names *n, char *why, size_t len)
{
	const char *s = list ? list : "";
	int ret = 0;

	memset(n, 0, sizeof(*n));
	while (!ret && *s) {
		size_t l = strcspn(s, ":");

		if (l && s[0] != '/') {
			snprintf(why, len,
				 "'%.*s' is not an absolute pattern (patterns match the file's "
				 "absolute path, e.g. /var/lib/mysql/*.ibd; '*' also matches '/')",
				 (int)l, s);
			ret = -EINVAL;
		} else if (l) {
			ret = add(n, s, l, NULL);
		}
		s += l + (s[l] == ':');
	}
	n->nr_given = n->nr;
	for (unsigned int i = 0; !ret && i < n->nr_given; i++)
		ret = add_resolved(n, i);
	if (!ret && !n->nr) {
		snprintf(why, len,
			 "'%s' names no file (set it to the data files' absolute patterns, e.g. "
			 "AWR_PRELOAD_FILES='/var/lib/mysql/*.ibd:/var/lib/mysql/ibdata*')",
			 list ? list : "");
		ret = -ENOENT;
	}
	if (ret == -ENOMEM)
		snprintf(why, len, "out of memory");
	if (ret)
		awr__names_free(n);
	return ret;
}

bool awr__names_match(const struct awr__names *n, const char *path)
{
	for (unsigned int i = 0; path && path[0] == '/' && i < n->nr; i++)
		if (!fnmatch(n->pat[i], path, 0))
			return true;
	return false;
}

void awr__names_free(struct awr__names *n)
{
	for (unsigned int i = 0; i < n->nr; i++)
		free(n->pat[i]);
	free(n->pat);
	memset(n, 0, sizeof(*n));
}
