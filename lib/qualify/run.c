// SPDX-License-Identifier: MIT
/*
 * awr_qualify_run(): the target probed, the checks run in order (checks.c, stress.c, crash.c,
 * perf.c, path.c, pin.c), each PASS, FAIL, SKIP or INFO with a reason and figures, then the
 * verdict.
 */
#include <errno.h>
#include <libgen.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>

#include "private.h"
#include "qualify.h"

#define STRESS_UNIT	16384U	/* a database page */

/* What to do about a FAIL, when the check names nothing more precise (awr__q_todo()). */
#define TODO_DISCOVERY	"use a target whose kernel reports atomic writes: awr probe PATH says " \
	"what this one lacks"
#define TODO_SWEEP	"do not rely on atomic writes on this target: report the size that " \
	"failed with the kernel version and device model (awr probe PATH -o json)"
#define TODO_REFUSALS	"report the case with the kernel version: awr check and this kernel " \
	"disagree, so a write awr accepts may be refused, or one it refuses written"
#define TODO_TORN	"do not turn off torn-page protection on this target: run awr stress " \
	"and awr verify on it to see the torn units, and report them with the kernel version"
#define TODO_CRASH	"do not turn off torn-page protection here until a crash run passes: " \
	"the reason says what failed (the check needs root, mkfs.xfs and a free loop device)"
#define TODO_PERF	"see the reason: the benchmark needs 64 MiB of free space and io_uring " \
	"allowed (sysctl kernel.io_uring_disabled=0)"
#define TODO_HW_PATH	"give database files aligned extents (awr prepare, an extent size " \
	"hint of the page size) and keep reflinked copies off them, so pages take the " \
	"hardware path"
#define TODO_PIN	"run a kernel that fixes the short atomic pin (the reason names it), " \
	"or never submit atomic writes from a buffer that may be partly unmapped"

static const struct {
	const char *name;
	void (*run)(struct awr__qctx *q, struct awr_qualify_check *c);
	const char *todo;
} checks[AWR_QUALIFY__CHECKS] = {
	[AWR_QUALIFY_DISCOVERY] = { "discovery", awr__q_discovery, TODO_DISCOVERY },
	[AWR_QUALIFY_SIZE_SWEEP] = { "size_sweep", awr__q_size_sweep, TODO_SWEEP },
	[AWR_QUALIFY_KERNEL_REFUSALS] = { "kernel_refusals", awr__q_refusals, TODO_REFUSALS },
	[AWR_QUALIFY_CONCURRENT_TORN] = { "concurrent_torn", awr__q_concurrency, TODO_TORN },
	[AWR_QUALIFY_CRASH] = { "crash", awr__q_crash, TODO_CRASH },
	[AWR_QUALIFY_PERFORMANCE] = { "performance", awr__q_performance, TODO_PERF },
	[AWR_QUALIFY_HARDWARE_PATH] = { "hardware_path", awr__q_hw_path, TODO_HW_PATH },
	/* last: its range is left as written */
	[AWR_QUALIFY_SHORT_PIN] = { "short_pin", awr__q_short_pin, TODO_PIN },
};

const char *awr_qualify_check_name(enum awr_qualify_check_id id)
{
	return (unsigned int)id < AWR_QUALIFY__CHECKS ? checks[id].name : "unknown";
}

const char *awr_qualify_status_name(enum awr_qualify_status s)
{
	static const char *const names[AWR_QUALIFY__STATUSES] = { "pass", "fail", "skip", "info" };

	return (unsigned int)s < AWR_QUALIFY__STATUSES ? names[s] : "unknown";
}

const char *awr_qualify_scope_name(enum awr_qualify_scope s)
{
	static const char *const names[AWR_QUALIFY__SCOPES] = {
		"none", "hardware", "software_only", "partial_hardware", "unknown" };

	return (unsigned int)s < AWR_QUALIFY__SCOPES ? names[s] : "unknown";
}

void awr_qualify_opts_init(struct awr_qualify_opts *o)
{
	*o = (struct awr_qualify_opts){ .size = sizeof(*o),
					.checks = (1U << AWR_QUALIFY__CHECKS) - 1 };
}

