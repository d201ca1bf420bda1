// SPDX-License-Identifier: MIT
/* The output layer: -o normal|json, JSON through json-c, errors on stderr. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "config.h"

#include "awr.h"

enum out_mode out_mode = OUT_NORMAL;
static char *out_arg;

const struct poptOption out_options[] = {
	{ "output", 'o', POPT_ARG_STRING, &out_arg, 0, "output format", "normal|json" },
	POPT_TABLEEND
};

/* awr list and awr qualify: also node_exporter's textfile format */
const struct poptOption out_options_prom[] = {
	{ "output", 'o', POPT_ARG_STRING, &out_arg, 0,
	  "output format (prometheus: node_exporter's textfile format)", "normal|json|prometheus" },
	POPT_TABLEEND
};

/* The commands that write the node_exporter textfile format (prom_*() below). */
static bool prometheus_command(const char *cmd)
{
	return cmd && (!strcmp(cmd, "list") || !strcmp(cmd, "qualify"));
}

int out_apply_options(const char *cmd)
{
	if (!out_arg)	/* not given, or not reached before a bad option: keep out_prescan()'s
			   reading */
		return 0;
	if (!strcmp(out_arg, "normal"))
		out_mode = OUT_NORMAL;
	else if (!strcmp(out_arg, "json"))
		out_mode = OUT_JSON;
	else if (!strcmp(out_arg, "prometheus") && prometheus_command(cmd))
		out_mode = OUT_PROMETHEUS;
	else if (!strcmp(out_arg, "prometheus")) {
		out_error("%s: -o prometheus is written by awr list and awr qualify only: use -o "
			  "normal or -o json here", cmd ? cmd : "awr");
		return -EINVAL;
	} else {
		out_error("invalid output format '%s': use -o normal, -o json (or -o prometheus "
			  "with awr list and awr qualify)", out_arg);
		return -EINVAL;
	}
	return 0;
}

/* ---- node_exporter's textfile format (the Prometheus text exposition format 0.0.4) ---- */

