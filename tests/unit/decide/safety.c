// SPDX-License-Identifier: MIT
/*
 * Description: awr_target_open() explains each refusal in awr_last_error(), and
 * awr_target_refusal() says it again naming the awr command, word for word as awr
 * prints it: a file holding data, a symbolic link to a file, a missing path, a FIFO,
 * bad arguments; a file it may write leaves the last sentence as it was.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"

static char dir[] = "/tmp/awr-safety.XXXXXX";
static char data[64], link_[64], missing[64], fifo[64], empty[64];

static void expect_said(const char *want, const char *what)
{
	T_EXPECT(!strcmp(awr_last_error(), want), "%s: \"%s\", expected \"%s\"", what,
		 awr_last_error(), want);
}

static void make_paths(void)
{
	int fd;

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(link_, sizeof(link_), "%s/link", dir);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	fd = open(data, O_WRONLY | O_CREAT | O_EXCL, 0644);
	T_EXPECT(fd >= 0 && write(fd, "12345", 5) == 5, "the file holding data is made");
	close(fd);
	T_EXPECT(!symlink(data, link_), "the symbolic link is made");
	T_EXPECT(!mkfifo(fifo, 0600), "the FIFO is made");
}

/* A file holding data: -EEXIST, with and without the command named. */
static void file_with_data(void)
{
	struct awr_safety s;
	char want[512];
	int ret = awr_target_open(data, O_RDWR, 0, &s);

	T_EXPECT_EQ(ret, -EEXIST, "a file holding data");
	snprintf(want, sizeof(want), "refusing to write %s: it holds 5 bytes of data. Nothing was "
		 "written. Give a new or empty file, or --force to overwrite its data.", data);
	expect_said(want, "awr_target_open()'s own sentence");
	T_EXPECT_EQ(awr_target_refusal(&s, ret, data, O_RDWR, "bench"), -EEXIST, "its return");
	snprintf(want, sizeof(want), "refusing to write %s (awr bench): it holds 5 bytes of data. "
		 "Nothing was written. Give a new or empty file, or --force to overwrite its data.",
		 data);
	expect_said(want, "named for awr bench");
}

static void link_missing_fifo(void)
{
	struct awr_safety s;
	char want[512];
	int ret = awr_target_open(link_, O_RDWR, 0, &s);

	T_EXPECT_EQ(ret, -ELOOP, "a symbolic link to a file");
	awr_target_refusal(&s, ret, link_, O_RDWR, "write");
	snprintf(want, sizeof(want), "refusing to write %s (awr write): it is a symbolic link to a "
		 "regular file (%s): give the real path. Nothing was written.", link_, data);
	expect_said(want, "a symbolic link");
	ret = awr_target_open(missing, O_RDWR, 0, NULL);
	T_EXPECT_EQ(ret, -ENOENT, "a missing path without AWR_TARGET_CREATE");
	snprintf(want, sizeof(want), "cannot write %s: no such file or directory", missing);
	expect_said(want, "a missing path");
	ret = awr_target_open(fifo, O_RDWR, 0, &s);
	T_EXPECT_EQ(ret, -EINVAL, "a FIFO");
	awr_target_refusal(&s, ret, fifo, O_RDWR, "stress");
	snprintf(want, sizeof(want), "cannot stress %s: it is a FIFO; give a regular file or a "
		 "block device", fifo);
	expect_said(want, "a FIFO");
}

int main(void)
{
	int fd;

	T_EXPECT(mkdtemp(dir), "a scratch directory");
	make_paths();
	file_with_data();
	link_missing_fifo();
	T_EXPECT_EQ(awr_target_open(NULL, O_RDWR, 0, NULL), -EINVAL, "no path");
	expect_said("awr_target_open: no path, or unknown flags", "bad arguments");
	T_EXPECT_EQ(awr_target_refusal(NULL, -EINVAL, NULL, 0, "write"), -EINVAL, "no path");
	expect_said("no target path given", "awr_target_refusal() without a path");
	awr_target_open(NULL, O_RDWR, 0, NULL);
	/* a target it may write: a new file; the sentence of the last refusal stays */
	fd = awr_target_open(empty, O_RDWR, AWR_TARGET_CREATE, NULL);
	T_EXPECT(fd >= 0, "a new file is opened: %d", fd);
	expect_said("awr_target_open: no path, or unknown flags", "after a success");
	close(fd);
	unlink(empty);
	unlink(fifo);
	unlink(link_);
	unlink(data);
	rmdir(dir);
	return t_done("safety");
}