void awr_qualify_cleanup(void)
{
	awr__q_rmdir();
	awr__q_crash_cleanup();
	awr__q_target_cleanup();
}

/* Whether check @id is for @r's target: hardware_path for files, short_pin for block devices. */
static bool applies(const struct awr_qualify_report *r, enum awr_qualify_check_id id)
{
	if (id == AWR_QUALIFY_HARDWARE_PATH)
		return !r->block_device;	/* a check of files on a filesystem */
	if (id == AWR_QUALIFY_SHORT_PIN)
		return r->block_device;	/* the block layer's bug with a partly pinned buffer */
	return true;
}

static int setup(struct awr__qctx *q, const char *path)
{
	struct awr_qualify_report *r = q->r;
	char tmp[sizeof(r->target)];
	struct stat st;
	int ret;

	if (fstat(q->fd, &st))
		return -errno;
	r->block_device = S_ISBLK(st.st_mode);
	if (r->block_device && ioctl(q->fd, BLKGETSIZE64, &r->device_size))
		return -errno;
	snprintf(r->target, sizeof(r->target), "%s", path);
	snprintf(tmp, sizeof(tmp), "%s", path);
	if (!r->block_device)
		snprintf(q->dir, sizeof(q->dir), "%s", dirname(tmp));
	ret = awr_probe_path(path, 0, &r->probe);
	if (ret)
		return ret;
	r->limits = *awr_probe_effective(r->probe);
	r->unit = STRESS_UNIT;
	if (r->limits.supported && r->unit < r->limits.unit_min)
		r->unit = r->limits.unit_min;
	if (r->limits.supported && r->unit > r->limits.unit_max)
		r->unit = r->limits.unit_max;
	return 0;
}

static void run_one(struct awr__qctx *q, const struct awr_qualify_opts *o,
		    enum awr_qualify_check_id id)
{
	struct awr_qualify_check *c = &q->r->checks[id];
	uint64_t t0 = awr__now_ns();

	c->ran = true;
	if (o->progress)
		o->progress(q->r, id, false, o->arg);
	checks[id].run(q, c);
	if (c->status == AWR_QUALIFY_FAIL && !c->what_to_do[0])
		awr__q_todo(c, "%s", checks[id].todo);
	c->seconds = (double)(awr__now_ns() - t0) / 1e9;
	q->r->count[c->status]++;
	if (o->progress)
		o->progress(q->r, id, true, o->arg);
}

int awr_qualify_run(int fd, const char *path, const struct awr_qualify_opts *o,
		    struct awr_qualify_report **out)
{
	struct awr_qualify_opts dflt;
	struct awr__qctx q = { .fd = fd };
	uint64_t start;
	int ret;

	if (!o) {
		awr_qualify_opts_init(&dflt);
		o = &dflt;
	}
	*out = NULL;
	q.r = calloc(1, sizeof(*q.r));
	if (!q.r)
		return -ENOMEM;
	q.r->size = sizeof(*q.r);
	q.flags = o->flags;
	q.r->quick = o->flags & AWR_QUALIFY_QUICK;
	ret = setup(&q, path);
	if (ret) {
		awr_qualify_report_free(q.r);
		return ret;
	}
	q.r->started = time(NULL);
	start = awr__now_ns();
	for (unsigned int id = 0; id < AWR_QUALIFY__CHECKS; id++)
		if ((o->checks & (1U << id)) && applies(q.r, id))
			run_one(&q, o, id);
	q.r->seconds = (double)(awr__now_ns() - start) / 1e9;
	awr__q_extent_map(&q);
	awr__q_scope(&q);
	q.r->verdict = q.r->count[AWR_QUALIFY_FAIL] || !q.r->requirement_met ?
		       AWR_QUALIFY_VERDICT_FAIL : AWR_QUALIFY_VERDICT_PASS;
	*out = q.r;
	return 0;
}

void awr_qualify_report_free(struct awr_qualify_report *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->nr_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->extent_map.ranges);
	awr_bench_result_free(r->perf);
	awr_probe_free(r->probe);
	free(r);
}
