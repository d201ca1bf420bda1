// SPDX-License-Identifier: MIT
/*
 * Description: the page store's API on scratch XFS: every mode the target offers writes, reads back
 * and reopens; a forced mode the target lacks fails with EOPNOTSUPP and a reason; a page given
 * twice in a batch ends with its last copy; unaligned buffers; the sidecar is never taken when it
 * is not this store's area; a failed page cancels the pages not yet sent after it; a mounted
 * block device is refused. "threads MODE": four threads writing through one store in software or
 * doublewrite mode (software where not offered: a skip).
 *
 *   pages_store [threads software|doublewrite]     (run under with-scratch-xfs.sh)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"
#include "pages_stamp.h"

#define PS	16384U
#define NP	96U		/* more than one doublewrite chunk (64) */

static const char *dir;

static uint8_t *pages_buf(unsigned int n)
{
	void *p;

	if (posix_memalign(&p, 4096, (size_t)n * PS + 4096))
		exit(2);
	return p;
}

/* every page p holds generation gen(p); returns the number of pages that do not */
static unsigned int check_all(struct awr_pages *s, uint64_t (*gen)(unsigned int), const char *what)
{
	uint8_t *b = pages_buf(1);
	unsigned int bad = 0;

	for (unsigned int p = 0; p < NP; p++) {
		uint64_t g = 0, copy = 0;
		int ret = awr_pages_read(s, b, p);

		if (ret || tp_check(b, PS, p, &g, &copy) != TP_WHOLE || g != gen(p) || copy) {
			if (!bad)
				printf("  %s: page %u: read %d, generation %" PRIu64
				       " copy %" PRIu64 " (expected %" PRIu64 ")\n",
				       what, p, ret, g, copy, gen(p));
			bad++;
		}
	}
	free(b);
	return bad;
}

static uint64_t gen_one(unsigned int p) { (void)p; return 1; }
static uint64_t gen_two(unsigned int p) { return p % 3 ? 2 : 1; }
static uint64_t gen_thr(unsigned int p) { return 10 + p % 4; }

