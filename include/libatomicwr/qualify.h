/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr qualification: the checks `awr qualify` runs on a file or a block device (probe,
 * size sweep with read-back, the kernel's refusals of bad writes, concurrent torn check, crash
 * cycles on a scratch XFS, performance, hardware path, short pin), each PASS, FAIL, SKIP or INFO
 * with its sentence and figures, and the overall verdict: what `awr qualify -o json` prints, as
 * C values.
 *
 * The figures are typed structs, one per check, and not a list of named values: each check's
 * figures are few and fixed (sizes, counts, errnos, outcomes), a caller compares them as numbers
 * and enums, and the larger ones are the library's own results kept whole (the probe with its
 * views and findings, struct awr_stress_result, struct awr_verify_result, the benchmark's
 * struct awr_bench_result). A name-value list would turn them back into strings to parse.
 */
#ifndef LIBATOMICWR_QUALIFY_H
#define LIBATOMICWR_QUALIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <libatomicwr/common.h>
#include <libatomicwr/discover.h>
#include <libatomicwr/decide.h>
#include <libatomicwr/verify.h>
#include <libatomicwr/bench.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The checks, in the order awr_qualify_run() runs them. */
enum awr_qualify_check_id {
	AWR_QUALIFY_DISCOVERY,		/* the views agree, no finding of severity error */
	AWR_QUALIFY_SIZE_SWEEP,		/* every size unit_min..unit_max written and read back */
	AWR_QUALIFY_KERNEL_REFUSALS,	/* bad writes refused with the errno awr_check() predicts */
	AWR_QUALIFY_CONCURRENT_TORN,	/* overlapping writers: nothing torn or lost */
	AWR_QUALIFY_CRASH,		/* shutdowns of a scratch XFS: acknowledged writes stay */
	AWR_QUALIFY_PERFORMANCE,	/* page writes measured (never judged) */
	AWR_QUALIFY_HARDWARE_PATH,	/* files: pages of a prepared file written in place */
	AWR_QUALIFY_SHORT_PIN,		/* block devices: a partly pinned buffer is not torn */
	AWR_QUALIFY__CHECKS
};

/* A check's result; INFO: it measured and judged nothing, and does not count toward the verdict. */
enum awr_qualify_status {
	AWR_QUALIFY_PASS,
	AWR_QUALIFY_FAIL,
	AWR_QUALIFY_SKIP,
	AWR_QUALIFY_INFO,
	AWR_QUALIFY__STATUSES
};

/*
 * The overall verdict: FAIL when any check failed, or when AWR_QUALIFY_REQUIRE_HARDWARE was
 * asked and the scope is not hardware.
 */
enum awr_qualify_verdict {
	AWR_QUALIFY_VERDICT_PASS,
	AWR_QUALIFY_VERDICT_FAIL,
};

/*
 * The verdict's scope: what makes the qualified unit (awr_qualify_report.unit) atomic. A file on
 * XFS over a device without atomic writes passes every check by the filesystem's software path
 * (copy-on-write, xfs_atomic_write_cow_iomap_begin(), Linux 6.16), which costs a remap per write.
 */
enum awr_qualify_scope {
	AWR_QUALIFY_SCOPE_NONE,		/* no atomic writes: discovery failed */
	AWR_QUALIFY_SCOPE_HARDWARE,	/* the device writes the unit atomically itself */
	AWR_QUALIFY_SCOPE_SOFTWARE_ONLY,	/* the filesystem's software path; no hardware
						 * atomics below */
	AWR_QUALIFY_SCOPE_PARTIAL_HARDWARE,	/* hardware atomics below, smaller than the unit:
						 * the unit takes the software path */
	AWR_QUALIFY_SCOPE_UNKNOWN,	/* the filesystem view could not be read */
	AWR_QUALIFY__SCOPES
};

/* awr_qualify_opts.flags */
#define AWR_QUALIFY_QUICK	(1U << 0)	/* short runs: under 30 s on a scratch XFS */
#define AWR_QUALIFY_CRASH_TEST	(1U << 1)	/* run the crash check (root, mkfs.xfs, loop) */
#define AWR_QUALIFY_REQUIRE_HARDWARE	(1U << 2)	/* FAIL unless the scope is hardware */

