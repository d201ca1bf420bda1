// SPDX-License-Identifier: MIT
/*
 * Description: a journal whose tail a crash damaged is cut back to its last valid
 * record when reopened, so later records stay readable; a hostile generation is
 * refused with -EBADMSG by the verifier, not a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "verify/journal.h"
#include "libatomicwr.h"

static char dir[4096];

static int count_cb(const struct awr_jrec *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

static void append(const char *path, uint32_t type, uint64_t unit, uint64_t gen)
{
	struct awr_journal j;
	struct awr_jrec r = { .type = type, .unit = unit, .generation = gen, .value = 1 << 20 };
	uint64_t seq;

	T_EXPECT_EQ(awr__journal_open(path, &j), 0, "journal open");
	T_EXPECT_EQ(awr__journal_append(&j, &r, &seq), 0, "journal append");
	T_EXPECT_EQ(awr__journal_sync(&j, seq), 0, "journal sync");
	awr__journal_close(&j);
}

/*
 * A record with a generation no run could issue: awr__journal_append() refuses it itself
 * (checked here), so the forged journal of the reader's case is written raw.
 */
static void append_forged(const char *path, uint64_t gen)
{
	struct awr_jrec r = {
		.type = AWR_JREC_INTENT, .unit = 0, .generation = gen, .value = 1 << 20};
	uint8_t b[AWR_JREC_SIZE];
	struct awr_journal j;
	uint64_t seq;
	int fd;

	T_EXPECT_EQ(awr__journal_open(path, &j), 0, "journal open");
	T_EXPECT(awr__journal_append(&j, &r, &seq) == -EBADMSG, "an append of generation %llu: not "
								"refused",
		 (unsigned long long)gen);
	awr__journal_close(&j);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	awr__jrec_encode(b, &r);
	T_EXPECT(fd >= 0 && write(fd, b, sizeof(b)) == (ssize_t)sizeof(b), "write the forged "
									   "record raw");
	if (fd >= 0)
		close(fd);
}

static void check_damaged_tail(void)
{
	char path[4200];
	struct stat st;
	int fd, n = 0;

	snprintf(path, sizeof(path), "%s/tail.journal", dir);
	append(path, AWR_JREC_RUN, 4096, 1);
	/* a crash left 20 bytes of a half-written record */
	fd = open(path, O_WRONLY | O_APPEND);
	T_EXPECT(fd >= 0 && write(fd, "garbage-garbage-gar", 20) == 20, "append garbage");
	close(fd);
	append(path, AWR_JREC_INTENT, 0, 2);
	append(path, AWR_JREC_ACK, 0, 2);
	T_EXPECT_EQ(awr__journal_read(path, count_cb, &n), 3, "all three records read after the "
							      "damaged tail");
	T_EXPECT(!stat(path, &st) && st.st_size == 3 * AWR_JREC_SIZE, "journal is %lld bytes, "
								      "expected %d",
		 (long long)st.st_size, 3 * AWR_JREC_SIZE);

	/* a zero-filled full record at the end: cut as well */
	fd = open(path, O_WRONLY | O_APPEND);
	T_EXPECT(fd >= 0 && write(fd, (char[AWR_JREC_SIZE]){0}, AWR_JREC_SIZE) == AWR_JREC_SIZE,
		 "zeros");
	close(fd);
	append(path, AWR_JREC_INTENT, 1, 3);
	n = 0;
	T_EXPECT_EQ(awr__journal_read(path, count_cb, &n), 4,
		    "records after a zeroed tail readable");
}

static void check_hostile_generation(void)
{
	struct awr_verify_opts o = { .unit = 4096, .span = 1 << 20 };
	struct awr_verify_result res;
	char path[4200], target[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/hostile.journal", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_CREAT | O_RDWR, 0644);
	T_EXPECT(fd >= 0 && !ftruncate(fd, 1 << 20), "target");
	close(fd);
	append(path, AWR_JREC_RUN, 4096, 1);
	append_forged(path, 1ULL << 60);
	o.journal = path;
	T_EXPECT_EQ(awr_verify_run(target, &o, &res), -EBADMSG, "generation 2^60 refused");
	unlink(path);
	append(path, AWR_JREC_RUN, 4096, 1);
	append_forged(path, UINT64_MAX);
	T_EXPECT_EQ(awr_verify_run(target, &o, &res), -EBADMSG, "generation 2^64-1 refused");
}

int main(void)
{
	char cmd[4200];

	snprintf(dir, sizeof(dir), "%s/awr-journal.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return T_EXIT_FAIL;
	check_damaged_tail();
	check_hostile_generation();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		t_failures++;
	return t_done("journal_damage");
}
