// SPDX-License-Identifier: MIT
/*
 * Description: a journal whose filesystem is full keeps whole records and names the cause: with
 * RLIMIT_FSIZE at 100 bytes (a file limit that, like a full filesystem, takes part of a write and
 * then refuses the rest), two 48-byte records are appended, the third is refused with EFBIG (not
 * EIO) and its 4 written bytes are cut, so the file holds 96 bytes and reads back as two records.
 * Before the fix the append returned -EIO and left a partial record (100 bytes).
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "verify/journal.h"

static int count_cb(const struct awr_jrec *r, void *arg)
{
	(void)r;
	++*(int *)arg;
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/awr-journal-full.XXXXXX", path[64];
	struct rlimit lim = { .rlim_cur = 100, .rlim_max = RLIM_INFINITY };
	struct awr_journal j;
	struct stat st;
	int ret, n = 0;

	T_EXPECT(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/journal", dir);
	signal(SIGXFSZ, SIG_IGN);	/* the write fails with EFBIG instead of killing us */
	ret = awr__journal_open(path, &j);
	T_EXPECT_EQ(ret, 0, "open a new journal");
	if (!ret) {
		T_EXPECT(!setrlimit(RLIMIT_FSIZE, &lim), "setrlimit RLIMIT_FSIZE 100");
		for (uint64_t g = 1; g <= 2; g++) {
			struct awr_jrec r = { AWR_JREC_INTENT, 0, g, g, 0, g };

			T_EXPECT_EQ(awr__journal_append(&j, &r, NULL), 0,
				    "record within the limit");
		}
		struct awr_jrec r = { AWR_JREC_INTENT, 0, 3, 3, 0, 3 };

		T_EXPECT_EQ(awr__journal_append(&j, &r, NULL), -EFBIG, "the record past the limit: "
								       "EFBIG");
		T_EXPECT_EQ(awr__journal_append(&j, &r, NULL), -EFBIG, "and again");
		lim.rlim_cur = RLIM_INFINITY;
		setrlimit(RLIMIT_FSIZE, &lim);
		awr__journal_close(&j);
		T_EXPECT(!stat(path, &st), "stat");
		T_EXPECT_EQ((long long)st.st_size, 96LL, "the journal holds two whole records");
		T_EXPECT_EQ(awr__journal_read(path, count_cb, &n), 2LL, "two records read back");
		T_EXPECT_EQ(n, 2, "two records seen");
	}
	unlink(path);
	rmdir(dir);
	return t_done("journal_full");
}
