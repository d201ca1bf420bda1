// SPDX-License-Identifier: MIT
/*
 * Untorn is not durable: what the write cache of the disk a write goes to (queue/write_cache,
 * queue/fua) means for durability, said once here for the probe's findings and the database
 * verdict's conditions. RWF_ATOMIC only forbids tearing; an acknowledged write sits in a volatile
 * cache until a flush reaches the device (fsync, fdatasync, O_DSYNC, RWF_DSYNC: REQ_PREFLUSH and
 * REQ_FUA). Without a volatile cache the kernel drops both (submit_bio_noacct(), block/blk-core.c);
 * without FUA it sends a FUA write as the write and then a flush (blk_flush_policy(),
 * block/blk-flush.c, 6.11..7.3).
 */
#include <stdio.h>
#include <string.h>

#include "private.h"
#include "discover/discover.h"

/* The verdict's condition sentences ({disk}: the disk whose queue was read; {fua}: its FUA). */
enum durability_text {
	D_COND_VOLATILE,
	D_COND_WRITE_THROUGH,
	D_COND_UNKNOWN,
};

static const char *const condition[] = {
	[D_COND_VOLATILE] =
		"the engine's fsync/O_DSYNC is still needed: {disk} has a volatile write cache "
		"(write back, {fua}), which loses acknowledged writes on a power cut unless "
		"flushed; RWF_ATOMIC only forbids tearing",
	[D_COND_WRITE_THROUGH] =
		"the engine's fsync/O_DSYNC is still needed: RWF_ATOMIC only forbids tearing, "
		"and the file's metadata is not durable without it; {disk} reports write "
		"through (no volatile cache)",
	[D_COND_UNKNOWN] =
		"the engine's fsync/O_DSYNC is still needed: RWF_ATOMIC only forbids tearing, "
		"and whether {disk} has a volatile write cache is unknown (no "
		"queue/write_cache)",
};

/* @t with {disk} and {fua} put in, into @buf. */
static void expand(enum durability_text t, const char *disk, enum awr_fua fua, char *buf,
		   size_t len)
{
	const char *fw = fua == AWR_FUA_YES ? "FUA 1" :
		fua == AWR_FUA_NO ? "FUA 0: each FUA write a flush" : "FUA unknown";
	const char *s = condition[t];
	size_t n = 0;

	while (*s && n + 1 < len) {
		const char *put = !strncmp(s, "{disk}", 6) ? disk :
			!strncmp(s, "{fua}", 5) ? fw : NULL;

		if (!put) {
			buf[n++] = *s++;
			continue;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s", put);
		if (n >= len)
			n = len - 1;
		s += put == disk ? 6 : 5;
	}
	buf[n] = '\0';
}

void awr__durability_findings(struct awr_probe *p)
{
	const struct awr_sysfs_view *y = &p->sysfs;

	if (!p->have_sysfs)
		return;
	if (y->write_cache == AWR_WRITE_CACHE_WRITE_THROUGH) {
		awr__probe_finding(p, AWR_FIND(write_cache_write_through), y->disk);
		return;
	}
	if (y->write_cache != AWR_WRITE_CACHE_WRITE_BACK)
		return;
	awr__probe_finding(p, AWR_FIND(write_cache_volatile), y->disk);
	if (y->fua == AWR_FUA_YES)
		awr__probe_finding(p, AWR_FIND(fua_native), y->disk);
	else if (y->fua == AWR_FUA_NO)
		awr__probe_finding(p, AWR_FIND(fua_emulated), y->disk);
}

void awr__durability_condition(const char *disk, char *buf, size_t len)
{
	enum durability_text t = D_COND_UNKNOWN;
	enum awr_write_cache wc;
	enum awr_fua fua;

	awr__sysfs_disk_cache(disk, &wc, &fua);
	if (wc == AWR_WRITE_CACHE_WRITE_BACK)
		t = D_COND_VOLATILE;
	else if (wc == AWR_WRITE_CACHE_WRITE_THROUGH)
		t = D_COND_WRITE_THROUGH;
	expand(t, disk, fua, buf, len);
}
