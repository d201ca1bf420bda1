// SPDX-License-Identifier: MIT
/*
 * The short-pin probe (short_pin.h). The kernel bug it looks for: block/bio.c
 * bio_iov_iter_get_pages() pins what it can of a user buffer and returns success with a
 * shorter bio when a later page cannot be pinned; block/fops.c __blkdev_direct_IO_simple() /
 * __blkdev_direct_IO() send that bio with REQ_ATOMIC and blkdev_write_iter() passes the rest to
 * the page cache. For an RWF_ATOMIC write that is a torn write reported as a short count (since
 * caf336f81b3a, 6.11; the fix "block: fail a short atomic pin in bio_iov_iter_get_pages()" was
 * posted for 7.4). A unit_min above the pinned length refuses the shorter bio instead (EINVAL,
 * blk_validate_atomic_write_op_size()); XFS files fail the write whole (EFAULT, 6.18).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "short_pin.h"

#define PIN_PAGE	4096U

static int fill_old(int wfd, uint64_t off, uint32_t unit)
{
	void *b;
	ssize_t n;

	if (posix_memalign(&b, PIN_PAGE, unit))
		return -ENOMEM;
	memset(b, PIN_FILL_OLD, unit);
	n = pwrite(wfd, b, unit, (off_t)off);
	free(b);
	if (n < 0)
		return -errno;
	return n == (ssize_t)unit && !fdatasync(wfd) ? 0 : -EIO;
}

static bool page_is(const unsigned char *p, unsigned char c)
{
	return p[0] == c && !memcmp(p, p + 1, PIN_PAGE - 1);
}

/* Count the pages of the range that hold the new and the old fill. */
static void read_back(int rfd, uint64_t off, struct pin_result *r)
{
	unsigned char *b;
	ssize_t n;

	if (posix_memalign((void **)&b, PIN_PAGE, r->unit)) {
		r->read_err = -ENOMEM;
		return;
	}
	n = pread(rfd, b, r->unit, (off_t)off);
	if (n != (ssize_t)r->unit) {
		r->read_err = n < 0 ? -errno : -EIO;
		free(b);
		return;
	}
	for (uint32_t i = 0; i < r->pages; i++) {
		if (page_is(b + (size_t)i * PIN_PAGE, PIN_FILL_NEW)) {
			if (!r->pages_new++)
				r->first_new = i;
		} else if (page_is(b + (size_t)i * PIN_PAGE, PIN_FILL_OLD)) {
			r->pages_old++;
		}
	}
	free(b);
}

int awr__pin_try(int wfd, int rfd, uint64_t off, uint32_t unit, struct pin_result *r)
{
	struct iovec iov;
	char *m;
	int ret;

	memset(r, 0, sizeof(*r));
	r->unit = unit;
	r->pages = unit / PIN_PAGE;
	if (unit % PIN_PAGE || r->pages < 2)
		return -EINVAL;
	ret = fill_old(wfd, off, unit);
	if (ret)
		return ret;
	/* the buffer: @unit bytes whose last page is PROT_NONE */
	m = mmap(NULL, unit, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	memset(m, PIN_FILL_NEW, unit);
	if (mprotect(m + unit - PIN_PAGE, PIN_PAGE, PROT_NONE)) {
		ret = -errno;
		munmap(m, unit);
		return ret;
	}
	iov = (struct iovec){ m, unit };
	r->ret = awr_pwrite_raw(wfd, &iov, 1, off, AWR_WRITE_DSYNC);
	munmap(m, unit);
	read_back(rfd, off, r);
	return 0;
}

enum awr_qualify_pin_outcome awr__pin_decide(const struct pin_result *r)
{
	if (r->read_err)
		return AWR_QUALIFY_PIN_NO_READ;
	if (r->ret == (ssize_t)r->unit)
		return AWR_QUALIFY_PIN_WHOLE;
	if (r->pages_old != r->pages)
		return AWR_QUALIFY_PIN_TORN;
	return r->ret < 0 ? AWR_QUALIFY_PIN_REFUSED : AWR_QUALIFY_PIN_SHORT_KEPT;
}

const char *awr_qualify_pin_outcome_name(enum awr_qualify_pin_outcome o)
{
	static const char *const names[] = {
		[AWR_QUALIFY_PIN_REFUSED] = "refused_whole",
		[AWR_QUALIFY_PIN_SHORT_KEPT] = "short_nothing_written",
		[AWR_QUALIFY_PIN_TORN] = "torn",
		[AWR_QUALIFY_PIN_WHOLE] = "whole",
		[AWR_QUALIFY_PIN_NO_READ] = "no_read_back",
	};

	return (unsigned int)o < sizeof(names) / sizeof(names[0]) ? names[o] : "unknown";
}