static void modes_and_reopen(void)
{
	static const unsigned int modes[] = {AWR_PAGES_AUTO, AWR_PAGES_SOFTWARE,
					     AWR_PAGES_DOUBLEWRITE, AWR_PAGES_HARDWARE};
	char path[1024], dw[1100];
	struct awr_page pg[2 * NP];
	uint8_t *buf = pages_buf(2 * NP);
	struct awr_pages *s;
	unsigned int ran = 0;

	for (unsigned int m = 0; m < 4; m++) {
		int ret;

		snprintf(path, sizeof(path), "%s/store-%u.db", dir, m);
		snprintf(dw, sizeof(dw), "%s.awr-dw", path);
		ret = awr_pages_open(path, PS, modes[m] | AWR_PAGES_CREATE, &s);
		if (ret == -EOPNOTSUPP) {
			T_EXPECT(!s && strlen(awr_last_error()) > 20, "a refused mode names its "
								      "reason");
			printf("mode %u refused: %s\n", modes[m], awr_last_error());
			/* the refusal leaves nothing behind but the (empty) store file it
			 * created */
			T_EXPECT(access(dw, F_OK), "a refused open made %s", dw);
			continue;
		}
		T_EXPECT(!ret, "open %s (flags %u): %s: %s", path, modes[m], strerror(-ret),
			 awr_last_error());
		if (ret)
			continue;
		ran++;
		printf("flags %u: mode %s: %s\n", modes[m], awr_pages_mode_name(awr_pages_mode(s)),
		       awr_pages_explain(s));
		if (modes[m] == AWR_PAGES_SOFTWARE)
			T_EXPECT_EQ(awr_pages_mode(s), AWR_PAGES_MODE_SOFTWARE,
				    "forced software mode");
		if (modes[m] == AWR_PAGES_DOUBLEWRITE) {
			T_EXPECT_EQ(awr_pages_mode(s), AWR_PAGES_MODE_DOUBLEWRITE,
				    "forced doublewrite mode");
			T_EXPECT(!access(dw, F_OK), "doublewrite mode has its area %s", dw);
		}
		/* generation 1 everywhere (one batch of NP > 64 pages), in reverse order */
		for (unsigned int i = 0; i < NP; i++) {
			tp_fill(buf + (size_t)i * PS, PS, NP - 1 - i, 1, 0);
			pg[i] = (struct awr_page){
				.buf = buf + (size_t)i * PS, .page_no = NP - 1 - i, .status = 7};
		}
		T_EXPECT_EQ(awr_pages_write(s, pg, NP), 0, "write generation 1");
		for (unsigned int i = 0; i < NP; i++)
			T_EXPECT_EQ(pg[i].status, 0, "page status");
		T_EXPECT_EQ(check_all(s, gen_one, "generation 1"), 0, "pages that read back wrong");
		/* generation 2 on two thirds, each given twice: an earlier copy (copy 1) first, the
		 * last wins */
		unsigned int n = 0;

		for (unsigned int p = 0; p < NP; p++) {
			if (!(p % 3))
				continue;
			tp_fill(buf + (size_t)n * PS, PS, p, 2, 1);
			pg[n] = (struct awr_page){ .buf = buf + (size_t)n * PS, .page_no = p };
			n++;
		}
		unsigned int first = n;

		for (unsigned int p = 0; p < NP; p++) {
			if (!(p % 3))
				continue;
			tp_fill(buf + (size_t)n * PS, PS, p, 2, 0);
			pg[n] = (struct awr_page){ .buf = buf + (size_t)n * PS, .page_no = p };
			n++;
		}
		T_EXPECT(n - first == first, "built %u earlier and %u last copies", first,
			 n - first);
		T_EXPECT_EQ(awr_pages_write(s, pg, n), 0, "write generation 2 with earlier copies");
		T_EXPECT_EQ(check_all(s, gen_two, "last copy wins"), 0,
			    "pages that read back wrong");
		/* an unaligned buffer is copied */
		uint8_t *odd = buf + 1;

		tp_fill(odd, PS, 0, 1, 0);
		pg[0] = (struct awr_page){ .buf = odd, .page_no = 0 };
		T_EXPECT_EQ(awr_pages_write(s, pg, 1), 0, "write from an unaligned buffer");
		T_EXPECT_EQ(awr_pages_read(s, odd, 0), 0, "read into an unaligned buffer");
		uint64_t g = 0, c = 0;

		T_EXPECT(tp_check(odd, PS, 0, &g, &c) == TP_WHOLE && g == 1, "unaligned page 0 "
									     "reads back");
		/* a page beyond the end reads as zeros */
		T_EXPECT_EQ(awr_pages_read(s, buf, 100000), 0, "read beyond the end");
		T_EXPECT(tp_check(buf, PS, 100000, &g, &c) == TP_ZERO, "a page beyond the end is "
								       "zeros");
		/* a second open of an open store is refused */
		struct awr_pages *s2;

		T_EXPECT_EQ(awr_pages_open(path, PS, AWR_PAGES_DOUBLEWRITE, &s2), -EBUSY,
			    "second open");
		T_EXPECT_EQ(awr_pages_close(s), 0, "close");
		/* reopen: the pages are there; the wrong page size is refused when the area says
		 * otherwise */
		T_EXPECT_EQ(awr_pages_open(path, PS, modes[m], &s), 0, "reopen");
		if (!s)
			continue;
		T_EXPECT_EQ(check_all(s, gen_two, "after reopen"), 0, "pages that read back wrong");
		T_EXPECT_EQ(awr_pages_recovered(s), 0, "pages repaired after a clean close");
		awr_pages_close(s);
		if (modes[m] == AWR_PAGES_DOUBLEWRITE) {
			T_EXPECT_EQ(awr_pages_open(path, 4096, AWR_PAGES_DOUBLEWRITE, &s), -EINVAL,
				    "reopen with another page size");
			T_EXPECT(strstr(awr_last_error(), "16384"), "the reason names the store's "
								    "page size: %s",
				 awr_last_error());
		}
	}
	T_EXPECT(ran >= 2, "at least AUTO and doublewrite ran (%u modes)", ran);
	free(buf);
}

