// SPDX-License-Identifier: MIT
/*
 * AUTO's rule between software and doublewrite mode, on a target that offers
 * both: time both on two scratch files beside the store (made with mkstemp in
 * the store's directory and unlinked at once, so nothing is left behind even
 * after a crash): CAL_PAGES pages written once plainly, then one warm-up round
 * and CAL_ROUNDS timed rounds, each a batch of CAL_PAGES pages in each mode
 * through the same code as awr_pages_write() (alternating which goes first).
 * A doublewrite batch is charged its share of the store sync that a
 * store's area spreads over its generations less one. The mode with the
 * smaller total time wins; a tie keeps software mode (one copy of the data).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pages/pages.h"

#define CAL_PAGES	32U
#define CAL_ROUNDS	3U

/* A scratch file beside @path, opened O_DIRECT, its name already removed. */
static int scratch(const char *path, const char *what)
{
	char name[4096 + 32];
	int fd;

	snprintf(name, sizeof(name), "%s.awr-%s.XXXXXX", path, what);
	fd = mkostemp(name, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the descriptor mkostemp gave, never the path again (it could be replaced) */
	unlink(name);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int timed(struct awr_pages *t, enum awr_pages_mode m, struct awr_page *pages, uint64_t *ns,
		 unsigned int gens)
{
	uint64_t t0 = awr__now_ns(), t1;
	int ret;

	t->mode = m;
	t->dw_live = 0;		/* scratch files: no need to void the area between modes */
	ret = awr__pages_write_locked(t, pages, CAL_PAGES);
	t1 = awr__now_ns();
	*ns += t1 - t0;
	if (!ret && m == AWR_PAGES_MODE_DOUBLEWRITE) {
		ret = awr__area_settle(t);
		*ns += (awr__now_ns() - t1) / (gens - 1);
	}
	return ret;
}

static int run(struct awr_pages *t, uint8_t *data, struct awr__pages_calibration *out)
{
	struct awr_page pages[CAL_PAGES];
	struct awr_pages shape = { .page_size = t->page_size };
	unsigned int idx[CAL_PAGES];
	uint64_t sw = 0, dw = 0;
	int ret;

	awr__area_geometry(&shape);	/* the store's area: one sync per dw_gens - 1 batches */
	for (unsigned int i = 0; i < CAL_PAGES; i++) {
		pages[i] = (struct awr_page){.buf = data + (size_t)i * t->page_size, .page_no = i};
		idx[i] = i;
	}
	ret = awr__pages_in_place(t, pages, idx, CAL_PAGES, false);
	if (!ret && fdatasync(t->fd))
		ret = -errno;
	for (unsigned int r = 0; r <= CAL_ROUNDS && !ret; r++) {
		uint64_t a = 0, b = 0;

		memset(data, (int)r + 1, (size_t)CAL_PAGES * t->page_size);
		if (r & 1) {
			ret = timed(t, AWR_PAGES_MODE_DOUBLEWRITE, pages, &b, shape.dw_gens);
			if (!ret)
				ret = timed(t, AWR_PAGES_MODE_SOFTWARE, pages, &a, shape.dw_gens);
		} else {
			ret = timed(t, AWR_PAGES_MODE_SOFTWARE, pages, &a, shape.dw_gens);
			if (!ret)
				ret = timed(t, AWR_PAGES_MODE_DOUBLEWRITE, pages, &b,
					    shape.dw_gens);
		}
		if (r) {	/* round 0 warms up */
			sw += a;
			dw += b;
		}
	}
	out->software_ns = sw;
	out->doublewrite_ns = dw;
	out->pages = CAL_PAGES;
	out->rounds = CAL_ROUNDS;
	return ret;
}

int awr__pages_calibrate(const struct awr_pages *s, const char *path,
			 struct awr__pages_calibration *out)
{
	struct awr_pages t = {
		.page_size = s->page_size,
		.mem_align = s->mem_align,
		.fd = -1,
		.lock_fd = -1,
		.dw_fd = -1,
		.dw_slots = CAL_PAGES,
		.dw_gens = 1,
		.seq = 1,
	};
	uint8_t *data = NULL;
	int fd, ret;

	fd = scratch(path, "cal");
	if (fd < 0)
		return fd;
	ret = awr_file_adopt(fd, &t.file);
	if (ret)
		return ret;
	t.fd = fd;
	t.dw_fd = scratch(path, "caldw");
	if (t.dw_fd < 0) {
		ret = t.dw_fd;
		goto out;
	}
	t.dw_buf = awr__pages_alloc(
		&t, AWR_PAGES_DW_BLOCK + (size_t)t.dw_slots * t.page_size); /* one generation */
	data = awr__pages_alloc(&t, (size_t)CAL_PAGES * t.page_size);
	if (!t.dw_buf || !data) {
		ret = -ENOMEM;
		goto out;
	}
	memset(data, 0, (size_t)CAL_PAGES * t.page_size);
	ret = awr__area_new(&t, t.dw_fd);
	if (!ret)
		ret = awr__pages_ring(&t);
	if (!ret)
		ret = run(&t, data, out);
out:
	free(data);
	awr__area_close(&t);
	awr__pages_rings_free(&t);
	awr_file_close(t.file);
	return ret;
}