/* HELP and TYPE of a gauge, once per metric name, before its first sample */
void prom_gauge(const char *name, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/*
 * A label value as the text format takes it: backslash, double quote and newline escaped, and
 * UTF-8 only. node_exporter refuses a whole textfile with one invalid byte in it, so each byte
 * that is not part of valid UTF-8 is spelled out as \xff (the label then reads backslash, x and
 * two hex digits, as Python's "backslashreplace" spells it; two names that differ in such bytes
 * stay two series).
 */
static void prom_escape(const char *v)
{
	for (; *v; v++) {
		size_t n = awr__utf8_len((const unsigned char *)v);

		if (*v == '\\' || *v == '"')
			printf("\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", stdout);
		else if (!n)
			printf("\\\\x%02x", (unsigned char)*v);
		else
			v += fwrite(v, 1, n, stdout) ? n - 1 : 0;
	}
}

/* one sample: NAME{K1="V1",...} VALUE; @labels is NULL-terminated pairs of key and value */
void prom_sample(const char *name, const char *const *labels, double value)
{
	fputs(name, stdout);
	if (labels && labels[0]) {
		putchar('{');
		for (int i = 0; labels[i]; i += 2) {
			printf("%s%s=\"", i ? "," : "", labels[i]);
			prom_escape(labels[i + 1] ? labels[i + 1] : "");
			putchar('"');
		}
		putchar('}');
	}
	/* counts and bytes exactly, seconds to the microsecond */
	if (value == (double)(int64_t)value)
		printf(" %" PRId64 "\n", (int64_t)value);
	else
		printf(" %.6f\n", value);
}

/* awr_info{version,kernel} 1 and the time of the reading */
void prom_info(void)
{
	struct utsname u;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	prom_gauge("awr_info", "the awr that wrote these metrics and the kernel it read them on");
	prom_sample("awr_info",
		    (const char *const[]){ "version", AWR_VERSION_STRING, "kernel", u.release,
					   NULL }, 1);
	prom_gauge("awr_last_run_timestamp_seconds",
		   "when awr wrote these metrics (seconds since the epoch)");
	prom_sample("awr_last_run_timestamp_seconds", NULL, (double)time(NULL));
}

/*
 * Every JSON document carries schema_version: raised when a key changes
 * meaning or disappears (new keys do not raise it).
 */
#define AWR_JSON_SCHEMA_VERSION	2	/* 2: effective.dio_*_align, seconds to the millisecond */

static void json_utf8(struct json_object *o);

/* An object's values, then its keys (moved under their spelled form after the walk: a key is
 * not changed while the table is walked). At most 16 such keys an object; more stay as they are. */
static void json_utf8_object(struct json_object *o)
{
	struct json_object *val;
	char *bad[16], *v;
	size_t nb = 0;

	json_object_object_foreach(o, key, each) {
		json_utf8(each);
		if (nb < 16 && (v = awr__utf8_spelled(key))) {
			free(v);
			bad[nb++] = strdup(key);
		}
	}
	for (size_t i = 0; i < nb; i++) {
		v = bad[i] ? awr__utf8_spelled(bad[i]) : NULL;
		if (v && json_object_object_get_ex(o, bad[i], &val)) {
			json_object_object_add(o, v, json_object_get(val));
			json_object_object_del(o, bad[i]);
		}
		free(v);
		free(bad[i]);
	}
}

/*
 * JSON text is UTF-8 (RFC 8259, section 8.1) and json-c writes a string's bytes as they are: a
 * path or a device model with bytes that are not UTF-8 would make the whole document unreadable.
 * Every string value and key of @o is spelled as awr__utf8_spelled() does, once, before it is
 * written.
 */
static void json_utf8(struct json_object *o)
{
	char *v;

	if (json_object_is_type(o, json_type_string)) {
		if ((v = awr__utf8_spelled(json_object_get_string(o)))) {
			json_object_set_string(o, v);
			free(v);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			json_utf8(json_object_array_get_idx(o, i));
	} else if (json_object_is_type(o, json_type_object)) {
		json_utf8_object(o);
	}
}

struct json_object *out_json_schema(struct json_object *obj)
{
	json_utf8(obj);
	if (json_object_is_type(obj, json_type_object) &&
	    !json_object_object_get_ex(obj, "schema_version", NULL))
		json_object_object_add(obj, "schema_version",
				       json_object_new_int(AWR_JSON_SCHEMA_VERSION));
	return obj;
}

static bool json_printed;	/* a JSON document went to stdout: no error document after it */
static char last_error[1024];	/* the last out_error() message, for the error document */
static char cmd_name[64], cmd_target[4096];
static int error_errno;	/* set by out_set_errno(): the errno of the refusal, when its message names
			   none */

void out_set_command(const char *name, const char *target)
{
	snprintf(cmd_name, sizeof(cmd_name), "%s", name ? name : "");
	snprintf(cmd_target, sizeof(cmd_target), "%s", target ? target : "");
}

void out_set_errno(int e)
{
	error_errno = e < 0 ? -e : e;
}

/*
 * -o json asked anywhere on the command line: an error before the options are parsed is a document
 * too
 */
void out_prescan(int argc, const char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;

		if (!strcmp(argv[i], "--"))
			break;
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			v = argv[i + 1];
		else if (!strncmp(argv[i], "--output=", 9))
			v = argv[i] + 9;
		else if (!strncmp(argv[i], "-o", 2) && argv[i][2])
			v = argv[i] + 2;
		if (v && !strcmp(v, "json"))
			out_mode = OUT_JSON;
	}
}

/*
 * The command's JSON document is held until the command returns, so that out_finish() can say
 * in it what the exit status means ("outcome"); a second document (none is made today) goes
 * out at once.
 */
static struct json_object *pending;
static const char *fail_outcome;	/* out_outcome(): what exit 1 means for this run */

static void print_doc(struct json_object *obj)
{
	out_json_schema(obj);
	puts(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_SPACED |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(obj);
	fflush(stdout);
}

void out_print_json(struct json_object *obj)
{
	json_printed = true;
	if (pending)
		print_doc(pending);
	pending = obj;
}

void out_outcome(const char *why)
{
	fail_outcome = why;
}

void out_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "awr: %s\n", last_error);
}

/*
 * The errno a message names: the longest strerror() text found in it ("No such file or
 * directory" -> ENOENT), or 0. Every message of awr that comes from a system call carries it.
 */
static int errno_named(const char *msg)
{
	size_t best_len = 0;
	int best = 0;

	for (int e = 1; e < 134; e++) {
		const char *t = strerror(e);
		size_t n = strlen(t);

		if (n > best_len && strncmp(t, "Unknown error", 13) && strstr(msg, t)) {
			best = e;
			best_len = n;
		}
	}
	return best;
}

/*
 * What the exit status says, in one word: 0 "ok"; 1 what the command set with out_outcome()
 * ("not_atomic", "requirement_not_met", "write_failed", "verify_failed", "verdict_fail",
 * "not_safe", "not_aligned", "refused"); 2 "error"; 128+N "stopped".
 */
static const char *outcome_of(int rc)
{
	switch (rc) {
	case AWR_EXIT_OK: return "ok";
	case AWR_EXIT_FAIL: return fail_outcome ? fail_outcome : "failed";
	case AWR_EXIT_USAGE: return "error";
	default: return rc > 128 ? "stopped" : "error";
	}
}

/* The error document of a command that ended without one of its own */
struct error_doc {
	const char *error, *errno_name, *command, *target, *outcome;
};

#define E(m, k, ...) FLD(struct error_doc, m, FLD_STR, k, __VA_ARGS__)
static const struct field error_fields[] = {
	E(error, "error"),
	E(errno_name, "errno", .flags = FLD_NULL_ZERO),
	E(command, "command", .flags = FLD_NULL_ZERO),
	E(target, "target", .flags = FLD_NULL_ZERO),
	E(outcome, "outcome"),
	FLD_END
};
#undef E

/*
 * At the end of a command (main): with -o json, the held document gets "outcome" and goes out;
 * a command that ended in a refusal or an error without a document prints one instead:
 * schema_version, error (the message), errno (its name, or null), command, target, outcome.
 */
