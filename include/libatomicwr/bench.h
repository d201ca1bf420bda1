/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/bench.h - the benchmark engine of `awr bench` (and of `awr
 * qualify`'s performance check): database-style page writes through io_uring,
 * atomic vs plain vs a doublewrite, and the untorn page store beside a naive
 * doublewrite; pages/s, MB/s, page latency percentiles and where a batch's
 * time goes. It stands on the write and pages stages and adds no rule of its own.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_BENCH_H
#define LIBATOMICWR_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What is measured. The first four are modes one asks for (awr_bench_opts.modes);
 * pages mode also fills the two rows after it.
 */
enum awr_bench_mode {
	AWR_BENCH_ATOMIC,	/* each page one RWF_ATOMIC write */
	AWR_BENCH_PLAIN,	/* the same writes without RWF_ATOMIC (no torn-write protection) */
	AWR_BENCH_DOUBLEWRITE,	/* per batch: the pages to a doublewrite area, then in place */
	AWR_BENCH_PAGES,	/* the untorn page store, in the mode it chooses */
	AWR_BENCH_PAGES_DW,	/* pages mode: the store forced to doublewrite mode ("pages-dw") */
	AWR_BENCH_NAIVE_DW,	/* pages mode: a naive doublewrite of its own ("naive-dw") */
	AWR_BENCH__MODES
};

/* awr_bench_opts.modes: the four modes one can ask for */
#define AWR_BENCH_ALL	((1U << AWR_BENCH_PAGES_DW) - 1)

/* When a page counts as written. */
enum awr_bench_durability {
	AWR_BENCH_FDATASYNC,	/* batches of awr_bench_opts.batch pages, fdatasync after each */
	AWR_BENCH_DSYNC,	/* RWF_DSYNC on every write */
	AWR_BENCH_NO_SYNC,	/* completion only */
};

enum awr_bench_order { AWR_BENCH_RANDOM, AWR_BENCH_SEQUENTIAL };

/* The steps of a batch (fdatasync durability, doublewrite), timed apart. */
enum awr_bench_step { AWR_BENCH_STEP_COPY, AWR_BENCH_STEP_WRITES, AWR_BENCH_STEP_FLUSH,
		      AWR_BENCH__STEPS };

/* What awr_bench_progress_fn is told, about every half second of a mode. */
struct awr_bench_progress {
	const char *mode;	/* the mode's name; NULL: the mode ended */
	double seconds;		/* since the mode started */
	double pages_per_s;	/* all jobs together so far */
};

typedef void (*awr_bench_progress_fn)(const struct awr_bench_progress *p, void *arg);

/* What awr_bench_run() does: awr_bench_opts_init() sets the defaults. */
struct awr_bench_opts {
	uint64_t unit;			/* page size, a multiple of 512 up to 1 GiB (16 KiB) */
	unsigned int qd;		/* io_uring queue depth per job (32) */
	unsigned int jobs;		/* threads, one queue each (1) */
	bool sqpoll;			/* queues with a kernel polling thread (SQPOLL) */
	bool fixed_buffers;		/* plain writes from registered buffers */
	unsigned int batch;		/* pages per flush; 0: the queue depth (0) */
	double seconds;			/* per mode (10) */
	uint64_t span;			/* bytes from offset 0 to write over (256 MiB) */
	unsigned int modes;		/* bit (1 << mode) per mode to run (AWR_BENCH_ALL) */
	enum awr_bench_durability durability;	/* (AWR_BENCH_FDATASYNC) */
	enum awr_bench_order order;	/* (AWR_BENCH_RANDOM) */
	/*
	 * The target's file name: pages mode makes its scratch files beside it
	 * (NAME.awr-pages.XXXXXX, removed afterwards). NULL: pages mode is not
	 * measured (its rows do not run).
	 */
	const char *path;
	awr_bench_progress_fn progress;	/* NULL: none */
	void *progress_arg;
	uint32_t reserved[8];
};

#define AWR_BENCH_CDF_MAX	96U	/* points of a mode's latency distribution */

/* One mode's figures. */
struct awr_bench_mode_result {
	uint32_t size;			/* sizeof(struct awr_bench_mode_result) of the library */
	bool ran;			/* asked for and measurable here */
	int error;			/* 0, or the negative errno that stopped the mode */
	char message[256];		/* why it stopped */
	uint64_t pages;			/* pages written (in place) */
	double seconds;
	double pages_per_s;
	double mb_per_s;		/* 10^6 bytes of pages per second */
	double p50_us, p99_us, p999_us;	/* page latency percentiles */
	unsigned int cdf_n;		/* the latency distribution: cdf_n points */
	double cdf_us[AWR_BENCH_CDF_MAX];	/* a latency (us) ... */
	double cdf_share[AWR_BENCH_CDF_MAX];	/* ... and the share of pages at or below it */
	double cpu_ns_per_page;		/* user + system CPU of the process per page written */
	double user_cpu_ns_per_page;	/* its user-space part */
	double inflight_mean;		/* writes in the kernel at a reap, mean */
	double reaps_below_depth_share;	/* share of reaps with fewer than the depth in flight */
	double queue_ns_per_write;	/* stream modes: time to queue a write, less the clock */
	double clock_read_ns;		/* one clock read's cost (taken off queue_ns_per_write) */
	unsigned int ring_setup_flags;	/* IORING_SETUP_* the kernel accepted */
	unsigned int ring_wait_flags;	/* IORING_ENTER_* added to each wait (NO_IOWAIT, 6.15+) */
	/*
	 * Pages of the data area the mode's writes moved on the device (FIEMAP
	 * before and after: copy-on-write); -1 when not read (a block device,
	 * pages mode's own files).
	 */
	int64_t moved_pages;
	uint64_t batches;		/* batches run; 0 for a stream mode (no fdatasync step) */
	/* mean ms of a batch in each step (a doublewrite's two fdatasyncs both in FLUSH) */
	double batch_step_ms[AWR_BENCH__STEPS];
};

/* What a run measured: awr_bench_result_mode() gives each mode's figures. */
struct awr_bench_result {
	uint32_t size;			/* sizeof(struct awr_bench_result) of the library */
	char message[256];		/* why the run could not start (awr_bench_run() < 0) */
	uint64_t span;			/* bytes pages were written over */
	/* how a new file was laid out (for the hardware path, or written in full and why) */
	char layout[200];
	uint64_t dw_offset;		/* where the doublewrite area starts */
	char pages_store[400];		/* pages mode: the store's mode and why */
	/* pages mode, rounds of one batch of each writer in turn */
	uint64_t rounds;
	double pages_to_naive_median;	/* naive-dw's batch time over the store's, per round */
	double pages_to_naive_q1, pages_to_naive_q3;
	double pages_dw_to_naive_median;	/* naive-dw's over pages-dw's, median */
	/* pages/s of one mode over another's; 0 when either did not run or failed */
	double atomic_to_doublewrite, atomic_to_plain, pages_to_doublewrite;
	uint64_t data_pages;		/* pages of the data area (before the doublewrite area) */
	unsigned int batch;		/* pages per batch: awr_bench_opts.batch, or the depth */
};

/**
 * awr_bench_opts_init() - the default options
 * @o:		filled: 16 KiB pages, queue depth 32, one job, batches of the
 *		queue depth with fdatasync, 10 s per mode, 256 MiB span, random
 *		order, every mode, no path, no progress
 */
void awr_bench_opts_init(struct awr_bench_opts *o);

/**
 * awr_bench_run() - measure database-style page writes on a target
 * @fd:		a regular file or block device opened O_RDWR | O_DIRECT (for
 *		instance with awr_target_open()); not closed. Its first
 *		@o->span bytes are overwritten
 * @o:		what to measure
 * @out:	the result, freed with awr_bench_result_free(); set whenever
 *		the call returns, except on -ENOMEM (NULL then) and for a NULL
 *		@o or @out (-EINVAL)
 *
 * Each mode runs @o->seconds on @o->jobs threads, each with its own queue,
 * writing pages of @o->unit bytes at random or sequential page-aligned
 * offsets of the span. A new (empty) regular file is first laid out for
 * the hardware path where the filesystem has one for the page size
 * (awr_prepare()), else written in full, and its span capped to what the
 * filesystem has free; a shorter file is extended. A page's latency runs
 * from queueing it until it is complete (with fdatasync: synced; the pages
 * of a batch share its end). A mode that fails (atomic writes refused,
 * ENOSPC) has error and message set, and the others still run.
 * awr_bench_stop() ends every mode early.
 *
 * Return: 0 when the target could be measured (check each mode's error),
 * -EINVAL for options out of range or a span too small for them, or the
 * negative errno of the target's set-up; @out's message says why.
 */
int awr_bench_run(int fd, const struct awr_bench_opts *o, struct awr_bench_result **out);

/**
 * awr_bench_result_mode() - one mode's figures
 * @r:		a result of awr_bench_run()
 * @m:		the mode (or pages mode's row)
 *
 * Return: the figures (check ran), or NULL for a mode out of range.
 */
const struct awr_bench_mode_result *awr_bench_result_mode(const struct awr_bench_result *r,
							  enum awr_bench_mode m);

/**
 * awr_bench_result_free() - free a result of awr_bench_run()
 * @r:		the result; NULL is fine
 */
void awr_bench_result_free(struct awr_bench_result *r);

/**
 * awr_bench_stop() - ask the running awr_bench_run() to stop early
 *
 * Async-signal-safe: meant for a SIGINT or SIGTERM handler. Every mode
 * still to run or running ends at once, and the figures cover the time
 * run. The request ends with that run (the next awr_bench_run() starts
 * afresh).
 */
void awr_bench_stop(void);

/**
 * awr_bench_mode_name() - a mode's name ("atomic", "pages-dw")
 * @m:		the mode
 *
 * Return: a static string; "unknown" for values out of range.
 */
const char *awr_bench_mode_name(enum awr_bench_mode m);

/**
 * awr_bench_durability_name() - "fdatasync", "dsync" or "none"
 * @d:		the durability
 *
 * Return: a static string; "unknown" for values out of range.
 */
const char *awr_bench_durability_name(enum awr_bench_durability d);

/**
 * awr_bench_order_name() - "random" or "sequential"
 * @o:		the order
 *
 * Return: a static string; "unknown" for values out of range.
 */
const char *awr_bench_order_name(enum awr_bench_order o);

/**
 * awr_bench_opts_set() - set one option of a run from its text
 * @o:		the options (awr_bench_opts_init() first)
 * @name:	"qd", "batch", "jobs" (whole numbers, "1k" too), "seconds" (a
 *		decimal), "mode" (a mode's name or "all"), "order" or "durability"
 *		(the names of awr_bench_order_name() and awr_bench_durability_name())
 * @value:	the text, as a command line or a configuration file gives it
 *
 * Return: 0, or -EINVAL with the sentence naming the option, the text and
 * what it takes in awr_last_error() ("qd '0': give a whole number from 1 to
 * 32768"); @o is left as it was.
 */
int awr_bench_opts_set(struct awr_bench_opts *o, const char *name, const char *value);

/**
 * awr_bench_opts_check() - whether awr_bench_run() can take @o
 * @o:		the options
 *
 * Checks the unit (a multiple of 512 bytes up to 1 GiB), then a non-zero
 * depth and jobs, seconds above 0 and modes within AWR_BENCH_ALL.
 *
 * Return: 0, or -EINVAL with the sentence in awr_last_error() ("unit 1000
 * must be a multiple of 512 bytes up to 1 GiB (a page size such as 16k)").
 */
int awr_bench_opts_check(const struct awr_bench_opts *o);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_BENCH_H */
