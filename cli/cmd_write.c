// SPDX-License-Identifier: MIT
/*
 * awr write PATH --offset O --length L [--unit U]: atomic writes of a pattern
 * or a file's content, each unit one untorn write, optionally read back: the
 * library's write job (awr_write_job_open(), awr_write_job_run()); this file
 * parses and renders.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "awr.h"
#include "fields.h"
#include "platform/platform.h"

struct write_cli {
	const char *path, *engine, *input;
	enum awr_job_engine e;
	struct awr_write_job job;
	struct awr_write_job_result res;
	struct json_object *units;	/* --report-path: [{offset, length, path}] */
	bool force, verify;
};

static const struct field report_fields[] = {
	FLD(struct awr_write_job, offset, FLD_UINT, "offset"),
	FLD(struct awr_write_job, length, FLD_UINT, "length"),
	FLD(struct awr_write_job, unit, FLD_UINT, "unit"),
	FLD_END
};

static const struct field result_fields[] = {
	FLD(struct awr_write_job_result, writes, FLD_UINT, "writes"),
	FLD(struct awr_write_job_result, bytes_written, FLD_UINT, "bytes_written"),
	FLD_END
};

static const struct field queue_fields[] = {
	FLD(struct awr_write_job_result, depth, FLD_UINT, "depth"),
	FLD(struct awr_write_job_result, stats.reaps, FLD_UINT, "reaps"),
	FLD(struct awr_write_job_result, stats.reaps_below_depth, FLD_UINT, "reaps_below_depth"),
	FLD(struct awr_write_job_result, stats.inflight_min, FLD_UINT, "inflight_min"),
	FLD(struct awr_write_job_result, stats.inflight_max, FLD_UINT, "inflight_max"),
	FLD_END
};

/* after inflight_mean, the one figure the queue's counters do not hold */
static const struct field queue_tail[] = {
	FLD(struct awr_write_job_result, stats.submit_calls, FLD_UINT, "submit_calls"),
	FLD_END
};

/* --report-path: units per route */
static const struct field route_fields[] = {
	FLD(struct awr_write_job_result, routes[AWR_ROUTE_HARDWARE], FLD_UINT, "hardware"),
	FLD(struct awr_write_job_result, routes[AWR_ROUTE_SOFTWARE], FLD_UINT, "software"),
	FLD(struct awr_write_job_result, routes[AWR_ROUTE_UNKNOWN], FLD_UINT, "unknown"),
	FLD_END
};

static int parse_pattern(struct awr_write_job *j, const char *pattern)
{
	char *end;
	unsigned long v = 0x5a;

	if (pattern) {
		errno = 0;
		v = strtoul(pattern, &end, 0);
		if (errno || *end || end == pattern || v > 255) {
			out_error("--pattern '%s' is not a byte: use 0..255 or 0x00..0xff",
				  pattern);
			return -EINVAL;
		}
	}
	j->pattern = (int)v;
	return 0;
}

/* The engine and depth, then the range: the library's checks (awr_write_job_engine(), _check()) */
static int parse_job(struct write_cli *w, char **s)
{
	struct awr_write_job *j = &w->job;
	uint64_t v;

	if (awr_write_job_engine(j, w->engine, s[5], &w->e)) {
		if (w->e < AWR_JOB__ENGINES && awr_parse_size(s[5], &v))
			parse_size_arg("qd", s[5], &v);	/* why the text is no size, first */
		out_error("%s", awr_last_error());
		return -EINVAL;
	}
	if (parse_size_arg("offset", s[0], &j->offset) ||
	    parse_size_arg("length", s[1], &j->length))
		return -EINVAL;
	j->unit = j->length;
	if (s[2] && parse_size_arg("unit", s[2], &j->unit))
		return -EINVAL;
	if (!awr_write_job_check(j))
		return 0;
	out_error("%s", awr_last_error());
	return -EINVAL;
}

static void route_json(void *arg, uint64_t offset, uint64_t length, enum awr_write_route r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "offset", out_u64(offset));
	json_object_object_add(o, "length", out_u64(length));
	json_object_object_add(o, "path", json_object_new_string(awr_write_route_name(r)));
	json_object_array_add(arg, o);
}

