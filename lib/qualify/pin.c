// SPDX-License-Identifier: MIT
/*
 * qualification's short_pin check (block devices): does the kernel tear an atomic write whose user
 * buffer it can pin only in part? The probe and its decision are short_pin.c's; here they become
 * a PASS or FAIL with the figures. It writes qualify's own scratch area, [unit, 2 * unit) within
 * the sweep's [0, 2 * unit_max), on the target qualify already holds (target_open()'s safety
 * rules: a mounted, in-use or formatted device only with --force), and runs last, so that the
 * range it leaves can be read after qualify ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "qualify.h"
#include "private.h"
#include "short_pin.h"

#define PIN_FIX "'block: fail a short atomic pin in bio_iov_iter_get_pages()' (posted for 7.4)"

static void pin_figures(struct awr_qualify_short_pin *x, uint64_t off,
			const struct pin_result *r, enum awr_qualify_pin_outcome o)
{
	*x = (struct awr_qualify_short_pin){ .ran = true, .unit = r->unit, .offset = off,
		.pages = r->pages, .returned = r->ret, .read_error = r->read_err,
		.pages_new = r->pages_new, .pages_old = r->pages_old, .first_new = r->first_new,
		.outcome = o,
		.kernel_has_fix = awr_kernel_has(awr_kernel_running(),
						 AWR_KRULE_SHORT_PIN_FIXED) };
}

static void pin_verdict(struct awr_qualify_check *c, const struct pin_result *r,
			enum awr_qualify_pin_outcome o)
{
	const char *err = awr__errno_name((int)r->ret);
	char a[32], b[32];

	awr_format_size(r->unit, a, sizeof(a));
	switch (o) {
	case AWR_QUALIFY_PIN_REFUSED:
		awr__q_set(c, AWR_QUALIFY_PASS, "an atomic write of %s from a buffer whose last "
			   "page cannot be read was refused whole (%s): the range kept its data", a,
			   err);
		break;
	case AWR_QUALIFY_PIN_SHORT_KEPT:
		awr__q_set(c, AWR_QUALIFY_PASS, "an atomic write of %s from a buffer whose last "
			   "page cannot be read returned %s, but the range kept its data: "
			   "nothing torn", a, awr_format_size((uint64_t)r->ret, b, sizeof(b)));
		break;
	case AWR_QUALIFY_PIN_TORN:
		awr__q_set(c, AWR_QUALIFY_FAIL, "the write tore: an atomic write of %s from a "
			   "buffer whose last page cannot be read returned %s and left %u of %u "
			   "pages new (from page %u), %u old: kernel bug fixed by " PIN_FIX, a,
			   r->ret < 0 ? err : "a short count", r->pages_new, r->pages, r->first_new,
			   r->pages_old);
		awr__q_todo(c, "run a kernel with the fix " PIN_FIX ", or never submit atomic "
			    "writes from a buffer that may be partly unmapped");
		break;
	case AWR_QUALIFY_PIN_WHOLE:
		awr__q_set(c, AWR_QUALIFY_FAIL, "the kernel reported all %s written although the "
			   "buffer's last page cannot be read (%u of %u pages read back new)", a,
			   r->pages_new, r->pages);
		break;
	default:
		awr__q_set(c, AWR_QUALIFY_FAIL, "cannot read the range back after the write: %s",
			   strerror(-r->read_err));
	}
}

void awr__q_short_pin(struct awr__qctx *q, struct awr_qualify_check *c)
{
	uint32_t unit = q->r->unit;
	struct pin_result r;
	uint64_t off = unit;
	enum awr_qualify_pin_outcome o;
	int wfd = -1, rfd = -1, ret;
	char a[32];

	if (!q->writes_ok) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "the size sweep did not pass");
		return;
	}
	if (unit < 8192) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "the atomic unit (%s) is one page: a buffer "
			   "of it cannot pin in part", awr_format_size(unit, a, sizeof(a)));
		return;
	}
	wfd = awr__reopen(q->fd, O_RDWR | O_DIRECT);
	rfd = awr__reopen(q->fd, O_RDONLY | O_DIRECT);
	ret = wfd < 0 ? wfd : rfd < 0 ? rfd : awr__pin_try(wfd, rfd, off, unit, &r);
	if (ret) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "cannot set the probe up on %s: %s", q->r->target,
			   strerror(-ret));
	} else {
		o = awr__pin_decide(&r);
		pin_figures(&q->r->short_pin, off, &r, o);
		pin_verdict(c, &r, o);
	}
	if (wfd >= 0)
		close(wfd);
	if (rfd >= 0)
		close(rfd);
}
