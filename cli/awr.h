/* SPDX-License-Identifier: MIT */
/* The awr command-line tool: command table, output layer, argument helpers. */
#ifndef AWR_CLI_H
#define AWR_CLI_H

#include <json-c/json.h>
#include <popt.h>
#include <stdbool.h>
#include <stdint.h>

#include "libatomicwr.h"

/* Exit codes (man/awr.1). */
#define AWR_EXIT_OK	0	/* success; the check or write held */
#define AWR_EXIT_FAIL	1	/* the check, write or verification failed */
#define AWR_EXIT_USAGE	2	/* usage or environment error */

struct awr_cmd {
	const char *name;
	const char *summary;
	int (*handler)(int argc, const char **argv);
};

/* output.c: one output layer for every command */
enum out_mode { OUT_NORMAL, OUT_JSON };
extern enum out_mode out_mode;
extern const struct poptOption out_options[];	/* -o normal|json */

int out_apply_options(void);
void out_print_json(struct json_object *obj);
void out_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool out_is_tty(void);
struct json_object *out_u64(uint64_t v);
struct json_object *out_limits_json(const struct awr_limits *l);
struct json_object *out_verdict_json(const struct awr_verdict *v);
const char *out_size(uint64_t bytes, char *buf, size_t len);
const char *out_errno_name(int err);

/* args.c: popt context and operand helpers shared by commands */
struct cmd_ctx {
	const char *name;
	poptContext pc;
	const struct poptOption *table;
	const char *operand;	/* the PATH operand */
};

int cmd_parse(struct cmd_ctx *c, int argc, const char **argv,
	      const struct poptOption *table, const char *operand_name, bool operand_required);
void cmd_done(struct cmd_ctx *c);
int parse_size_arg(const char *opt, const char *text, uint64_t *out);
int guard_target(const char *path, bool force);

/* device_out.c: device views (NVMe / SCSI) */
void device_add_json(struct json_object *o, const struct awr_device *d);
void device_print(const struct awr_device *d);
const char *device_severity_name(enum awr_severity s);
struct json_object *device_findings_json(const struct awr_device *d);
struct json_object *finding_json(const struct awr_finding *f);

/* write_pt.c: the passthrough engines of awr write */
struct pt_target;
int pt_open(const char *engine, const char *path, bool force, struct pt_target **out);
ssize_t pt_write(struct pt_target *t, const void *buf, size_t len, uint64_t off, bool fua,
		 struct awr_verdict *v);
int pt_read_fd(const struct pt_target *t);
void pt_close(struct pt_target *t);

/* commands */
int cmd_probe(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_write(int argc, const char **argv);
int cmd_decode(int argc, const char **argv);

#endif /* AWR_CLI_H */
