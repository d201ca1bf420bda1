// SPDX-License-Identifier: MIT
/*
 * The doublewrite area: the sidecar file PATH.awr-dw (format in
 * awr_pages_open(3)). Little endian.
 *
 *   block 0      area header: "AWRPGDW2", version 3, page size, slots per
 *                generation, generations, the store file's inode, XXH3 of
 *                the first 40 bytes at 40
 *   generation g, at 4096 + g * (4096 + slots * P) (P = page size):
 *     its record table: per slot 64 bytes ("AWRPGREC", batch sequence, page
 *     number, index in the batch, pages in the batch, page size, XXH3 of the
 *     page, XXH3 of the first 48 bytes at 48); unused slots zero
 *     then slot i's page at 4096 + i * P
 *
 * Version 2 areas are version 3 with one generation.
 *
 * A batch (or each chunk of a larger one) gets the next sequence number s and
 * goes to generation s % generations: one RWF_DSYNC write of the table and its
 * pages, durable on return, and only then written in place, where it is not
 * synced: the area holds it. A generation is written again only after the
 * store file is synced (awr__area_settle), so at any time the records of the
 * batches whose in-place writes are not yet durable are whole in the area,
 * and one fdatasync of the store serves as many batches as there are
 * generations less one. Recovery applies, for each page, its record of the
 * highest sequence number among the batches whose records are all there
 * (complete and checksums good) where the copy in place differs, then syncs
 * the store. A batch with missing records was cut short in the area, before
 * any of it was written in place; an older batch whose records a later,
 * interrupted write of its generation partly replaced was synced in place
 * before that write began. A record of page P can be older than P's last
 * acknowledged copy only when that copy's record was overwritten, which
 * needs a sync of the store after it, and then the older record was
 * overwritten too (generations are reused in sequence order).
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
#include "platform/hash.h"

#include "pages/pages.h"

#define AREA_MAGIC	0x3257444750525741ULL	/* "AWRPGDW2" */
#define AREA_VERSION	3U
#define REC_SIZE	64U

/* "AWRPGREC" as a little-endian u64 */
#define REC_MAGIC_LE	0x4345524750525741ULL

#define TABLE_OFF	AWR_PAGES_DW_BLOCK

/* bytes of the table and the slots' pages, written from TABLE_OFF */
static size_t body_size(const struct awr_pages *s, unsigned int k)
{
	return AWR_PAGES_DW_BLOCK + (size_t)k * s->page_size;
}

/* where generation @g begins */
static uint64_t gen_off(const struct awr_pages *s, unsigned int g)
{
	return TABLE_OFF + (uint64_t)g * body_size(s, s->dw_slots);
}

static uint64_t area_size(const struct awr_pages *s)
{
	return gen_off(s, s->dw_gens);
}

/* A new area's shape: slots per generation and generations, by page size. */
void awr__area_geometry(struct awr_pages *s)
{
	uint32_t slots = AWR_PAGES_DW_GEN_BYTES / s->page_size;
	size_t gen;

	s->dw_slots = slots > AWR_PAGES_DW_SLOTS ? AWR_PAGES_DW_SLOTS : slots < 4 ? 4 : slots;
	gen = body_size(s, s->dw_slots);
	s->dw_gens = (uint32_t)(AWR_PAGES_DW_BYTES / gen);
	if (s->dw_gens < 2)
		s->dw_gens = 2;
	if (s->dw_gens > AWR_PAGES_DW_GENS_MAX)
		s->dw_gens = AWR_PAGES_DW_GENS_MAX;
}

static void put_header(const struct awr_pages *s, uint8_t *b)
{
	memset(b, 0, AWR_PAGES_DW_BLOCK);
	awr__put_le64(b, AREA_MAGIC);
	awr__put_le32(b + 8, AREA_VERSION);
	awr__put_le32(b + 12, s->page_size);
	awr__put_le32(b + 16, s->dw_slots);
	awr__put_le32(b + 20, s->dw_gens);
	awr__put_le64(b + 24, s->ino);
	awr__put_le64(b + 40, XXH3_64bits(b, 40));
}

