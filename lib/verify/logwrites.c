// SPDX-License-Identifier: MIT
/*
 * Reading a dm-log-writes log (logwrites.h has the format and where it comes from). Every
 * read is a pread() at an offset computed from the headers before it, so a corrupt header is
 * found at its entry and named, never followed into a wild read.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "logwrites.h"
#include "platform/platform.h"

static int problem(struct awr__lw_problem *why, enum awr__lw_reason r, uint64_t entry,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int problem(struct awr__lw_problem *why, enum awr__lw_reason r, uint64_t entry,
		   const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!why)
		return r == AWR__LW_IO ? -EIO : -EINVAL;
	why->reason = r;
	why->entry = entry;
	if (entry)
		n = snprintf(why->message, sizeof(why->message), "entry %" PRIu64 ": ", entry);
	else
		n = snprintf(why->message, sizeof(why->message), "super block: ");
	va_start(ap, fmt);
	vsnprintf(why->message + n, sizeof(why->message) - (size_t)n, fmt, ap);
	va_end(ap);
	return r == AWR__LW_IO ? -EIO : -EINVAL;
}

static uint64_t le64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static uint32_t le32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

/* Exactly @len bytes at @off: 0, -ENODATA when the log ends first, or a negative errno. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

static bool sectorsize_ok(uint32_t s)
{
	return s >= 512 && s <= 65536 && !(s & (s - 1));
}

int awr__lw_open(int fd, struct awr__lw_log *log, struct awr__lw_problem *why)
{
	unsigned char sb[AWR__LW_SUPER_SIZE];
	uint64_t magic, version;
	int ret;

	memset(log, 0, sizeof(*log));
	log->fd = fd;
	if (why)
		memset(why, 0, sizeof(*why));
	ret = awr__fd_size(fd, &log->size);
	if (ret)
		return problem(why, AWR__LW_IO, 0, "cannot tell the log's size: %s",
			       strerror(-ret));
	ret = read_at(fd, sb, sizeof(sb), 0);
	if (ret == -ENODATA)
		return problem(why, AWR__LW_SHORT_SUPER, 0, "the log is %" PRIu64 " bytes, "
			       "shorter than a super block (%u bytes): not a dm-log-writes log",
			       log->size, AWR__LW_SUPER_SIZE);
	if (ret)
		return problem(why, AWR__LW_IO, 0, "cannot read it: %s", strerror(-ret));
	magic = le64_at(sb);
	version = le64_at(sb + 8);
	log->nr_entries = le64_at(sb + 16);
	log->sectorsize = le32_at(sb + 24);
	if (magic != AWR__LW_MAGIC)
		return problem(why, AWR__LW_BAD_MAGIC, 0, "bad magic 0x%" PRIx64 ", a "
			       "dm-log-writes log starts with 0x%llx: not a log, or its first "
			       "block was overwritten", magic, AWR__LW_MAGIC);
	if (version != AWR__LW_VERSION)
		return problem(why, AWR__LW_BAD_VERSION, 0, "version %" PRIu64 ", awr reads "
			       "version %llu (WRITE_LOG_VERSION of every kernel so far)", version,
			       AWR__LW_VERSION);
	if (!sectorsize_ok(log->sectorsize))
		return problem(why, AWR__LW_BAD_SECTORSIZE, 0, "sector size %" PRIu32 " is not a "
			       "power of two from 512 to 65536 (a logical block size)",
			       log->sectorsize);
	awr__lw_rewind(log);
	return 0;
}

void awr__lw_rewind(struct awr__lw_log *log)
{
	log->next_index = 1;
	log->next_off = log->sectorsize;	/* entry 1 follows the super's block */
}

/* The checks of one header that need no more reading than the header and its block. */
static int check_entry(const struct awr__lw_log *log, const struct awr__lw_entry *e,
		       struct awr__lw_problem *why)
{
	uint64_t unknown = e->flags & ~AWR__LW_KNOWN;

	if (unknown)
		return problem(why, AWR__LW_UNKNOWN_FLAG, e->index, "unknown flag bits 0x%" PRIx64
			       " (flags 0x%" PRIx64 "; known: FLUSH 1, FUA 2, DISCARD 4, MARK 8, "
			       "METADATA 16)", unknown, e->flags);
	if ((e->flags & AWR__LW_MARK) && (e->nr_sectors || e->data_len >= log->sectorsize -
					  AWR__LW_ENTRY_SIZE || e->data_len > AWR__LW_MARK_MAX))
		return problem(why, AWR__LW_BAD_MARK, e->index, "a mark with %" PRIu64 " sectors "
			       "and a name of %" PRIu64 " bytes (a mark has no sectors and a name "
			       "of at most %u)", e->nr_sectors, e->data_len,
			       log->sectorsize - AWR__LW_ENTRY_SIZE - 1);
	if (!(e->flags & AWR__LW_MARK) && e->data_len)
		return problem(why, AWR__LW_BAD_DATA_LEN, e->index, "data_len %" PRIu64 " on an "
			       "entry that is not a mark (only a mark carries data of its own)",
			       e->data_len);
	if (e->sector > UINT64_MAX / log->sectorsize - e->nr_sectors)
		return problem(why, AWR__LW_BAD_RANGE, e->index, "sector %" PRIu64 " + %" PRIu64
			       " sectors of %" PRIu32 " bytes lies beyond 2^64 bytes", e->sector,
			       e->nr_sectors, log->sectorsize);
	return 0;
}

