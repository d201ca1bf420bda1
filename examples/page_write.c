// SPDX-License-Identifier: MIT
/*
 * Description: a database-style page write. Open a file, ask which page sizes
 * are atomic, then write one 16 KiB page untorn and durable.
 *
 *   cc page_write.c $(pkg-config --cflags --libs libatomicwr) -o page_write
 *   ./page_write /mnt/xfs/datafile
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libatomicwr.h>

#define PAGE (16 * 1024)

int main(int argc, char **argv)
{
	const struct awr_limits *lim;
	struct awr_verdict v;
	struct awr_file *f;
	void *page;
	ssize_t ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	ret = awr_file_open(argv[1], 0, &f);
	if (ret) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror((int)-ret));
		return 2;
	}
	lim = awr_file_limits(f);
	printf("atomic writes %s: %u..%u bytes\n", lim->supported ? "supported" : "unsupported",
	       lim->unit_min, lim->unit_max);
	if (posix_memalign(&page, 4096, PAGE)) {
		awr_file_close(f);
		return 2;
	}
	memset(page, 0xab, PAGE);
	ret = awr_pwrite(f, page, PAGE, 3 * PAGE, AWR_WRITE_DSYNC, &v);
	if (ret < 0)
		fprintf(stderr, "page not written: %s\n",
			v.rule != AWR_RULE_OK ? v.message : strerror((int)-ret));
	else
		printf("page 3 written untorn and durable\n");
	free(page);
	awr_file_close(f);
	return ret < 0;
}
