// SPDX-License-Identifier: MIT
/*
 * Fault points of the page store, for crash tests: AWR_PAGES_FAULT=KIND:N,
 * read with secure_getenv() when the store is opened (ignored in set-uid
 * programs). The process ends with _exit(99) at the point, as a crash would
 * end it: no cleanup, no sync, writes already sent go on in the kernel.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pages/pages.h"

static const struct {
	const char *name;
	enum awr__pages_fault_kind kind;
} kinds[] = {
	{ "crash", AWR_PAGES_FAULT_CRASH },
	{ "tear", AWR_PAGES_FAULT_TEAR },
	{ "area", AWR_PAGES_FAULT_AREA },
	{ "synced", AWR_PAGES_FAULT_SYNCED },
	{ "held", AWR_PAGES_FAULT_HELD },
	{ "nosync", AWR_PAGES_FAULT_NOSYNC },
};

int awr__pages_fault_parse(const char *spec, struct awr__pages_fault *out)
{
	const char *colon;
	char *end;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		return 0;
	colon = strchr(spec, ':');
	if (!colon || !colon[1])
		return -EINVAL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].name) != (size_t)(colon - spec) ||
		    strncmp(spec, kinds[i].name, (size_t)(colon - spec)))
			continue;
		errno = 0;
		out->n = strtoull(colon + 1, &end, 10);
		if (errno || *end || colon[1] == '-')
			return -EINVAL;
		out->kind = kinds[i].kind;
		return 0;
	}
	return -EINVAL;
}

/*
 * nosync:N: does the fault drop the durability of the batch being written?
 * (Once N in-place page writes were issued. The negative control of the
 * replayed power cuts, tests/vm/guest/replay_cycles.sh: an acknowledged batch
 * must be found missing at some replay point.)
 */
bool awr__pages_fault_nosync(const struct awr_pages *s)
{
	return s->fault.kind == AWR_PAGES_FAULT_NOSYNC && s->issued >= s->fault.n;
}

void awr__pages_fault_exit(void)
{
	_exit(99);
}

void awr__pages_say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