static void report_routes(const struct write_cli *w, struct json_object *o)
{
	const uint64_t *n = w->res.routes;

	if (!o) {
		printf("paths: %" PRIu64 " hardware, %" PRIu64 " software, %" PRIu64 " unknown\n",
		       n[AWR_ROUTE_HARDWARE], n[AWR_ROUTE_SOFTWARE], n[AWR_ROUTE_UNKNOWN]);
		return;
	}
	fld_json_add(o, route_fields, &w->res);
	json_object_object_add(o, "units", json_object_get(w->units));
}

static void report(const struct write_cli *w)
{
	const struct awr_write_job_result *r = &w->res;
	bool dsync = w->job.write_flags & AWR_WRITE_DSYNC;
	struct json_object *o, *q;
	char a[32], b[32], t[32];

	if (out_mode == OUT_NORMAL) {
		printf("wrote %s at %" PRIu64 " as %" PRIu64 " atomic write%s of %s in %s%s%s\n",
		       awr__human_bytes(r->bytes_written, a, sizeof(a)), w->job.offset, r->writes,
		       r->writes == 1 ? "" : "s", awr__human_bytes(w->job.unit, b, sizeof(b)),
		       awr__human_usec(r->seconds * 1e6, t, sizeof(t)),
		       dsync ? ", durable (dsync)" : "",
		       r->verified ? ", read back and verified" : "");
		if (w->units)
			report_routes(w, NULL);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(w->path));
	fld_json_add(o, report_fields, &w->job);
	fld_json_add(o, result_fields, r);
	json_object_object_add(o, "dsync", json_object_new_boolean(dsync));
	json_object_object_add(o, "verified", !w->verify || r->error == -ENODEV ? NULL :
			       json_object_new_boolean(r->verified));
	json_object_object_add(o, "seconds", out_double(r->seconds, 6));
	if (r->depth) {	/* writes in the kernel at each reap (awr_queue_stats()) */
		q = fld_json(queue_fields, r);
		json_object_object_add(q, "inflight_mean", out_double(r->stats.reaps ?
			(double)r->stats.inflight_sum / (double)r->stats.reaps : 0, 2));
		fld_json_add(q, queue_tail, r);
		json_object_object_add(o, "queue", q);
	}
	if (w->units)
		report_routes(w, o);
	out_print_json(o);
}

/* Where the job stopped, as awr write's outcome and exit status; the sentence is the library's. */
static int render(const struct write_cli *w)
{
	static const char *const outcome[] = {
		[AWR_JOB_REFUSED] = "not_atomic", [AWR_JOB_WRITE_FAILED] = "write_failed",
		[AWR_JOB_VERIFY_FAILED] = "verify_failed",
	};
	const struct awr_write_job_result *r = &w->res;

	if (r->stage == AWR_JOB_BAD_JOB) {
		out_error("%s", awr_last_error());
		return AWR_EXIT_USAGE;
	}
	if (r->stage != AWR_JOB_DONE)
		out_outcome(outcome[r->stage]);
	if (r->stage != AWR_JOB_DONE && r->stage != AWR_JOB_VERIFY_FAILED) {
		out_error("%s", awr_last_error());
		return AWR_EXIT_FAIL;
	}
	report(w);
	if (r->stage == AWR_JOB_DONE)
		return AWR_EXIT_OK;
	if (r->error != -ENODEV) {
		out_error("%s", awr_last_error());
		return AWR_EXIT_FAIL;
	}
	out_error("cannot verify %s: no block device to read back through", w->path);
	return AWR_EXIT_USAGE;
}

