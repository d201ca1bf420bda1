// SPDX-License-Identifier: MIT
/*
 * Description: a stress journal is opened only when it is a new file or
 * already a journal: a text file, a short file, a journal damaged in the
 * middle, a symbolic link (to a file or dangling), a FIFO, a character device
 * and a directory are refused, each byte of the victim unchanged; --force
 * replaces a regular file that is not a journal, never a link or a device;
 * awr_stress_run() refuses such a journal before any record is written and
 * awr_verify_run() says it is not a journal.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "helpers.h"
#include "verify/journal.h"
#include "libatomicwr.h"

static char dir[] = "/tmp/awr-journal-open.XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* A record as awr-stamp(5) lays it out. */
static void record(uint8_t *b, uint32_t type, uint64_t unit, uint64_t gen)
{
	uint32_t tag = htole32(0x4a525741U ^ (type << 24));
	uint64_t v[4] = { htole64(unit), htole64(gen), htole64(1 << 20), htole64(1) }, sum;

	memset(b, 0, 48);
	memcpy(b, &tag, 4);
	memcpy(b + 8, v, sizeof(v));
	sum = htole64(XXH3_64bits(b, 40));
	memcpy(b + 40, &sum, 8);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	T_EXPECT(fd >= 0 && write(fd, data, len) == (ssize_t)len, "write %s", path);
	if (fd >= 0)
		close(fd);
}

/* The whole content of @path (malloc'd), its length in *@len; NULL when unreadable. */
static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	*len = 0;
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	b = malloc((size_t)st.st_size + 1);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

/* awr__journal_open_force(@path, @force) returns @want and leaves @victim byte for byte. */
static void expect_open(const char *path, const char *victim, bool force, int want,
			const char *what)
{
	size_t before_len, after_len;
	uint8_t *before = slurp(victim, &before_len), *after;
	struct awr_journal j;
	int ret = awr__journal_open_force(path, force, &j);

	T_EXPECT_EQ(ret, want, what);
	if (!ret)
		awr__journal_close(&j);
	if (want) {
		after = slurp(victim, &after_len);
		T_EXPECT(before && after && before_len == after_len &&
				 !memcmp(before, after, before_len),
			 "%s: the refused file %s changed (%zu -> %zu bytes)", what, victim,
			 before_len, after_len);
		free(after);
	}
	free(before);
}

