/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/pages.h - the untorn page store: fixed-size pages, each page write
 * untorn on any storage (RWF_ATOMIC where the stack offers it, else the
 * store's own doublewrite area), with recovery when the store is opened.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_PAGES_H
#define LIBATOMICWR_PAGES_H

#include <libatomicwr/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- the untorn page store ---------------------------------------------- */

/*
 * A file (or block device) of fixed-size pages, each page write untorn on
 * any storage: by RWF_ATOMIC where the stack offers it, else through the
 * store's own doublewrite area, with recovery when the store is opened.
 * See awr_pages_open(3).
 */
struct awr_pages;

/* One page of a batch: the caller fills buf and page_no; status is set per page. */
struct awr_page {
	const void *buf;	/* page_size bytes */
	uint64_t page_no;	/* written at page_no * page_size */
	int status;		/* out: 0 or -errno */
};

enum awr_pages_mode {
	AWR_PAGES_MODE_HARDWARE = 1,	/* RWF_ATOMIC on the device's own atomic writes */
	AWR_PAGES_MODE_SOFTWARE,	/* RWF_ATOMIC through the filesystem's copy-on-write path */
	AWR_PAGES_MODE_DOUBLEWRITE,	/* the store's doublewrite area, then in place */
};

/* awr_pages_open() flags: AWR_PAGES_CREATE and at most one mode */
#define AWR_PAGES_AUTO		0U		/* the fastest untorn mode on this target */
#define AWR_PAGES_HARDWARE	(1U << 0)
#define AWR_PAGES_SOFTWARE	(1U << 1)
#define AWR_PAGES_DOUBLEWRITE	(1U << 2)
#define AWR_PAGES_CREATE	(1U << 8)	/* create a missing store file */

/**
 * awr_pages_open() - open (or create) a page store and recover it
 * @path:	a regular file or a block device not in use
 * @page_size:	the page size: a power of two, 512 .. 1 MiB
 * @flags:	AWR_PAGES_CREATE, and AWR_PAGES_AUTO or one forced mode
 * @out:	the store, or NULL on failure
 *
 * Picks the mode (see awr_pages_explain()), then repairs every page that the
 * doublewrite area `PATH.awr-dw` records as written by the last batch and
 * whose copy in place is torn or older.
 *
 * Return: 0, or -EOPNOTSUPP when a forced mode cannot be honoured here,
 * -EEXIST when PATH.awr-dw is not this store's area, -EBUSY for a target in
 * use, -EINVAL for bad arguments, another negative errno; awr_last_error()
 * says why (the mode refused and its reason, the area found, the path).
 */
int awr_pages_open(const char *path, uint32_t page_size, unsigned int flags,
		   struct awr_pages **out);

/**
 * awr_pages_write() - write pages, each untorn, durable on return
 * @s:		the store
 * @pages:	the pages; a page_no given twice: the last copy wins
 * @n:		number of pages
 *
 * Return: 0 when every page is durable; else the first error, with each
 * page's @status set (0 or -errno) and awr_last_error() naming the batch.
 */
int awr_pages_write(struct awr_pages *s, struct awr_page *pages, unsigned int n);

/**
 * awr_pages_read() - read one page
 * @s:		the store
 * @buf:	page_size bytes
 * @page_no:	the page; a page beyond the end reads as zeros
 *
 * Return: 0 or a negative errno.
 */
int awr_pages_read(struct awr_pages *s, void *buf, uint64_t page_no);

/**
 * awr_pages_close() - close a store
 * @s:	the store (NULL is fine)
 *
 * Every write returned is durable already: closing syncs nothing.
 *
 * Return: 0.
 */
int awr_pages_close(struct awr_pages *s);

/**
 * awr_pages_mode() - the mode the store writes in
 * @s:	the store
 *
 * Return: AWR_PAGES_MODE_HARDWARE, _SOFTWARE or _DOUBLEWRITE.
 */
enum awr_pages_mode awr_pages_mode(const struct awr_pages *s);

/**
 * awr_pages_mode_name() - "hardware", "software" or "doublewrite"
 * @m:	a mode
 *
 * Return: the name, or "unknown".
 */
const char *awr_pages_mode_name(enum awr_pages_mode m);

/**
 * awr_pages_explain() - why the store chose its mode, in one sentence
 * @s:	an open store (why an open failed: awr_last_error())
 *
 * Return: a string owned by the store. AUTO rewrites it once, inside the
 * write that settles its choice (the 8th batch).
 */
const char *awr_pages_explain(const struct awr_pages *s);

/**
 * awr_pages_recovered() - pages repaired from the doublewrite area on open
 * @s:	the store
 *
 * Return: the number of pages restored by awr_pages_open().
 */
unsigned int awr_pages_recovered(const struct awr_pages *s);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_PAGES_H */
