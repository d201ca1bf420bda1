// SPDX-License-Identifier: MIT
/*
 * The verdict's scope: what makes the qualified unit atomic on the target. A block device with
 * atomic writes writes them itself; a file's atomic write takes the hardware path when the device
 * below has atomic writes of the unit and the extent is aligned, and the filesystem's software
 * path otherwise (XFS: xfs_atomic_write_cow_iomap_begin(), Linux 6.16). A PASS by the software
 * path alone says so, and AWR_QUALIFY_REQUIRE_HARDWARE makes it a FAIL.
 */
#include <stdio.h>

#include "private.h"
#include "qualify.h"

#define TODO_HARDWARE	"put the data on a device with atomic writes of at least %s of its own " \
	"(awr list shows unit_max per disk), or accept the software path"

/* ", atomic page writes ran 6.6x slower than plain ones", when the benchmark measured so */
static void slower(const struct awr_qualify_report *r, char *buf, size_t len)
{
	const struct awr_bench_mode_result *at, *pl;

	buf[0] = '\0';
	if (!r->perf || r->perf_error)
		return;
	at = awr_bench_result_mode(r->perf, AWR_BENCH_ATOMIC);
	pl = awr_bench_result_mode(r->perf, AWR_BENCH_PLAIN);
	if (at->ran && pl->ran && at->pages_per_s > 0 && pl->pages_per_s > at->pages_per_s)
		snprintf(buf, len, "; atomic page writes ran %.1fx slower than plain ones here",
			 pl->pages_per_s / at->pages_per_s);
}

static enum awr_qualify_scope file_scope(struct awr__qctx *q, const struct awr_fs_view *v)
{
	struct awr_qualify_report *r = q->r;
	char u[32], m[32], s[96];
	const char *dev = v->device[0] ? v->device : "the device";

	awr__human_bytes(r->unit, u, sizeof(u));
	awr__human_bytes(v->hardware_max, m, sizeof(m));
	r->hardware_max = v->hardware_max;
	if (v->hw_atomic && v->hardware_max >= r->unit) {
		snprintf(r->scope_text, sizeof(r->scope_text), "atomic writes of %s by the "
			 "hardware path of %s below the filesystem (up to %s, on aligned "
			 "extents)", u, dev, m);
		return AWR_QUALIFY_SCOPE_HARDWARE;
	}
	slower(r, s, sizeof(s));
	if (v->hw_atomic) {
		snprintf(r->scope_text, sizeof(r->scope_text), "atomic writes of %s by the "
			 "filesystem's software path: %s below writes atomically only up to %s%s",
			 u, dev, m, s);
		return AWR_QUALIFY_SCOPE_PARTIAL_HARDWARE;
	}
	snprintf(r->scope_text, sizeof(r->scope_text), "atomic writes by the filesystem's "
		 "software path only, no hardware atomics below (%s has none)%s", dev, s);
	return AWR_QUALIFY_SCOPE_SOFTWARE_ONLY;
}

static enum awr_qualify_scope judge(struct awr__qctx *q)
{
	struct awr_qualify_report *r = q->r;
	const struct awr_sysfs_view *y = awr_probe_sysfs(r->probe);
	struct awr_fs_view v;
	char a[32], b[32];

	if (!r->limits.supported) {
		snprintf(r->scope_text, sizeof(r->scope_text), "no atomic writes on this target");
		return AWR_QUALIFY_SCOPE_NONE;
	}
	if (r->block_device) {
		r->hardware_max = r->limits.unit_max;
		snprintf(r->scope_text, sizeof(r->scope_text), "atomic writes by the device "
			 "itself: %s writes units of %s to %s",
			 y && y->disk[0] ? y->disk : "the device",
			 awr__human_bytes(r->limits.unit_min, a, sizeof(a)),
			 awr__human_bytes(r->limits.unit_max, b, sizeof(b)));
		return AWR_QUALIFY_SCOPE_HARDWARE;
	}
	if (awr_fs_view_fd(q->fd, &v)) {
		snprintf(r->scope_text, sizeof(r->scope_text), "atomic writes by a path not known: "
			 "the filesystem view of the target could not be read");
		return AWR_QUALIFY_SCOPE_UNKNOWN;
	}
	return file_scope(q, &v);
}

void awr__q_scope(struct awr__qctx *q)
{
	struct awr_qualify_report *r = q->r;
	char u[32];

	r->scope = judge(q);
	r->require_hardware = q->flags & AWR_QUALIFY_REQUIRE_HARDWARE;
	r->requirement_met = !r->require_hardware || r->scope == AWR_QUALIFY_SCOPE_HARDWARE;
	if (r->requirement_met)
		return;
	snprintf(r->requirement, sizeof(r->requirement), "hardware atomic writes were "
		 "required, and this target has %s", r->scope_text);
	snprintf(r->what_to_do, sizeof(r->what_to_do), TODO_HARDWARE,
		 awr__human_bytes(r->unit, u, sizeof(u)));
}
