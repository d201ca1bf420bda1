/* SPDX-License-Identifier: MIT */
/* The awr command-line tool: command table, output layer, argument helpers. */
#ifndef AWR_CLI_H
#define AWR_CLI_H

#include <json-c/json.h>
#include <popt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "libatomicwr.h"
#include "fields.h"

/* Exit codes (man/awr.1). */
#define AWR_EXIT_OK	0	/* success; the check or write held */
#define AWR_EXIT_FAIL	1	/* the check, write or verification failed */
#define AWR_EXIT_USAGE	2	/* usage or environment error */

struct awr_cmd {
	const char *name;
	const char *summary;
	int (*handler)(int argc, const char **argv);
	bool writes;	/* writes its target: safety decisions from the real /sys */
};

/* output.c: one output layer for every command */
enum out_mode { OUT_NORMAL, OUT_JSON, OUT_PROMETHEUS };
extern enum out_mode out_mode;
extern const struct poptOption out_options[];	/* -o normal|json */
extern const struct poptOption out_options_prom[];	/* -o normal|json|prometheus: list, qualify */

int out_apply_options(const char *cmd);
/* -o prometheus (awr list, awr qualify): node_exporter's textfile format */
void prom_gauge(const char *name, const char *help);
void prom_sample(const char *name, const char *const *labels, double value);
void prom_info(void);
void out_print_json(struct json_object *obj);
/* adds "schema_version" to a JSON document (every one printed or written carries it) */
struct json_object *out_json_schema(struct json_object *obj);
void out_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the command and its target, for the error document of -o json (cmd_parse sets them) */
void out_set_command(const char *name, const char *target);
void out_finish(int rc);
void out_outcome(const char *why);
void out_set_errno(int e);
void out_prescan(int argc, const char **argv);
bool out_is_tty(void);
struct json_object *out_u64(uint64_t v);
/* a double with a fixed number of decimals, as its meaning asks (seconds to the millisecond: 3) */
struct json_object *out_double(double v, int decimals);
/* "kernel" (the running release) and "awr_version": what a saved report was made with */
void out_add_versions(struct json_object *o);
struct json_object *out_limits_json(const struct awr_limits *l);
/* The five fields every limits object starts with, in the same order everywhere. */
void out_add_unit_limits(struct json_object *o, bool supported, uint64_t unit_min, uint64_t unit_max,
			 uint64_t max_bytes, uint64_t boundary);
struct json_object *out_verdict_json(const struct awr_verdict *v);
const char *out_size(uint64_t bytes, char *buf, size_t len);
const char *out_errno_name(int err);
const char *out_severity_name(enum awr_severity s);
struct json_object *out_finding_json(const struct awr_finding *f);
/* "  [warn] id: message": a finding as every command's text shows it */
void out_finding_print(const struct awr_finding *f);
struct json_object *out_probe_findings_json(const struct awr_probe *p);
/* A sysfs view's write cache: "write_cache", "write_cache_volatile", "fua" (null when not read) */
void out_add_write_cache(struct json_object *o, const struct awr_sysfs_view *y);
/* The same in words: "write back, FUA 0", "write through, FUA 1", "unknown" */
const char *out_write_cache_text(const struct awr_sysfs_view *y, char *buf, size_t len);
/* The same in one cell of awr list: "back", "back+fua", "through", "-" */
const char *out_write_cache_cell(const struct awr_sysfs_view *y);

/* progress.c: seconds on the monotonic clock */
double cli_now_s(void);
/* progress.c: one line on a terminal's standard error while a long call runs (normal output only) */
struct progress;
typedef void (*progress_fn)(void *arg, double elapsed, char *buf, size_t len);
struct progress_file { int fd; uint64_t total; uint64_t base; };
bool progress_wanted(void);
struct progress *progress_start(const char *label, progress_fn fn, void *arg);	/* NULL: none shown */
void progress_stop(struct progress *p);	/* clears the line; NULL is fine */
void progress_seconds(void *arg, double elapsed, char *buf, size_t len);	/* arg: const double *total */
void progress_allocated(void *arg, double elapsed, char *buf, size_t len);	/* arg: struct progress_file */
void progress_read(void *arg, double elapsed, char *buf, size_t len);	/* arg: struct progress_file */
uint64_t progress_read_base(void);	/* read_bytes so far, for progress_file.base */