/* The sidecar: a file that is not an area, another store's area. */
static void sidecar_safety(void)
{
	char a[1024], b[1024], adw[1100], bdw[1100];
	struct awr_pages *s;
	int fd;

	snprintf(a, sizeof(a), "%s/side-a.db", dir);
	snprintf(b, sizeof(b), "%s/side-b.db", dir);
	snprintf(adw, sizeof(adw), "%s.awr-dw", a);
	snprintf(bdw, sizeof(bdw), "%s.awr-dw", b);
	fd = open(adw, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	T_EXPECT(fd >= 0 && write(fd, "precious data\n", 14) == 14, "write %s", adw);
	close(fd);
	T_EXPECT_EQ(awr_pages_open(a, PS, AWR_PAGES_DOUBLEWRITE | AWR_PAGES_CREATE, &s), -EEXIST,
		    "a sidecar holding other data");
	T_EXPECT(strstr(awr_last_error(), "not a doublewrite area"), "reason: %s",
		 awr_last_error());
	/* it is refused in every mode: an area might need recovery */
	T_EXPECT_EQ(awr_pages_open(a, PS, AWR_PAGES_CREATE, &s), -EEXIST, "a sidecar holding other "
									  "data (AUTO)");
	char got[32] = { 0 };

	fd = open(adw, O_RDONLY);
	T_EXPECT(fd >= 0 && read(fd, got, sizeof(got)) == 14 && !memcmp(got, "precious data\n", 14),
		 "the foreign sidecar is untouched");
	close(fd);
	unlink(adw);
	/* store b's area given to store a */
	T_EXPECT_EQ(awr_pages_open(b, PS, AWR_PAGES_DOUBLEWRITE | AWR_PAGES_CREATE, &s), 0,
		    "create b");
	awr_pages_close(s);
	T_EXPECT(!rename(bdw, adw), "rename");
	T_EXPECT_EQ(awr_pages_open(a, PS, AWR_PAGES_DOUBLEWRITE | AWR_PAGES_CREATE, &s), -EEXIST,
		    "another store's area");
	T_EXPECT(strstr(awr_last_error(), "another store"), "reason: %s", awr_last_error());
	unlink(adw);
	/* no store without CREATE; bad arguments */
	T_EXPECT_EQ(awr_pages_open("/nonexistent-dir/x.db", PS, 0, &s), -ENOENT, "missing store");
	T_EXPECT_EQ(awr_pages_open(a, 3000, 0, &s), -EINVAL, "page size not a power of two");
	T_EXPECT_EQ(awr_pages_open(a, PS, AWR_PAGES_SOFTWARE | AWR_PAGES_DOUBLEWRITE, &s), -EINVAL,
		    "two modes");
}

/* A mounted block device is never a store. */
static void mounted_device(void)
{
	const char *dev = getenv("AWR_SCRATCH_DEV");
	struct awr_pages *s;
	int ret;

	if (!dev)
		return;
	ret = awr_pages_open(dev, PS, AWR_PAGES_AUTO, &s);
	T_EXPECT_EQ(ret, -EBUSY, "opening the mounted scratch device");
	T_EXPECT(strstr(awr_last_error(), "mounted"), "reason: %s", awr_last_error());
	printf("mounted device: %s\n", awr_last_error());
}

struct thr {
	struct awr_pages *s;
	unsigned int id;
	int ret;
};

static void *writer(void *arg)
{
	struct thr *t = arg;
	uint8_t *buf = pages_buf(NP / 4);
	struct awr_page pg[NP / 4];
	unsigned int n = 0;

	/* thread id writes the pages p with p % 4 == id, generations 3..10+id, in batches of 8 */
	for (uint64_t g = 3; g <= 10 + t->id && !t->ret; g++) {
		n = 0;
		for (unsigned int p = t->id; p < NP; p += 4) {
			tp_fill(buf + (size_t)n * PS, PS, p, g, 0);
			pg[n] = (struct awr_page){ .buf = buf + (size_t)n * PS, .page_no = p };
			n++;
		}
		for (unsigned int at = 0; at < n && !t->ret; at += 8)
			t->ret = awr_pages_write(t->s, pg + at, n - at < 8 ? n - at : 8);
	}
	free(buf);
	return NULL;
}

/* Four threads through one store in @mode (software or doublewrite); a mode not offered is a
 * skip. */
static int threads(const char *mode)
{
	unsigned int m = !strcmp(mode, "software") ? AWR_PAGES_SOFTWARE : AWR_PAGES_DOUBLEWRITE;
	char path[1024];
	struct thr t[4];
	pthread_t th[4];
	struct awr_pages *s;
	int ret;

	if (strcmp(mode, "software") && strcmp(mode, "doublewrite")) {
		printf("usage: pages_store [threads software|doublewrite]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/threads-%s.db", dir, mode);
	ret = awr_pages_open(path, PS, m | AWR_PAGES_CREATE, &s);
	if (ret == -EOPNOTSUPP && m == AWR_PAGES_SOFTWARE)
		T_SKIP("%s", awr_last_error());
	T_EXPECT(!ret, "opening %s in %s mode: %s: %s", path, mode, strerror(-ret),
		 awr_last_error());
	if (ret)
		return t_done("pages_store threads");
	for (unsigned int i = 0; i < 4; i++) {
		t[i] = (struct thr){ .s = s, .id = i };
		pthread_create(&th[i], NULL, writer, &t[i]);
	}
	for (unsigned int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		T_EXPECT_EQ(t[i].ret, 0, "thread write");
	}
	T_EXPECT_EQ(check_all(s, gen_thr, "four threads"), 0, "pages that read back wrong");
	printf("%s mode: four threads through one store: every page reads back its last write\n",
	       awr_pages_mode_name(awr_pages_mode(s)));
	awr_pages_close(s);
	unlink(path);
	return t_done("pages_store threads");
}

/*
 * The first failed page ends the sending of its batch: it has its own error, and every page not
 * in flight yet (past the queue's depth, 64) is -ECANCELED; a page in flight then lands (0).
 */
static void first_failure(void)
{
	char path[1024];
	struct awr_page pg[NP];
	uint8_t *buf = pages_buf(NP);
	struct awr_pages *s;
	unsigned int cancelled = 0;
	int before = t_failures, ret;

	snprintf(path, sizeof(path), "%s/store-fail.db", dir);
	ret = awr_pages_open(path, PS, AWR_PAGES_SOFTWARE | AWR_PAGES_CREATE, &s);
	if (ret) {
		printf("SKIP first_failure: %s\n", awr_last_error());
		free(buf);
		return;
	}
	for (unsigned int i = 0; i < NP; i++) {
		tp_fill(buf + (size_t)i * PS, PS, i, 1, 0);
		pg[i] = (struct awr_page){ .buf = buf + (size_t)i * PS, .page_no = i, .status = 7 };
	}
	pg[0].page_no = (1ULL << 63) / PS;	/* at 8 EiB: past any file's end */
	ret = awr_pages_write(s, pg, NP);
	printf("    a page at 8 EiB first: %s\n", awr_last_error());
	T_EXPECT(ret < 0 && ret != -ECANCELED, "the batch fails with the page's error: %d", ret);
	T_EXPECT_EQ(pg[0].status, ret, "the failed page's status");
	for (unsigned int i = 1; i < NP; i++) {
		bool ok = pg[i].status == -ECANCELED || (i < 64 && !pg[i].status);

		T_EXPECT(ok, "page %u after the failed one: status %d", i, pg[i].status);
		cancelled += pg[i].status == -ECANCELED;
	}
	printf("    %u of the %u pages after it cancelled\n", cancelled, NP - 1);
	awr_pages_close(s);
	unlink(path);
	free(buf);
	printf("%s first_failure\n", t_failures == before ? "PASS" : "FAIL");
}

int main(int argc, char **argv)
{
	dir = getenv("AWR_SCRATCH_DIR");
	if (!dir)
		T_SKIP("run under with-scratch-xfs.sh (AWR_SCRATCH_DIR)");
	if (argc == 3 && !strcmp(argv[1], "threads"))
		return threads(argv[2]);
	if (argc != 1) {
		printf("usage: pages_store [threads software|doublewrite]\n");
		return 2;
	}
	modes_and_reopen();
	sidecar_safety();
	first_failure();
	mounted_device();
	return t_done("pages_store");
}