static int count_cb(const struct awr_jrec *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

int main(void)
{
	char text[4200], shortf[4200], mid[4200], link[4200], dangling[4200], fifo[4200], sub[4200];
	char good[4200], target[4200], missing[4200], buf[512];
	struct awr_stress_opts so = {
		.unit = 4096, .span = 1 << 20, .writes = 4, .flags = AWR_STRESS_PLAIN};
	struct awr_verify_opts vo = { .unit = 4096, .span = 1 << 20 };
	struct awr_stress_result sr;
	struct awr_verify_result vr;
	uint8_t recs[3 * 48];
	struct stat st;
	size_t n = 0;
	int cnt = 0;

	if (!mkdtemp(dir))
		T_SKIP("cannot create a directory in /tmp: %s", strerror(errno));
	path_of(text, sizeof(text), "p.txt");
	path_of(shortf, sizeof(shortf), "short");
	path_of(mid, sizeof(mid), "damaged-mid.journal");
	path_of(link, sizeof(link), "link.journal");
	path_of(dangling, sizeof(dangling), "dangling.journal");
	path_of(fifo, sizeof(fifo), "fifo.journal");
	path_of(sub, sizeof(sub), "subdir");
	path_of(good, sizeof(good), "good.journal");
	path_of(target, sizeof(target), "target");
	path_of(missing, sizeof(missing), "missing-victim");

	/* the case: lines of text, then cut to 144 bytes as a damaged tail */
	for (int i = 1; n < sizeof(buf) - 8; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%d\n", i);
	write_file(text, buf, n);
	expect_open(text, text, false, -ENOEXEC, "text file");
	write_file(shortf, "AWR", 3);
	expect_open(shortf, shortf, false, -ENOEXEC, "3-byte file");

	/* a valid record, a damaged one, a valid one: damaged before its end */
	record(recs, AWR_JREC_RUN, 4096, 1);
	memset(recs + 48, 0x5a, 48);
	record(recs + 96, AWR_JREC_INTENT, 0, 1);
	write_file(mid, recs, sizeof(recs));
	expect_open(mid, mid, false, -EBADMSG, "journal damaged in the middle");

	T_EXPECT(!symlink(text, link), "symlink");
	expect_open(link, text, false, -ELOOP, "symbolic link to a text file");
	expect_open(link, text, true, -ELOOP, "symbolic link, forced");
	T_EXPECT(!symlink(missing, dangling), "dangling symlink");
	expect_open(dangling, text, false, -ELOOP, "dangling symbolic link");
	T_EXPECT(lstat(missing, &st) && errno == ENOENT, "nothing was created through the dangling "
							 "link");

	T_EXPECT(!mkfifo(fifo, 0644), "mkfifo");
	expect_open(fifo, text, false, -EINVAL, "FIFO (refused without blocking)");
	expect_open(fifo, text, true, -EINVAL, "FIFO, forced");
	expect_open("/dev/null", text, true, -EINVAL, "character device, forced");
	T_EXPECT(!mkdir(sub, 0755), "mkdir");
	expect_open(sub, text, true, -EISDIR, "directory, forced");

	/* a new file, then the same file again: a journal */
	expect_open(good, good, false, 0, "new file");
	T_EXPECT(!stat(good, &st) && S_ISREG(st.st_mode) && st.st_size == 0, "a new empty journal");
	write_file(good, recs, 48);
	expect_open(good, good, false, 0, "an existing journal");
	/* a torn tail after a valid first record is cut back (the crash case) */
	write_file(good, recs, 48 + 20);
	expect_open(good, good, false, 0, "a journal with a torn tail");
	T_EXPECT(!stat(good, &st) && st.st_size == 48, "tail cut to %lld bytes, expected 48",
		 (long long)st.st_size);

	/* awr_journal_check() says the same without opening: what the file holds, in words */
	T_EXPECT_EQ(awr_journal_check(text, false), -ENOEXEC, "awr_journal_check of a text file");
	T_EXPECT(strstr(awr_last_error(), "text beginning \"1\\n2\\n"), "the text named: %s",
		 awr_last_error());
	T_EXPECT_EQ(awr_journal_check(fifo, true), -EINVAL, "awr_journal_check of a FIFO, forced");
	T_EXPECT(strstr(awr_last_error(), "it is a FIFO"), "the FIFO named: %s", awr_last_error());
	T_EXPECT_EQ(awr_journal_check(text, true), 0, "awr_journal_check of a text file, forced");
	T_EXPECT_EQ(awr_journal_check(good, false), 0, "awr_journal_check of a journal");
	T_EXPECT_EQ(awr_journal_check(missing, false), 0, "awr_journal_check of a new file");

	/* the library refuses before writing anything, and verify names it */
	so.journal = text;
	T_EXPECT_EQ(awr_stress_run(target, &so, &sr), -ENOEXEC,
		    "awr_stress_run with a text journal");
	T_EXPECT(strstr(awr_last_error(), "holds data that is not an awr journal"),
		 "the refusal says what to do: %s", awr_last_error());
	expect_open(text, text, false, -ENOEXEC, "text file after the refused run");
	vo.journal = text;
	T_EXPECT_EQ(awr_verify_run(target, &vo, &vr), -ENOEXEC,
		    "awr_verify_run with a text journal");
	vo.journal = fifo;
	T_EXPECT_EQ(awr_verify_run(target, &vo, &vr), -EINVAL,
		    "awr_verify_run with a FIFO journal");
	vo.journal = link;
	T_EXPECT_EQ(awr_verify_run(target, &vo, &vr), -ENOEXEC, "awr_verify_run through a link to "
								"text");

	/* --journal-force replaces a regular file that is not a journal, never a damaged one */
	so.journal_force = true;
	path_of(target, sizeof(target), "target2");	/* a new target: the first holds data now */
	T_EXPECT_EQ(awr_stress_run(target, &so, &sr), 0,
		    "awr_stress_run with a forced text journal");
	T_EXPECT_EQ(awr__journal_read(text, count_cb, &cnt), 1 + 2 * 4, "forced: RUN + 4 intents + "
									"4 acks");
	expect_open(mid, mid, true, -EBADMSG,
		    "journal damaged in the middle, forced: never emptied");

	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	if (system(buf))
		t_failures++;
	return t_done("journal_open_safety");
}