/* 0 when @b is this store's area header, else -EEXIST or -EINVAL with @why */
static int check_header(struct awr_pages *s, const uint8_t *b, const char *path, char *why,
			size_t len)
{
	if (awr__get_le64(b) != AREA_MAGIC || awr__get_le64(b + 40) != XXH3_64bits(b, 40)) {
		awr__pages_say(why, len, "%s exists and is not a doublewrite area (no valid "
					 "header): "
			 "move it away (the store never overwrites a file it did not make)", path);
		return -EEXIST;
	}
	if (awr__get_le32(b + 8) != AREA_VERSION && awr__get_le32(b + 8) != 2) {
		awr__pages_say(why, len, "%s is a doublewrite area of version %u, this library "
					 "reads versions 2 "
			 "and %u", path, awr__get_le32(b + 8), AREA_VERSION);
		return -EEXIST;
	}
	if (awr__get_le64(b + 24) != s->ino) {
		awr__pages_say(why, len,
			       "%s is the doublewrite area of another store file (inode %" PRIu64
			       ", this one is %" PRIu64 "): move it away",
			       path, awr__get_le64(b + 24), s->ino);
		return -EEXIST;
	}
	if (awr__get_le32(b + 12) != s->page_size) {
		awr__pages_say(why, len, "the store was created with %u-byte pages (%s), not %u",
			 awr__get_le32(b + 12), path, s->page_size);
		return -EINVAL;
	}
	s->dw_slots = awr__get_le32(b + 16);
	s->dw_gens = awr__get_le32(b + 8) == 2 ? 1 : awr__get_le32(b + 20);
	if (!s->dw_slots || s->dw_slots > AWR_PAGES_DW_BLOCK / REC_SIZE || !s->dw_gens ||
	    s->dw_gens > AWR_PAGES_DW_GENS_MAX) {
		awr__pages_say(why, len,
			       "%s holds a bad shape: %u slots (1 to %u), %u generations "
			       "(1 to %u)",
			       path, s->dw_slots, AWR_PAGES_DW_BLOCK / REC_SIZE, s->dw_gens,
			       AWR_PAGES_DW_GENS_MAX);
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

/*
 * A new (empty) area: header and every generation zeroed, written and
 * synced, so that later writes overwrite blocks already written (no
 * allocation, no unwritten extent to convert: nothing for RWF_DSYNC to sync
 * but the data).
 */
int awr__area_new(struct awr_pages *s, int fd)
{
	size_t len = body_size(s, s->dw_slots);
	uint8_t *b = awr__pages_alloc(s, len);
	int ret = 0;

	if (!b)
		return -ENOMEM;
	memset(b, 0, len);
	for (unsigned int g = 0; g < s->dw_gens && !ret; g++)
		ret = full_pwrite(fd, b, len, gen_off(s, g));
	put_header(s, b);
	if (!ret)
		ret = full_pwrite(fd, b, AWR_PAGES_DW_BLOCK, 0);
	if (!ret && fsync(fd))
		ret = -errno;
	free(b);
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
	fd = awr_target_open(path, O_RDWR | O_DIRECT,
			     (create ? AWR_TARGET_CREATE : 0) | AWR_TARGET_KEEP_DATA, &safety);
	if (fd == -ENOENT && !create)
		return 0;
	if (fd < 0) {
		awr__pages_say(why, len, "cannot open the doublewrite area %s: %s%s%s", path,
			       strerror(-fd), safety.detail[0] ? ": " : "", safety.detail);
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
		awr__area_geometry(s);
		ret = awr__area_new(s, fd);
		if (!ret)
			ret = awr__sync_dir_of(AT_FDCWD, path);
		if (ret && ftruncate(fd, 0) == 0) /* empty again: a later open makes it anew */
			(void)fsync(fd);
		if (ret) {
			awr__pages_say(why, len, "cannot write the doublewrite area %s: %s", path,
				       strerror(-ret));
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
			awr__pages_say(why, len, "cannot read the doublewrite area %s: %s", path,
				       strerror(-ret));
		free(hdr);
		if (ret)
			goto err;
		if ((uint64_t)st.st_size < area_size(s)) {
			awr__pages_say(why, len, "the doublewrite area %s is cut short (%lld "
						 "bytes, %" PRIu64 " expected)",
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
	s->dw_live = 0;
}

/*
 * The in-place writes of the batches the area holds made durable: before a
 * generation is written again, before the area is voided, at close. A failed
 * sync leaves the records in place (the caller writes nothing more to the
 * area), so recovery can still apply them.
 */
int awr__area_settle(struct awr_pages *s)
{
	if (!s->dw_unsynced)
		return 0;
	if (fdatasync(s->fd))
		return -errno;
	s->dw_unsynced = 0;
	return 0;
}

static unsigned int gen_of(const struct awr_pages *s)
{
	return (unsigned int)(s->seq % s->dw_gens);
}

static void put_record(const struct awr_pages *s, unsigned int i, const void *page,
		       uint64_t page_no, unsigned int count)
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

/* A page's buffer as the area write takes it: the caller's when aligned for O_DIRECT, else a copy
 * in its slot. */
static void *slot_buf(const struct awr_pages *s, unsigned int i, const void *page)
{
	uint32_t align = s->mem_align ? s->mem_align : 512;
	uint8_t *slot = s->dw_buf + body_size(s, i);

	if (!((uintptr_t)page % align))
		return (void *)page;
	memcpy(slot, page, s->page_size);
	return slot;
}

/* mid area write (fault area:N): the table and the pages up to N whole, then half of the next
 * page */
static void area_fault(struct awr_pages *s, const struct awr_page *pages, const unsigned int *idx)
{
	unsigned int whole = (unsigned int)(s->fault.n - s->area_written);
	size_t len = body_size(s, whole) + s->page_size / 2;

	for (unsigned int i = 0; i <= whole; i++)
		memcpy(s->dw_buf + body_size(s, i), pages[idx[i]].buf, s->page_size);
	len = (len + 511) & ~(size_t)511;
	(void)full_pwrite(s->dw_fd, s->dw_buf, len, gen_off(s, gen_of(s)));
	awr__pages_fault_exit();
}

/*
 * The pages pages[idx[0..k-1]] (k <= dw_slots) as records 0..k-1 of batch
 * s->seq in generation s->seq % dw_gens: one pwritev2() of the record table
 * and the pages from the caller's buffers (no copy), durable on return
 * (RWF_DSYNC: a FUA write where the device takes one and nothing else needs
 * syncing, else the write and then fdatasync's work, iomap_dio_rw() in
 * fs/iomap/direct-io.c, Linux 6.1..6.18). The generation's previous batch is
 * synced in place first.
 */
int awr__area_write(struct awr_pages *s, const struct awr_page *pages, const unsigned int *idx,
		    unsigned int k)
{
	struct iovec iov[1 + AWR_PAGES_DW_BLOCK / REC_SIZE];
	size_t len = body_size(s, k);
	unsigned int g = gen_of(s);
	ssize_t n;
	int ret = 0;

	if (s->dw_unsynced & (1U << g)) {
		ret = awr__area_settle(s);
		if (ret)
			return ret;
	}
	memset(s->dw_buf, 0, AWR_PAGES_DW_BLOCK);	/* unused slots: no record */
	iov[0] = (struct iovec){ s->dw_buf, AWR_PAGES_DW_BLOCK };
	for (unsigned int i = 0; i < k; i++) {
		put_record(s, i, pages[idx[i]].buf, pages[idx[i]].page_no, k);
		iov[1 + i] = (struct iovec){ slot_buf(s, i, pages[idx[i]].buf), s->page_size };
	}
	if (s->fault.kind == AWR_PAGES_FAULT_AREA && s->fault.n >= s->area_written &&
	    s->fault.n < s->area_written + k)
		area_fault(s, pages, idx);
	n = pwritev2(s->dw_fd, iov, (int)k + 1, (off_t)gen_off(s, g),
		     awr__pages_fault_nosync(s) ? 0 : RWF_DSYNC);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	s->area_written += k;
	s->dw_live |= 1U << g;	/* also when it failed: some records may be complete */
	return ret;
}

/* After the in-place writes of the batch just written to the area: not synced, the area holds
 * it. */
void awr__area_written_in_place(struct awr_pages *s, uint64_t seq)
{
	s->dw_unsynced |= 1U << (seq % s->dw_gens);
}

/*
 * Before a batch that is not written to the area (AUTO switching to software
 * mode): no batch of the area must ever be applied over it. The store is
 * synced (the records are no longer needed), then each generation holding
 * records gets a zeroed record table: one RWF_DSYNC write when one does (the
 * usual case), else the writes and one fdatasync.
 */
int awr__area_void(struct awr_pages *s)
{
	unsigned int live = (unsigned int)__builtin_popcount(s->dw_live);
	int ret = awr__area_settle(s);

	memset(s->dw_buf, 0, AWR_PAGES_DW_BLOCK);
	for (unsigned int g = 0; g < s->dw_gens && !ret; g++) {
		struct iovec iov = { s->dw_buf, AWR_PAGES_DW_BLOCK };
		ssize_t n;

		if (!(s->dw_live & (1U << g)))
			continue;
		n = pwritev2(s->dw_fd, &iov, 1, (off_t)gen_off(s, g), live == 1 ? RWF_DSYNC : 0);
		ret = n < 0 ? -errno : n != (ssize_t)AWR_PAGES_DW_BLOCK ? -EIO : 0;
	}
	if (!ret && live > 1 && fdatasync(s->dw_fd))
		ret = -errno;
	if (!ret)
		s->dw_live = 0;
	return ret;
}

struct rec {
	uint64_t seq, page_no, csum;
	unsigned int gen, slot, index, count;
};

/* Record @slot of the generation in dw_buf, when valid: magic, both checksums, a shape that
 * fits. */
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
	return out->index == slot && out->count && out->count <= s->dw_slots &&
	       out->page_no <= UINT64_MAX / s->page_size - 1 &&
	       XXH3_64bits(s->dw_buf + body_size(s, slot), s->page_size) == out->csum;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* newest first for each page: page number up, then sequence and index down */
static int cmp_page(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->page_no != y->page_no)
		return x->page_no < y->page_no ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq > y->seq ? -1 : 1;
	return x->index > y->index ? -1 : x->index < y->index;
}

/*
 * Keep the records of complete batches: all @count records of a sequence
 * number there, with one count. Returns how many are kept (sorted by seq).
 */
static unsigned int complete_batches(struct rec *recs, unsigned int nr)
{
	unsigned int kept = 0;

	qsort(recs, nr, sizeof(*recs), cmp_seq);
	for (unsigned int i = 0, j; i < nr; i = j) {
		bool ok = true;

		for (j = i; j < nr && recs[j].seq == recs[i].seq; j++)
			ok &= recs[j].count == recs[i].count && recs[j].gen == recs[i].gen;
		if (!ok || j - i != recs[i].count)
			continue;	/* cut short in the area: none of it was written in place */
		memmove(&recs[kept], &recs[i], (j - i) * sizeof(*recs));
		kept += j - i;
	}
	return kept;
}

/* Page @r from the area into @page (checked again), then in place when the copy there differs. */
static int restore_page(struct awr_pages *s, const struct rec *r, uint8_t *page, uint8_t *tmp,
			bool *restored)
{
	uint64_t off = r->page_no * s->page_size;
	ssize_t got = awr__pread_full(s->dw_fd, page, s->page_size,
				      gen_off(s, r->gen) + body_size(s, r->slot));

	*restored = false;
	if (got < 0)
		return (int)got;
	if (got != (ssize_t)s->page_size || XXH3_64bits(page, s->page_size) != r->csum)
		return -EIO;	/* it was whole when the records were read */
	got = awr__pread_full(s->fd, tmp, s->page_size, off);
	if (got < 0)
		return (int)got;
	if (got == (ssize_t)s->page_size && XXH3_64bits(tmp, s->page_size) == r->csum)
		return 0;	/* in place is the newest copy */
	*restored = true;
	return full_pwrite(s->fd, page, s->page_size, off);
}

/* The valid records of every generation into @recs; the highest sequence number into *newest. */
static int read_records(struct awr_pages *s, struct rec *recs, unsigned int *nr, uint64_t *newest)
{
	*nr = 0;
	*newest = 0;
	for (unsigned int g = 0; g < s->dw_gens; g++) {
		ssize_t got = awr__pread_full(s->dw_fd, s->dw_buf, body_size(s, s->dw_slots),
					      gen_off(s, g));

		if (got < 0)
			return (int)got;
		for (unsigned int i = 0; i < s->dw_slots; i++) {
			struct rec *r = &recs[*nr];

			if ((size_t)got < body_size(s, i + 1) || !read_rec(s, i, r))
				continue;
			r->gen = g;
			if (r->seq > *newest)
				*newest = r->seq;
			s->dw_live |= 1U << g;
			(*nr)++;
		}
	}
	return 0;
}

int awr__area_recover(struct awr_pages *s, char *why, size_t len)
{
	struct rec *recs;
	uint8_t *page = NULL, *tmp = NULL;
	unsigned int nr = 0, kept;
	uint64_t newest = 0;
	int ret;

	if (s->dw_fd < 0)
		return 0;
	recs = calloc((size_t)s->dw_slots * s->dw_gens, sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	ret = read_records(s, recs, &nr, &newest);
	if (ret) {
		awr__pages_say(why, len, "cannot read the doublewrite area: %s", strerror(-ret));
		goto out;
	}
	s->seq = nr ? newest + 1 : 1;
	kept = complete_batches(recs, nr);
	if (!kept)
		goto out; /* no batch, or one cut short in the area: none of it reached the pages */
	page = awr__pages_alloc(s, s->page_size);
	tmp = awr__pages_alloc(s, s->page_size);
	if (!page || !tmp) {
		ret = -ENOMEM;
		goto out;
	}
	/* each page from its newest record (a page recorded twice in a batch: its last copy) */
	qsort(recs, kept, sizeof(*recs), cmp_page);
	for (unsigned int i = 0; i < kept && !ret; i++) {
		bool restored = false;

		if (i && recs[i].page_no == recs[i - 1].page_no)
			continue;
		ret = restore_page(s, &recs[i], page, tmp, &restored);
		s->recovered += restored;
	}
	/* always: copies in place that match may still sit unsynced in a cache */
	if (!ret && fdatasync(s->fd))
		ret = -errno;
	if (ret)
		awr__pages_say(why, len, "recovery from the doublewrite area failed: %s",
			       strerror(-ret));
out:
	free(page);
	free(tmp);
	free(recs);
	return ret;
}
