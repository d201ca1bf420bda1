/* SPDX-License-Identifier: MIT */
/*
 * The short-pin probe of qualification (pin.c): one RWF_ATOMIC write from a buffer whose last
 * page is PROT_NONE, so that the kernel can pin only the pages before it, and what the range holds
 * after. The host test (tests/integration/short_pin.c) runs
 * the same code on a file and its decision on every outcome.
 */
#ifndef AWR_SHORT_PIN_H
#define AWR_SHORT_PIN_H

#include <stdint.h>
#include <sys/types.h>

#include "libatomicwr.h"

#define PIN_FILL_OLD	0x6f	/* 'o': the range before the write */
#define PIN_FILL_NEW	0x6e	/* 'n': the buffer written */


struct pin_result {
	uint32_t unit;		/* bytes written */
	uint32_t pages;		/* pages of @unit (the last one PROT_NONE in the buffer) */
	ssize_t ret;		/* the write's count or -errno */
	int read_err;		/* the read-back's -errno, 0 when it read the range */
	uint32_t pages_new;	/* pages that read back as the buffer */
	uint32_t pages_old;	/* pages that read back as before */
	uint32_t first_new;	/* index of the first new page (valid when pages_new) */
};

/*
 * Fill [@off, @off + @unit) through @wfd with PIN_FILL_OLD (a plain O_DIRECT write), write @unit
 * bytes of PIN_FILL_NEW there with RWF_ATOMIC | RWF_DSYNC from a buffer whose last page is
 * PROT_NONE, and read the range back through @rfd (O_DIRECT). 0, or -errno when the probe could
 * not be set up (the pre-fill or the mapping failed); the write's own result is in @r.
 */
int awr__pin_try(int wfd, int rfd, uint64_t off, uint32_t unit, struct pin_result *r);

/* What @r shows (no I/O: the decision alone). */
enum awr_qualify_pin_outcome awr__pin_decide(const struct pin_result *r);

#endif /* AWR_SHORT_PIN_H */
