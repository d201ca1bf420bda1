// SPDX-License-Identifier: MIT
/*
 * Page writes: one batch through a queue of the io_uring engine
 * (lib/write/queue.c, uring.c) by the library's one queued-write loop
 * (awr__queue_run(), lib/write/batch.c), refilled as writes complete, then one
 * fdatasync: durable on return. In doublewrite mode each chunk of up to AWR_PAGES_DW_SLOTS pages
 * goes to the area first, durable there, and is then written in place, where
 * the store is synced only before its generation of the area is written again
 * (area.c). A page given more than once in a batch is
 * written once, with its last copy: two writes of one offset in flight
 * together may land in any order.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pages/pages.h"
#include "write/queue.h"

void *awr__pages_alloc(const struct awr_pages *s, size_t len)
{
	size_t align = s->mem_align > 4096 ? s->mem_align : 4096;
	void *p;

	if (posix_memalign(&p, align, len ? len : align))
		return NULL;
	return p;
}

/*
 * The calling thread's queue (made on its first batch; the least recently used
 * of AWR_PAGES_RINGS is replaced when full). The engine sets its rings up with
 * IORING_SETUP_SINGLE_ISSUER (lib/write/uring.c): io_uring_enter() from another
 * task than the creator fails with EEXIST (io_uring/io_uring.c, 6.0+). What the
 * store's pages can take was decided when the queue was opened on the store's
 * file: a page write checks its offset, length and buffer alignment only.
 */
int awr__pages_ring(struct awr_pages *s)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	unsigned int victim = 0;
	int ret;

	for (unsigned int i = 0; i < AWR_PAGES_RINGS; i++) {
		if (s->rings[i].ring && s->rings[i].tid == tid) {
			s->rings[i].used = ++s->ring_clock;
			s->ring = s->rings[i].ring;
			return 0;
		}
		if (!s->rings[i].ring ||
		    (s->rings[victim].ring && s->rings[i].used < s->rings[victim].used))
			victim = i;
	}
	awr_queue_close(s->rings[victim].ring);
	s->rings[victim].ring = NULL;
	/* not a registered file: the ring would hold the file (and its write lock) after close */
	ret = awr_queue_open(AWR_QUEUE_URING, NULL, s->file, AWR_PAGES_RING_DEPTH, 0,
			     &s->rings[victim].ring);
	if (ret)
		return ret;
	s->rings[victim].tid = tid;
	s->rings[victim].used = ++s->ring_clock;
	s->ring = s->rings[victim].ring;
	return 0;
}

void awr__pages_rings_free(struct awr_pages *s)
{
	for (unsigned int i = 0; i < AWR_PAGES_RINGS; i++) {
		awr_queue_close(s->rings[i].ring);
		s->rings[i].ring = NULL;
	}
	s->ring = NULL;
}

/* One batch's in-place writes: pages[idx[i]] is unit i of the queued-write loop's run. */
struct inplace {
	struct awr_pages *s;
	struct awr_page *pages;
	const unsigned int *idx;
	unsigned int k;
	uint8_t *bounce;		/* k pages: copies of buffers not aligned for O_DIRECT */
};

static const void *page_buf(struct inplace *w, unsigned int i)
{
	const struct awr_page *p = &w->pages[w->idx[i]];
	uint32_t align = w->s->mem_align ? w->s->mem_align : 512;

	if (!((uintptr_t)p->buf % align))
		return p->buf;
	if (!w->bounce) {	/* made on the first unaligned buffer of the batch */
		w->bounce = awr__pages_alloc(w->s, (size_t)w->k * w->s->page_size);
		if (!w->bounce)
			return NULL;
	}
	memcpy(w->bounce + (size_t)i * w->s->page_size, p->buf, w->s->page_size);
	return w->bounce + (size_t)i * w->s->page_size;
}

