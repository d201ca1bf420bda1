/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr-preload's private declarations: what preload.c (the interposed calls) and
 * stats_file.c (the counters file AWR_PRELOAD_STATS names) share.
 */
#ifndef AWR_PRELOAD_H
#define AWR_PRELOAD_H

#include <stdbool.h>

#include "libatomicwr.h"

#define EX_CONFIG_REFUSED 78	/* sysexits' EX_CONFIG: the program is not run */

/* awr__preload_say() - one line to standard error */
void awr__preload_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* awr__preload_refuse() - one line "libatomicwr-preload: ..." and exit 78: only at start */
void awr__preload_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * awr__stats_map() - the counters in the file @path names (%p: the process id), or NULL when
 * this process keeps its counters in memory (another live program writes that file). Refuses
 * (exit 78) what cannot be used without harm. @shared: the counters of the parent that started
 * this process under the preload (@owner: AWR_PRELOAD_STATS_OWNER); @fresh: counters to be
 * zeroed and the header written; @lock_fd: the descriptor that holds the writer's lock (-1: none).
 */
struct awr_preload_stats *awr__stats_map(const char *path, const char *owner, bool *shared,
					 bool *fresh, int *lock_fd);

#endif
