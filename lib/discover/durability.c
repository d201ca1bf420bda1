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

enum durability_text {
	D_VOLATILE,
	D_FUA_EMULATED,
	D_FUA_NATIVE,
	D_WRITE_THROUGH,
	D_COND_VOLATILE,
	D_COND_WRITE_THROUGH,
	D_COND_UNKNOWN,
};

/* The catalogue: id, severity, template ({disk}: the disk whose queue was read; {fua}: its FUA). */
static const struct {
	const char *id;
	enum awr_severity sev;
	const char *text;
} catalogue[] = {
	[D_VOLATILE] = { "write_cache_volatile", AWR_SEV_INFO,
		"untorn is not durable: {disk} has a volatile write cache (queue/write_cache "
		"\"write back\"): an acknowledged write, atomic or not, is lost on a power cut "
		"until fsync, fdatasync or O_DSYNC/RWF_DSYNC flushes it" },
	[D_FUA_EMULATED] = { "fua_emulated", AWR_SEV_INFO,
		"{disk} takes no FUA writes (queue/fua 0): the block layer sends each FUA "
		"write (RWF_DSYNC on O_DIRECT, a journal commit) as the write and then a flush "
		"of the whole cache" },
	[D_FUA_NATIVE] = { "fua_native", AWR_SEV_INFO,
		"{disk} takes FUA writes (queue/fua 1): an O_DIRECT write with RWF_DSYNC "
		"reaches stable media by itself, without a flush of the whole cache" },
	[D_WRITE_THROUGH] = { "write_cache_write_through", AWR_SEV_INFO,
		"{disk} reports no volatile write cache (queue/write_cache \"write through\"): "
		"the kernel sends it no flushes; durable if the device has none or power-loss "
		"protection, not if \"write through\" was written over a volatile one" },
	[D_COND_VOLATILE] = { "durability", AWR_SEV_INFO,
		"the engine's fsync/O_DSYNC is still needed: {disk} has a volatile write cache "
		"(write back, {fua}), which loses acknowledged writes on a power cut unless "
		"flushed; RWF_ATOMIC only forbids tearing" },
	[D_COND_WRITE_THROUGH] = { "durability", AWR_SEV_INFO,
		"the engine's fsync/O_DSYNC is still needed: RWF_ATOMIC only forbids tearing, "
		"and the file's metadata is not durable without it; {disk} reports write "
		"through (no volatile cache)" },
	[D_COND_UNKNOWN] = { "durability", AWR_SEV_INFO,
		"the engine's fsync/O_DSYNC is still needed: RWF_ATOMIC only forbids tearing, "
		"and whether {disk} has a volatile write cache is unknown (no "
		"queue/write_cache)" },
};

/* @t with {disk} and {fua} put in, into @buf. */
static void expand(enum durability_text t, const char *disk, enum awr_fua fua, char *buf,
		   size_t len)
{
	const char *fw = fua == AWR_FUA_YES ? "FUA 1" :
		fua == AWR_FUA_NO ? "FUA 0: each FUA write a flush" : "FUA unknown";
	const char *s = catalogue[t].text;
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

static void add(struct awr_probe *p, enum durability_text t, const struct awr_sysfs_view *y)
{
	char msg[sizeof(((struct awr_finding *)0)->message)];

	expand(t, y->disk, y->fua, msg, sizeof(msg));
	awr__add_finding(p, catalogue[t].id, catalogue[t].sev, "%s", msg);
}

void awr__durability_findings(struct awr_probe *p)
{
	const struct awr_sysfs_view *y = &p->sysfs;

	if (!p->have_sysfs)
		return;
	if (y->write_cache == AWR_WRITE_CACHE_WRITE_THROUGH) {
		add(p, D_WRITE_THROUGH, y);
		return;
	}
	if (y->write_cache != AWR_WRITE_CACHE_WRITE_BACK)
		return;
	add(p, D_VOLATILE, y);
	if (y->fua != AWR_FUA_UNKNOWN)
		add(p, y->fua == AWR_FUA_YES ? D_FUA_NATIVE : D_FUA_EMULATED, y);
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