/* A mark's name: data_len bytes after the header, in the header's block; no NUL within. */
static int read_mark(const struct awr__lw_log *log, struct awr__lw_entry *e, uint64_t off,
		     struct awr__lw_problem *why)
{
	int ret = read_at(log->fd, e->mark, (size_t)e->data_len, off + AWR__LW_ENTRY_SIZE);

	if (ret)
		return problem(why, ret == -ENODATA ? AWR__LW_TRUNCATED : AWR__LW_IO, e->index,
			       "cannot read the mark's name: %s", ret == -ENODATA ?
			       "the log ends within it (truncated log)" : strerror(-ret));
	e->mark[e->data_len] = '\0';
	if (strlen(e->mark) != e->data_len)
		return problem(why, AWR__LW_BAD_MARK, e->index, "the mark's name holds a NUL byte "
			       "at %zu of %" PRIu64 " (a name written by dmsetup message has none)",
			       strlen(e->mark), e->data_len);
	return 0;
}

int awr__lw_next(struct awr__lw_log *log, struct awr__lw_entry *e, struct awr__lw_problem *why)
{
	unsigned char h[AWR__LW_ENTRY_SIZE];
	uint64_t off = log->next_off, data_blocks;
	int ret;

	if (log->next_index > log->nr_entries)
		return 0;
	memset(e, 0, sizeof(*e));
	e->index = log->next_index;
	ret = read_at(log->fd, h, sizeof(h), off);
	if (ret == -ENODATA || (!ret && log->size < off + log->sectorsize))
		return problem(why, AWR__LW_TRUNCATED, e->index, "the log ends at byte %" PRIu64
			       " within or before this entry's header at byte %" PRIu64 ", and the "
			       "super block counts %" PRIu64 " entries (truncated log)", log->size,
			       off, log->nr_entries);
	if (ret)
		return problem(why, AWR__LW_IO, e->index, "cannot read its header at byte %" PRIu64
			       ": %s", off, strerror(-ret));
	e->sector = le64_at(h);
	e->nr_sectors = le64_at(h + 8);
	e->flags = le64_at(h + 16);
	e->data_len = le64_at(h + 24);
	ret = check_entry(log, e, why);
	if (!ret && (e->flags & AWR__LW_MARK))
		ret = read_mark(log, e, off, why);
	if (ret)
		return ret;
	/* log_writes_kthread(): a discard's sectors are not in the log, only its header */
	data_blocks = (e->flags & AWR__LW_DISCARD) ? 0 : e->nr_sectors;
	e->data_off = off + log->sectorsize;
	if (data_blocks > (log->size - e->data_off) / log->sectorsize)
		return problem(why, AWR__LW_TRUNCATED, e->index, "its %" PRIu64 " sectors of data "
			       "from byte %" PRIu64 " go past the log's end at byte %" PRIu64
			       " (truncated log, or a corrupt nr_sectors)", e->nr_sectors,
			       e->data_off, log->size);
	log->next_off = e->data_off + data_blocks * log->sectorsize;
	log->next_index++;
	return 1;
}

int awr__lw_read_data(const struct awr__lw_log *log, const struct awr__lw_entry *e, uint64_t off,
		      void *buf, uint64_t len)
{
	int ret;

	if ((e->flags & AWR__LW_DISCARD) || off > awr__lw_bytes(log, e) ||
	    len > awr__lw_bytes(log, e) - off)
		return -EINVAL;
	ret = read_at(log->fd, buf, (size_t)len, e->data_off + off);
	return ret == -ENODATA ? -EIO : ret;
}

static const char *const flag_names[] = { "flush", "fua", "discard", "mark", "metadata" };

int awr__lw_list(struct awr__lw_log *log, awr__lw_entry_fn fn, void *arg,
		 struct awr__lw_listing *n, struct awr__lw_problem *why)
{
	struct awr__lw_entry e;
	int ret;

	*n = (struct awr__lw_listing){ 0 };
	awr__lw_rewind(log);
	while ((ret = awr__lw_next(log, &e, why)) > 0) {
		n->flush_points += awr__lw_flush_point(&e);
		n->marks += !!(e.flags & AWR__LW_MARK);
		fn(&e, arg);
	}
	return ret;
}

const char *awr__lw_flag_name(unsigned int bit)
{
	return bit < sizeof(flag_names) / sizeof(flag_names[0]) ? flag_names[bit] : NULL;
}

char *awr__lw_flags_text(uint64_t flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; awr__lw_flag_name(i); i++) {
		if (!(flags & (1ULL << i)))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s", n ? "|" : "");
		for (const char *p = flag_names[i]; *p && n + 1 < len; p++)
			buf[n++] = (char)(*p - 'a' + 'A');
		buf[n] = '\0';
	}
	if (!n)
		snprintf(buf, len, "-");
	return buf;
}
