// SPDX-License-Identifier: MIT
/*
 * Fault points of the page store, for crash tests: AWR_PAGES_FAULT=KIND:N,
 * read with secure_getenv() when the store is opened (ignored in set-uid
 * programs). The process ends with _exit(99) at the point, as a crash would
 * end it: no cleanup, no sync, writes already sent go on in the kernel.
 * The points of the in-place writes are here: write.c calls them between one
 * write and the next (from the queued-write loop's next and sent calls,
 * lib/write/batch.c) and as a doublewrite chunk begins; area:N's, which cuts
 * an area write, is in area.c beside the area's layout.
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

/* The end at a fault point: the writes queued go to the kernel first, as they would go on. */
static void crash(struct awr_pages *s)
{
	awr_queue_submit(s->ring);
	awr__pages_fault_exit();
}

/*
 * Before in-place write s->issued + 1 of @buf at @off: crash:N when N were
 * issued (crash:0 before the first), tear:N in a doublewrite batch: the first
 * half of this write, directly, then the end.
 */
void awr__pages_fault_write(struct awr_pages *s, const void *buf, uint64_t off)
{
	if (s->fault.kind == AWR_PAGES_FAULT_CRASH && s->issued == s->fault.n)
		crash(s);
	if (s->fault.kind == AWR_PAGES_FAULT_TEAR && s->batch_mode == AWR_PAGES_MODE_DOUBLEWRITE &&
	    s->issued == s->fault.n) {
		awr_queue_submit(s->ring);
		(void)!pwrite(s->fd, buf, s->page_size / 2, (off_t)off);
		awr__pages_fault_exit();
	}
}

/* After in-place write s->issued was queued: crash:N once N were issued. */
void awr__pages_fault_issued(struct awr_pages *s)
{
	if (s->fault.kind == AWR_PAGES_FAULT_CRASH && s->issued == s->fault.n)
		crash(s);
}

/* held:N, as a doublewrite batch begins: the last one acknowledged, its writes not synced. */
void awr__pages_fault_batch(const struct awr_pages *s)
{
	if (s->fault.kind == AWR_PAGES_FAULT_HELD && s->issued > s->fault.n)
		awr__pages_fault_exit();
}

/* synced:N, a chunk of @k pages durable in the area: the end when it holds in-place write N+1. */
void awr__pages_fault_synced(const struct awr_pages *s, unsigned int k)
{
	if (s->fault.kind == AWR_PAGES_FAULT_SYNCED && s->fault.n >= s->issued &&
	    s->fault.n < s->issued + k)
		awr__pages_fault_exit();
}

void awr__pages_say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
