// SPDX-License-Identifier: MIT
/*
 * Description: awr_innodb_page_size() on page 0 headers built from the
 * engines' documented layouts, for the layouts Debian's MariaDB cannot
 * write (MySQL 8.0) and for each field the reader takes: the full_crc32
 * flags, the older flags' PAGE_SSIZE (bits 6..9, 0 = 16 KiB) and ZIP_SSIZE
 * (bits 1..4, ROW_FORMAT=COMPRESSED: the page on disk is 1 << (zip + 9)),
 * an unwritten (all-zero) page 0 told from a damaged one.
 *
 * Layouts: MariaDB storage/innobase/include/fsp0types.h (FSP_FLAGS_POS_*,
 * FSP_FLAGS_FCRC32_*), fsp0fsp.h (FSP_SPACE_FLAGS at 16 in the FSP header
 * at FIL_PAGE_DATA 38); MySQL 8.0 storage/innobase/include/fsp0types.h
 * (the same bits 0..9, DATA_DIR 10, SHARED 11, TEMPORARY 12, ENCRYPTION 13,
 * SDI 14). The real engines' files are read in tests/integration/db_files.sh.
 */
#include <stdint.h>

#include "helpers.h"
#include "libatomicwr.h"

#define FIL_PAGE_TYPE		24
#define FIL_PAGE_SPACE_ID	34
#define FSP_SPACE_ID		38
#define FSP_SPACE_FLAGS		54

/* fsp0types.h: the older layout (MySQL 5.6+, MariaDB without full_crc32) */
#define POST_ANTELOPE		(1U << 0)
#define ZIP_SSIZE(z)		((uint32_t)(z) << 1)
#define ATOMIC_BLOBS		(1U << 5)
#define PAGE_SSIZE(s)		((uint32_t)(s) << 6)
#define MYSQL80_SDI		(1U << 14)
/* MariaDB 10.5+: FSP_FLAGS_FCRC32_MASK_MARKER, FSP_FLAGS_FCRC32_PAGE_SSIZE() */
#define FCRC32_MARKER		(1U << 4)

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* page 0 of space @space: FIL_PAGE_TYPE_FSP_HDR (8), the space id twice, @flags */
static void page0(uint8_t *p, size_t len, uint32_t space, uint32_t flags)
{
	memset(p, 0, len);
	p[FIL_PAGE_TYPE + 1] = 8;
	put_be32(p + FIL_PAGE_SPACE_ID, space);
	put_be32(p + FSP_SPACE_ID, space);
	put_be32(p + FSP_SPACE_FLAGS, flags);
}

/* awr_innodb_page_size(), its error's sentence in @why */
static int page_size(const uint8_t *p, size_t n, uint32_t *ps, char *why, size_t len)
{
	int ret = awr_innodb_page_size(p, n, ps);

	snprintf(why, len, "%s", ret ? awr_last_error() : "");
	return ret;
}

static int size_of(uint32_t flags, uint32_t *ps, char *why, size_t len)
{
	uint8_t p[1024];

	page0(p, sizeof(p), 5, flags);
	return page_size(p, sizeof(p), ps, why, len);
}

static void expect(const char *what, uint32_t flags, uint32_t want)
{
	uint32_t ps = 0;
	char why[256] = "";
	int ret = size_of(flags, &ps, why, sizeof(why));

	printf("  %-44s flags 0x%05x: %d, %u (%s)\n", what, flags, ret, ps, why);
	T_EXPECT(ret == 0 && ps == want, "%s: flags 0x%x gave %d, %u bytes; want %u (%s)", what,
		 flags, ret, ps, want, why);
}

static void refused(const char *what, uint32_t flags)
{
	uint32_t ps = 0;
	char why[256] = "";
	int ret = size_of(flags, &ps, why, sizeof(why));

	printf("  %-44s flags 0x%05x: %d (%s)\n", what, flags, ret, why);
	T_EXPECT_EQ(ret, -EINVAL, what);
}

