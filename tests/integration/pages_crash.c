// SPDX-License-Identifier: MIT
/*
 * Description: the page store survives crashes at every fault point (crash, tear, mid area write,
 * between the area's sync and the in-place writes) and XFS shutdowns: after each, opening the store
 * recovers and every page reads back whole, old or new, by this test's own checksum; the negative
 * control (the same tear with the doublewrite area moved away) is reported torn.
 * held:N adds the loss of in-place writes that were acknowledged but not yet synced (the area holds
 * them; the store is synced only before a generation of the area is written again): the child ends
 * as the next batch begins, and the test puts back the older copies of the pages of the last two
 * acknowledged batches, as a power cut could leave them when the device's cache was never flushed
 * (a loss the kernel here cannot be made to cause); recovery must bring the acknowledged copies
 * back, and with the area moved away the test must find every one of those pages stale.
 *
 *   pages_crash faults software|doublewrite|auto   (run under with-scratch-xfs.sh)
 *   pages_crash shutdown software|doublewrite     (idem: shuts the scratch XFS down, mounts it
 * again)
 *   pages_crash reopen software|doublewrite       (idem: a writer SIGKILLed mid-batch, reopened at
 * once)
 *   pages_crash sessions                          (idem: one store across two opens, see
 * run_sessions)
 *   pages_crash cache                             (idem: a device cache lost, see run_cache)
 *   pages_crash replay-write|replay-check ...     (the guest's replayed power cuts: replay_write())
 * Each run is one mode: software mode (and AUTO, which needs it) where the target does not offer it
 * is a skip that says so, never a pass of the other mode alone.
 *
 * A child process writes batches of 15 stamped pages (plus an earlier copy of one of them, which
 * must lose) with AWR_PAGES_FAULT set; the library ends it with _exit(99) at the point. The parent
 * knows every batch (same seeds) and which the child acknowledged (a pipe), so each page must hold
 * the generation of the last acknowledged batch that wrote it, or of the batch in flight.
 *   AWR_PAGES_CYCLES=N    crashes per fault point and mode (default 10)
 *   AWR_PAGES_SHUTDOWNS=N XFS shutdowns (default 3)
 * reopen: a supervisor restarting a killed database at once must find its store free. A child
 * writes batches through the store's io_uring until it is SIGKILLed (0..5 ms after its first
 * acknowledgement); the parent reaps it and opens the store again in the same instant: the open
 * must succeed at its first try (the lock on the file is not held by the dead process's ring),
 * and every page must then be whole, old or new. AWR_PAGES_REOPENS=N kills (default 40).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "compat.h"
#include "../helpers.h"
#include "pages_stamp.h"

#define PS		16384U
#define NP		64U		/* pages in the store */
#define PER		15U		/* distinct pages per batch */
#define BATCHES		6U		/* batches a fault child writes (generations 2..7) */
#define EXIT_FAULT	99
#define EXIT_EIO	5
#define DW_BLOCK 4096U /* the area's header and each record table (awr_pages_open(3)) */

static const char *dir, *dev;
static unsigned int cycles = 10, shutdowns = 3;

/* batch @gen of run @seed: PER distinct pages, sorted, and the page of which an earlier copy goes
 * first */
static void batch_pages(unsigned int seed, uint64_t gen, uint64_t *pages, uint64_t *dup)
{
	uint64_t x = (uint64_t)seed * 1000003ULL + gen * 7919ULL + 1;
	bool used[NP] = { false };
	unsigned int n = 0;

	while (n < PER) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (!used[x % NP]) {
			used[x % NP] = true;
			n++;
		}
	}
	n = 0;
	for (unsigned int p = 0; p < NP; p++)
		if (used[p])
			pages[n++] = p;
	*dup = pages[x % PER];
}

static uint8_t *alloc_pages(unsigned int n)
{
	void *p;

	if (posix_memalign(&p, 4096, (size_t)n * PS))
		exit(2);
	return p;
}

static int write_batch(struct awr_pages *s, unsigned int seed, uint64_t gen, uint8_t *buf)
{
	struct awr_page pg[PER + 1];
	uint64_t pages[PER], dup;

	batch_pages(seed, gen, pages, &dup);
	/* the earlier copy first (copy 1), then the batch with the copy that must win */
	tp_fill(buf, PS, dup, gen, 1);
	pg[0] = (struct awr_page){ .buf = buf, .page_no = dup };
	for (unsigned int i = 0; i < PER; i++) {
		tp_fill(buf + (size_t)(i + 1) * PS, PS, pages[i], gen, 0);
		pg[i + 1] =
			(struct awr_page){.buf = buf + (size_t)(i + 1) * PS, .page_no = pages[i]};
	}
	return awr_pages_write(s, pg, PER + 1);
}

static int create_store(const char *path, unsigned int mode)
{
	struct awr_page pg[NP];
	struct awr_pages *s;
	uint8_t *buf = alloc_pages(NP);
	int ret;

	unlink(path);
	ret = awr_pages_open(path, PS, mode | AWR_PAGES_CREATE, &s);
	if (ret) {
		free(buf);
		return ret;
	}
	for (unsigned int i = 0; i < NP; i++) {
		tp_fill(buf + (size_t)i * PS, PS, i, 1, 0);
		pg[i] = (struct awr_page){ .buf = buf + (size_t)i * PS, .page_no = i };
	}
	ret = awr_pages_write(s, pg, NP);
	awr_pages_close(s);
	free(buf);
	return ret;
}

