// SPDX-License-Identifier: MIT
/*
 * A database's own files: the page size each records, and which files of a
 * data directory hold pages (discovery for awr_db_qualify(), lib/database/db.c).
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
 * CRC-32C of everything before it (pg_crc32c, Castagnoli, reflected). After
 * blcksz come relseg_size, xlog_blcksz, xlog_seg_size, nameDataLen,
 * indexMaxKeys, toast_max_chunk_size, loblksize (uint32 each), the bools
 * (float8ByVal; 9.3..12 also enableIntTimes and float4ByVal before it) and
 * "uint32 data_checksum_version" aligned to 4: blcksz + 36 in 9.3 .. 17 (and
 * 18); the CRC follows it, after the 32-byte mock_authentication_nonce in 10+.
 *
 * A PostgreSQL data directory's relation files (common/relpath.h): global/NNN,
 * base/DBOID/NNN and pg_tblspc/TSOID/PG_MAJOR_CATVERSION/DBOID/NNN, pg_tblspc/TSOID
 * a symlink to the tablespace's directory (a directory for an in-place one);
 * NNN[_fsm|_vm|_init][.SEGMENT].
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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "database/dbfiles.h"

#define FIL_PAGE_TYPE		24
#define FIL_PAGE_SPACE_ID	34
#define FIL_PAGE_DATA		38
#define FSP_SPACE_FLAGS		(FIL_PAGE_DATA + 16)
#define FIL_PAGE_TYPE_FSP_HDR	8

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int say(char *why, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

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

/*
 * Page 0 as InnoDB creates a tablespace: the file is extended with zeros
 * (fil_ibd_create(), os_file_set_size()) and page 0 stays in the buffer pool
 * until its first flush; MariaDB 10.11 leaves a new table's page 0 zero on
 * disk for a minute and more after CREATE TABLE. The smallest page on disk
 * is 1 KiB (ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=1, UNIV_ZIP_SIZE_MIN): no
 * more than that is page 0 for sure.
 */
