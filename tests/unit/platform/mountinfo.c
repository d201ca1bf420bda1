// SPDX-License-Identifier: MIT
/*
 * Description: the mountinfo reader on a table with every escape the kernel's mangle() writes
 * (space, tab, newline, backslash), optional fields and a bind mount's root: each field comes back
 * unescaped, a callback stops the walk, a missing table is an error. Built twice: over libmount
 * (unit mountinfo) and with the static tools' own reader (unit mountinfo_builtin).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"
#include "platform/platform.h"

static const char table[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	"45 22 7:0 / /tmp/x/a\\040b\\011c\\134d rw,relatime - xfs /dev/loop0 rw,inode64,logbufs=8\n"
	"46 22 7:1 /sub\\040dir /mnt/bind rw,relatime shared:5 master:2 - xfs /dev/loop1 "
	"rw,max_atomic_write=64k\n"
	"47 22 0:50 / /mnt/nl\\012x rw - tmpfs tmp\\040fs rw,size=10k\n";

struct seen {
	unsigned int n, stop_at;
	char target[4][64], root[4][64], source[4][64], fstype[4][16], opts[4][64];
	unsigned int major[4], minor[4];
};

static int keep(const struct awr__mount *m, void *arg)
{
	struct seen *s = arg;
	unsigned int i = s->n++;

	if (i < 4) {
		snprintf(s->target[i], sizeof(s->target[i]), "%s", m->target);
		snprintf(s->root[i], sizeof(s->root[i]), "%s", m->root);
		snprintf(s->source[i], sizeof(s->source[i]), "%s", m->source);
		snprintf(s->fstype[i], sizeof(s->fstype[i]), "%s", m->fstype);
		snprintf(s->opts[i], sizeof(s->opts[i]), "%s", m->fs_options);
		s->major[i] = m->major;
		s->minor[i] = m->minor;
	}
	return s->n == s->stop_at ? 5 : 0;
}

static void check_fields(const struct seen *s)
{
	T_EXPECT_EQ(s->n, 4, "mounts read");
	T_EXPECT(!strcmp(s->target[0], "/"), "root mount: %s", s->target[0]);
	T_EXPECT(!strcmp(s->target[1], "/tmp/x/a b\tc\\d"), "space, tab, backslash: %s",
		 s->target[1]);
	T_EXPECT_EQ(s->major[1], 7, "major of loop0");
	T_EXPECT_EQ(s->minor[1], 0, "minor of loop0");
	T_EXPECT(!strcmp(s->fstype[1], "xfs"), "fstype: %s", s->fstype[1]);
	T_EXPECT(!strcmp(s->source[1], "/dev/loop0"), "source: %s", s->source[1]);
	T_EXPECT(strstr(s->opts[1], "inode64,logbufs=8") != NULL, "super options: %s", s->opts[1]);
	T_EXPECT(!strcmp(s->root[2], "/sub dir"), "a bind mount's root: %s", s->root[2]);
	T_EXPECT(!strcmp(s->target[2], "/mnt/bind"), "after optional fields: %s", s->target[2]);
	T_EXPECT(strstr(s->opts[2], "max_atomic_write=64k") != NULL, "options: %s", s->opts[2]);
	T_EXPECT_EQ(s->minor[2], 1, "minor of loop1");
	T_EXPECT(!strcmp(s->target[3], "/mnt/nl\nx"), "newline: %s", s->target[3]);
	T_EXPECT(!strcmp(s->source[3], "tmp fs"), "escaped source: %s", s->source[3]);
	T_EXPECT(!strcmp(s->fstype[3], "tmpfs"), "fstype: %s", s->fstype[3]);
}

int main(void)
{
	char path[] = "/tmp/awr-mountinfo.XXXXXX";
	struct seen s = { 0 };
	int fd = mkstemp(path), ret;

	if (fd < 0 || write(fd, table, sizeof(table) - 1) != (ssize_t)sizeof(table) - 1)
		T_SKIP("cannot write a temporary table");
	close(fd);
	ret = awr__mountinfo_each(path, keep, &s);
	T_EXPECT_EQ(ret, 0, "every mount seen");
	check_fields(&s);

	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	T_EXPECT_EQ(awr__mountinfo_each(path, keep, &s), 5, "the callback's value stops the walk");
	T_EXPECT_EQ(s.n, 2, "mounts read before the stop");
	unlink(path);

	T_EXPECT(awr__mountinfo_each(path, keep, &s) < 0, "a missing table is an error");
	memset(&s, 0, sizeof(s));
	T_EXPECT_EQ(awr__mountinfo_each(NULL, keep, &s), 0, "/proc/self/mountinfo");
	T_EXPECT(s.n > 0, "/proc/self/mountinfo has mounts");
	return t_done("mountinfo");
}