struct awr_qualify_report;

/*
 * Called before (@done false) and after (@done true) each check that runs, with the report so
 * far: a progress line, or each check printed as it ends.
 */
typedef void (*awr_qualify_progress_fn)(const struct awr_qualify_report *r,
					enum awr_qualify_check_id id, bool done, void *arg);

/* What awr_qualify_run() does; fill with awr_qualify_opts_init() first. */
struct awr_qualify_opts {
	size_t size;			/* sizeof(struct awr_qualify_opts) */
	unsigned int flags;		/* AWR_QUALIFY_* */
	unsigned int checks;		/* bit (1 << id) per check to run; others are not listed */
	awr_qualify_progress_fn progress;	/* NULL: none */
	void *arg;			/* for @progress */
};

#define AWR_QUALIFY_SWEEP_MAX	32
#define AWR_QUALIFY_REFUSALS_MAX	8
#define AWR_QUALIFY_CYCLES_MAX	3

/* One size of the sweep: stamped, written atomically and durably at offset @size, read back. */
struct awr_qualify_sweep_write {
	uint64_t size;
	uint64_t offset;
	double latency_us;
	int write_error;		/* 0, or the write's -errno (then nothing was read) */
	int read_error;			/* 0, or the read-back's -errno (-EBADMSG: @read_back) */
	enum awr_unit_class read_back;	/* what the read-back found */
};

/* One bad write and what became of it. */
struct awr_qualify_refusal {
	const char *name;		/* "misaligned", "not_power_of_two", "too_large", ... */
	uint64_t offset;
	uint64_t length;
	enum awr_rule rule;		/* the rule awr_check() names */
	int predicted;			/* awr_check()'s -errno (0: it accepts the write) */
	int64_t kernel;			/* the kernel's: bytes written, or -errno */
};

/* Stamped writers and the verification of what they wrote. */
struct awr_qualify_stress {
	bool ran;			/* @opts and @result hold a run */
	struct awr_stress_opts opts;
	struct awr_stress_result result;
	bool verified;			/* @verify holds the verifier's result */
	struct awr_verify_result verify;
};

/* One crash cycle: writers, a shutdown mid-flight, log recovery, verification. */
struct awr_qualify_cycle {
	bool crashed;			/* the filesystem was shut down: @delay_ms, @crash_ns */
	unsigned int delay_ms;		/* after the first acknowledgement */
	uint64_t crash_ns;		/* CLOCK_REALTIME just before the shutdown */
	struct awr_qualify_stress stress;
};

struct awr_qualify_crash {
	bool scratch_tried;		/* the scratch filesystem was set up (or tried) */
	char directory[4096];		/* its private directory */
	uint64_t image_size;
	char device[32];		/* its loop device; "" none */
	char mount[4200];
	unsigned int nr_cycles;		/* cycles begun */
	struct awr_qualify_cycle cycles[AWR_QUALIFY_CYCLES_MAX];
	const char *proves;		/* what the check shows */
	const char *cannot_prove;	/* and what it cannot */
};

struct awr_qualify_hw_path {
	bool ran;			/* every page was written: the counts hold */
	unsigned int pages;
	uint64_t count[4];		/* per enum awr_write_route */
	uint64_t prepared_aligned_bytes;
};

/* The short-pin probe's outcome (block devices). */
enum awr_qualify_pin_outcome {
	AWR_QUALIFY_PIN_REFUSED,	/* an error, the range as it was: refused whole */
	AWR_QUALIFY_PIN_SHORT_KEPT,	/* a short count, the range as it was: nothing torn */
	AWR_QUALIFY_PIN_TORN,		/* part of the range changed without a whole write */
	AWR_QUALIFY_PIN_WHOLE,		/* the whole count: the unreadable page cannot be written */
	AWR_QUALIFY_PIN_NO_READ,	/* the read-back failed: nothing can be said */
};

struct awr_qualify_short_pin {
	bool ran;			/* the probe was set up: the rest holds */
	uint32_t unit;
	uint64_t offset;
	uint32_t pages;			/* of @unit; the buffer's last one cannot be read */
	int64_t returned;		/* the write's count or -errno */
	int read_error;
	uint32_t pages_new, pages_old, first_new;
	enum awr_qualify_pin_outcome outcome;
	bool kernel_has_fix;		/* the running kernel has the fix (kernel rules table) */
};