/* An acknowledged batch: its generation and when awr_pages_write() returned (CLOCK_MONOTONIC). */
struct ack {
	uint64_t gen, ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct awr_pages *child_open(const char *path, unsigned int mode)
{
	struct awr_pages *s;
	int ret = awr_pages_open(path, PS, mode, &s);

	if (ret) {
		fprintf(stderr, "child: open: %s: %s\n", strerror(-ret), awr_last_error());
		_exit(3);
	}
	return s;
}

/*
 * The child: open with the fault, write batches 2.., acknowledge each on @ack. With @reopen (a
 * batch above 2), the batches before it are written in a first session, the store closed, and the
 * fault armed for a second session that opens it again and writes from @reopen on.
 */
static void child(const char *path, unsigned int mode, const char *fault, unsigned int seed,
		  int ack, uint64_t last, uint64_t reopen)
{
	struct awr_pages *s;
	uint8_t *buf = alloc_pages(PER + 1);
	int ret;

	if (fault && !reopen)
		setenv("AWR_PAGES_FAULT", fault, 1);
	s = child_open(path, mode);
	for (uint64_t gen = 2; gen <= last; gen++) {
		if (gen == reopen) {
			if (awr_pages_close(s))
				_exit(6);
			if (fault)
				setenv("AWR_PAGES_FAULT", fault, 1);
			s = child_open(path, mode);
		}
		ret = write_batch(s, seed, gen, buf);
		if (ret)
			_exit(ret == -EIO ? EXIT_EIO : 3);
		struct ack a = { gen, mono_ns() };

		if (write(ack, &a, sizeof(a)) != sizeof(a))
			_exit(4);
	}
	_exit(0);
}

/*
 * Is generation @gen right for page @p after a crash with batches up to @acked acknowledged before
 * it and batches up to @upto in flight? The page must hold the last acknowledged batch that wrote
 * it (@must), or a batch in flight that wrote it.
 */
static bool allowed(unsigned int seed, uint64_t acked, uint64_t upto, unsigned int p, uint64_t gen,
		    uint64_t *must)
{
	uint64_t pages[PER], dup;
	bool ok = false;

	*must = 1;
	for (uint64_t g = 2; g <= upto; g++) {
		batch_pages(seed, g, pages, &dup);
		for (unsigned int i = 0; i < PER; i++) {
			if (pages[i] != p)
				continue;
			if (g <= acked)
				*must = g;
			else
				ok |= gen == g;
		}
	}
	return ok || gen == *must;
}

/* Every page whole, copy 0, and old or new. Returns the number of bad pages; prints each. */
static unsigned int check_pages(const char *what, const uint8_t *data, unsigned int seed,
				uint64_t acked, uint64_t upto)
{
	unsigned int bad = 0;

	for (unsigned int p = 0; p < NP; p++) {
		uint64_t gen = 0, copy = 0, must;
		enum tp_class c = tp_check(data + (size_t)p * PS, PS, p, &gen, &copy);

		if (allowed(seed, acked, upto, p, gen, &must) && c == TP_WHOLE && !copy)
			continue;
		bad++;
		printf("  %s: page %u %s (generation %" PRIu64 ", copy %" PRIu64
		       "; expected %" PRIu64 " or a batch in flight up to %" PRIu64 ")\n",
		       what, p,
		       c == TP_TORN   ? "torn"
		       : c == TP_ZERO ? "zero"
				      : "whole",
		       gen, copy, must, upto);
	}
	return bad;
}

static int read_store(const char *path, unsigned int mode, uint8_t *data, unsigned int *recovered,
		      char *explain, size_t len)
{
	struct awr_pages *s;
	int ret;

	/* a crashed writer's io_uring requests hold its file (and write lock) until they finish */
	for (int i = 0; (ret = awr_pages_open(path, PS, mode, &s)) == -EBUSY && i < 200; i++)
		usleep(25000);
	if (ret) {
		snprintf(explain, len, "%s", awr_last_error());
		return ret;
	}
	*recovered = awr_pages_recovered(s);
	snprintf(explain, len, "%s", awr_pages_explain(s));
	for (unsigned int p = 0; p < NP && !ret; p++)
		ret = awr_pages_read(s, data + (size_t)p * PS, p);
	awr_pages_close(s);
	return ret;
}

/*
 * The in-place write number @n (0-based) of run @seed counted from batch @first (where the fault's
 * session began): sorted distinct pages, PER per batch.
 */
static int nth_in_place(unsigned int seed, uint64_t first, uint64_t n)
{
	uint64_t pages[PER], dup;

	batch_pages(seed, first + n / PER, pages, &dup);
	return (int)pages[n % PER];
}

/*
 * held:N: the pages of batches @acked - 1 and @acked put back to what they held before, as unsynced
 * writes lost in a device cache. Returns how many pages were put back.
 */
static unsigned int lose_unsynced(const char *path, unsigned int seed, uint64_t acked)
{
	uint8_t *buf = alloc_pages(1);
	bool hit[NP] = { false };
	unsigned int n = 0;
	int fd = open(path, O_RDWR | O_DIRECT);

	T_EXPECT(fd >= 0, "opening %s: %s", path, strerror(errno));
	for (uint64_t g = acked - 1; g <= acked; g++) {
		uint64_t pages[PER], dup;

		batch_pages(seed, g, pages, &dup);
		for (unsigned int i = 0; i < PER; i++)
			hit[pages[i]] = true;
	}
	for (unsigned int p = 0; p < NP && fd >= 0; p++) {
		uint64_t before;

		if (!hit[p])
			continue;
		allowed(seed, acked - 2, acked - 2, p, 0, &before);
		tp_fill(buf, PS, p, before, 0);
		T_EXPECT(pwrite(fd, buf, PS, (off_t)p * PS) == PS, "putting page %u back: %s", p,
			 strerror(errno));
		n++;
	}
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(buf);
	return n;
}

static uint64_t read_acks(int fd)
{
	struct ack a;
	uint64_t last = 1;

	while (read(fd, &a, sizeof(a)) == sizeof(a))
		last = a.gen;
	return last;
}

static const char *mode_name(unsigned int mode)
{
	return mode == AWR_PAGES_SOFTWARE      ? "software"
	       : mode == AWR_PAGES_DOUBLEWRITE ? "doublewrite"
					       : "auto";
}

/*
 * The store file read directly with its doublewrite area moved away (a negative control: what the
 * pages would be without the protection), then the area moved back; check_pages' count.
 */
static unsigned int check_without_area(const char *path, uint8_t *data, unsigned int seed,
				       uint64_t acked, uint64_t upto)
{
	char dw[1100], moved[1200];
	unsigned int bad;
	int fd;

	snprintf(dw, sizeof(dw), "%s.awr-dw", path);
	snprintf(moved, sizeof(moved), "%s.moved", dw);
	T_EXPECT(!rename(dw, moved), "moving %s away: %s", dw, strerror(errno));
	fd = open(path, O_RDONLY);
	T_EXPECT(fd >= 0 && pread(fd, data, (size_t)NP * PS, 0) == (ssize_t)NP * PS, "reading %s",
		 path);
	close(fd);
	bad = check_pages("without the area", data, seed, acked, upto);
	T_EXPECT(!rename(moved, dw), "moving %s back", dw);
	return bad;
}

/*
 * One crash at @fault; returns false when the mode is not available. With @reopen, the fault is in
 * a second session of the child from batch @reopen on (see child()).
 */
static bool fault_cycle(unsigned int mode, const char *kind, uint64_t n, unsigned int seed,
			uint64_t batches, uint64_t reopen)
{
	char path[1024], fault[64], dw[1100], explain[512];
	uint8_t *data = alloc_pages(NP);
	unsigned int recovered = 0, bad;
	uint64_t acked;
	int fds[2], st, ret, torn = -1;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/pages-%s.db", dir, mode_name(mode));
	snprintf(dw, sizeof(dw), "%s.awr-dw", path);
	snprintf(fault, sizeof(fault), "%s:%" PRIu64, kind, n);
	ret = create_store(path, mode);
	if (ret == -EOPNOTSUPP) {
		free(data);
		return false;
	}
	T_EXPECT(!ret, "creating the store in %s mode: %s", mode_name(mode), strerror(-ret));
	if (pipe(fds))
		exit(2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(path, mode, fault, seed, fds[1], 1 + batches, reopen);
	}
	close(fds[1]);
	acked = read_acks(fds[0]);
	close(fds[0]);
	waitpid(pid, &st, 0);
	T_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_FAULT,
		 "%s mode, %s: the child ended with status %d, not by the fault point (99)",
		 mode_name(mode), fault, WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	if (!strcmp(kind, "held")) {
		unsigned int lost;

		T_EXPECT(acked >= 3, "held:%" PRIu64 ": two batches acknowledged before the fault, "
						     "not %" PRIu64,
			 n, acked - 1);
		lost = lose_unsynced(path, seed, acked);
		/* negative control: without the area every page put back is an acknowledged write
		 * lost */
		bad = check_without_area(path, data, seed, acked, acked);
		T_EXPECT(bad == lost, "%s mode, %s: with the area moved away the test must find "
				      "the %u pages put "
			 "back stale, found %u bad page(s)", mode_name(mode), fault, lost, bad);
		torn = (int)lost;
	}
	if (!strcmp(kind, "tear")) {
		/* negative control: without the area the test's own checksum sees the torn page */
		torn = nth_in_place(seed, reopen ? reopen : 2, n);
		bad = check_without_area(path, data, seed, acked, acked + 1);
		T_EXPECT(bad == 1 && tp_check(data + (size_t)torn * PS, PS, torn, &(uint64_t){ 0 },
					      &(uint64_t){ 0 }) == TP_TORN,
			 "%s mode, %s: with the area moved away the test must find exactly page %d "
			 "torn, "
			 "found %u bad page(s)", mode_name(mode), fault, torn, bad);
	}
	/* recover: reopened in the same mode, or (every other cycle) letting AUTO choose */
	ret = read_store(path, (seed & 1) ? mode : AWR_PAGES_AUTO, data, &recovered, explain,
			 sizeof(explain));
	T_EXPECT(!ret, "%s mode, %s: reopening: %s: %s", mode_name(mode), fault, strerror(-ret),
		 explain);
	bad = ret ? NP : check_pages("after recovery", data, seed, acked, acked + 1);
	T_EXPECT(!bad, "%s mode, %s: %u page(s) not whole, old or new after recovery",
		 mode_name(mode), fault, bad);
	if (torn >= 0 && strcmp(kind, "held"))
		T_EXPECT(recovered >= 1, "%s: the torn page %d was not repaired (%u recovered)",
			 fault, torn, recovered);
	if (torn >= 0 && !strcmp(kind, "held"))
		T_EXPECT(recovered == (unsigned int)torn, "%s: %d pages put back, %u repaired",
			 fault, torn, recovered);
	printf("%s %-10s%s acknowledged batches %" PRIu64 ", repaired %u page(s)%s: %s\n",
	       mode_name(mode), fault, reopen ? " in a 2nd session," : "", acked - 1, recovered,
	       torn < 0 ? ""
	       : strcmp(kind, "held")
		       ? ", negative control: page torn without the area"
		       : ", negative control: the pages put back stale without the area",
	       bad ? "FAIL" : "ok");
	unlink(path);
	unlink(dw);
	free(data);
	return true;
}

/* Does the scratch filesystem offer software mode? (A store opened in it, then removed.) */
static bool software_offered(void)
{
	char path[1024];
	struct awr_pages *s;
	int ret;

	snprintf(path, sizeof(path), "%s/pages-probe.db", dir);
	ret = awr_pages_open(path, PS, AWR_PAGES_SOFTWARE | AWR_PAGES_CREATE, &s);
	T_EXPECT(!ret || ret == -EOPNOTSUPP, "opening a store in software mode: %s",
		 strerror(-ret));
	if (!ret)
		awr_pages_close(s);
	unlink(path);
	return !ret;
}

/* The mode a part runs in (its argument): software or doublewrite; software skips where not
 * offered. */
static unsigned int part_mode(const char *arg, const char *part)
{
	if (!strcmp(arg, "doublewrite"))
		return AWR_PAGES_DOUBLEWRITE;
	if (strcmp(arg, "software")) {
		printf("usage: pages_crash %s software|doublewrite\n", part);
		exit(2);
	}
	if (!software_offered())
		T_SKIP("%s", awr_last_error());
	return AWR_PAGES_SOFTWARE;
}

/* Software mode: crashes anywhere in the child's batches. */
static int run_faults_software(void)
{
	for (unsigned int i = 0; i < cycles; i++) {
		uint64_t n = (uint64_t)(i * 37 + 5) %
			     (PER * (BATCHES - 1)); /* varying, reached by batch 6 */

		if (!fault_cycle(AWR_PAGES_SOFTWARE, "crash", n, i + 1, BATCHES, 0)) {
			T_EXPECT(!i, "software mode went away after %u cycles: %s", i,
				 awr_last_error());
			T_SKIP("%s", awr_last_error());
		}
	}
	return t_done("pages_crash faults software");
}

/* Doublewrite mode: every fault point of the area protocol. */
static int run_faults_doublewrite(void)
{
	static const char *dw_kinds[] = { "crash", "tear", "area", "synced", "held" };
	unsigned int seed = 100;

	for (unsigned int k = 0; k < 5; k++) {
		for (unsigned int i = 0; i < cycles; i++) {
			uint64_t n = (uint64_t)(i * 29 + k * 11 + 3) % (PER * (BATCHES - 1));

			if (!strcmp(dw_kinds[k], "held"))	/* two batches acknowledged first */
				n = PER + (uint64_t)(i * 29 + 3) % (PER * (BATCHES - 2));
			if (!fault_cycle(AWR_PAGES_DOUBLEWRITE, dw_kinds[k], n, seed++, BATCHES,
					 0)) {
				T_EXPECT(0, "doublewrite mode must be offered on a file: %s",
					 awr_last_error());
				return t_done("pages_crash faults doublewrite");
			}
		}
	}
	return t_done("pages_crash faults doublewrite");
}

/*
 * AUTO where software and doublewrite are both possible: the store's first 32 batches alternate
 * (software first), then it keeps the faster. Crashes after it settled (batches 34..36, when a
 * software batch must not let the area's last doublewrite batch be applied over newer pages), and
 * tears in its doublewrite batches (the 2nd and 4th of the child's). Without software mode AUTO
 * has nothing to choose between: a skip, said as such.
 */
static int run_faults_auto(void)
{
	if (!software_offered())
		T_SKIP("AUTO has one mode only: %s", awr_last_error());
	for (unsigned int i = 0; i < cycles; i++) {
		uint64_t n = PER * 33 + (uint64_t)(i * 17 + 2) % (PER * 3);

		fault_cycle(AWR_PAGES_AUTO, "crash", n, 200 + 2 * i, 36, 0);
		n = PER * (1 + 2 * (i & 1)) + (uint64_t)(i * 7 + 1) % PER;
		fault_cycle(AWR_PAGES_AUTO, "tear", n, 201 + 2 * i, 6, 0);
	}
	return t_done("pages_crash faults auto");
}

/* --- one store across sessions ------------------------------------------- */

/*
 * The store written in two sessions: the child writes batches 2..R-1 (R = 4..7, so that the first
 * session leaves records in generations a second session numbering its batches from 1 again would
 * not overwrite first), closes the store, opens it again and writes until the fault. Each page
 * must then hold its last acknowledged batch: a batch of the first session restored over a newer
 * one of the second (batches numbered again from 1) is a stale page.
 */
static int run_sessions(void)
{
	static const char *kinds[] = { "crash", "tear", "held" };
	unsigned int seed = 500;

	for (unsigned int k = 0; k < 3; k++) {
		for (unsigned int i = 0; i < cycles; i++) {
			uint64_t reopen = 4 + (i + k) % 4,
				 n = (uint64_t)(i * 23 + k * 5 + 2) % (PER * 4);

			if (!strcmp(kinds[k], "held"))
				n += PER; /* two batches acknowledged in the second session first */
			if (!fault_cycle(AWR_PAGES_DOUBLEWRITE, kinds[k], n, seed++, reopen - 2 + 6,
					 reopen)) {
				T_EXPECT(0, "doublewrite mode must be offered on a file: %s",
					 awr_last_error());
				return t_done("pages_crash sessions");
			}
		}
	}
	return t_done("pages_crash sessions");
}

/* --- a device cache lost with the crash ------------------------------------ */

/*
 * What a volatile device cache may lose at a power cut, modelled from the child's own system calls
 * (traced by strace, -y naming each descriptor's file): an in-place write of the store is durable
 * once a later fdatasync() or fsync() of the store file returned (its in-place writes go through
 * io_uring, so the test counts by acknowledgement: a batch acknowledged before a store sync is
 * covered by it); an area write is durable when it was RWF_DSYNC or a later sync of the area file
 * returned. Everything else is lost: the test puts the store's pages back to what they held at the
 * last store sync and zeroes the record table of each generation whose last write was not durable.
 * Recovery must then bring back every acknowledged page; the negative control (the area moved
 * away) must find every acknowledged page put back stale.
 */
struct cache_model {
	uint64_t acks;		/* batches acknowledged (2 .. 1 + acks) */
	/* the last batch a store sync covers (1: the test's sync after creating) */
	uint64_t synced;
	unsigned int store_syncs, area_writes;
	uint32_t lost;		/* generations whose last area write was not durable */
};

/* The descriptor's file in a strace -y line: "NAME(FD</path>" -> whether it is @path. */
static bool traced_file(const char *line, const char *call, const char *path)
{
	const char *p = strstr(line, call), *lt;
	size_t n = strlen(path);

	if (!p || (p > line && p[-1] != ' '))
		return false;
	lt = strchr(p, '<');
	return lt && !strncmp(lt + 1, path, n) && lt[1 + n] == '>';
}

/* The model from the strace log @log of a child writing store @path (area @dw, @slots slots a
 * generation). */
static void read_trace(const char *log, const char *path, const char *dw, int ackfd, uint32_t slots,
		       struct cache_model *m)
{
	uint64_t body = DW_BLOCK + (uint64_t)slots * PS;
	uint32_t durable_pending = 0, written = 0;
	char line[8192], ack[32];
	FILE *f = fopen(log, "r");