/* args.c: popt context and operand helpers shared by commands */
struct cmd_ctx {
	const char *name;
	poptContext pc;
	const struct poptOption *table;
	const char *operand;	/* the PATH operand */
	const char **operands;	/* every operand, when operand_name ends in "..." */
	const char **argv;	/* the arguments popt parses (repeated string options dropped) */
	char prog[48];		/* "awr decode": the usage line's name */
	char other_help[96];	/* "[OPTION...] FILE...": the usage line's operands */
};

int cmd_parse(struct cmd_ctx *c, int argc, const char **argv,
	      const struct poptOption *table, const char *operand_name, bool operand_required);
void cmd_done(struct cmd_ctx *c);
int parse_size_arg(const char *opt, const char *text, uint64_t *out);
/*
 * The one way a command opens what it writes: awr_target_open() with the
 * refusal explained ("refusing to VERB PATH: it is mounted on /mnt/x ...").
 * Returns the descriptor, kept for the whole run, or a negative errno.
 */
int target_open(const char *verb, const char *path, int oflags, unsigned int tflags, bool force);
/* the same; *created: this open made the file (AWR_TARGET_CREATE), from the library's own open */
int target_open_as(const char *verb, const char *path, int oflags, unsigned int tflags, bool force,
		   bool *created);
/* Another open file description of the file behind @fd (by /proc/self/fd, never by name). */
int reopen_fd(int fd, int oflags);
/* The signal (SIGINT, SIGTERM) that asked a stress or bench run to stop; 0 none. */
extern volatile sig_atomic_t stop_signal;
void catch_stop_signals(void (*on)(int));

/*
 * bench.c: the measuring core of `awr bench`, also used by `awr qualify`.
 *
 * bench_run() writes pages of o->unit bytes at random or sequential
 * page-aligned offsets within the first o->size bytes of @path, for
 * o->seconds per mode, through an io_uring ring of depth o->qd:
 *   atomic       each page one RWF_ATOMIC write;
 *   plain        the same writes without RWF_ATOMIC (no torn-write protection);
 *   doublewrite  per batch of o->batch pages: the pages written first to a
 *                doublewrite area (the last batch*unit bytes of the span),
 *                then in place, with the durability step after each phase;
 *   pages        the untorn page store in the mode it chooses, the store
 *                forced to doublewrite mode and a naive doublewrite, one
 *                batch each in turn on scratch files beside o->path
 *                (bench_pages.c; out->pages_pair), each durable per batch.
 * Durability: BENCH_DUR_FDATASYNC writes batches of o->batch pages and calls
 * fdatasync after each; BENCH_DUR_DSYNC sets RWF_DSYNC on every write;
 * BENCH_DUR_NONE only waits for completion. Without a batch step (dsync, none)
 * atomic and plain keep o->qd writes in flight all the time.
 * A page's latency runs from queueing it until it is complete: written in
 * place and, with fdatasync, synced (pages of a batch share its end).
 *
 * A regular file is created and extended to o->size when shorter; a block
 * device must already have passed guard_target(). The first o->size bytes of
 * @path are overwritten. Modes not in o->modes are left with ran == false; a
 * mode that fails (e.g. atomic writes refused) has error and message set and
 * the others still run.
 *
 * Return: 0 when the target could be opened and measured (check each
 * mode's error), else a negative errno after printing why (out_error).
 */
enum bench_mode { BENCH_ATOMIC, BENCH_PLAIN, BENCH_DOUBLEWRITE, BENCH_PAGES, BENCH__MODES };
enum bench_durability { BENCH_DUR_FDATASYNC, BENCH_DUR_DSYNC, BENCH_DUR_NONE };
enum bench_order { BENCH_RANDOM, BENCH_SEQUENTIAL };

struct bench_opts {
	uint64_t unit;			/* page size in bytes (default 16 KiB) */
	unsigned int qd;		/* queue depth per job (default 32) */
	unsigned int jobs;		/* threads, one ring each (default 1) */
	bool sqpoll;			/* rings with a kernel polling thread (AWR_RING_SQPOLL) */
	bool fixed_buffers;		/* plain writes from registered buffers */
	unsigned int batch;		/* pages per flush; 0: the queue depth */
	double seconds;			/* per mode (default 10) */
	uint64_t size;			/* span in bytes (default 256 MiB) */
	unsigned int modes;		/* bit (1 << enum bench_mode) per mode to run */
	enum bench_durability durability;
	enum bench_order order;
	bool progress;			/* a \r progress line on stderr */
	const char *path;		/* the target's name: pages mode makes its store beside it */
};

