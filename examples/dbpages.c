// SPDX-License-Identifier: MIT
/*
 * A small page-store user: a database's buffer pool flushes dirty 16 KiB
 * pages, each page untorn whatever the storage; the store is closed, opened
 * again (which repairs torn pages after a crash) and every page read back.
 *
 *   dbpages PATH [auto|hardware|software|doublewrite] [PAGES]
 *   dbpages PATH check [PAGES] [doublewrite]
 *
 * "check" opens the store (recovering it, in the mode AUTO picks) after a
 * crash in the middle of a run and checks that every page is whole: never
 * written (zeros) or as one of the two passes wrote it, never a mix; and
 * not stale: the flushes are durable in order (each returned before the
 * next began), so the pages show every flush before the one in flight
 * and none after it. "doublewrite" says the crashed run wrote in that
 * mode, where recovery applies a flush whose records reached the area as
 * a whole: then the flush in flight is there entirely or not at all.
 *
 * cc dbpages.c $(pkg-config --cflags --libs libatomicwr)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libatomicwr.h>

#define PAGE_SIZE 16384U
#define FLUSH 32U		/* dirty pages per flush */

/* A page as a database might lay it out: page number and LSN in the header. */
static void make_page(uint8_t *p, uint64_t page_no, uint64_t lsn)
{
	memset(p, (int)(page_no * 7 + lsn), PAGE_SIZE);
	memcpy(p, &page_no, 8);
	memcpy(p + 8, &lsn, 8);
}

static int parse_mode(const char *s, unsigned int *flags)
{
	static const char *names[] = { "auto", "hardware", "software", "doublewrite" };
	static const unsigned int values[] = {AWR_PAGES_AUTO, AWR_PAGES_HARDWARE,
					      AWR_PAGES_SOFTWARE, AWR_PAGES_DOUBLEWRITE};

	for (int i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			*flags = values[i];
			return 0;
		}
	}
	return -1;
}

static int flush_all(struct awr_pages *s, uint8_t *pool, uint64_t npages, uint64_t lsn)
{
	struct awr_page dirty[FLUSH];
	unsigned int n = 0;
	int ret;

	for (uint64_t p = 0; p < npages; p++) {
		uint8_t *page = pool + (p % FLUSH) * PAGE_SIZE;

		make_page(page, p, lsn);
		dirty[n++] = (struct awr_page){ .buf = page, .page_no = p };
		if (n < FLUSH && p + 1 < npages)
			continue;
		ret = awr_pages_write(s, dirty, n);	/* durable on return, each page untorn */
		if (ret) {
			for (unsigned int i = 0; i < n; i++)
				if (dirty[i].status)
					fprintf(stderr, "page %llu: %s\n",
						(unsigned long long)dirty[i].page_no,
						strerror(-dirty[i].status));
			return ret;
		}
		n = 0;
	}
	return 0;
}

/* Is @p whole: zeros, or the page make_page() gives @page_no with LSN 1 or 2? */
static bool page_whole(const uint8_t *p, uint64_t page_no)
{
	uint64_t no, lsn;
	uint8_t fill;

	memcpy(&no, p, 8);
	memcpy(&lsn, p + 8, 8);
	if (!lsn && !no)
		fill = 0;				/* never written */
	else if (no == page_no && (lsn == 1 || lsn == 2))
		fill = (uint8_t)(page_no * 7 + lsn);
	else
		return false;
	for (size_t i = 16; i < PAGE_SIZE; i++)
		if (p[i] != fill)
			return false;
	return true;
}

/*
 * Stale pages: the run wrote pass 1 then pass 2, in flushes of FLUSH pages;
 * write w (pass w / npages + 1, page w % npages) is in flush number
 * fl(w). Every write of a flush before the last flush seen in the pages
 * must be there; in the last, all of them when @whole. @lsn[p] is what
 * page p holds (0 never written, 1, 2; -1 torn: not judged).
 */
static uint64_t stale_pages(const int8_t *lsn, uint64_t npages, bool whole)
{
	uint64_t per_pass = (npages + FLUSH - 1) / FLUSH, last = 0, stale = 0;
	bool any = false;

	for (uint64_t w = 0; w < 2 * npages; w++) {
		int8_t l = lsn[w % npages];

		if (l >= (int8_t)(w / npages + 1)) {
			last = (w / npages) * per_pass + (w % npages) / FLUSH;
			any = true;
		}
	}
	for (uint64_t w = 0; w < 2 * npages && any; w++) {
		uint64_t fl = (w / npages) * per_pass + (w % npages) / FLUSH;
		int8_t l = lsn[w % npages];

		if (l >= 0 && l < (int8_t)(w / npages + 1) &&
		    (fl < last || (fl == last && whole))) {
			printf("page %llu is stale: it lacks pass %llu of flush %llu, before or in "
			       "the last flush "
			       "seen (%llu)\n",
			       (unsigned long long)(w % npages),
			       (unsigned long long)(w / npages + 1), (unsigned long long)fl,
			       (unsigned long long)last);
			stale++;
		}
	}
	return stale;
}

