/* SPDX-License-Identifier: MIT */
/*
 * awr qualify: the checks of a device qualification, each a function that
 * fills one struct qcheck (PASS, FAIL or SKIP, a reason, figures) and can be
 * run on its own given a prepared struct qctx.
 */
#ifndef AWR_QUALIFY_H
#define AWR_QUALIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "awr.h"

/* INFO: the check measured and judged nothing (speed is never judged); it does not count toward the verdict */
enum q_result { Q_PASS, Q_FAIL, Q_SKIP, Q_INFO, Q__RESULTS };

struct qcheck {
	const char *name;		/* stable snake_case: "size_sweep" */
	enum q_result result;
	char reason[512];		/* one sentence with the numbers */
	struct json_object *figures;	/* the check's measurements (owned) */
	double seconds;
};

struct qctx {
	const char *path;		/* PATH as given */
	char target[4200];		/* the file or device written */
	int fd;				/* the target, O_RDWR | O_DIRECT, held from setup to the end (target_open) */
	char dir[4096];			/* directory of a file target (scratch files go here) */
	bool is_blk;
	bool created;			/* we created target: remove it at the end */
	bool quick, crash, force;
	bool create;			/* --create: a missing PATH is made (and removed at the end) */
	struct awr_probe *probe;	/* of the target */
	struct awr_limits lim;		/* effective limits */
	uint32_t unit;			/* stress unit: 16 KiB within [unit_min, unit_max] */
	uint64_t size;			/* target size (block device) */
	bool atomic_ok;			/* discovery found atomic writes usable */
	bool writes_ok;			/* the sweep wrote: concurrency may run */
	struct json_object *notes;	/* array of strings */
	time_t started;			/* when the checks began */
};

void q_set(struct qcheck *c, enum q_result r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void q_note(struct qctx *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *q_result_name(enum q_result r);
#define Q_JOURNALS	4	/* journal-0 (concurrency), journal-1..3 (crash cycles) */

void q_journal_path(char *buf, size_t len, const char *tmpdir, unsigned int n);
int q_tmpdir(char *buf, size_t len);
void q_rmdir(void);	/* the directory of the last q_tmpdir(); signal-safe */
void q_crash_cleanup(void);	/* unmount and remove the crash check's scratch XFS; signal-safe */

/* the checks, in the order qualify runs them */
void q_discovery(struct qctx *q, struct qcheck *c);
void q_size_sweep(struct qctx *q, struct qcheck *c);
void q_refusals(struct qctx *q, struct qcheck *c);
void q_concurrency(struct qctx *q, struct qcheck *c);
void q_crash(struct qctx *q, struct qcheck *c);
void q_performance(struct qctx *q, struct qcheck *c);
void q_hw_path(struct qctx *q, struct qcheck *c);	/* qualify_path.c */
void q_short_pin(struct qctx *q, struct qcheck *c);	/* qualify_pin.c: block devices */
struct json_object *q_extent_map(const struct qctx *q);	/* the target's, for the report; NULL: none */

/* qualify.c: shared by the concurrency and crash checks */
int q_verify(const char *target, uint32_t unit, uint64_t span, const char *journal, uint64_t crash_ns,
	     struct awr_verify_result *vr, struct json_object *fig, char *issue, size_t len);
void q_stress_figures(struct json_object *fig, const struct awr_stress_opts *so,
		      const struct awr_stress_result *sr);

#endif /* AWR_QUALIFY_H */