static int page_next(void *arg, uint64_t i, const void **buf, uint64_t *off, uint64_t *tag)
{
	struct inplace *w = arg;

	*buf = page_buf(w, (unsigned int)i);
	if (!*buf)
		return -ENOMEM;
	*off = w->pages[w->idx[i]].page_no * w->s->page_size;
	*tag = i;
	if (w->s->fault.kind)
		awr__pages_fault_write(w->s, *buf, *off);
	return 0;
}

static void page_sent(void *arg, uint64_t tag)
{
	struct awr_pages *s = ((struct inplace *)arg)->s;

	(void)tag;
	s->issued++;
	if (s->fault.kind)
		awr__pages_fault_issued(s);
}

/* A page's status: its error, or 0 (as it was) when it was written whole. */
static void page_done(void *arg, const struct awr_completion *c, int err,
		      const struct awr_verdict *v)
{
	struct inplace *w = arg;

	(void)v;		/* a page refused before the kernel: failed, as one it fails */
	if (err)
		w->pages[w->idx[c->tag]].status = err;
}

static const struct awr__run_ops page_ops = {
	.next = page_next, .sent = page_sent, .done = page_done,
};

/*
 * pages[idx[0..k-1]] in place, one batch; the caller syncs. Their statuses are
 * 0 on entry. After the first failure no page is sent: those get -ECANCELED,
 * or the engine's error when the engine failed.
 */
int awr__pages_in_place(struct awr_pages *s, struct awr_page *pages, const unsigned int *idx,
			unsigned int k, bool atomic)
{
	struct inplace w = { .s = s, .pages = pages, .idx = idx, .k = k };
	struct awr__run r = {
		.q = s->ring, .ops = &page_ops, .arg = &w, .nr = k, .len = s->page_size,
		.flags = atomic ? 0 : AWR_WRITE_PLAIN,
	};
	int ret = awr__queue_run(&r);

	free(w.bounce);
	for (uint64_t i = r.next; i < k; i++)	/* not sent (a refused page has its status) */
		if (!pages[idx[i]].status)
			pages[idx[i]].status = ret ? ret : -ECANCELED;
	return ret ? ret : r.error;
}

static int cmp_idx(const void *a, const void *b, void *arg)
{
	const struct awr_page *pages = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	if (pages[x].page_no != pages[y].page_no)
		return pages[x].page_no < pages[y].page_no ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The pages to write: each page_no once, its last copy, in the caller's order. */
static unsigned int last_copies(struct awr_page *pages, unsigned int n, unsigned int *idx)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_idx, pages);
	for (unsigned int i = 0; i < n; i++) {
		if (i + 1 < n && pages[idx[i + 1]].page_no == pages[idx[i]].page_no)
			continue;	/* a later copy of this page follows: it wins */
		idx[k++] = idx[i];
	}
	qsort(idx, k, sizeof(*idx), cmp_uint);
	return k;
}

static void set_status(struct awr_page *pages, const unsigned int *idx, unsigned int k, int st)
{
	for (unsigned int i = 0; i < k; i++)
		pages[idx[i]].status = st;
}