	memset(m, 0, sizeof(*m));
	m->synced = 1;
	T_EXPECT(f, "reading the trace %s: %s", log, strerror(errno));
	if (!f)
		return;
	snprintf(ack, sizeof(ack), " write(%d<pipe:", ackfd);
	while (fgets(line, sizeof(line), f)) {
		const char *eq = strstr(line, ") = ");

		if (!eq || strstr(line, "unfinished"))
			continue;
		if (strstr(line, ack) && atoi(eq + 4) == (int)sizeof(struct ack)) {
			m->acks++;
		} else if ((traced_file(line, "fdatasync(", path) ||
			    traced_file(line, "fsync(", path)) &&
			   !strncmp(eq, ") = 0", 5)) {
			m->synced = 1 + m->acks;
			m->store_syncs++;
		} else if ((traced_file(line, "fdatasync(", dw) ||
			    traced_file(line, "fsync(", dw)) &&
			   !strncmp(eq, ") = 0", 5)) {
			durable_pending = 0;	/* every earlier area write durable */
		} else if (traced_file(line, "pwritev2(", dw) && atoll(eq + 4) > 0) {
			/* ..., OFFSET, FLAGS) = N */
			const char *c2 = eq, *c1;
			unsigned long long off;
			uint32_t g;

			while (c2 > line && *c2 != ',')
				c2--;
			for (c1 = c2 - 1; c1 > line && *c1 != ','; c1--)
				;
			off = strtoull(c1 + 1, NULL, 10);
			if (off < DW_BLOCK || (off - DW_BLOCK) % body)
				continue;
			g = (uint32_t)((off - DW_BLOCK) / body);
			m->area_writes++;
			written |= 1U << g;
			if (strstr(c2, "RWF_DSYNC"))
				durable_pending &= ~(1U << g);
			else
				durable_pending |= 1U << g;
		}
	}
	fclose(f);
	m->lost = durable_pending & written;
}

/* The area's slots per generation and generations, from its header. */
static void area_shape(const char *dw, uint32_t *slots, uint32_t *gens)
{
	uint8_t h[24];
	int fd = open(dw, O_RDONLY);

	T_EXPECT(fd >= 0 && pread(fd, h, sizeof(h), 0) == sizeof(h), "reading %s's header", dw);
	if (fd >= 0)
		close(fd);
	memcpy(slots, h + 16, 4);
	memcpy(gens, h + 20, 4);
}

/* The loss applied: pages back to their state at batch m->synced, lost generations' tables zeroed.
 * Returns the acknowledged pages put back. */
static unsigned int lose_cache(const char *path, const char *dw, unsigned int seed, uint64_t acked,
			       uint32_t slots, const struct cache_model *m)
{
	uint8_t *buf = alloc_pages(1);
	unsigned int stale = 0;
	int fd = open(path, O_RDWR | O_DIRECT), dfd = open(dw, O_RDWR | O_DIRECT);

	T_EXPECT(fd >= 0 && dfd >= 0, "opening %s and its area: %s", path, strerror(errno));
	for (unsigned int p = 0; p < NP && fd >= 0; p++) {
		uint64_t before, must;

		allowed(seed, m->synced, m->synced, p, 0, &before);
		allowed(seed, acked, acked, p, 0, &must);
		tp_fill(buf, PS, p, before, 0);
		T_EXPECT(pwrite(fd, buf, PS, (off_t)p * PS) == PS, "putting page %u back: %s", p,
			 strerror(errno));
		stale += before != must;
	}
	memset(buf, 0, DW_BLOCK);
	for (uint32_t g = 0; g < 32 && dfd >= 0; g++)
		if (m->lost & (1U << g))
			T_EXPECT(pwrite(dfd, buf, DW_BLOCK,
					(off_t)(DW_BLOCK +
						(uint64_t)g * (DW_BLOCK + (uint64_t)slots * PS))) ==
					 DW_BLOCK,
				 "zeroing generation %u's table: %s", g, strerror(errno));
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(buf);
	return stale;
}

static bool cache_cycle(const char *kind, uint64_t n, unsigned int seed, uint64_t batches,
			uint32_t *gens_out)
{
	char path[1024], dw[1100], log[1100], fault[64], explain[512], ackfd[16], seeds[16],
		last[24], mode[8];
	uint8_t *data = alloc_pages(NP);
	unsigned int recovered = 0, bad, stale;
	struct cache_model m;
	uint32_t slots, gens;
	uint64_t acked;
	int fds[2], st, ret, fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/pages-cache.db", dir);
	snprintf(dw, sizeof(dw), "%s.awr-dw", path);
	snprintf(log, sizeof(log), "%s.trace", path);
	snprintf(fault, sizeof(fault), "%s:%" PRIu64, kind, n);
	ret = create_store(path, AWR_PAGES_DOUBLEWRITE);
	T_EXPECT(!ret, "creating the store in doublewrite mode: %s", strerror(-ret));
	if (ret) {
		free(data);
		return false;
	}
	/* the created store durable (the test's own sync: no cache loss reaches before it) */
	fd = open(path, O_RDONLY);
	T_EXPECT(fd >= 0 && !fsync(fd), "syncing %s", path);
	close(fd);
	area_shape(dw, &slots, &gens);
	*gens_out = gens;
	if (pipe(fds))
		exit(2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		const char *asan = getenv("ASAN_OPTIONS");
		char opts[512], self[1024];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (len <= 0)
			_exit(126);
		self[len] = 0;

		close(fds[0]);
		/* LeakSanitizer's own ptrace cannot run under strace */
		snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", asan ? asan : "",
			 asan ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
		snprintf(ackfd, sizeof(ackfd), "%d", fds[1]);
		snprintf(seeds, sizeof(seeds), "%u", seed);
		snprintf(last, sizeof(last), "%" PRIu64, 1 + batches);
		snprintf(mode, sizeof(mode), "%u", (unsigned int)AWR_PAGES_DOUBLEWRITE);
		execlp("strace", "strace", "-f", "-qq", "-y", "-s", "0", "-e",
		       "trace=fdatasync,fsync,pwritev2,write,sync,syncfs", "-o", log, self,
		       "cache-child", path, mode, fault, seeds, ackfd, last, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	acked = read_acks(fds[0]);
	close(fds[0]);
	waitpid(pid, &st, 0);
	T_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_FAULT,
		 "cache, %s: the traced child ended with status %d, not by the fault point (99)",
		 fault, WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	read_trace(log, path, dw, fds[1], slots, &m);
	T_EXPECT(m.acks == acked - 1 && m.area_writes >= m.acks,
		 "cache, %s: the trace shows %" PRIu64 " acknowledgements and %u area writes, the "
						       "pipe %" PRIu64,
		 fault, m.acks, m.area_writes, acked - 1);
	stale = lose_cache(path, dw, seed, acked, slots, &m);
	/* negative control: without the area every acknowledged page put back is stale */
	bad = check_without_area(path, data, seed, acked, acked + 1);
	T_EXPECT(bad == stale && stale, "cache, %s: with the area moved away the test must find "
					"the %u "
		 "acknowledged pages put back stale, found %u bad page(s)", fault, stale, bad);
	ret = read_store(path, AWR_PAGES_DOUBLEWRITE, data, &recovered, explain, sizeof(explain));
	T_EXPECT(!ret, "cache, %s: reopening: %s: %s", fault, strerror(-ret), explain);
	bad = ret ? NP
		  : check_pages("after the cache loss and recovery", data, seed, acked, acked + 1);
	T_EXPECT(!bad, "cache, %s: %u page(s) not as their last acknowledged batch wrote them "
		       "after recovery",
		 fault, bad);
	printf("doublewrite %-9s acknowledged batches %" PRIu64
	       ", last store sync after batch %" PRIu64
	       " (%u syncs), %u of %u area writes durable; lost: %u acknowledged page(s), the "
	       "tables of "
	       "%d generation(s); repaired %u: %s\n",
	       fault, acked - 1, m.synced - 1, m.store_syncs,
	       m.area_writes - (unsigned int)__builtin_popcount(m.lost), m.area_writes, stale,
	       __builtin_popcount(m.lost), recovered, bad ? "FAIL" : "ok");
	unlink(path);
	unlink(dw);
	unlink(log);
	free(data);
	return true;
}

static int run_cache(void)
{
	uint32_t gens = 0;
	unsigned int seed = 900;

	if (system("strace -V >/dev/null 2>&1"))
		T_SKIP("strace is not installed (scripts/deps.sh installs it): the cache model "
		       "reads its trace");
	/* learn the generations first: crashes after the area wrapped at least once, 2+ batches
	 * after a sync */
	if (!cache_cycle("crash", 2 * PER + 3, seed++, 4, &gens))
		return t_done("pages_crash cache");
	for (unsigned int i = 0; i < cycles && gens > 2; i++) {
		uint64_t b =
			gens + 2 + i % (gens - 2); /* the faulting batch, 0-based in the session */

		cache_cycle((i & 1) ? "tear" : "crash", PER * b + (i * 7) % PER, seed++, b + 2,
			    &gens);
	}
	return t_done("pages_crash cache");
}

/* --- reopen right after SIGKILL -------------------------------------------- */

/* The child of a reopen cycle: write batches 2.. until killed, acknowledging each. */
static void endless_child(const char *path, unsigned int mode, unsigned int seed, int ack)
{
	struct awr_pages *s;
	uint8_t *buf = alloc_pages(PER + 1);

	if (awr_pages_open(path, PS, mode, &s))
		_exit(3);
	for (uint64_t gen = 2;; gen++) {
		struct ack a;

		if (write_batch(s, seed, gen, buf))
			_exit(3);
		a = (struct ack){ gen, mono_ns() };
		if (write(ack, &a, sizeof(a)) != sizeof(a))
			_exit(4);
	}
}

/* One kill and reopen; false when the store could not be opened at once or a page is wrong. */
static bool reopen_cycle(unsigned int mode, unsigned int seed, unsigned int delay_us,
			 uint64_t *worst_ns)
{
	char path[4096];
	uint8_t *data = alloc_pages(NP);
	struct awr_pages *s;
	uint64_t acked = 0, t0;
	struct ack a;
	int p[2], st, ret;
	unsigned int bad;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/reopen-%u.db", dir, seed);
	T_EXPECT(!create_store(path, mode), "create the store (%s)", awr_last_error());
	T_EXPECT(!pipe(p), "pipe");
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		endless_child(path, mode, seed, p[1]);
	}
	close(p[1]);
	if (read(p[0], &a, sizeof(a)) == sizeof(a)) /* the first batch is in: the ring is busy */
		acked = a.gen;
	usleep(delay_us);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	t0 = mono_ns();
	ret = awr_pages_open(path, PS, mode, &s);
	if (!ret && mono_ns() - t0 > *worst_ns)
		*worst_ns = mono_ns() - t0;
	{
		uint64_t more = read_acks(p[0]);	/* 1 when nothing more came */

		if (more > acked)
			acked = more;
	}
	close(p[0]);
	T_EXPECT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "%s: the writer ended by itself "
							     "(status %#x)",
		 mode_name(mode), st);
	T_EXPECT(!ret,
		 "%s, cycle %u: opening the store %.3f ms after its writer was killed: %s: %s",
		 mode_name(mode), seed, (double)(mono_ns() - t0) / 1e6, strerror(-ret),
		 awr_last_error());
	if (ret) {
		free(data);
		unlink(path);
		return false;
	}
	for (unsigned int i = 0; i < NP; i++)
		T_EXPECT(!awr_pages_read(s, data + (size_t)i * PS, i), "read page %u", i);
	awr_pages_close(s);
	bad = check_pages("after the kill", data, seed, acked, acked + 1);
	T_EXPECT(!bad, "%s, cycle %u: %u page(s) not whole, old or new after a kill and reopen",
		 mode_name(mode), seed, bad);
	free(data);
	unlink(path);
	{
		char dw[4200];

		snprintf(dw, sizeof(dw), "%s" ".awr-dw", path);
		unlink(dw);
	}
	return !bad;
}

static int run_reopen(unsigned int mode)
{
	const char *r = getenv("AWR_PAGES_REOPENS");
	unsigned int n = r ? (unsigned int)atoi(r) : 40, ok = 0;
	uint64_t worst = 0;

	for (unsigned int i = 0; i < n; i++)
		ok += reopen_cycle(mode, 1000 + i, (i * 397) % 5000, &worst);
	printf("%s: %u of %u opened at once after SIGKILL and read whole (slowest open %.3f ms)\n",
	       mode_name(mode), ok, n, (double)worst / 1e6);
	return t_done("pages_crash reopen");
}

/* --- XFS shutdown cycles -------------------------------------------------- */

static void shut_down(void)
{
	uint32_t flags = XFS_FSOP_GOING_FLAGS_NOLOGFLUSH;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0 || ioctl(fd, XFS_IOC_GOINGDOWN, &flags)) {
		printf("FAIL: XFS_IOC_GOINGDOWN on %s: %s\n", dir, strerror(errno));
		exit(1);
	}
	close(fd);
}

