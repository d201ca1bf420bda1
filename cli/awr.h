/* SPDX-License-Identifier: MIT */
/* The awr command-line tool: command table, output layer, argument helpers. */
#ifndef AWR_CLI_H
#define AWR_CLI_H

#include <json-c/json.h>
#include <popt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libatomicwr.h"
#include "fields.h"
#include "platform/platform.h"

/* Exit codes (man/awr.1). */
#define AWR_EXIT_OK	0	/* success; the check or write held */
#define AWR_EXIT_FAIL	1	/* the check, write or verification failed */
#define AWR_EXIT_USAGE	2	/* usage or environment error */

/* An example of a command: what it does, then the command line (--help, the man page). */
struct awr_example {
	const char *what;
	const char *line;
};

/* A term and what it means: awr list's columns (--help, the man page). */
struct awr_note {
	const char *term;
	const char *text;
};

struct awr_cmd {
	const char *name;
	const char *summary;	/* the one-line purpose */
	int (*handler)(int argc, const char **argv);
	bool writes;	/* writes its target: safety decisions from the real /sys */
	const char *synopsis;	/* operands and options, as the man page's SYNOPSIS */
	const struct awr_example *examples;	/* ends with { NULL, NULL } */
	const char *notes_title;	/* "COLUMNS": the section of the notes */
	const struct awr_note *notes;	/* NULL, or ends with { NULL, NULL } */
};

/* awr.c: the command table */
extern const struct awr_cmd awr_commands[];
extern const size_t awr_nr_commands;

/* help.c: --help, the man pages and the completion from the command table */
struct cmd_ctx;
const struct awr_cmd *awr_command(const char *name);
void help_usage(FILE *f);
/*
 * @text wrapped at word boundaries to @width columns, each later line indented by @indent, the
 * first already at column @col; a newline at the end
 */
void text_wrap(FILE *f, const char *text, int indent, int col, int width);
/* --help or -? among the arguments (before "--") */
bool help_asked(int argc, const char **argv);
/* what --help prints for the command parsed by @c: text, a man page or completion words */
int help_command(const struct cmd_ctx *c, const char *operand_name);

/* output.c: one output layer for every command */
enum out_mode { OUT_NORMAL, OUT_JSON, OUT_PROMETHEUS };
extern enum out_mode out_mode;
extern const struct poptOption out_options[];	/* -o normal|json */
/* -o normal|json|prometheus: list, qualify */
extern const struct poptOption out_options_prom[];

int out_apply_options(const char *cmd);
/* -o prometheus (awr list, awr qualify): node_exporter's textfile format */
void prom_gauge(const char *name, const char *help);
void prom_sample(const char *name, const char *const *labels, double value);
void prom_info(void);
/* adds "schema_version" to a JSON document (every one printed or written carries it) */
struct json_object *out_json_schema(struct json_object *obj);
/* the command and its target, for the error document of -o json (cmd_parse sets them) */
void out_set_command(const char *name, const char *target);
void out_set_errno(int e);
void out_prescan(int argc, const char **argv);
void out_print_json(struct json_object *obj);
void out_outcome(const char *why);
void out_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_finish(int rc);
struct json_object *out_u64(uint64_t v);
/* the rows of a struct awr_limits ("effective", "limits") and of a struct awr_finding */
extern const struct field out_limits_fields[];
extern const struct field out_finding_fields[];
struct json_object *out_limits_json(const struct awr_limits *l);
/* "kernel" (the running release) and "awr_version": what a saved report was made with */
void out_add_versions(struct json_object *o);
/* a double with a fixed number of decimals, as its meaning asks (seconds to the millisecond: 3) */
struct json_object *out_double(double v, int decimals);
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
const char *out_size(uint64_t bytes, char *buf, size_t len);

/*
 * progress.c: one line on a terminal's standard error while a long call runs (normal output
 * only)
 */
struct progress;
typedef void (*progress_fn)(void *arg, double elapsed, char *buf, size_t len);
struct progress_file { int fd; uint64_t total; uint64_t base; };
/* NULL: none shown */
struct progress *progress_start(const char *label, progress_fn fn, void *arg);
void progress_stop(struct progress *p);	/* clears the line; NULL is fine */
/* arg: const double *total */
void progress_seconds(void *arg, double elapsed, char *buf, size_t len);
/* arg: struct progress_file */
void progress_allocated(void *arg, double elapsed, char *buf, size_t len);
/* arg: struct progress_file, its base awr__io_read_bytes() at the start */
void progress_read(void *arg, double elapsed, char *buf, size_t len);

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
/*
 * --SIZE "16k", "1MiB": 0 with the value in *@out, or -EINVAL (-ERANGE) after out_error() named
 * the option and what it takes; @text NULL (the option not given) is refused as required.
 */
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
/* The signal (SIGINT, SIGTERM) that asked a stress or bench run to stop; 0 none. */
extern volatile sig_atomic_t stop_signal;
void catch_stop_signals(void (*on)(int));

/* The commands of the table (cmd_NAME.c; cmd_help in help.c) */
int cmd_probe(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_extents(int argc, const char **argv);
int cmd_prepare(int argc, const char **argv);
int cmd_list(int argc, const char **argv);
int cmd_decode(int argc, const char **argv);
int cmd_write(int argc, const char **argv);
int cmd_bench(int argc, const char **argv);
int cmd_stress(int argc, const char **argv);
int cmd_verify(int argc, const char **argv);
int cmd_replay(int argc, const char **argv);	/* dm-log-writes logs */
int cmd_journal_serve(int argc, const char **argv);
int cmd_qualify(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_database(int argc, const char **argv);
int cmd_preload_stats(int argc, const char **argv);
int cmd_help(int argc, const char **argv);
int cmd_version(int argc, const char **argv);

/* cmd_bench.c: each mode that ran, its figures under its name (awr bench -o json, qualify) */
void bench_modes_add(struct json_object *o, const struct awr_bench_result *r);

/* cmd_verify.c: verification results, shared with qualify */
int stamp_unit_arg(const char *text, uint32_t *unit);	/* --unit of stress and verify */
struct json_object *verify_result_json(const struct awr_verify_result *r, bool journal);

/* cmd_journal_serve.c: --secret-file of stress, verify and the journal server */
int secret_file_check(const char *file);

/* device_out.c: device views (NVMe / SCSI) */
void device_add_json(struct json_object *o, const struct awr_device *d);
void device_print(const struct awr_device *d);
struct json_object *device_findings_json(const struct awr_device *d);
void device_identity_json(struct json_object *o, const struct awr_device *d);
void device_identity_print(const struct awr_device *d);
/* an awr list verdict in text: "single-block" for "single_block" */
const char *verdict_text(const char *v, char *buf, size_t len);
struct json_object *stack_json(const struct awr_stack_view *s);
void stack_print(const struct awr_stack_view *s);

/* fs_out.c: the filesystem view and extent reports (probe's fs section, extents, prepare) */
struct json_object *fs_view_json(const struct awr_fs_view *v, const struct awr_extent_report *r);
void fs_view_print(const struct awr_fs_view *v, const struct awr_extent_report *r);
struct json_object *extents_ranges_json(const struct awr_extent_report *r);
struct json_object *fs_probe_json(const char *path);
void fs_probe_print(const char *path);

/* report_html.c: the qualification report as one self-contained HTML file */
const char *report_html_not_report(struct json_object *doc);	/* why not a report, or NULL */
int report_html_dest_ok(const char *path, bool force);	/* 0, or refused (out_error said why) */
int report_html_file(struct json_object *doc, const char *path);

#endif /* AWR_CLI_H */