/* --force given: what the target held, or a passthrough device whose content is unknown */
static void force_warning(const struct write_cli *w, const struct awr_safety *s)
{
	char node[128];

	if (w->job.queue && !s->is_block_device) {
		out_error("warning: cannot tell whether %s holds data (no block device is bound to "
			  "it): --force given", w->path);
		return;
	}
	if (!s->reasons)
		return;
	if (w->job.queue)	/* what was examined: the block disk claimed */
		snprintf(node, sizeof(node), "/dev/%s",
			 awr_device_disk(awr_queue_device(w->job.queue)));
	out_error("warning: writing %s although it %s: --force given",
		  w->job.queue ? node : w->path, s->detail);
}

/* The target opened once and guarded for the engine (awr_write_job_open()), the job run. */
static int run(struct write_cli *w)
{
	struct awr_safety s;

	if (awr_write_job_open(&w->job, w->path, w->e, w->force ? AWR_TARGET_FORCE : 0, &s)) {
		out_error("%s", awr_last_error());
		return AWR_EXIT_USAGE;
	}
	force_warning(w, &s);
	awr_write_job_run(&w->job, &w->res);
	return render(w);
}

static int setup(struct write_cli *w, char **s, int dsync, int report_path)
{
	struct awr_write_job *j = &w->job;

	j->write_flags = dsync ? AWR_WRITE_DSYNC : 0;
	j->flags = w->verify ? AWR_JOB_VERIFY : 0;
	if (parse_job(w, s))
		return -EINVAL;
	if (s[3] && w->input) {
		out_error("--pattern and --input exclude each other: give one");
		return -EINVAL;
	}
	if (report_path) {
		j->flags |= AWR_JOB_ROUTES;
		j->route = route_json;
		j->arg = w->units = json_object_new_array();
	}
	if (!w->input)
		return parse_pattern(j, s[3]);
	if (!awr_write_job_input(j, w->input))
		return 0;
	out_error("%s", awr_last_error());
	return -EINVAL;
}

int cmd_write(int argc, const char **argv)
{
	/* offset, length, unit, pattern, engine (unused), qd */
	char *s[6] = { NULL }, *input = NULL, *engine = NULL;
	int dsync = 0, do_verify = 0, force = 0, report_path = 0;
	struct poptOption table[] = {
		{ "offset", 0, POPT_ARG_STRING, &s[0], 0, "byte offset of the first write", "O" },
		{ "length", 0, POPT_ARG_STRING, &s[1], 0, "bytes to write in all", "L" },
		{ "unit", 0, POPT_ARG_STRING, &s[2], 0,
		  "size of each atomic write (default: the whole length)", "U" },
		{ "pattern", 0, POPT_ARG_STRING, &s[3], 0, "fill byte (default 0x5a)", "BYTE" },
		{ "input", 0, POPT_ARG_STRING, &input, 0, "take the data from FILE", "FILE" },
		{ "dsync", 0, POPT_ARG_NONE, &dsync, 0,
		  "make each write durable (RWF_DSYNC; FUA for nvme/scsi)", NULL },
		{ "verify", 0, POPT_ARG_NONE, &do_verify, 0, "read back with O_DIRECT and compare",
		  NULL },
		{ "engine", 0, POPT_ARG_STRING, &engine, 0,
		  "sync (pwritev2), uring (io_uring batch), nvme (uring_cmd on /dev/ngXnY) or scsi "
		  "(WRITE ATOMIC(16))", "sync|uring|nvme|scsi" },
		{ "qd", 0, POPT_ARG_STRING, &s[5], 0,
		  "writes in flight: uring and nvme engines (default 32; nvme at most 64), scsi "
		  "(default one at a time; at most 16)", "N" },
		{ "force", 0, POPT_ARG_NONE, &force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ "report-path", 0, POPT_ARG_NONE, &report_path, 0,
		  "report per unit whether it took the hardware or the software path (sync engine)",
		  NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct write_cli w = { .job = { .input_fd = -1, .verify_fd = -1, .pattern = -1 } };
	struct cmd_ctx c;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	w.path = c.operand;
	w.engine = engine;
	w.input = input;
	w.force = force;
	w.verify = do_verify;
	if (!setup(&w, s, dsync, report_path))
		rc = run(&w);
	json_object_put(w.units);
	awr_write_job_close(&w.job);
	cmd_done(&c);
	return rc;
}
