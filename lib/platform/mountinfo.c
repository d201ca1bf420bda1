// SPDX-License-Identifier: MIT
/*
 * Mount tables: util-linux's libmount reads mountinfo as every mount tool of the system does
 * (octal escapes of blanks, tabs, newlines and backslashes; optional fields; propagation).
 * Debian's libmount-dev has no static archive: the fully static tools a guest runs
 * (-Dstatic_tools=true, AWR_MOUNTINFO_BUILTIN) read the same format with the small reader below,
 * which follows the kernel's show_mountinfo() (fs/proc_namespace.c) and mangle() (" \t\n\\").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "platform/platform.h"

#define SELF_MOUNTINFO "/proc/self/mountinfo"

#ifndef AWR_MOUNTINFO_BUILTIN
#include <libmount.h>

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static int each_fs(struct libmnt_table *tb, awr__mount_fn fn, void *arg)
{
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int ret = 0;

	if (!itr)
		return -ENOMEM;
	while (!ret && !mnt_table_next_fs(tb, itr, &fs)) {
		dev_t dev = mnt_fs_get_devno(fs);
		struct awr__mount m = {
			.major = major(dev), .minor = minor(dev),
			.root = or_empty(mnt_fs_get_root(fs)),
			.target = or_empty(mnt_fs_get_target(fs)),
			.source = or_empty(mnt_fs_get_source(fs)),
			.fstype = or_empty(mnt_fs_get_fstype(fs)),
			.fs_options = or_empty(mnt_fs_get_fs_options(fs)),
		};

		ret = fn(&m, arg);
	}
	mnt_free_iter(itr);
	return ret;
}

int awr__mountinfo_each(const char *path, awr__mount_fn fn, void *arg)
{
	struct libmnt_table *tb = mnt_new_table();
	int ret;

	if (!tb)
		return -ENOMEM;
	ret = mnt_table_parse_file(tb, path ? path : SELF_MOUNTINFO);
	if (!ret)
		ret = each_fs(tb, fn, arg);
	mnt_unref_table(tb);
	return ret;
}

#else /* AWR_MOUNTINFO_BUILTIN */

/* "ID PARENT MAJ:MIN ROOT TARGET OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER" into @m. */
static int parse_line(char *line, struct awr__mount *m)
{
	char *f[6], *dash, *save = NULL;

	line[strcspn(line, "\n")] = '\0';
	dash = strstr(line, " - ");
	if (!dash)
		return -EINVAL;
	*dash = '\0';
	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return -EINVAL;
	if (sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		return -EINVAL;
	m->root = awr__unmangle(f[3]);
	m->target = awr__unmangle(f[4]);
	save = NULL;
	f[5] = strtok_r(dash + 3, " ", &save);
	m->fstype = f[5] ? awr__unmangle(f[5]) : "";
	f[5] = strtok_r(NULL, " ", &save);
	m->source = f[5] ? awr__unmangle(f[5]) : "";
	f[5] = strtok_r(NULL, " ", &save);
	m->fs_options = f[5] ? awr__unmangle(f[5]) : "";
	return 0;
}

int awr__mountinfo_each(const char *path, awr__mount_fn fn, void *arg)
{
	FILE *f = fopen(path ? path : SELF_MOUNTINFO, "re");
	struct awr__mount m;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0)
		if (!parse_line(line, &m))
			ret = fn(&m, arg);
	free(line);
	fclose(f);
	return ret;
}

#endif /* AWR_MOUNTINFO_BUILTIN */