static int write_doublewrite(struct awr_pages *s, struct awr_page *pages, const unsigned int *idx,
			     unsigned int k)
{
	int ret = 0;

	awr__pages_fault_batch(s);
	for (unsigned int at = 0; at < k && !ret; at += s->dw_slots) {
		unsigned int c = k - at < s->dw_slots ? k - at : s->dw_slots;

		ret = awr__area_write(s, pages, idx + at, c);
		s->seq++; /* also after a failed area write: its records never join a later batch */
		if (ret) {
			set_status(pages, idx + at, k - at, ret);
			break;
		}
		awr__pages_fault_synced(s, c);
		ret = awr__pages_in_place(s, pages, idx + at, c, false);
		if (!ret)
			awr__area_written_in_place(
				s, s->seq - 1); /* durable in the area, synced later */
		if (ret && ret != pages[idx[at]].status) {
			for (unsigned int i = at; i < at + c; i++)
				if (!pages[idx[i]].status)
					pages[idx[i]].status = ret;
		}
		if (ret)
			set_status(pages, idx + at + c, k - at - c, -ECANCELED);
	}
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * AUTO's choice after its measured batches: batch 2j (software) and 2j+1
 * (doublewrite) form a pair, and the median over the pairs of software's time
 * per page over doublewrite's decides. Adjacent batches share the machine's
 * load of the moment, and the median is not moved by the bursts of other work
 * that can make one batch several times slower. (Neither the sum nor the
 * fastest batch of each mode would do: a burst in one batch decides the sum,
 * and software mode's fastest batches are far below its usual ones, so on the
 * shared test machine the fastest batch chose software mode in 4 of 6 runs
 * where its batches took 1.5-2.5x doublewrite's.)
 */
static void settle(struct awr_pages *s)
{
	unsigned int n = s->cal_batches / 2;
	double r[AWR_PAGES_LIVE_CAL / 2], med;

	for (unsigned int j = 0; j < n; j++)
		r[j] = s->cal_ns[0][j] / s->cal_ns[1][j];
	qsort(r, n, sizeof(*r), cmp_double);
	med = n & 1 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
	s->mode = med > 1 ? AWR_PAGES_MODE_DOUBLEWRITE : AWR_PAGES_MODE_SOFTWARE;
	awr__pages_say(s->explain, sizeof(s->explain),
		       "%s: no hardware path; in %s %u batches, "
		       "alternating, "
		       "software mode took %.2fx the time per page of doublewrite mode (the median "
		       "of %u adjacent "
		       "pairs; measured again after %" PRIu64 " batches)",
		       awr_pages_mode_name(s->mode),
		       s->reviews ? "this store's latest" : "this store's first", s->cal_batches,
		       med, n, s->review_after);
	s->reviews++;
}

/*
 * Is this batch one of a measurement? AUTO measures its first batches, then
 * again after AWR_PAGES_REVIEW batches, after twice as many the next time, and
 * so on up to AWR_PAGES_REVIEW_MAX: the software path's cost changes as the
 * store is written (each software-mode write moves its page to newly
 * allocated blocks, xfs_reflink_end_atomic_cow() in fs/xfs/xfs_reflink.c,
 * Linux 6.16..6.18, so the file's extent map grows), and on the test machine
 * software mode went from 0.89x doublewrite's time per page in the first 50
 * batches of a store written in full to 1.2..1.6x after 150.
 */
static bool measuring(struct awr_pages *s)
{
	if (!s->auto_cal)
		return false;
	if (s->cal_batches < AWR_PAGES_LIVE_CAL)
		return true;
	if (++s->since < s->review_after)
		return false;
	s->since = 0;
	s->cal_batches = 0;
	return true;
}

static int write_mode(struct awr_pages *s, enum awr_pages_mode m, struct awr_page *pages,
		      const unsigned int *idx, unsigned int k)
{
	int ret;

	s->batch_mode = m;
	if (m == AWR_PAGES_MODE_DOUBLEWRITE)
		return write_doublewrite(s, pages, idx, k);
	ret = awr__pages_in_place(s, pages, idx, k, true);
	if (!ret && !awr__pages_fault_nosync(s) && fdatasync(s->fd)) {
		ret = -errno;
		set_status(pages, idx, k, ret);
	}
	return ret;
}

/*
 * A software-mode batch failed with ENOSPC. XFS aligns every copy-on-write
 * allocation of an atomic write to the file's CoW extent size hint
 * (XFS_BMAPI_EXTSZALIGN in xfs_atomic_write_cow_iomap_begin(), fs/xfs/
 * xfs_iomap.c; xfs_bmap_compute_alignments() takes xfs_get_cowextsz_hint(),
 * the larger of the cowextsize and extsize hints, 32 blocks when neither is
 * set; Linux 6.16..6.18) and keeps the alignment in its low-space retries
 * (xfs_bmap_btalloc_low_space()), so when free space is left only in pieces
 * under 32 blocks every allocation group is refused (xfs_alloc_space_available())
 * though much is free. With the hint at the page size the allocator needs only
 * a page-aligned free piece. Returns true when the hint was lowered (the
 * caller tries once more); false when it was already no larger, an extent
 * size hint above the page would still align, or the filesystem refuses.
 */
static bool lower_cow_hint(struct awr_pages *s)
{
	struct fsxattr fx;

	memset(&fx, 0, sizeof(fx));
	if (s->cow_hint_set || ioctl(s->fd, FS_IOC_FSGETXATTR, &fx))
		return false;
	s->cow_hint_set = true;		/* once per open */
	if (((fx.fsx_xflags & FS_XFLAG_COWEXTSIZE) && fx.fsx_cowextsize &&
	     fx.fsx_cowextsize <= s->page_size) ||
	    ((fx.fsx_xflags & FS_XFLAG_EXTSIZE) && fx.fsx_extsize > s->page_size))
		return false;
	fx.fsx_xflags |= FS_XFLAG_COWEXTSIZE;
	fx.fsx_cowextsize = s->page_size;
	if (ioctl(s->fd, FS_IOC_FSSETXATTR, &fx))
		return false;
	char was[sizeof(s->explain)];

	memcpy(was, s->explain, sizeof(was));
	awr__pages_say(s->explain, sizeof(s->explain),
		       "%s; after an ENOSPC in batch %" PRIu64 " the file's CoW "
		       "extent size hint was set to the page size (free space in pieces too small "
		       "for the "
		       "default 32-block alignment)",
		       was, s->batches);
	return true;
}

/*
 * AUTO, a software-mode batch failed with ENOSPC: every atomic write on XFS's
 * copy-on-write path allocates new blocks for the whole write in one extent
 * (xfs_atomic_write_cow_iomap_begin() in fs/xfs/xfs_iomap.c, Linux 6.16+), so
 * a filesystem with free space left only in small pieces refuses it while a
 * store written in full can still be overwritten in place. The batch is
 * written again in doublewrite mode (its pages hold old or new copies: each
 * write was atomic), which the store keeps from then on.
 */
static int software_out_of_space(struct awr_pages *s, struct awr_page *pages,
				 const unsigned int *idx, unsigned int k)
{
	set_status(pages, idx, k, 0);
	s->auto_cal = false;
	s->mode = AWR_PAGES_MODE_DOUBLEWRITE;
	awr__pages_say(
		s->explain, sizeof(s->explain),
		"doublewrite: no hardware path, and a "
		"software-mode "
		"batch failed with ENOSPC (the filesystem could not allocate new blocks for "
		"a "
		"copy-on-write atomic write at the alignment its extent size hints ask; "
		"free space may "
		"be in small pieces), so the store writes doublewrite only, from batch %" PRIu64,
		s->batches);
	return write_mode(s, AWR_PAGES_MODE_DOUBLEWRITE, pages, idx, k);
}

int awr__pages_write_locked(struct awr_pages *s, struct awr_page *pages, unsigned int n)
{
	unsigned int *idx = malloc((size_t)n * sizeof(*idx));
	bool measure = measuring(s);
	enum awr_pages_mode m = s->mode;
	unsigned int k;
	uint64_t t0;
	int ret = 0;

	if (!idx)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		pages[i].status = 0;	/* a superseded copy: done by its last copy */
	k = last_copies(pages, n, idx);
	s->batches++;
	ret = awr__pages_ring(s);
	if (ret) {
		set_status(pages, idx, k, ret);
		free(idx);
		return ret;
	}
	if (measure)
		m = (s->cal_batches & 1) ? AWR_PAGES_MODE_DOUBLEWRITE : AWR_PAGES_MODE_SOFTWARE;
	if (m != AWR_PAGES_MODE_DOUBLEWRITE && s->dw_live && s->dw_fd >= 0) {
		/*
		 * While measuring, the sync of the doublewrite batch just written is
		 * part of its cost: in doublewrite mode one sync serves dw_gens - 1
		 * batches, so that share of it is added to the batch's time per page.
		 */
		t0 = awr__now_ns();
		ret = awr__area_settle(s);
		if (measure && !ret && s->cal_batches && s->dw_gens > 1 && s->cal_dw_pages)
			s->cal_ns[1][(s->cal_batches - 1) / 2] += (double)(awr__now_ns() - t0) /
				(double)(s->dw_gens - 1) / (double)s->cal_dw_pages;
		if (!ret)
			ret = awr__area_void(s);
	}
	if (ret) {
		set_status(pages, idx, k, ret);
		free(idx);
		return ret;
	}
	t0 = awr__now_ns();
	ret = write_mode(s, m, pages, idx, k);
	if (ret == -ENOSPC && m == AWR_PAGES_MODE_SOFTWARE && lower_cow_hint(s)) {
		set_status(pages, idx, k, 0);
		ret = write_mode(s, m, pages, idx, k);
	}
	if (ret == -ENOSPC && m == AWR_PAGES_MODE_SOFTWARE && s->auto_cal && s->dw_fd >= 0) {
		ret = software_out_of_space(s, pages, idx, k);
		measure = false;
	}
	if (measure && !ret) {
		s->cal_ns[m == AWR_PAGES_MODE_DOUBLEWRITE][s->cal_batches / 2] =
			(double)(awr__now_ns() - t0) / (double)k;
		s->cal_dw_pages = m == AWR_PAGES_MODE_DOUBLEWRITE ? k : 0;
		if (++s->cal_batches == AWR_PAGES_LIVE_CAL) {
			s->review_after = s->review_after ? s->review_after * 2 : AWR_PAGES_REVIEW;
			if (s->review_after > AWR_PAGES_REVIEW_MAX)
				s->review_after = AWR_PAGES_REVIEW_MAX;
			settle(s);
		}
	}
	free(idx);
	return ret;
}

int awr_pages_write(struct awr_pages *s, struct awr_page *pages, unsigned int n)
{
	int ret;

	if (!s || (!pages && n))
		return awr__fail(-EINVAL, "no store, or no pages to write");
	for (unsigned int i = 0; i < n; i++) {
		if (!pages[i].buf || pages[i].page_no > UINT64_MAX / s->page_size - 1)
			return awr__fail(-EINVAL, "page %u of the batch has no buffer or a page "
					 "number past the largest offset", i);
	}
	if (!n)
		return 0;
	pthread_mutex_lock(&s->lock);
	ret = awr__pages_write_locked(s, pages, n);
	pthread_mutex_unlock(&s->lock);
	if (ret)
		awr__fail(ret, "a batch of %u pages in %s mode failed: %s (each page's status "
			  "says which)", n, awr_pages_mode_name(s->mode), strerror(-ret));
	return ret;
}

int awr_pages_read(struct awr_pages *s, void *buf, uint64_t page_no)
{
	uint32_t align = s && s->mem_align ? s->mem_align : 512;
	uint8_t *dst = buf;
	ssize_t got;

	if (!s || !buf || page_no > UINT64_MAX / s->page_size - 1)
		return -EINVAL;
	if ((uintptr_t)buf % align) {
		dst = awr__pages_alloc(s, s->page_size);
		if (!dst)
			return -ENOMEM;
	}
	got = awr__pread_full(s->fd, dst, s->page_size, page_no * s->page_size);
	if (got >= 0) {
		memset(dst + got, 0, s->page_size - (size_t)got);
		if (dst != buf)
			memcpy(buf, dst, s->page_size);
	}
	if (dst != buf)
		free(dst);
	return got < 0 ? (int)got : 0;
}
