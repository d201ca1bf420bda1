// SPDX-License-Identifier: MIT
/*
 * The doublewrite area: the sidecar file PATH.awr-dw (format in
 * awr_pages_open(3)). Little endian.
 *
 *   block 0      area header: "AWRPGDW2", version 2, page size, slots, the
 *                store file's inode, XXH3 of the first 40 bytes at 40
 *   block 1      the record table: per slot 64 bytes ("AWRPGREC", batch
 *                sequence, page number, index in the batch, pages in the
 *                batch, page size, XXH3 of the page, XXH3 of the first 48
 *                bytes at 48); unused slots zero
 *   8192 + i*P   slot i's page (P = page size)
 *
 * A batch (or each chunk of AWR_PAGES_DW_SLOTS pages of a larger one) is one
 * write of the table and its k pages, then synced, and only then written in
 * place. Batches are serialized, so when a batch begins the previous one is
 * durable in place. Recovery therefore needs only the batch with the highest
 * sequence number among the valid records (record checksum and page checksum
 * good): if all k of its records are valid, its in-place writes may have
 * begun, and every page in place whose XXH3 differs from its record's (torn,
 * or still the older copy) is written again from the record; if not all are
 * valid, the crash came during the area write and nothing of that batch
 * reached the pages in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <xxhash.h>

#include "pages/pages.h"

#define AREA_MAGIC	0x3257444750525741ULL	/* "AWRPGDW2" */
#define AREA_VERSION	2U
#define REC_SIZE	64U

/* "AWRPGREC" as a little-endian u64 */
#define REC_MAGIC_LE	0x4345524750525741ULL

#define TABLE_OFF	AWR_PAGES_DW_BLOCK

/* bytes of the table and the slots' pages, written from TABLE_OFF */
static size_t body_size(const struct awr_pages *s, unsigned int k)
{
	return AWR_PAGES_DW_BLOCK + (size_t)k * s->page_size;
}

static uint64_t area_size(const struct awr_pages *s)
{
	return TABLE_OFF + body_size(s, s->dw_slots);
}

static void put_header(const struct awr_pages *s, uint8_t *b)
{
	memset(b, 0, AWR_PAGES_DW_BLOCK);
	awr__put_le64(b, AREA_MAGIC);
	awr__put_le32(b + 8, AREA_VERSION);
	awr__put_le32(b + 12, s->page_size);
	awr__put_le32(b + 16, s->dw_slots);
	awr__put_le64(b + 24, s->ino);
	awr__put_le64(b + 40, XXH3_64bits(b, 40));
}

/* 0 when @b is this store's area header, else -EEXIST or -EINVAL with @why */
static int check_header(struct awr_pages *s, const uint8_t *b, const char *path, char *why, size_t len)
{
	if (awr__get_le64(b) != AREA_MAGIC || awr__get_le64(b + 40) != XXH3_64bits(b, 40)) {
		awr__pages_say(why, len, "%s exists and is not a doublewrite area (no valid header): "
			 "move it away (the store never overwrites a file it did not make)", path);
		return -EEXIST;
	}
	if (awr__get_le32(b + 8) != AREA_VERSION) {
		awr__pages_say(why, len, "%s is a doublewrite area of version %u, this library reads version %u",
			 path, awr__get_le32(b + 8), AREA_VERSION);
		return -EEXIST;
	}
	if (awr__get_le64(b + 24) != s->ino) {
		awr__pages_say(why, len, "%s is the doublewrite area of another store file (inode %" PRIu64
			 ", this one is %" PRIu64 "): move it away", path, awr__get_le64(b + 24), s->ino);
		return -EEXIST;
	}
	if (awr__get_le32(b + 12) != s->page_size) {
		awr__pages_say(why, len, "the store was created with %u-byte pages (%s), not %u",
			 awr__get_le32(b + 12), path, s->page_size);
		return -EINVAL;
	}
	s->dw_slots = awr__get_le32(b + 16);
	if (!s->dw_slots || s->dw_slots > AWR_PAGES_DW_BLOCK / REC_SIZE) {
		awr__pages_say(why, len, "%s holds a bad slot count %u", path, s->dw_slots);
		return -EEXIST;
	}
	return 0;
}