#define BENCH_CDF_MAX	96U	/* points of a mode's latency distribution */

/* The steps of a batch (fdatasync durability, doublewrite), timed apart. */
enum bench_step { BENCH_STEP_COPY, BENCH_STEP_WRITES, BENCH_STEP_FLUSH, BENCH_STEPS };

struct bench_mode_result {
	bool ran;
	int error;			/* 0, or the negative errno that stopped the mode */
	char message[256];		/* why it stopped */
	uint64_t pages;			/* pages written (in place) */
	double seconds;
	double pages_per_s;
	double mb_per_s;		/* 10^6 bytes of pages per second */
	double p50_us, p99_us, p999_us;	/* page latency percentiles */
	unsigned int cdf_n;		/* the latency distribution: cdf_n points */
	double cdf_us[BENCH_CDF_MAX];	/* a latency (us) ... */
	double cdf_share[BENCH_CDF_MAX];	/* ... and the share of pages at or below it */
	double cpu_ns_per_page;		/* user + system CPU of the process per page written */
	double user_cpu_ns_per_page;	/* its user-space part */
	double inflight_mean;		/* writes in the kernel at a reap, mean (awr_ring_stats) */
	double reaps_below_depth_share;	/* share of reaps that found fewer than the depth in flight */
	double queue_ns_per_write;	/* stream modes: time in awr_ring_queue_write() per write, less the clock */
	double clock_read_ns;		/* what one clock read costs here (taken off queue_ns_per_write) */
	unsigned int ring_setup_flags;	/* IORING_SETUP_* the kernel accepted */
	unsigned int ring_wait_flags;	/* IORING_ENTER_* added to each wait (NO_IOWAIT on 6.15+) */
	int64_t moved_pages;		/* pages of the data area the mode's writes moved on the device (FIEMAP
					   before and after: copy-on-write), -1 when not read (a block device) */
	uint64_t batches;		/* batches run, 0 for a stream mode (no fdatasync step) */
	double batch_step_ms[BENCH_STEPS];	/* mean ms of a batch in each step (the doublewrite's two
						   fdatasyncs both in FLUSH) */
};

/* pages mode: the store beside a naive doublewrite, batch by batch (bench_pages.c) */
struct bench_pages_pair {
	struct bench_mode_result doublewrite;	/* the store forced to doublewrite mode ("pages-dw") */
	struct bench_mode_result naive;		/* the naive doublewrite on a scratch file ("naive-dw") */
	size_t rounds;				/* rounds of one batch each */
	double auto_median, auto_q1, auto_q3;	/* naive-dw's batch time / the store's (AUTO), per round */
	double dw_median;			/* naive-dw's / pages-dw's, median */
};

struct bench_result {
	uint64_t span;			/* bytes pages were written over */
	char layout[200];		/* how a new file was laid out (aligned for the hardware path, or sparse
					   and why), or "existing" */
	uint64_t dw_offset;		/* where the doublewrite area starts */
	struct bench_mode_result mode[BENCH__MODES];
	char pages_explain[400];	/* pages mode: the store's mode and why */
	struct bench_pages_pair pages_pair;
};

/*
 * The modes: name, AWR_WRITE_* flags of its in-place writes, and the loop a
 * job runs until the deadline (bench.c). A mode added elsewhere adds its enum
 * entry above and its line in bench_modes[].
 */
struct bench;
struct bench_mode_desc {
	const char *name;
	unsigned int flags;
	int (*run)(struct bench *b);
};
extern const struct bench_mode_desc bench_modes[BENCH__MODES];
/* Set (by a signal handler) to end every mode's loop early; the figures cover the time run. */
extern volatile sig_atomic_t bench_stop;

void bench_opts_default(struct bench_opts *o);
const char *bench_mode_name(enum bench_mode m);
const char *bench_durability_name(enum bench_durability d);
int bench_run(int fd, const struct bench_opts *o, struct bench_result *out);
/* bench_pages.c: pages mode (the store, forced doublewrite and a naive doublewrite, in turn) */
void bench_pages_run(const struct bench_opts *o, uint64_t npages, unsigned int batch, struct bench_result *out);
int bench_prefill(int fd, uint64_t size);
/* cmd_bench.c: one mode's figures as awr bench -o json prints them (qualify reuses it) */
struct json_object *bench_mode_json(const struct bench_mode_result *x);
/* device_out.c: device views (NVMe / SCSI) */
void device_add_json(struct json_object *o, const struct awr_device *d);
void device_print(const struct awr_device *d);
struct json_object *device_findings_json(const struct awr_device *d);
struct json_object *stack_json(const struct awr_stack_view *s);
void stack_print(const struct awr_stack_view *s);

