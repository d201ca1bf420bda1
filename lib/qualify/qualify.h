/* SPDX-License-Identifier: MIT */
/*
 * Qualification (awr_qualify_run()): the checks, each a function that fills its entry of the
 * report (PASS, FAIL, SKIP or INFO, a sentence, its figures) given a prepared struct awr__qctx.
 */
#ifndef AWR_QUALIFY_PRIVATE_H
#define AWR_QUALIFY_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "libatomicwr.h"
#include "platform/platform.h"

struct awr__qctx {
	struct awr_qualify_report *r;
	int fd;				/* the target, O_RDWR | O_DIRECT, the caller's */
	char dir[4096];			/* directory of a file target (scratch files go here) */
	unsigned int flags;		/* AWR_QUALIFY_* */
	bool atomic_ok;			/* discovery found atomic writes usable */
	bool writes_ok;			/* the sweep wrote: the write checks may run */
};

void awr__q_set(struct awr_qualify_check *c, enum awr_qualify_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* FAIL's one sentence of what to do (run.c fills a check's own when none is set) */
void awr__q_todo(struct awr_qualify_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void awr__q_note(struct awr__qctx *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define Q_JOURNALS	4	/* journal-0 (concurrency), journal-1..3 (crash cycles) */

void awr__q_journal_path(char *buf, size_t len, const char *tmpdir, unsigned int n);
int awr__q_tmpdir(char *buf, size_t len);
void awr__q_rmdir(void);	/* the directory of the last awr__q_tmpdir(); signal-safe */
void awr__q_crash_cleanup(void);	/* unmount and remove the crash check's scratch XFS */
void awr__q_target_cleanup(void);	/* target.c: remove the file made for the run */

/* the checks, in the order qualify runs them */
void awr__q_discovery(struct awr__qctx *q, struct awr_qualify_check *c);
void awr__q_size_sweep(struct awr__qctx *q, struct awr_qualify_check *c);
void awr__q_refusals(struct awr__qctx *q, struct awr_qualify_check *c);
void awr__q_concurrency(struct awr__qctx *q, struct awr_qualify_check *c);
void awr__q_crash(struct awr__qctx *q, struct awr_qualify_check *c);
void awr__q_performance(struct awr__qctx *q, struct awr_qualify_check *c);	/* perf.c */
void awr__q_hw_path(struct awr__qctx *q, struct awr_qualify_check *c);	/* path.c */
void awr__q_short_pin(struct awr__qctx *q, struct awr_qualify_check *c);	/* pin.c */
void awr__q_extent_map(struct awr__qctx *q);	/* the target's, for the report */
void awr__q_scope(struct awr__qctx *q);	/* scope.c: the verdict's scope, the requirement */

/* checks.c: shared by the concurrency and crash checks */
int awr__q_verify(const char *target, struct awr_qualify_stress *s, uint64_t crash_ns,
		  char *issue, size_t len);

#endif /* AWR_QUALIFY_PRIVATE_H */