static bool unwritten(const uint8_t *p, size_t len)
{
	len = len < 1024 ? len : 1024;
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

int awr__innodb_page_size(const void *page0, size_t len, uint32_t *page_size, char *why,
			  size_t why_len)
{
	const uint8_t *p = page0;
	uint32_t flags, ssize, zip;
	unsigned int type;

	if (!p || !page_size || len < FSP_SPACE_FLAGS + 4)
		return say(why, why_len, -EINVAL, "shorter than an InnoDB page header (%zu bytes)",
			   len);
	if (unwritten(p, len))
		return say(why, why_len, -ENODATA, "page 0 is all zeros: the server has not "
			   "written it yet (a tablespace just created keeps page 0 in memory until "
			   "its first flush)");
	type = (unsigned int)p[FIL_PAGE_TYPE] << 8 | p[FIL_PAGE_TYPE + 1];
	if (type != FIL_PAGE_TYPE_FSP_HDR)
		return say(why, why_len, -EINVAL, "page 0 is of type %u, not an FSP header page "
			   "(8): not an InnoDB tablespace, or damaged", type);
	if (be32(p + FIL_PAGE_SPACE_ID) != be32(p + FIL_PAGE_DATA))
		return say(why, why_len, -EINVAL, "page 0 names space %u in its header and %u in "
			   "the FSP header: damaged",
			   be32(p + FIL_PAGE_SPACE_ID), be32(p + FIL_PAGE_DATA));
	flags = be32(p + FSP_SPACE_FLAGS);
	if (flags & (1U << 4)) {		/* full_crc32 */
		ssize = flags & 15U;
		if (ssize < 3 || ssize > 7)
			return say(why, why_len, -EINVAL, "FSP flags 0x%x (full_crc32) hold page "
				   "size code %u, not 3..7 (4..64 KiB)", flags, ssize);
		*page_size = 1U << (ssize + 9);
		return say(why, why_len, 0, "FSP flags 0x%x (full_crc32 layout): %u-byte pages",
			   flags, *page_size);
	}
	ssize = (flags >> 6) & 15U;
	zip = (flags >> 1) & 15U;
	if (ssize && (ssize < 3 || ssize > 7))
		return say(why, why_len, -EINVAL, "FSP flags 0x%x hold page size code %u, not 0 or "
			   "3..7", flags, ssize);
	if (zip > 5)
		return say(why, why_len, -EINVAL, "FSP flags 0x%x hold compressed page size code "
			   "%u, not 0..5",
			   flags, zip);
	*page_size = ssize ? 1U << (ssize + 9) : 16384U;
	if (zip) {
		uint32_t logical = *page_size;

		*page_size = 1U << (zip + 9);
		return say(why, why_len, 0, "FSP flags 0x%x: ROW_FORMAT=COMPRESSED, %u-byte pages "
			   "on disk (%u in memory)",
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

/* pg_control's floatFormat (@at) and CRC (@crc_at) offsets: 0, or -EINVAL with @why */
static int pg_control_layout(const uint8_t *p, size_t len, size_t *at, size_t *crc_at, char *why,
			     size_t why_len)
{
	const double want = 1234567.0;

	*at = *crc_at = 0;
	if (!p || len < 64)
		return say(why, why_len, -EINVAL, "too short for pg_control (%zu bytes)", len);
	for (size_t o = 16; o + sizeof(double) + 4 <= len && o < 1024; o += 8) {
		if (!memcmp(p + o, &want, sizeof(want))) {
			*at = o;
			break;
		}
	}
	if (!*at)
		return say(why, why_len, -EINVAL, "no floatFormat constant 1234567.0 in the first "
			   "1 KiB: not a pg_control of this machine's byte order, or damaged");
	/* the CRC: the first 4-byte field after blcksz that matches the CRC-32C of all before it */
	for (size_t o = *at + 12; o + 4 <= len && o < 2048; o += 4) {
		if (crc32c(p, o) == awr__get_le32(p + o)) {
			*crc_at = o;
			break;
		}
	}
	if (!*crc_at)
		return say(why, why_len, -EINVAL, "its CRC-32C matches at no offset: damaged (or "
			   "written by a PostgreSQL this reader does not know)");
	return 0;
}

int awr__pg_control_block_size(const void *buf, size_t len, uint32_t *blcksz, char *why,
			       size_t why_len)
{
	const uint8_t *p = buf;
	size_t at, crc_at;
	uint32_t b;

	if (!blcksz)
		return say(why, why_len, -EINVAL, "no place for the block size");
	if (pg_control_layout(p, len, &at, &crc_at, why, why_len))
		return -EINVAL;
	b = awr__get_le32(p + at + 8);
	if (b < 1024 || b > 32768 || (b & (b - 1)))
		return say(why, why_len, -EINVAL, "blcksz %u is not a power of two of 1..32 KiB",
			   b);
	*blcksz = b;
	return say(why, why_len, 0, "pg_control version %u: block size %u (CRC-32C good at byte "
		   "%zu)",
		   awr__get_le32(p + 8), b, crc_at);
}

int awr_innodb_page_size(const void *page0, size_t len, uint32_t *page_size)
{
	char why[256];
	int ret = awr__innodb_page_size(page0, len, page_size, why, sizeof(why));

	return ret ? awr__fail(ret, "%s", why) : 0;
}

int awr_pg_control_block_size(const void *buf, size_t len, uint32_t *blcksz)
{
	char why[256];
	int ret = awr__pg_control_block_size(buf, len, blcksz, why, sizeof(why));

	return ret ? awr__fail(ret, "%s", why) : 0;
}

int awr__pg_control_checksums(const void *buf, size_t len, uint32_t *version)
{
	const uint8_t *p = buf;
	size_t at, crc_at, dcv;

	if (pg_control_layout(p, len, &at, &crc_at, NULL, 0))
		return -EINVAL;
	dcv = at + 8 + 36;	/* blcksz + 36: data_checksum_version */
	if (crc_at < dcv + 4)
		return -EINVAL;	/* before 9.3: no such field */
	*version = awr__get_le32(p + dcv);
	return 0;
}

/* --- which files hold pages ---------------------------------------------- */

static int add(struct awr__db_list *l, const char *rel, bool skip, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add(struct awr__db_list *l, const char *rel, bool skip, const char *fmt, ...)
{
	struct awr__db_entry *e;
	va_list ap;

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
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(e->why, sizeof(e->why), fmt, ap);
		va_end(ap);
	}
	return 0;
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

enum kind { NOT_OURS, DATA, REDO, TEMP };

/* What the name @n at @depth is to @engine */
static enum kind kind_of(enum awr_db_engine engine, const char *n, int depth)
{
	if (engine == AWR_DB_POSTGRESQL)
		return depth > 0 && all_digits_rel(n) ? DATA : NOT_OURS;
	if (!fnmatch("ib_logfile*", n, 0) || !strcmp(n, "aria_log_control") ||
	    !fnmatch("aria_log.*", n, 0))
		return REDO;
	if (!strcmp(n, "ibtmp1"))
		return TEMP;
	if (!fnmatch("ibdata*", n, 0) || !fnmatch("*.ibd", n, 0) ||
	    !fnmatch("undo[0-9][0-9][0-9]", n, 0))
		return DATA;
	return NOT_OURS;
}

/* "a FIFO", "a socket", ...: what a file that is not regular is */
static const char *type_name(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISLNK(m)  ? "a symlink"
			     : "not a regular file";
}

/* The target of the symlink @n in @fd ("?" when it cannot be read) */
static const char *target_of(int fd, const char *n, char *buf, size_t len)
{
	ssize_t k = readlinkat(fd, n, buf, len - 1);

	if (k < 0)
		return "?";
	buf[k] = 0;
	return buf;
}

/* A named data file (or log) that is a symlink: a regular file at its end is one, else skipped */
static int add_link(struct awr__db_list *l, int fd, const char *n, const char *rel, enum kind k)
{
	char t[256];
	struct stat st;

	if (fstatat(fd, n, &st, 0))
		return add(l, rel, true, "a dangling symlink (to %s: %s): no file to judge",
			   target_of(fd, n, t, sizeof(t)), strerror(errno));
	if (!S_ISREG(st.st_mode))
		return add(l, rel, true, "a symlink to %s (%s), not a regular file",
			   type_name(st.st_mode), target_of(fd, n, t, sizeof(t)));
	if (k == REDO)
		return add(l, rel, true, "a redo or Aria log, not a page file (through a symlink)");
	if (k == TEMP)
		return add(l, rel, true, "the temporary tablespace, recreated at every start "
			   "(through a symlink)");
	return add(l, rel, false, NULL);	/* judge_file() names the symlink */
}

static int add_named(struct awr__db_list *l, int fd, const char *n, const char *rel,
		     const struct stat *st, enum kind k)
{
	if (S_ISLNK(st->st_mode))
		return add_link(l, fd, n, rel, k);
	if (!S_ISREG(st->st_mode))
		return add(l, rel, true, "%s, not a regular file: nothing of it is judged",
			   type_name(st->st_mode));
	if (k == REDO)
		return add(l, rel, true, "a redo or Aria log, not a page file: its writes are not "
			   "what the doublewrite buffer protects");
	if (k == TEMP)
		return add(l, rel, true, "the temporary tablespace: recreated at every start, "
			   "nothing in it survives a crash");
	return add(l, rel, false, NULL);
}

static int scan_versions(int dfd, const char *tsrel, struct awr__db_list *l);
static int pg_other_dir(int dfd, const char *n, const char *rel, const struct stat *st,
			struct awr__db_list *l);
static int scan_dir(int dfd, const char *prefix, enum awr_db_engine engine, int depth,
		    struct awr__db_list *l);

/* PostgreSQL's directories of pages that full-page images do not protect (storage.sgml) */
static const struct pg_dir {
	const char *name, *what;
	bool redone;	/* written at each checkpoint, redone by WAL replay; else emptied */
} pg_dirs[] = {
	{ "pg_xact", "commit status", true },
	{ "pg_multixact", "multixact", true },
	{ "pg_commit_ts", "commit timestamps", true },
	{ "pg_subtrans", "subtransaction parents", false },
	{ "pg_serial", "serializable transactions", false },
	{ "pg_notify", "LISTEN/NOTIFY queue", false },
};

/*
 * The tablespaces: pg_tblspc/TSOID leads (one symlink) to a directory whose PG_* subdirectories
 * (TABLESPACE_VERSION_DIRECTORY, one per major version that used it) hold DBOID/RELFILENODE
 */
static int scan_tblspc(int dfd, struct awr__db_list *l)
{
	int fd = openat(dfd, "pg_tblspc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return add(l, "pg_tblspc", true, "the tablespaces' directory cannot be read (%s): "
			   "their files are not judged", strerror(errno));
	}
	while (!ret && (de = readdir(d))) {
		char rel[4096], t[256];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "pg_tblspc/%.200s", de->d_name);
		if (fstatat(fd, de->d_name, &st, 0))
			ret = add(l, rel, true, "a tablespace link that leads nowhere (%s: %s): no "
				  "file to judge",
				  target_of(fd, de->d_name, t, sizeof(t)), strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			ret = add(l, rel, true, "%s, not a tablespace directory",
				  type_name(st.st_mode));
		else
			ret = scan_versions(dfd, rel, l);
	}
	closedir(d);
	return ret;
}

/* A subdirectory: entered where the engine keeps pages; one that cannot be read is named, not
 * fatal */
static int enter(int dfd, int fd, const char *n, const char *rel, const struct stat *st,
		 enum awr_db_engine engine, int depth, struct awr__db_list *l)
{
	char t[256];
	struct stat ts;
	int ret;

	if (depth >= 2)
		return 0;
	if (engine == AWR_DB_POSTGRESQL && depth == 0 && strcmp(n, "base") && strcmp(n, "global"))
		return pg_other_dir(dfd, n, rel, st, l);
	if (S_ISLNK(st->st_mode))	/* a symlink to a directory that would have been entered */
		return fstatat(fd, n, &ts, 0) || !S_ISDIR(ts.st_mode) ? 0 :
			add(l, rel, true, "a symlink to a directory (%s): not followed, its files "
			    "are not judged",
			    target_of(fd, n, t, sizeof(t)));
	ret = scan_dir(dfd, rel, engine, depth + 1, l);
	if (ret == -ENOMEM)
		return ret;
	return ret ? add(l, rel, true, "a directory that cannot be read (%s): its files are not "
			 "judged",
			 strerror(-ret)) : 0;
}

/* one directory level of @dfd (relative path @prefix) */
static int scan_dir(int dfd, const char *prefix, enum awr_db_engine engine, int depth,
		    struct awr__db_list *l)
{
	int fd = openat(dfd, prefix[0] ? prefix : ".",
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
	while (!ret) {
		const char *n;
		char rel[4096];
		struct stat st;
		enum kind k;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				ret = add(l, prefix[0] ? prefix : ".", true, "reading the "
					  "directory failed part way (%s): files after that point "
					  "are not judged", strerror(errno));
			break;
		}
		n = de->d_name;
		if (n[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s%s%s", prefix, prefix[0] ? "/" : "", n);
		k = kind_of(engine, n, depth);
		if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW)) {
			if (k != NOT_OURS)
				ret = add(l, rel, true, "cannot be examined (%s)", strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode) || (k == NOT_OURS && S_ISLNK(st.st_mode)))
			ret = enter(dfd, fd, n, rel, &st, engine, depth, l);
		else if (k != NOT_OURS)
			ret = add_named(l, fd, n, rel, &st, k);
	}
	closedir(d);
	return ret;
}

/* TSOID's PG_* directories, each scanned as base/ is (DBOID directories of relation files) */
static int scan_versions(int dfd, const char *tsrel, struct awr__db_list *l)
{
	int fd = openat(dfd, tsrel, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return add(l, tsrel, true, "a tablespace directory that cannot be read (%s): its "
			   "files are not judged", strerror(errno));
	}
	while (!ret && (de = readdir(d))) {
		char rel[4096];
		struct stat st;

		if (strncmp(de->d_name, "PG_", 3) ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(rel, sizeof(rel), "%.400s/%.200s", tsrel, de->d_name);
		ret = scan_dir(dfd, rel, AWR_DB_POSTGRESQL, 1, l);
		if (ret && ret != -ENOMEM)
			ret = add(l, rel, true, "a directory that cannot be read (%s): its files "
				  "are not judged",
				  strerror(-ret));
	}
	closedir(d);
	return ret;
}

/* A top directory of PostgreSQL's other than base/ and global/: the tablespaces entered, the WAL
 * and the SLRU directories named as skipped with why, the rest (pg_stat, pg_logical, ...)
 * ignored */
static int pg_other_dir(int dfd, const char *n, const char *rel, const struct stat *st,
			struct awr__db_list *l)
{
	char dir[300];

	if (!strcmp(n, "pg_tblspc"))
		return S_ISDIR(st->st_mode) ? scan_tblspc(dfd, l) : 0;
	snprintf(dir, sizeof(dir), "%.200s/", rel);
	if (!strcmp(n, "pg_wal"))
		return add(l, dir, true, "the WAL, not relation pages: each record carries its own "
			   "CRC-32C and replay stops at a torn one; full-page images protect "
			   "relation pages only");
	for (size_t i = 0; i < sizeof(pg_dirs) / sizeof(pg_dirs[0]); i++) {
		if (strcmp(n, pg_dirs[i].name))
			continue;
		return add(l, dir, true, "SLRU pages (%s), not relation pages: %s", pg_dirs[i].what,
			   pg_dirs[i].redone ? "written at each checkpoint, their changes after it "
					       "redone by WAL replay; full-page images never cover "
					       "them" : "emptied at every start, "
									 "nothing in them survives "
									 "a crash");
	}
	return 0;
}

int awr__db_open(int dfd, const char *rel, char *via, size_t via_len)
{
	int fd = openat(dfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st, ls;
	char t[256];

	if (via && via_len)
		via[0] = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;		/* swapped for a FIFO or a device since it was listed */
	}
	/* regular files ignore O_NONBLOCK; cleared so that nothing below depends on it */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (via && via_len && !fstatat(dfd, rel, &ls, AT_SYMLINK_NOFOLLOW) && S_ISLNK(ls.st_mode)) {
		const char *slash = strrchr(rel, '/');
		char dir[4096];
		int d;

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - rel) : 1,
			 slash ? rel : ".");
		d = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		snprintf(via, via_len, "%s",
			 d < 0 ? "?" : target_of(d, slash ? slash + 1 : rel, t, sizeof(t)));
		if (d >= 0)
			close(d);
	}
	return fd;
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

enum awr_db_engine awr_db_engine_parse(const char *name)
{
	static const struct {
		const char *name;
		enum awr_db_engine engine;
	} names[] = {
		{ "innodb", AWR_DB_INNODB }, { "mariadb", AWR_DB_INNODB },
		{ "mysql", AWR_DB_INNODB }, { "postgresql", AWR_DB_POSTGRESQL },
		{ "postgres", AWR_DB_POSTGRESQL }, { "pg", AWR_DB_POSTGRESQL },
	};

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(name, names[i].name))
			return names[i].engine;
	return AWR_DB_ANY;
}

static bool has_file(int dfd, const char *rel)
{
	struct stat st;

	return !fstatat(dfd, rel, &st, 0) && S_ISREG(st.st_mode);
}

int awr__db_engine_of(int dfd, const char *name, enum awr_db_engine *engine)
{
	bool innodb = has_file(dfd, "ibdata1") || has_file(dfd, "mysql.ibd");
	bool pg = has_file(dfd, "global/pg_control") && has_file(dfd, "PG_VERSION");

	if (innodb && pg)
		return awr__fail(-EMEDIUMTYPE, "%s holds the files of both engines (ibdata1 or "
				 "mysql.ibd of InnoDB, global/pg_control and PG_VERSION of "
				 "PostgreSQL)", name);
	if (!innodb && !pg)
		return awr__fail(-EMEDIUMTYPE, "%s holds the files of neither engine (ibdata1 or "
				 "mysql.ibd of InnoDB, global/pg_control and PG_VERSION of "
				 "PostgreSQL)", name);
	*engine = innodb ? AWR_DB_INNODB : AWR_DB_POSTGRESQL;
	return 0;
}