/* write_pt.c: the passthrough engines of awr write */
struct pt_target;
int pt_open(const char *engine, const char *path, unsigned int qd, bool force, struct pt_target **out);
ssize_t pt_write(struct pt_target *t, const void *buf, size_t len, uint64_t off, bool fua,
		 struct awr_verdict *v);
int pt_read_fd(const struct pt_target *t);
struct awr_nvme *pt_nvme(const struct pt_target *t);
struct awr_scsi *pt_scsi(const struct pt_target *t);
int pt_check_range(const struct pt_target *t, uint64_t unit, uint64_t offset, uint64_t length,
		   struct awr_verdict *v, uint64_t *bad);
void pt_close(struct pt_target *t);

/* commands */
int cmd_probe(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_write(int argc, const char **argv);
int cmd_bench(int argc, const char **argv);
int cmd_stress(int argc, const char **argv);
int cmd_verify(int argc, const char **argv);
int cmd_qualify(int argc, const char **argv);
int cmd_database(int argc, const char **argv);
int cmd_preload_stats(int argc, const char **argv);
/* cmd_journal_serve.c: the journal server; tcp:// journal errors and --secret-file for stress and verify */
int cmd_journal_serve(int argc, const char **argv);
bool journal_remote_error(const char *verb, const char *url, const char *secret_file, int ret);
int secret_file_check(const char *file);

/* cmd_verify.c: verification results, shared with qualify */
void verify_issue_text(const struct awr_verify_issue *is, uint32_t unit, char *buf, size_t len);
struct json_object *verify_issue_json(const struct awr_verify_issue *is);
struct json_object *verify_result_json(const struct awr_verify_result *r, bool journal);
bool verify_failed(const struct awr_verify_result *r);
double verify_mbps(const struct awr_verify_result *r);
int cmd_decode(int argc, const char **argv);
int cmd_list(int argc, const char **argv);	/* cmd_list.c */
int cmd_version(int argc, const char **argv);	/* cmd_version.c */
int cmd_replay(int argc, const char **argv);	/* cmd_replay.c: dm-log-writes logs */


/* fs_out.c: the filesystem view and extent reports (probe's fs section, extents, prepare) */
#define FS_MAX_FINDINGS 8	/* the fs section shows at most 8 of awr_fs_findings() */
struct fs_band {
	uint64_t from, to;
	const char *path;	/* "hardware", "software", "unknown" */
	const char *why;
};
const char *fs_type_label(const struct awr_fs_view *v);
uint64_t fs_default_unit(const struct awr_fs_view *v);
void fs_paths(const struct awr_fs_view *v, struct fs_band *band, unsigned int *n);
struct json_object *fs_view_json(const struct awr_fs_view *v, const struct awr_extent_report *r);
void fs_view_print(const struct awr_fs_view *v, const struct awr_extent_report *r);
struct json_object *extents_ranges_json(const struct awr_extent_report *r);
struct json_object *fs_probe_json(const char *path);
void fs_probe_print(const char *path);
int cmd_extents(int argc, const char **argv);
int cmd_report(int argc, const char **argv);

/* report_html.c: the qualification report as one self-contained HTML file */
const char *report_html_not_report(struct json_object *doc);	/* why not a report, or NULL */
int report_html(struct json_object *doc, FILE *f);
int report_html_dest_ok(const char *path, bool force);	/* 0, or refused (out_error said why) */
int report_html_file(struct json_object *doc, const char *path);
int cmd_prepare(int argc, const char **argv);
/* write_path.c: awr write --report-path */
struct write_paths;
struct write_paths *write_paths_new(const char *engine);	/* NULL, said why: not the sync engine */
ssize_t write_paths_pwrite(struct write_paths *w, struct awr_file *f, const void *buf, size_t len, uint64_t off,
			   unsigned int flags, struct awr_verdict *v);
void write_paths_report(const struct write_paths *w, struct json_object *o);	/* o NULL: normal output */
void write_paths_free(struct write_paths *w);

#endif /* AWR_CLI_H */
