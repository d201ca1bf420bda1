// SPDX-License-Identifier: MIT
/*
 * A small page-store user: a database's buffer pool flushes dirty 16 KiB
 * pages, each page untorn whatever the storage; the store is closed, opened
 * again (which repairs torn pages after a crash) and every page read back.
 *
 *   dbpages PATH [auto|hardware|software|doublewrite] [PAGES]
 *
 * cc dbpages.c $(pkg-config --cflags --libs libatomicwr)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	static const unsigned int values[] = { AWR_PAGES_AUTO, AWR_PAGES_HARDWARE, AWR_PAGES_SOFTWARE,
					       AWR_PAGES_DOUBLEWRITE };

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
					fprintf(stderr, "page %llu: %s\n", (unsigned long long)dirty[i].page_no,
						strerror(-dirty[i].status));
			return ret;
		}
		n = 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int flags = AWR_PAGES_AUTO;
	uint64_t npages = 256, bad = 0;
	struct awr_pages *s;
	uint8_t *pool, *want;
	int ret;

	if (argc < 2 || argc > 4 || (argc > 2 && parse_mode(argv[2], &flags)) ||
	    (argc > 3 && (npages = strtoull(argv[3], NULL, 10)) == 0)) {
		fprintf(stderr, "usage: dbpages PATH [auto|hardware|software|doublewrite] [PAGES]\n");
		return 2;
	}
	ret = awr_pages_open(argv[1], PAGE_SIZE, flags | AWR_PAGES_CREATE, &s);
	if (ret) {
		fprintf(stderr, "dbpages: %s: %s\n", strerror(-ret), awr_pages_explain(NULL));
		return 1;
	}
	printf("mode: %s\nwhy: %s\n", awr_pages_mode_name(awr_pages_mode(s)), awr_pages_explain(s));
	if (posix_memalign((void **)&pool, 4096, FLUSH * PAGE_SIZE) ||
	    posix_memalign((void **)&want, 4096, 2 * PAGE_SIZE))
		return 1;
	ret = flush_all(s, pool, npages, 1);
	if (!ret)
		ret = flush_all(s, pool, npages, 2);	/* every page dirtied again */
	awr_pages_close(s);
	if (ret) {
		fprintf(stderr, "dbpages: write: %s\n", strerror(-ret));
		return 1;
	}
	ret = awr_pages_open(argv[1], PAGE_SIZE, flags, &s);
	if (ret) {
		fprintf(stderr, "dbpages: reopen: %s: %s\n", strerror(-ret), awr_pages_explain(NULL));
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
	printf("%llu pages of %u bytes written twice, read back: %llu wrong\n", (unsigned long long)npages,
	       PAGE_SIZE, (unsigned long long)bad);
	free(pool);
	free(want);
	return bad ? 1 : 0;
}