static void remount(void)
{
	struct stat st;
	int i;

	for (i = 0; i < 50 && umount2(dir, 0); i++)
		usleep(100000);
	if (i == 50) {
		printf("FAIL: umount %s: %s\n", dir, strerror(errno));
		exit(1);
	}
	if (mount(dev, dir, "xfs", 0, NULL) || stat(dir, &st)) {
		printf("FAIL: mounting %s on %s again (log recovery): %s\n", dev, dir,
		       strerror(errno));
		exit(1);
	}
}

static bool shutdown_cycle(unsigned int mode, unsigned int seed)
{
	char path[1024], explain[512];
	uint8_t *data = alloc_pages(NP);
	unsigned int recovered = 0, bad;
	uint64_t acked = 1, late = 0, crash_ns;
	struct ack a;
	int fds[2], st, ret;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/pages-shutdown-%u.db", dir, seed);
	ret = create_store(path, mode);
	if (ret == -EOPNOTSUPP) {
		free(data);
		return false;
	}
	T_EXPECT(!ret, "creating the store: %s", strerror(-ret));
	if (pipe(fds))
		exit(2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(path, mode, NULL, seed, fds[1], UINT64_MAX, 0);
	}
	close(fds[1]);
	T_EXPECT(read(fds[0], &a, sizeof(a)) == sizeof(a), "no batch acknowledged before the "
							   "shutdown");
	nanosleep(&(struct timespec){ 0, (long)(20 + (seed * 53) % 200) * 1000000L }, NULL);
	/*
	 * The crash instant, as verify_crash_shutdown.sh takes it: a batch acknowledged after it
	 * was in flight (its fdatasync may have returned after the shutdown): old or new. At most
	 * one can be: the writer has one batch in flight.
	 */
	crash_ns = mono_ns();
	shut_down();
	do {
		if (a.ns < crash_ns)
			acked = a.gen;
		else
			late++;
	} while (read(fds[0], &a, sizeof(a)) == sizeof(a));
	close(fds[0]);
	T_EXPECT(late <= 1, "%" PRIu64 " batches acknowledged after the shutdown: the filesystem "
				       "went on", late);
	waitpid(pid, &st, 0);
	T_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_EIO,
		 "%s mode: the writer ended with status %d, expected %d (a write ended by EIO from "
		 "the shutdown)",
		 mode_name(mode), WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st), EXIT_EIO);
	remount();
	ret = read_store(path, mode, data, &recovered, explain, sizeof(explain));
	T_EXPECT(!ret, "reopening after the shutdown: %s: %s", strerror(-ret), explain);
	bad = ret ? NP : check_pages("after shutdown", data, seed, acked, acked + late + 1);
	T_EXPECT(!bad, "%s mode: %u page(s) not whole, old or new, or an acknowledged batch lost",
		 mode_name(mode), bad);
	printf("%s shutdown after %" PRIu64 " acknowledged batches (%" PRIu64 " more after the "
	       "crash instant), "
	       "repaired %u page(s): %s\n",
	       mode_name(mode), acked - 1, late, recovered, bad ? "FAIL" : "ok");
	free(data);
	return true;
}

