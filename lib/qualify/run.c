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

static const struct {
	const char *name;
	void (*run)(struct awr__qctx *q, struct awr_qualify_check *c);
} checks[AWR_QUALIFY__CHECKS] = {
	[AWR_QUALIFY_DISCOVERY] = { "discovery", awr__q_discovery },
	[AWR_QUALIFY_SIZE_SWEEP] = { "size_sweep", awr__q_size_sweep },
	[AWR_QUALIFY_KERNEL_REFUSALS] = { "kernel_refusals", awr__q_refusals },
	[AWR_QUALIFY_CONCURRENT_TORN] = { "concurrent_torn", awr__q_concurrency },
	[AWR_QUALIFY_CRASH] = { "crash", awr__q_crash },
	[AWR_QUALIFY_PERFORMANCE] = { "performance", awr__q_performance },
	[AWR_QUALIFY_HARDWARE_PATH] = { "hardware_path", awr__q_hw_path },
	/* last: its range is left as written */
	[AWR_QUALIFY_SHORT_PIN] = { "short_pin", awr__q_short_pin },
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

void awr_qualify_opts_init(struct awr_qualify_opts *o)
{
	*o = (struct awr_qualify_opts){ .size = sizeof(*o),
					.checks = (1U << AWR_QUALIFY__CHECKS) - 1 };
}

void awr_qualify_cleanup(void)
{
	awr__q_rmdir();
	awr__q_crash_cleanup();
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
	q.r->verdict = q.r->count[AWR_QUALIFY_FAIL] ? AWR_QUALIFY_VERDICT_FAIL :
						     AWR_QUALIFY_VERDICT_PASS;
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