static void layouts(void)
{
	/* MariaDB 10.5+ full_crc32 (new files by default): ssize in bits 0..3 */
	expect("MariaDB full_crc32 16k (ibdata1: 0x15)", FCRC32_MARKER | 5, 16384);
	expect("MariaDB full_crc32 4k", FCRC32_MARKER | 3, 4096);
	expect("MariaDB full_crc32 64k", FCRC32_MARKER | 7, 65536);
	/* the older layout: PAGE_SSIZE 0 is 16 KiB, else 1 << (ssize + 9) */
	expect("older layout, system tablespace 16k (0x0)", 0, 16384);
	expect("older layout .ibd 16k (crc32: 0x21)", POST_ANTELOPE | ATOMIC_BLOBS, 16384);
	expect("older layout .ibd 8k", POST_ANTELOPE | ATOMIC_BLOBS | PAGE_SSIZE(4), 8192);
	expect("older layout .ibd 4k", POST_ANTELOPE | ATOMIC_BLOBS | PAGE_SSIZE(3), 4096);
	expect("older layout .ibd 32k", POST_ANTELOPE | ATOMIC_BLOBS | PAGE_SSIZE(6), 32768);
	expect("older layout .ibd 64k", POST_ANTELOPE | ATOMIC_BLOBS | PAGE_SSIZE(7), 65536);
	/* ROW_FORMAT=COMPRESSED: the page on disk is the KEY_BLOCK_SIZE */
	expect("COMPRESSED KEY_BLOCK_SIZE=8 on 16k (0x29)",
	       POST_ANTELOPE | ATOMIC_BLOBS | ZIP_SSIZE(4), 8192);
	expect("COMPRESSED KEY_BLOCK_SIZE=1 on 16k", POST_ANTELOPE | ATOMIC_BLOBS | ZIP_SSIZE(1),
	       1024);
	expect("COMPRESSED KEY_BLOCK_SIZE=4 on 8k",
	       POST_ANTELOPE | ATOMIC_BLOBS | ZIP_SSIZE(3) | PAGE_SSIZE(4), 4096);
	expect("COMPRESSED KEY_BLOCK_SIZE=16 on 16k", POST_ANTELOPE | ATOMIC_BLOBS | ZIP_SSIZE(5),
	       16384);
	/* MySQL 8.0: the same bits, SDI set in every file-per-table tablespace */
	expect("MySQL 8.0 .ibd 16k (0x4021)", MYSQL80_SDI | POST_ANTELOPE | ATOMIC_BLOBS, 16384);
	expect("MySQL 8.0 .ibd 8k", MYSQL80_SDI | POST_ANTELOPE | ATOMIC_BLOBS | PAGE_SSIZE(4),
	       8192);
	expect("MySQL 8.0 COMPRESSED KEY_BLOCK_SIZE=2",
	       MYSQL80_SDI | POST_ANTELOPE | ATOMIC_BLOBS | ZIP_SSIZE(2), 2048);
	/* sizes no engine writes */
	refused("older layout PAGE_SSIZE 1 (2 KiB pages)", POST_ANTELOPE | PAGE_SSIZE(1));
	refused("older layout PAGE_SSIZE 9", POST_ANTELOPE | PAGE_SSIZE(9));
	refused("full_crc32 ssize 2", FCRC32_MARKER | 2);
	refused("ZIP_SSIZE 6", POST_ANTELOPE | ATOMIC_BLOBS | ZIP_SSIZE(6));
}

static void unwritten_or_damaged(void)
{
	uint8_t p[16384];
	uint32_t ps = 7;
	char why[256] = "";
	int ret;

	/* a table just created: the file is zeros until the server flushes page 0 */
	memset(p, 0, sizeof(p));
	ret = page_size(p, sizeof(p), &ps, why, sizeof(why));
	printf("  all-zero page 0: %d (%s)\n", ret, why);
	T_EXPECT_EQ(ret, -ENODATA, "an all-zero page 0 is not written yet");
	T_EXPECT(strstr(why, "has not written it yet") != NULL, "why: %s", why);
	T_EXPECT_EQ(ps, 7, "no page size given for an unwritten page 0");
	ret = page_size(p, 64, &ps, why, sizeof(why));
	T_EXPECT_EQ(ret, -ENODATA, "the first 64 bytes zero");
	/* page 0 zero, page 1 written (a 1 KiB compressed tablespace flushed out of order):
	 * unwritten */
	memset(p + 1024, 0xa5, 1024);
	T_EXPECT_EQ(page_size(p, sizeof(p), &ps, why, sizeof(why)), -ENODATA, "page 1 written");
	/* one byte set in the first 1 KiB: not unwritten, and not an FSP header page: damaged */
	p[100] = 1;
	ret = page_size(p, sizeof(p), &ps, why, sizeof(why));
	printf("  one byte at 100: %d (%s)\n", ret, why);
	T_EXPECT_EQ(ret, -EINVAL, "a nonzero byte in page 0 is damage");
	T_EXPECT(strstr(why, "not an InnoDB tablespace, or damaged") != NULL, "why: %s", why);
	/* a written page 0 whose type is wrong */
	page0(p, 1024, 3, 0);
	p[FIL_PAGE_TYPE + 1] = 7;
	T_EXPECT_EQ(page_size(p, 1024, &ps, why, sizeof(why)), -EINVAL, "FIL_PAGE_TYPE 7");
	T_EXPECT_EQ(page_size(p, 10, &ps, why, sizeof(why)), -EINVAL, "10 bytes");
}

int main(void)
{
	layouts();
	unwritten_or_damaged();
	return t_done("innodb_pages");
}