static int check(const char *path, uint64_t npages, bool whole)
{
	uint64_t torn = 0, unwritten = 0, stale;
	struct awr_pages *s;
	uint8_t *page;
	int8_t *lsn;
	int ret;

	/* the crashed run's io_uring writes hold its file (and its write lock) until they end */
	for (int i = 0;
	     (ret = awr_pages_open(path, PAGE_SIZE, AWR_PAGES_AUTO, &s)) == -EBUSY && i < 200; i++)
		usleep(25000);
	if (ret) {
		fprintf(stderr, "dbpages: %s: %s\n", strerror(-ret), awr_last_error());
		return 1;
	}
	printf("mode: %s\nwhy: %s\nrecovered: %u page(s) repaired\n",
	       awr_pages_mode_name(awr_pages_mode(s)), awr_pages_explain(s),
	       awr_pages_recovered(s));
	lsn = calloc(npages, 1);
	if (!lsn || posix_memalign((void **)&page, 4096, PAGE_SIZE))
		return 1;
	for (uint64_t p = 0; p < npages && !ret; p++) {
		ret = awr_pages_read(s, page, p);
		if (!ret && !page_whole(page, p)) {
			printf("page %llu is torn\n", (unsigned long long)p);
			torn++;
			lsn[p] = -1;
		} else if (!ret) {
			lsn[p] = (int8_t)page[8];
		}
		unwritten += !ret && !page[8];
	}
	awr_pages_close(s);
	free(page);
	if (ret) {
		free(lsn);
		fprintf(stderr, "dbpages: read: %s\n", strerror(-ret));
		return 1;
	}
	stale = stale_pages(lsn, npages, whole);
	free(lsn);
	printf("%llu pages checked: %llu torn, %llu stale, %llu never written\n",
	       (unsigned long long)npages, (unsigned long long)torn, (unsigned long long)stale,
	       (unsigned long long)unwritten);
	return torn || stale ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int flags = AWR_PAGES_AUTO;
	uint64_t npages = 256, bad = 0;
	struct awr_pages *s;
	uint8_t *pool, *want;
	int ret;

	bool check_only = argc > 2 && !strcmp(argv[2], "check");
	bool whole = check_only && argc == 5 && !strcmp(argv[4], "doublewrite");

	if (argc < 2 || argc > 5 || (argc == 5 && !whole) ||
	    (argc > 2 && !check_only && parse_mode(argv[2], &flags)) ||
	    (argc > 3 && (npages = strtoull(argv[3], NULL, 10)) == 0)) {
		fprintf(stderr, "usage: dbpages PATH [auto|hardware|software|doublewrite] [PAGES]\n"
			"       dbpages PATH check [PAGES] [doublewrite]\n");
		return 2;
	}
	if (check_only)
		return check(argv[1], npages, whole);
	ret = awr_pages_open(argv[1], PAGE_SIZE, flags | AWR_PAGES_CREATE, &s);
	if (ret) {
		fprintf(stderr, "dbpages: %s: %s\n", strerror(-ret), awr_last_error());
		return 1;
	}
	printf("mode: %s\nwhy: %s\n", awr_pages_mode_name(awr_pages_mode(s)), awr_pages_explain(s));
	fflush(stdout);		/* shown also when a fault point ends the run */
	if (posix_memalign((void **)&pool, 4096, FLUSH * PAGE_SIZE) ||
	    posix_memalign((void **)&want, 4096, 2 * PAGE_SIZE))
		return 1;
	ret = flush_all(s, pool, npages, 1);
	if (!ret)
		ret = flush_all(s, pool, npages, 2);	/* every page dirtied again */
	printf("after the writes: mode %s: %s\n", awr_pages_mode_name(awr_pages_mode(s)),
	       awr_pages_explain(s));
	awr_pages_close(s);
	if (ret) {
		fprintf(stderr, "dbpages: write: %s\n", strerror(-ret));
		return 1;
	}
	ret = awr_pages_open(argv[1], PAGE_SIZE, flags, &s);
	if (ret) {
		fprintf(stderr, "dbpages: reopen: %s: %s\n", strerror(-ret), awr_last_error());
		return 1;
	}
	printf("reopened: mode %s, %u page(s) repaired\n", awr_pages_mode_name(awr_pages_mode(s)),
	       awr_pages_recovered(s));
	for (uint64_t p = 0; p < npages; p++) {
		make_page(want, p, 2);
		ret = awr_pages_read(s, want + PAGE_SIZE, p);
		if (ret || memcmp(want, want + PAGE_SIZE, PAGE_SIZE))
			bad++;
	}
	awr_pages_close(s);
	printf("%llu pages of %u bytes written twice, read back: %llu wrong\n",
	       (unsigned long long)npages, PAGE_SIZE, (unsigned long long)bad);
	free(pool);
	free(want);
	return bad ? 1 : 0;
}
