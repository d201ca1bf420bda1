// SPDX-License-Identifier: MIT
/* The output layer: -o normal|json, JSON through json-c, errors on stderr. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "awr.h"

enum out_mode out_mode = OUT_NORMAL;
static char *out_arg;

const struct poptOption out_options[] = {
	{ "output", 'o', POPT_ARG_STRING, &out_arg, 0,
	  "output format (prometheus: awr list and awr qualify, node_exporter's textfile format)",
	  "normal|json|prometheus" },
	POPT_TABLEEND
};

/* The commands that write the node_exporter textfile format (prom_*() below). */
static bool prometheus_command(const char *cmd)
{
	return cmd && (!strcmp(cmd, "list") || !strcmp(cmd, "qualify"));
}

int out_apply_options(const char *cmd)
{
	if (!out_arg || !strcmp(out_arg, "normal"))
		out_mode = OUT_NORMAL;
	else if (!strcmp(out_arg, "json"))
		out_mode = OUT_JSON;
	else if (!strcmp(out_arg, "prometheus") && prometheus_command(cmd))
		out_mode = OUT_PROMETHEUS;
	else if (!strcmp(out_arg, "prometheus")) {
		out_error("%s: -o prometheus is written by awr list and awr qualify only: use -o normal or -o json "
			  "here", cmd ? cmd : "awr");
		return -EINVAL;
	} else {
		out_error("invalid output format '%s': use -o normal, -o json (or -o prometheus with awr list and "
			  "awr qualify)", out_arg);
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

/* a label value escaped: backslash, double quote and newline */
static void prom_escape(const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			printf("\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", stdout);
		else
			putchar(*v);
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
	prom_sample("awr_info", (const char *const[]){ "version", AWR_VERSION_STRING, "kernel", u.release, NULL }, 1);
	prom_gauge("awr_last_run_timestamp_seconds", "when awr wrote these metrics (seconds since the epoch)");
	prom_sample("awr_last_run_timestamp_seconds", NULL, (double)time(NULL));
}

/*
 * Every JSON document carries schema_version: raised when a key changes
 * meaning or disappears (new keys do not raise it).
 */
#define AWR_JSON_SCHEMA_VERSION	1

struct json_object *out_json_schema(struct json_object *obj)
{
	if (json_object_is_type(obj, json_type_object) && !json_object_object_get_ex(obj, "schema_version", NULL))
		json_object_object_add(obj, "schema_version", json_object_new_int(AWR_JSON_SCHEMA_VERSION));
	return obj;
}

void out_print_json(struct json_object *obj)
{
	out_json_schema(obj);
	puts(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_SPACED |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(obj);
}

void out_error(const char *fmt, ...)
{
	va_list ap;

	fputs("awr: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool out_is_tty(void)
{
	return out_mode == OUT_NORMAL && isatty(STDOUT_FILENO);
}

struct json_object *out_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

void out_add_unit_limits(struct json_object *o, bool supported, uint64_t unit_min, uint64_t unit_max,
			 uint64_t max_bytes, uint64_t boundary)
{
	json_object_object_add(o, "supported", json_object_new_boolean(supported));
	json_object_object_add(o, "unit_min", out_u64(unit_min));
	json_object_object_add(o, "unit_max", out_u64(unit_max));
	json_object_object_add(o, "max_bytes", out_u64(max_bytes));
	json_object_object_add(o, "boundary", out_u64(boundary));
}

struct json_object *out_limits_json(const struct awr_limits *l)
{
	struct json_object *o = json_object_new_object();

	out_add_unit_limits(o, l->supported, l->unit_min, l->unit_max, l->max_bytes, l->boundary);
	json_object_object_add(o, "segments_max", out_u64(l->segments_max));
	json_object_object_add(o, "unit_max_opt", out_u64(l->unit_max_opt));
	json_object_object_add(o, "mem_align", out_u64(l->mem_align));
	json_object_object_add(o, "offset_align", out_u64(l->offset_align));
	return o;
}

const char *out_severity_name(enum awr_severity s)
{
	return s == AWR_SEV_ERROR ? "error" : s == AWR_SEV_WARN ? "warn" : "info";
}

struct json_object *out_finding_json(const struct awr_finding *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_string(f->id));
	json_object_object_add(o, "severity", json_object_new_string(out_severity_name(f->severity)));
	json_object_object_add(o, "message", json_object_new_string(f->message));
	return o;
}

struct json_object *out_probe_findings_json(const struct awr_probe *p)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++)
		json_object_array_add(a, out_finding_json(awr_probe_finding(p, i)));
	return a;
}

const char *out_errno_name(int err)
{
	switch (err < 0 ? -err : err) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case EIO: return "EIO";
	case ENOSPC: return "ENOSPC";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	default: return "errno";
	}
}

struct json_object *out_verdict_json(const struct awr_verdict *v)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "atomic", json_object_new_boolean(v->rule == AWR_RULE_OK));
	json_object_object_add(o, "rule", json_object_new_string(awr_rule_name(v->rule)));
	json_object_object_add(o, "errno", json_object_new_string(out_errno_name(v->error)));
	json_object_object_add(o, "message", json_object_new_string(v->message));
	return o;
}

const char *out_size(uint64_t bytes, char *buf, size_t len)
{
	return awr_format_size(bytes, buf, len);
}