static int run_shutdowns(unsigned int mode)
{
	for (unsigned int i = 0; i < shutdowns; i++)
		T_EXPECT(shutdown_cycle(mode, (mode == AWR_PAGES_SOFTWARE ? 100 : 200) + i),
			 "%s mode went away: %s", mode_name(mode), awr_last_error());
	return t_done("pages_crash shutdown");
}

/* --- power cuts replayed from a dm-log-writes log ------------------------- */

/*
 * replay-write PATH MODE SEED BATCHES MARK: the writer of the guest's replayed power cuts
 * (tests/vm/guest/replay_cycles.sh). It makes the store (generation 1, durable with its directory),
 * runs "MARK created", then writes batches 2..1+BATCHES with AWR_PAGES_FAULT as the caller set it
 * and runs "MARK bG" after batch G returned: the log of the device then says which batches had
 * returned before any of its entries. MARK is a command line the mark's name is appended to, as it
 * is (dmsetup message DEV 0 mark PREFIX-: marks PREFIX-created, PREFIX-b2, ...).
 */
static void run_mark(const char *mark, const char *name)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "%s%s", mark, name);
	if (system(cmd)) {
		printf("FAIL: %s failed\n", cmd);
		exit(1);
	}
}

static void sync_path(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fsync(fd)) {
		printf("FAIL: syncing %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

static int replay_write(const char *path, const char *mode_arg, unsigned int seed, uint64_t batches,
			const char *mark)
{
	unsigned int mode =
		!strcmp(mode_arg, "software") ? AWR_PAGES_SOFTWARE : AWR_PAGES_DOUBLEWRITE;
	const char *fault = getenv("AWR_PAGES_FAULT");
	char dw[1100], name[32], *slash, parent[1024];
	uint8_t *buf = alloc_pages(PER + 1);
	struct awr_pages *s;
	int ret;

	unsetenv("AWR_PAGES_FAULT");	/* the store is made without the fault */
	ret = create_store(path, mode);
	if (ret) {
		printf("FAIL: creating the store in %s mode: %s: %s\n", mode_arg, strerror(-ret),
		       awr_last_error());
		return 1;
	}
	snprintf(dw, sizeof(dw), "%s.awr-dw", path);
	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	sync_path(path);
	if (!access(dw, F_OK))
		sync_path(dw);
	sync_path(slash ? parent : ".");
	run_mark(mark, "created");
	if (fault)
		setenv("AWR_PAGES_FAULT", fault, 1);
	ret = awr_pages_open(path, PS, mode, &s);
	if (ret) {
		printf("FAIL: opening the store: %s: %s\n", strerror(-ret), awr_last_error());
		return 1;
	}
	for (uint64_t gen = 2; gen <= 1 + batches; gen++) {
		ret = write_batch(s, seed, gen, buf);
		if (ret) {
			printf("FAIL: batch %" PRIu64 ": %s\n", gen, strerror(-ret));
			return 1;
		}
		snprintf(name, sizeof(name), "b%" PRIu64, gen);
		run_mark(mark, name);
	}
	printf("%s mode, fault %s: %" PRIu64 " batches written and marked (%s)\n", mode_arg,
	       fault ? fault : "none", batches, awr_pages_explain(s));
	awr_pages_close(s);
	free(buf);
	return 0;
}

/*
 * replay-check PATH MODE SEED ACKED LAST: the store as a replay point left it, opened (its
 * recovery) and read: each page whole and holding the generation of the last batch up to ACKED that
 * wrote it (the batches that had returned before the point) or of a later one up to LAST (in
 * flight).
 */
static int replay_check(const char *path, const char *mode_arg, unsigned int seed, uint64_t acked,
			uint64_t last)
{
	unsigned int mode =
		!strcmp(mode_arg, "software") ? AWR_PAGES_SOFTWARE : AWR_PAGES_DOUBLEWRITE;
	uint8_t *data = alloc_pages(NP);
	unsigned int recovered = 0, bad;
	char explain[512];
	int ret;

	ret = read_store(path, mode, data, &recovered, explain, sizeof(explain));
	if (ret) {
		printf("FAIL: opening the store (recovery): %s: %s\n", strerror(-ret), explain);
		return 1;
	}
	bad = check_pages("at the replay point", data, seed, acked, last);
	printf("%s: batches returned before the point %" PRIu64 ", repaired %u page(s), %u bad "
								"page(s)\n",
	       bad ? "FAIL" : "ok", acked - 1, recovered, bad);
	free(data);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *c = getenv("AWR_PAGES_CYCLES"), *sd = getenv("AWR_PAGES_SHUTDOWNS");

	dir = getenv("AWR_SCRATCH_DIR");
	dev = getenv("AWR_SCRATCH_DEV");
	if (argc == 8 && !strcmp(argv[1], "cache-child")) {
		/* cache-child PATH MODE FAULT SEED ACKFD LAST: a cache cycle's child, under
		 * strace */
		child(argv[2], (unsigned int)atoi(argv[3]), argv[4], (unsigned int)atoi(argv[5]),
		      atoi(argv[6]), strtoull(argv[7], NULL, 10), 0);
	}
	if (argc == 7 && !strcmp(argv[1], "replay-write"))
		return replay_write(argv[2], argv[3], (unsigned int)atoi(argv[4]),
				    strtoull(argv[5], NULL, 10), argv[6]);
	if (argc == 7 && !strcmp(argv[1], "replay-check"))
		return replay_check(argv[2], argv[3], (unsigned int)atoi(argv[4]),
				    strtoull(argv[5], NULL, 10), strtoull(argv[6], NULL, 10));
	if (argc < 2 || argc > 3 || !dir)
		T_SKIP("run as pages_crash faults|shutdown|reopen MODE, sessions or cache under "
		       "with-scratch-xfs.sh "
		       "(AWR_SCRATCH_DIR)");
	if (c)
		cycles = (unsigned int)atoi(c);
	if (sd)
		shutdowns = (unsigned int)atoi(sd);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[1], "faults") && argc == 3 && !strcmp(argv[2], "software"))
		return run_faults_software();
	if (!strcmp(argv[1], "faults") && argc == 3 && !strcmp(argv[2], "doublewrite"))
		return run_faults_doublewrite();
	if (!strcmp(argv[1], "faults") && argc == 3 && !strcmp(argv[2], "auto"))
		return run_faults_auto();
	if (!strcmp(argv[1], "reopen") && argc == 3)
		return run_reopen(part_mode(argv[2], "reopen"));
	if (!strcmp(argv[1], "sessions"))
		return run_sessions();
	if (!strcmp(argv[1], "cache"))
		return run_cache();
	if (!strcmp(argv[1], "shutdown") && argc == 3) {
		if (!dev)
			T_SKIP("no AWR_SCRATCH_DEV: the shutdown cycles mount the scratch device "
			       "again");
		return run_shutdowns(part_mode(argv[2], "shutdown"));
	}
	printf("usage: pages_crash faults software|doublewrite|auto, shutdown|reopen "
	       "software|doublewrite, "
	       "sessions or cache\n");
	return 2;
}