/* A run of adjacent extents on which a unit takes the same route. */
struct awr_qualify_range {
	uint64_t offset;
	uint64_t length;
	enum awr_write_route route;
	unsigned int extents;
};

/* The target file's extent map at the stress unit (files only). */
struct awr_qualify_extent_map {
	bool present;
	uint32_t unit;
	uint64_t file_size;
	unsigned int nr_extents;
	unsigned int nr_ranges;		/* in all; @ranges lists the first @nr_listed */
	unsigned int nr_listed;
	struct awr_qualify_range *ranges;
	uint64_t aligned_bytes;
	uint64_t bytes[4];		/* per enum awr_write_route */
};

/* One check as it ran. */
struct awr_qualify_check {
	bool ran;			/* applies to the target and was asked for */
	enum awr_qualify_status status;
	char reason[512];		/* one sentence with the numbers */
	double seconds;
	char what_to_do[320];		/* FAIL: one sentence, what to do about it; else "" */
};

/* What awr_qualify_run() found; made by it, freed with awr_qualify_report_free(). */
struct awr_qualify_report {
	size_t size;			/* sizeof(struct awr_qualify_report) of the library */
	enum awr_qualify_verdict verdict;
	unsigned int count[AWR_QUALIFY__STATUSES];	/* checks per status */
	double seconds;
	time_t started;
	bool quick;
	bool block_device;
	char target[4200];
	struct awr_probe *probe;	/* the target's: views and findings (owned) */
	struct awr_limits limits;	/* effective */
	uint32_t unit;			/* of the concurrent and crash checks */
	uint64_t device_size;		/* block device: its size */
	struct awr_qualify_check checks[AWR_QUALIFY__CHECKS];	/* by enum awr_qualify_check_id */
	/* the figures, by check */
	bool single_block_unit;		/* discovery: the atomic unit is one logical block */
	unsigned int nr_sweep;
	struct awr_qualify_sweep_write sweep[AWR_QUALIFY_SWEEP_MAX];
	unsigned int nr_refusals;
	struct awr_qualify_refusal refusals[AWR_QUALIFY_REFUSALS_MAX];
	struct awr_qualify_stress concurrent;
	struct awr_qualify_crash crash;
	struct awr_qualify_hw_path hw_path;
	struct awr_bench_opts perf_opts;	/* performance: what was measured */
	struct awr_bench_result *perf;	/* and what it measured (owned); NULL: did not run */
	int perf_error;			/* awr_bench_run()'s -errno (@perf->message says why) */
	struct awr_qualify_short_pin short_pin;
	struct awr_qualify_extent_map extent_map;
	unsigned int nr_notes;
	char **notes;			/* sentences for people: what a check could not show, ... */
	/* the verdict's scope, and AWR_QUALIFY_REQUIRE_HARDWARE's outcome */
	enum awr_qualify_scope scope;
	char scope_text[320];		/* the scope in one sentence for people */
	uint64_t hardware_max;		/* largest atomic write the device below takes, 0 none */
	bool require_hardware;		/* AWR_QUALIFY_REQUIRE_HARDWARE was asked */
	bool requirement_met;		/* and the scope is hardware (true when not asked) */
	char requirement[384];		/* not met: why, in one sentence; else "" */
	char what_to_do[320];		/* not met: what to do, in one sentence; else "" */
};

/* awr_qualify_target_open() flags */
/* a missing path is made (removed at close) */
#define AWR_QUALIFY_TARGET_CREATE	(1U << 0)
/* AWR_TARGET_FORCE: written even when in use, formatted or holding data */
#define AWR_QUALIFY_TARGET_FORCE	(1U << 1)

/* What a qualification writes, made from the path a person gives; awr_qualify_target_open(). */
struct awr_qualify_target {
	size_t size;			/* sizeof(struct awr_qualify_target) of the library */
	int fd;				/* O_RDWR | O_DIRECT, by awr_target_open(); -1: none */
	char path[4200];		/* the file or block device written */
	bool block_device;
	bool created;			/* made here: awr_qualify_target_close() removes it */
	uint64_t device_size;		/* a block device's size */
	struct awr_safety safety;	/* what awr_target_open() found (reasons: written forced) */
};