static int full_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n = pwrite(fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* A new (empty) area: header and zeroed records written and synced, so that later writes overwrite. */
int awr__area_new(struct awr_pages *s, int fd)
{
	size_t len = body_size(s, s->dw_slots);
	uint8_t *b = awr__pages_alloc(s, len);
	int ret;

	if (!b)
		return -ENOMEM;
	memset(b, 0, len);
	ret = full_pwrite(fd, b, len, TABLE_OFF);
	put_header(s, b);
	if (!ret)
		ret = full_pwrite(fd, b, AWR_PAGES_DW_BLOCK, 0);
	if (!ret && fsync(fd))
		ret = -errno;
	free(b);
	return ret;
}

static int sync_dir_of(const char *path)
{
	char dir[4096];
	char *slash;
	int fd, ret = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Open PATH.awr-dw: made new (O_CREAT | O_EXCL) when @create, else only when
 * it exists. An existing one must be this store's area. Returns 0 with
 * s->dw_fd = -1 when there is none and @create is false.
 */
int awr__area_open(struct awr_pages *s, const char *path, bool create, char *why, size_t len)
{
	struct awr_safety safety;
	struct stat st;
	uint8_t *hdr = NULL;
	int fd, ret;

	s->dw_fd = -1;
	fd = awr_target_open(path, O_RDWR | O_DIRECT, (create ? AWR_TARGET_CREATE : 0) | AWR_TARGET_KEEP_DATA,
			     &safety);
	if (fd == -ENOENT && !create)
		return 0;
	if (fd < 0) {
		awr__pages_say(why, len, "cannot open the doublewrite area %s: %s%s%s", path, strerror(-fd),
			 safety.detail[0] ? ": " : "", safety.detail);
		return fd;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		awr__pages_say(why, len, "the doublewrite area %s is not a regular file", path);
		ret = -EEXIST;
		goto err;
	}
	if (st.st_size == 0) {		/* new, or an empty file: nothing to lose */
		if (!create) {
			close(fd);
			return 0;
		}
		s->dw_slots = AWR_PAGES_DW_SLOTS;
		ret = awr__area_new(s, fd);
		if (!ret)
			ret = sync_dir_of(path);
		if (ret) {
			awr__pages_say(why, len, "cannot write the doublewrite area %s: %s", path, strerror(-ret));
			goto err;
		}
	} else {
		hdr = awr__pages_alloc(s, AWR_PAGES_DW_BLOCK);
		ret = hdr ? (int)awr__pread_full(fd, hdr, AWR_PAGES_DW_BLOCK, 0) : -ENOMEM;
		if (ret >= 0 && ret != (int)AWR_PAGES_DW_BLOCK) {
			memset(hdr, 0, AWR_PAGES_DW_BLOCK);
			ret = 0;
		}
		if (ret >= 0)
			ret = check_header(s, hdr, path, why, len);
		else
			awr__pages_say(why, len, "cannot read the doublewrite area %s: %s", path, strerror(-ret));
		free(hdr);
		if (ret)
			goto err;
		if ((uint64_t)st.st_size < area_size(s)) {
			awr__pages_say(why, len, "the doublewrite area %s is cut short (%lld bytes, %" PRIu64 " expected)",
				 path, (long long)st.st_size, area_size(s));
			ret = -EEXIST;
			goto err;
		}
	}
	s->dw_buf = awr__pages_alloc(s, body_size(s, s->dw_slots));
	if (!s->dw_buf) {
		ret = -ENOMEM;
		goto err;
	}
	s->dw_fd = fd;
	return 0;
err:
	close(fd);
	return ret;
}

void awr__area_close(struct awr_pages *s)
{
	if (s->dw_fd >= 0)
		close(s->dw_fd);
	s->dw_fd = -1;
	free(s->dw_buf);
	s->dw_buf = NULL;
}

static void put_record(const struct awr_pages *s, unsigned int i, const void *page, uint64_t page_no,
		       unsigned int count)
{
	uint8_t *r = s->dw_buf + (size_t)i * REC_SIZE;

	awr__put_le64(r, REC_MAGIC_LE);
	awr__put_le64(r + 8, s->seq);
	awr__put_le64(r + 16, page_no);
	awr__put_le32(r + 24, i);
	awr__put_le32(r + 28, count);
	awr__put_le32(r + 32, s->page_size);
	awr__put_le32(r + 36, 0);
	awr__put_le64(r + 40, XXH3_64bits(page, s->page_size));
	awr__put_le64(r + 48, XXH3_64bits(r, 48));
}

/* A page's buffer as the area write takes it: the caller's when aligned for O_DIRECT, else a copy in its slot. */
static void *slot_buf(const struct awr_pages *s, unsigned int i, const void *page)
{
	uint32_t align = s->mem_align ? s->mem_align : 512;
	uint8_t *slot = s->dw_buf + body_size(s, i);

	if (!((uintptr_t)page % align))
		return (void *)page;
	memcpy(slot, page, s->page_size);
	return slot;
}

/* mid area write (fault area:N): the table and the pages up to N whole, then half of the next page */
static void area_fault(struct awr_pages *s, const struct awr_page *pages, const unsigned int *idx)
{
	unsigned int whole = (unsigned int)(s->fault.n - s->area_written);
	size_t len = body_size(s, whole) + s->page_size / 2;

	for (unsigned int i = 0; i <= whole; i++)
		memcpy(s->dw_buf + body_size(s, i), pages[idx[i]].buf, s->page_size);
	len = (len + 511) & ~(size_t)511;
	(void)full_pwrite(s->dw_fd, s->dw_buf, len, TABLE_OFF);
	awr__pages_fault_exit();
}

/*
 * The pages pages[idx[0..k-1]] (k <= dw_slots) as records 0..k-1 of batch
 * s->seq: one pwritev2() of the record table and the pages from the caller's
 * buffers (no copy), durable on return (RWF_DSYNC: a FUA write where the
 * device takes one and nothing else needs syncing, else the write and then
 * fdatasync's work, iomap_dio_rw() in fs/iomap/direct-io.c, Linux 6.1..6.18).
 */
int awr__area_write(struct awr_pages *s, const struct awr_page *pages, const unsigned int *idx,
		    unsigned int k)
{
	struct iovec iov[1 + AWR_PAGES_DW_BLOCK / REC_SIZE];
	size_t len = body_size(s, k);
	ssize_t n;
	int ret = 0;

	memset(s->dw_buf, 0, AWR_PAGES_DW_BLOCK);	/* unused slots: no record */
	iov[0] = (struct iovec){ s->dw_buf, AWR_PAGES_DW_BLOCK };
	for (unsigned int i = 0; i < k; i++) {
		put_record(s, i, pages[idx[i]].buf, pages[idx[i]].page_no, k);
		iov[1 + i] = (struct iovec){ slot_buf(s, i, pages[idx[i]].buf), s->page_size };
	}
	if (s->fault.kind == AWR_PAGES_FAULT_AREA && s->fault.n >= s->area_written &&
	    s->fault.n < s->area_written + k)
		area_fault(s, pages, idx);
	n = pwritev2(s->dw_fd, iov, (int)k + 1, TABLE_OFF, RWF_DSYNC);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	s->area_written += k;
	s->area_live = true;	/* also when it failed: some records may be complete */
	return ret;
}

/*
 * Before a batch that is not written to the area (AUTO switching to software
 * mode): the area's newest batch must never be applied over it. A zeroed
 * record table leaves no record.
 */
int awr__area_void(struct awr_pages *s)
{
	struct iovec iov = { s->dw_buf, AWR_PAGES_DW_BLOCK };
	ssize_t n;

	memset(s->dw_buf, 0, AWR_PAGES_DW_BLOCK);
	n = pwritev2(s->dw_fd, &iov, 1, TABLE_OFF, RWF_DSYNC);	/* durable on return, as the area write */
	if (n < 0)
		return -errno;
	if (n != (ssize_t)AWR_PAGES_DW_BLOCK)
		return -EIO;
	s->area_live = false;
	return 0;
}

struct rec {
	uint64_t seq, page_no, csum;
	unsigned int slot, index, count;
};

static bool read_rec(const struct awr_pages *s, unsigned int slot, struct rec *out)
{
	const uint8_t *r = s->dw_buf + (size_t)slot * REC_SIZE;

	if (awr__get_le64(r) != REC_MAGIC_LE || awr__get_le64(r + 48) != XXH3_64bits(r, 48) ||
	    awr__get_le32(r + 32) != s->page_size)
		return false;
	out->seq = awr__get_le64(r + 8);
	out->page_no = awr__get_le64(r + 16);
	out->index = awr__get_le32(r + 24);
	out->count = awr__get_le32(r + 28);
	out->csum = awr__get_le64(r + 40);
	out->slot = slot;
	/* a record whose page does not match its checksum was torn while the area was written */
	return out->index == slot && out->count <= s->dw_slots &&
	       XXH3_64bits(s->dw_buf + body_size(s, slot), s->page_size) == out->csum;
}

/* Is every record 0..count-1 of the newest batch present? */
static bool batch_complete(const struct rec *recs, unsigned int nr, uint64_t seq, unsigned int *count)
{
	unsigned int found = 0, want = 0;
	bool ok = true;

	for (unsigned int i = 0; i < nr; i++) {
		if (recs[i].seq != seq)
			continue;
		if (!want)
			want = recs[i].count;
		ok &= recs[i].count == want;
		found++;
	}
	*count = want;
	return ok && want && found == want;
}

static int restore_page(struct awr_pages *s, const struct rec *r, uint8_t *tmp, bool *restored)
{
	const uint8_t *page = s->dw_buf + body_size(s, r->slot);
	uint64_t off = r->page_no * s->page_size;
	ssize_t got = awr__pread_full(s->fd, tmp, s->page_size, off);

	if (got < 0)
		return (int)got;
	memset(tmp + got, 0, s->page_size - (size_t)got);
	*restored = false;
	if (got == (ssize_t)s->page_size && XXH3_64bits(tmp, s->page_size) == r->csum)
		return 0;	/* in place is the newest copy */
	memcpy(tmp, page, s->page_size);
	*restored = true;
	return full_pwrite(s->fd, tmp, s->page_size, off);
}

int awr__area_recover(struct awr_pages *s, char *why, size_t len)
{
	struct rec *recs;
	uint8_t *tmp = NULL;
	unsigned int nr = 0, count = 0;
	uint64_t newest = 0;
	ssize_t got;
	int ret = 0;

	if (s->dw_fd < 0)
		return 0;
	recs = calloc(s->dw_slots, sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	got = awr__pread_full(s->dw_fd, s->dw_buf, body_size(s, s->dw_slots), TABLE_OFF);
	if (got < 0) {
		ret = (int)got;
		awr__pages_say(why, len, "cannot read the doublewrite area: %s", strerror(-ret));
		goto out;
	}
	for (unsigned int i = 0; i < s->dw_slots; i++) {
		if ((size_t)got >= body_size(s, i + 1) && read_rec(s, i, &recs[nr])) {
			if (!nr || recs[nr].seq > newest)
				newest = recs[nr].seq;
			nr++;
		}
	}
	s->seq = nr ? newest + 1 : 1;
	if (!nr || !batch_complete(recs, nr, newest, &count))
		goto out;	/* no batch, or one cut short in the area: none of it reached the pages */
	s->area_live = true;
	tmp = awr__pages_alloc(s, s->page_size);
	if (!tmp) {
		ret = -ENOMEM;
		goto out;
	}
	/* in index order: a page recorded twice ends with its last copy */
	for (unsigned int idx = 0; idx < count && !ret; idx++) {
		for (unsigned int i = 0; i < nr && !ret; i++) {
			bool restored = false;

			if (recs[i].seq != newest || recs[i].index != idx)
				continue;
			ret = restore_page(s, &recs[i], tmp, &restored);
			s->recovered += restored;
		}
	}
	if (!ret && s->recovered && fdatasync(s->fd))
		ret = -errno;
	if (ret)
		awr__pages_say(why, len, "recovery from the doublewrite area failed: %s", strerror(-ret));
out:
	free(tmp);
	free(recs);
	return ret;
}