void out_finish(int rc)
{
	struct json_object *o;
	struct error_doc d;
	int e;

	if (pending) {
		if (!json_object_object_get_ex(pending, "outcome", NULL))
			json_object_object_add(pending, "outcome",
					       json_object_new_string(outcome_of(rc)));
		print_doc(pending);
		pending = NULL;
		return;
	}
	if (out_mode != OUT_JSON || rc == AWR_EXIT_OK || json_printed || !last_error[0])
		return;
	e = error_errno ? error_errno : errno_named(last_error);
	d = (struct error_doc){ last_error, e ? awr__errno_name(-e) : NULL, cmd_name, cmd_target,
				outcome_of(rc) };
	o = fld_json(error_fields, &d);
	print_doc(o);
}

struct json_object *out_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

#define L(m, t, k) FLD(struct awr_limits, m, t, k)
const struct field out_limits_fields[] = {
	L(supported, FLD_BOOL, "supported"),
	L(unit_min, FLD_SIZE, "unit_min"),
	L(unit_max, FLD_SIZE, "unit_max"),
	L(max_bytes, FLD_SIZE, "max_bytes"),
	L(boundary, FLD_SIZE, "boundary"),
	L(segments_max, FLD_UINT, "segments_max"),
	L(unit_max_opt, FLD_SIZE, "unit_max_opt"),
	L(mem_align, FLD_SIZE, "dio_mem_align"),
	L(offset_align, FLD_SIZE, "dio_offset_align"),
	FLD_END
};
#undef L

struct json_object *out_limits_json(const struct awr_limits *l)
{
	return fld_json(out_limits_fields, l);
}

void out_add_versions(struct json_object *o)
{
	struct utsname u;

	json_object_object_add(o, "kernel", json_object_new_string(uname(&u) ? "" : u.release));
	json_object_object_add(o, "awr_version", json_object_new_string(awr_version()));
}

struct json_object *out_double(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

FLD_ENUM_NAME(awr_severity_name, enum awr_severity)

const struct field out_finding_fields[] = {
	FLD(struct awr_finding, id, FLD_STR, "id"),
	FLD(struct awr_finding, severity, FLD_ENUM, "severity", .name = awr_severity_name_int),
	FLD(struct awr_finding, message, FLD_CHARS, "message"),
	FLD(struct awr_finding, what_to_do, FLD_STR, "what_to_do", .flags = FLD_NULL_ZERO),
	FLD_END
};

struct json_object *out_finding_json(const struct awr_finding *f)
{
	return fld_json(out_finding_fields, f);
}

void out_finding_print(const struct awr_finding *f)
{
	printf("  [%s] %s: %s\n", awr_severity_name(f->severity), f->id, f->message);
	if (f->what_to_do)
		printf("      what to do: %s\n", f->what_to_do);
}

struct json_object *out_probe_findings_json(const struct awr_probe *p)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++)
		json_object_array_add(a, out_finding_json(awr_probe_finding(p, i)));
	return a;
}

FLD_ENUM_NAME(awr_write_cache_name, enum awr_write_cache)

/* A disk's write cache and FUA, null when sysfs did not show them (AWR_*_UNKNOWN is 0) */
#define W(m, t, k, ...) FLD(struct awr_sysfs_view, m, t, k, .flags = FLD_NULL_ZERO, __VA_ARGS__)
static const struct field write_cache_fields[] = {
	W(write_cache, FLD_ENUM, "write_cache", .name = awr_write_cache_name_int),
	W(write_cache, FLD_BOOL, "write_cache_volatile", .is = AWR_WRITE_CACHE_WRITE_BACK),
	W(fua, FLD_BOOL, "fua", .is = AWR_FUA_YES),
	FLD_END
};
#undef W

void out_add_write_cache(struct json_object *o, const struct awr_sysfs_view *y)
{
	fld_json_add(o, write_cache_fields, y);
}

const char *out_write_cache_text(const struct awr_sysfs_view *y, char *buf, size_t len)
{
	return awr__write_cache_text(y->write_cache ? y->write_cache == AWR_WRITE_CACHE_WRITE_BACK :
				     -1, y->fua ? y->fua == AWR_FUA_YES : -1, buf, len);
}

const char *out_write_cache_cell(const struct awr_sysfs_view *y)
{
	bool fua = y->fua == AWR_FUA_YES;

	if (y->write_cache == AWR_WRITE_CACHE_WRITE_BACK)
		return fua ? "back+fua" : "back";
	if (y->write_cache == AWR_WRITE_CACHE_WRITE_THROUGH)
		return fua ? "thru+fua" : "through";
	return "-";
}

/* Sizes for people: "16 KiB", "11.9 MiB" (the platform's awr__human_bytes); 0 is "0" */
const char *out_size(uint64_t bytes, char *buf, size_t len)
{
	if (!bytes) {
		snprintf(buf, len, "0");
		return buf;
	}
	return awr__human_bytes(bytes, buf, len);
}
