// SPDX-License-Identifier: MIT
/*
 * A database's own files: the page size each records, and which files of a
 * data directory hold pages (discovery for awr_db_qualify(), lib/decide/db.c).
 *
 * InnoDB (MariaDB 10.11 storage/innobase/include/fsp0types.h, fsp0fsp.h,
 * fil0fil.h; MySQL 8.0 the same older layout): page 0 of every tablespace is
 * an FSP header page (FIL_PAGE_TYPE 8 at byte 24); its FSP header starts at
 * FIL_PAGE_DATA (38) and FSP_SPACE_FLAGS is the 4-byte big-endian field at
 * 16 in it (byte 54). MariaDB 10.5+ writes new files in the full_crc32
 * layout: bit 4 (FSP_FLAGS_FCRC32_MASK_MARKER) set, page size
 * 1 << (ssize + 9) from bits 0..3 (FSP_FLAGS_FCRC32_GET_PAGE_SSIZE). The
 * older layout: ZIP_SSIZE in bits 1..4 (ROW_FORMAT=COMPRESSED: the page on
 * disk is 1 << (zip_ssize + 9)), PAGE_SSIZE in bits 6..9, 0 meaning
 * 16 KiB (UNIV_PAGE_SIZE_ORIG). The space id at FIL_PAGE_SPACE_ID (34)
 * equals the FSP header's (38).
 *
 * PostgreSQL (src/include/catalog/pg_control.h, 9.x .. 17): ControlFileData
 * holds "uint32 maxAlign; double floatFormat; uint32 blcksz" in every
 * version, floatFormat the constant 1234567.0; the structure ends with a
 * CRC-32C of everything before it (pg_crc32c, Castagnoli, reflected).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "discover/dbfiles.h"

#define FIL_PAGE_TYPE		24
#define FIL_PAGE_SPACE_ID	34
#define FIL_PAGE_DATA		38
#define FSP_SPACE_FLAGS		(FIL_PAGE_DATA + 16)
#define FIL_PAGE_TYPE_FSP_HDR	8

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int say(char *why, size_t len, int ret, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int say(char *why, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

int awr_innodb_page_size(const void *page0, size_t len, uint32_t *page_size, char *why, size_t why_len)
{
	const uint8_t *p = page0;
	uint32_t flags, ssize, zip;
	unsigned int type;

	if (!p || !page_size || len < FSP_SPACE_FLAGS + 4)
		return say(why, why_len, -EINVAL, "shorter than an InnoDB page header (%zu bytes)", len);
	type = (unsigned int)p[FIL_PAGE_TYPE] << 8 | p[FIL_PAGE_TYPE + 1];
	if (type != FIL_PAGE_TYPE_FSP_HDR)
		return say(why, why_len, -EINVAL, "page 0 is of type %u, not an FSP header page (8): not an "
			   "InnoDB tablespace, or damaged", type);
	if (be32(p + FIL_PAGE_SPACE_ID) != be32(p + FIL_PAGE_DATA))
		return say(why, why_len, -EINVAL, "page 0 names space %u in its header and %u in the FSP header: "
			   "damaged", be32(p + FIL_PAGE_SPACE_ID), be32(p + FIL_PAGE_DATA));
	flags = be32(p + FSP_SPACE_FLAGS);
	if (flags & (1U << 4)) {		/* full_crc32 */
		ssize = flags & 15U;
		if (ssize < 3 || ssize > 7)
			return say(why, why_len, -EINVAL, "FSP flags 0x%x (full_crc32) hold page size code %u, "
				   "not 3..7 (4..64 KiB)", flags, ssize);
		*page_size = 1U << (ssize + 9);
		return say(why, why_len, 0, "FSP flags 0x%x (full_crc32 layout): %u-byte pages", flags, *page_size);
	}
	ssize = (flags >> 6) & 15U;
	zip = (flags >> 1) & 15U;
	if (ssize && (ssize < 3 || ssize > 7))
		return say(why, why_len, -EINVAL, "FSP flags 0x%x hold page size code %u, not 0 or 3..7", flags, ssize);
	if (zip > 5)
		return say(why, why_len, -EINVAL, "FSP flags 0x%x hold compressed page size code %u, not 0..5",
			   flags, zip);
	*page_size = ssize ? 1U << (ssize + 9) : 16384U;
	if (zip) {
		uint32_t logical = *page_size;

		*page_size = 1U << (zip + 9);
		return say(why, why_len, 0, "FSP flags 0x%x: ROW_FORMAT=COMPRESSED, %u-byte pages on disk (%u in memory)",
			   flags, *page_size, logical);
	}
	return say(why, why_len, 0, "FSP flags 0x%x: %u-byte pages", flags, *page_size);
}