/**
 * awr_qualify_target_open() - the target of a qualification, as `awr qualify PATH` makes it
 * @path:	a directory (a scratch file awr-qualify.PID.dat is made in it), a regular file or
 *		a block device; a missing path only with AWR_QUALIFY_TARGET_CREATE
 * @flags:	AWR_QUALIFY_TARGET_* flags
 * @t:		filled: the descriptor to give awr_qualify_run() with @t->path
 *
 * A file made here (O_CREAT | O_EXCL | O_NOFOLLOW) is removed by awr_qualify_target_close(),
 * or by awr_qualify_cleanup() from a signal handler. The open is awr_target_open()'s: a file
 * holding data, a device mounted or in use is refused unless AWR_QUALIFY_TARGET_FORCE.
 *
 * Return: 0, or -errno (-ENOENT: @path is missing; -EINVAL: not a directory, file or block
 * device; awr_target_open()'s refusals) with awr_last_error() saying why; nothing is left open
 * or made.
 */
int awr_qualify_target_open(const char *path, unsigned int flags, struct awr_qualify_target *t);

/**
 * awr_qualify_target_close() - close the target, and remove the file made for the run
 * @t:		from awr_qualify_target_open(); NULL is fine
 */
void awr_qualify_target_close(struct awr_qualify_target *t);

/**
 * awr_qualify_opts_init() - the default options: every check, not quick, no crash test
 * @o:		filled
 */
void awr_qualify_opts_init(struct awr_qualify_opts *o);

/**
 * awr_qualify_run() - qualify a file or block device for atomic writes
 * @fd:		the target, open O_RDWR | O_DIRECT; the caller decided it may be written (it is
 *		overwritten: awr_target_open() refuses one in use or holding data)
 * @path:	its path: probed, and a file's directory holds the scratch files
 * @o:		options (awr_qualify_opts_init()); NULL: the defaults
 * @out:	the report, also when a check fails; free with awr_qualify_report_free()
 *
 * Runs the checks in the order of enum awr_qualify_check_id: hardware_path only on a file,
 * short_pin only on a block device (last: the range it writes is left as written). Writes
 * [0, 2 * unit_max) and the stress span of the target.
 *
 * Return: 0 (the verdict is in the report), or -errno when the target cannot be probed.
 */
int awr_qualify_run(int fd, const char *path, const struct awr_qualify_opts *o,
		    struct awr_qualify_report **out);

/**
 * awr_qualify_report_free() - free a report of awr_qualify_run()
 * @r:		the report; NULL is fine
 */
void awr_qualify_report_free(struct awr_qualify_report *r);

/**
 * awr_qualify_cleanup() - remove the scratch files and the crash check's scratch XFS now
 *
 * Also the file awr_qualify_target_open() made for the run. The library installs no signal
 * handler: a program that ends on a signal calls this from its own.
 * Async-signal-safe: for a signal handler that ends the process in the middle of
 * awr_qualify_run() (system calls only).
 */
void awr_qualify_cleanup(void);

/**
 * awr_qualify_check_name() - a check's stable snake_case name
 * @id:		the check
 *
 * Return: "discovery", "size_sweep", ..., "short_pin"; "unknown" out of range.
 */
const char *awr_qualify_check_name(enum awr_qualify_check_id id);

/**
 * awr_qualify_status_name() - a status in snake_case
 * @s:		the status
 *
 * Return: "pass", "fail", "skip" or "info".
 */
const char *awr_qualify_status_name(enum awr_qualify_status s);

/**
 * awr_qualify_scope_name() - the verdict's scope in snake_case
 * @s:		the scope
 *
 * Return: "none", "hardware", "software_only", "partial_hardware" or "unknown".
 */
const char *awr_qualify_scope_name(enum awr_qualify_scope s);

/**
 * awr_qualify_pin_outcome_name() - the short-pin outcome in snake_case
 * @o:		the outcome
 *
 * Return: "refused_whole", "short_nothing_written", "torn", "whole" or "no_read_back".
 */
const char *awr_qualify_pin_outcome_name(enum awr_qualify_pin_outcome o);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_QUALIFY_H */
