/* SPDX-License-Identifier: MIT */
/* The bench stage's private declarations: shared by bench.c, hist.c, target.c and pages.c. */
#ifndef AWR_BENCH_PRIVATE_H
#define AWR_BENCH_PRIVATE_H

#include <signal.h>
#include <stdarg.h>
#include <string.h>

#include "libatomicwr.h"
#include "platform/platform.h"

/* A run's result with every mode's figures (awr_bench_result_mode()). */
struct awr__bench_out {
	struct awr_bench_result r;
	struct awr_bench_mode_result mode[AWR_BENCH__MODES];
};

/* Set by awr_bench_stop() (a signal handler): every mode's loop ends; cleared after the run. */
extern volatile sig_atomic_t awr__bench_stopped;

/* hist.c: page latencies in a log-linear histogram (~1.6% a bucket) */
#define AWR__HIST_SUB_BITS	6U			/* 64 buckets per power of two */
#define AWR__HIST_SUB		(1U << AWR__HIST_SUB_BITS)
#define AWR__HIST_BUCKETS	(AWR__HIST_SUB * 40U)	/* up to 2^45 ns */

struct awr__hist {
	uint64_t count;
	uint64_t b[AWR__HIST_BUCKETS];
};

void awr__hist_add(struct awr__hist *h, uint64_t ns, uint64_t n);
/* p50, p99, p99.9 and the distribution into @r */
void awr__hist_figures(const struct awr__hist *h, struct awr_bench_mode_result *r);

/* target.c: the target laid out and opened, the pages its writes moved */
int awr__bench_target(int fd, const struct awr_bench_opts *o, struct awr_file **f,
		      struct awr__bench_out *out);
uint64_t *awr__bench_page_map(int fd, uint64_t unit, uint64_t npages);
/* a file written in full (1 MiB plain direct writes) and synced, through @fd */
int awr__bench_prefill(int fd, uint64_t size);
/* a message into a result's message buffer; returns @err */
int awr__bench_say(char *buf, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * bench.c: a batch of @n pages through @q by the queued-write loop (awr__queue_run()), page i
 * from @buf + i * @unit to byte @off[i]; 0, the engine's -errno, or the first failed page's
 * error, that page in @bad
 */
struct awr__bench_failure {
	int error;
	struct awr_completion c;	/* its completion (tag: i) */
	struct awr_verdict v;		/* the rule when the queue refused it, else AWR_RULE_OK */
};

int awr__bench_write_pages(struct awr_queue *q, const unsigned char *buf, const uint64_t *off,
			   unsigned int n, uint64_t unit, unsigned int flags,
			   struct awr__bench_failure *bad);

/* pages.c: pages mode (the store, forced doublewrite and a naive doublewrite, in turn) */
void awr__bench_pages_run(const struct awr_bench_opts *o, uint64_t npages, unsigned int batch,
			  struct awr__bench_out *out);

#endif /* AWR_BENCH_PRIVATE_H */
