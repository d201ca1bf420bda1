// SPDX-License-Identifier: MIT
/*
 * The one error channel, as dlerror() and libnvme's nvme_errno_to_string(): a
 * failing call returns -errno (or NULL) and leaves a sentence in this thread
 * that awr_last_error() returns until the thread's next failure that says more.
 */
#include <stdarg.h>
#include <stdio.h>

#include "private.h"

static __thread char last[1024];	/* a sentence with a path in it (PATH_MAX cut short) */
static __thread unsigned long nr_failures;

const char *awr_last_error(void)
{
	return last;
}

int awr__vfail(int err, const char *fmt, va_list ap)
{
	vsnprintf(last, sizeof(last), fmt, ap);
	nr_failures++;
	return err;
}

unsigned long awr__failures(void)
{
	return nr_failures;
}

int awr__fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	awr__vfail(err, fmt, ap);
	va_end(ap);
	return err;
}