/* CRC-32C (Castagnoli, reflected 0x82F63B78), as PostgreSQL's pg_crc32c */
static uint32_t crc32c(const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	uint32_t c = 0xFFFFFFFFU;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t v = i;

			for (int k = 0; k < 8; k++)
				v = v & 1 ? (v >> 1) ^ 0x82F63B78U : v >> 1;
			table[i] = v;
		}
	}
	while (n--)
		c = table[(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFU;
}

int awr_pg_control_block_size(const void *buf, size_t len, uint32_t *blcksz, char *why, size_t why_len)
{
	const double want = 1234567.0;
	const uint8_t *p = buf;
	size_t at = 0, crc_at = 0;
	uint32_t version, b;

	if (!p || !blcksz || len < 64)
		return say(why, why_len, -EINVAL, "too short for pg_control (%zu bytes)", len);
	for (size_t o = 16; o + sizeof(double) + 4 <= len && o < 1024; o += 8) {
		if (!memcmp(p + o, &want, sizeof(want))) {
			at = o;
			break;
		}
	}
	if (!at)
		return say(why, why_len, -EINVAL, "no floatFormat constant 1234567.0 in the first 1 KiB: not a "
			   "pg_control of this machine's byte order, or damaged");
	/* the CRC: the first 4-byte field after blcksz that matches the CRC-32C of all before it */
	for (size_t o = at + 12; o + 4 <= len && o < 2048; o += 4) {
		if (crc32c(p, o) == awr__get_le32(p + o)) {
			crc_at = o;
			break;
		}
	}
	if (!crc_at)
		return say(why, why_len, -EINVAL, "its CRC-32C matches at no offset: damaged (or written by a "
			   "PostgreSQL this reader does not know)");
	version = awr__get_le32(p + 8);
	b = awr__get_le32(p + at + 8);
	if (b < 1024 || b > 32768 || (b & (b - 1)))
		return say(why, why_len, -EINVAL, "blcksz %u is not a power of two of 1..32 KiB", b);
	*blcksz = b;
	return say(why, why_len, 0, "pg_control version %u: block size %u (CRC-32C good at byte %zu)", version, b,
		   crc_at);
}

/* --- which files hold pages ---------------------------------------------- */

static int add(struct awr__db_list *l, const char *rel, bool skip, const char *why)
{
	struct awr__db_entry *e;

	if (l->nr == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 64;
		void *n = realloc(l->e, cap * sizeof(*l->e));

		if (!n)
			return -ENOMEM;
		l->e = n;
		l->cap = cap;
	}
	e = &l->e[l->nr++];
	memset(e, 0, sizeof(*e));
	snprintf(e->rel, sizeof(e->rel), "%s", rel);
	e->skip = skip;
	if (why)
		snprintf(e->why, sizeof(e->why), "%s", why);
	return 0;
}

static bool regular_at(int dfd, const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);
}

static bool all_digits_rel(const char *n)
{
	/* relation files: NNN, NNN.K (segments), NNN_fsm, NNN_vm, NNN_init */
	if (*n < '0' || *n > '9')
		return false;
	while (*n >= '0' && *n <= '9')
		n++;
	return !*n || *n == '.' || *n == '_';
}

/* one directory level of @dfd (relative path @prefix) */
static int scan_dir(int dfd, const char *prefix, enum awr_db_engine engine, int depth, struct awr__db_list *l)
{
	int fd = openat(dfd, prefix[0] ? prefix : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (!ret && (de = readdir(d))) {
		char rel[4096];
		const char *n = de->d_name;

		if (n[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s%s%s", prefix, prefix[0] ? "/" : "", n);
		if (de->d_type == DT_DIR || (de->d_type == DT_UNKNOWN && !regular_at(fd, n))) {
			struct stat st;

			if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) || depth >= 2)
				continue;
			if (engine == AWR_DB_POSTGRESQL && depth == 0 && strcmp(n, "base") && strcmp(n, "global"))
				continue;	/* pg_wal, pg_xact, ...: not relation pages */
			ret = scan_dir(dfd, rel, engine, depth + 1, l);
			continue;
		}
		if (!regular_at(fd, n))
			continue;
		if (engine == AWR_DB_INNODB) {
			if (!fnmatch("ib_logfile*", n, 0) || !strcmp(n, "aria_log_control") || !fnmatch("aria_log.*", n, 0))
				ret = add(l, rel, true, "a redo or Aria log, not a page file: its writes are not what the doublewrite buffer protects");
			else if (!strcmp(n, "ibtmp1"))
				ret = add(l, rel, true, "the temporary tablespace: recreated at every start, nothing in it survives a crash");
			else if (!fnmatch("ibdata*", n, 0) || !fnmatch("*.ibd", n, 0) || !fnmatch("undo[0-9][0-9][0-9]", n, 0))
				ret = add(l, rel, false, NULL);
		} else if (depth > 0 && all_digits_rel(n)) {
			ret = add(l, rel, false, NULL);
		}
	}
	closedir(d);
	return ret;
}

static int cmp_rel(const void *a, const void *b)
{
	const struct awr__db_entry *x = a, *y = b;

	return strcmp(x->rel, y->rel);
}

int awr__db_list_files(int dfd, enum awr_db_engine engine, struct awr__db_list *l)
{
	int ret;

	memset(l, 0, sizeof(*l));
	ret = scan_dir(dfd, "", engine, 0, l);
	if (!ret && l->nr)
		qsort(l->e, l->nr, sizeof(*l->e), cmp_rel);
	return ret;
}

void awr__db_list_free(struct awr__db_list *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}
