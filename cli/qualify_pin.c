// SPDX-License-Identifier: MIT
/*
 * awr qualify's short_pin check (block devices): does the kernel tear an atomic write whose user
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
#include "short_pin.h"

#define PIN_FIX "'block: fail a short atomic pin in bio_iov_iter_get_pages()' (posted for 7.4)"

static void pin_figures(struct json_object *fig, uint64_t off, const struct pin_result *r,
			enum pin_outcome o)
{
	json_object_object_add(fig, "unit", out_u64(r->unit));
	json_object_object_add(fig, "offset", out_u64(off));
	json_object_object_add(fig, "pages", out_u64(r->pages));
	json_object_object_add(fig, "readable_pages", out_u64(r->pages - 1));
	json_object_object_add(fig, "returned", r->ret < 0 ?
			       json_object_new_string(out_errno_name((int)r->ret)) : out_u64((uint64_t)r->ret));
	json_object_object_add(fig, "pages_new", out_u64(r->pages_new));
	json_object_object_add(fig, "pages_old", out_u64(r->pages_old));
	json_object_object_add(fig, "outcome", json_object_new_string(pin_outcome_name(o)));
	json_object_object_add(fig, "kernel_has_fix", json_object_new_boolean(
		awr_kernel_has(awr_kernel_running(), AWR_KRULE_SHORT_PIN_FIXED)));
}

static void pin_verdict(struct qcheck *c, const struct pin_result *r, enum pin_outcome o)
{
	char a[32];

	out_size(r->unit, a, sizeof(a));
	switch (o) {
	case PIN_REFUSED:
		q_set(c, Q_PASS, "an atomic write of %s from a buffer whose last page cannot be read was refused "
		      "whole (%s): the range kept its data", a, out_errno_name((int)r->ret));
		break;
	case PIN_SHORT_KEPT:
		q_set(c, Q_PASS, "an atomic write of %s from a buffer whose last page cannot be read "
		      "returned %zd bytes, but the range kept its data: nothing torn", a, r->ret);
		break;
	case PIN_TORN:
		q_set(c, Q_FAIL, "the write tore: an atomic write of %s from a buffer whose last page cannot be "
		      "read returned %s and left %u of %u pages new (from page %u), %u old: kernel bug fixed by "
		      PIN_FIX, a, r->ret < 0 ? out_errno_name((int)r->ret) : "a short count", r->pages_new,
		      r->pages, r->first_new, r->pages_old);
		break;
	case PIN_WHOLE:
		q_set(c, Q_FAIL, "the kernel reported all %s written although the buffer's last page cannot be "
		      "read (%u of %u pages read back new)", a, r->pages_new, r->pages);
		break;
	default:
		q_set(c, Q_FAIL, "cannot read the range back after the write: %s", strerror(-r->read_err));
	}
}

void q_short_pin(struct qctx *q, struct qcheck *c)
{
	struct pin_result r;
	uint64_t off = q->unit;
	enum pin_outcome o;
	int wfd = -1, rfd = -1, ret;

	if (!q->writes_ok) {
		q_set(c, Q_SKIP, "the size sweep did not pass");
		return;
	}
	if (q->unit < 8192) {
		q_set(c, Q_SKIP, "the atomic unit (%u bytes) is one page: a buffer of it cannot pin in part",
		      q->unit);
		return;
	}
	wfd = reopen_fd(q->fd, O_RDWR | O_DIRECT);
	rfd = reopen_fd(q->fd, O_RDONLY | O_DIRECT);
	ret = wfd < 0 ? wfd : rfd < 0 ? rfd : pin_try(wfd, rfd, off, q->unit, &r);
	if (ret) {
		q_set(c, Q_FAIL, "cannot set the probe up on %s: %s", q->target, strerror(-ret));
	} else {
		o = pin_decide(&r);
		pin_figures(c->figures, off, &r, o);
		pin_verdict(c, &r, o);
	}
	if (wfd >= 0)
		close(wfd);
	if (rfd >= 0)
		close(rfd);
}
