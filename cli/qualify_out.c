// SPDX-License-Identifier: MIT
/*
 * awr qualify's JSON report, drawn from the typed report of awr_qualify_run(): every check's
 * figures under the keys the report has always had (tests/report_check.py and the HTML report
 * read them).
 */
#include <time.h>

#include "qualify.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *str(const char *s)
{
	return json_object_new_string(s);
}

const char *q_status_word(enum awr_qualify_status s)
{
	static const char *const words[AWR_QUALIFY__STATUSES] = { "PASS", "FAIL", "SKIP", "INFO" };

	return (unsigned int)s < AWR_QUALIFY__STATUSES ? words[s] : "INFO";
}

/* What each view says, side by side. */
static struct json_object *views_json(const struct awr_probe *p)
{
	const struct awr_statx_view *s = awr_probe_statx(p);
	const struct awr_sysfs_view *y = awr_probe_sysfs(p);
	const struct awr_device *d = awr_probe_device(p);
	struct json_object *o = json_object_new_object(), *v;

	if (s) {
		v = json_object_new_object();
		add(v, "atomic_reported", json_object_new_boolean(s->atomic_reported));
		add(v, "unit_min", out_u64(s->unit_min));
		add(v, "unit_max", out_u64(s->unit_max));
		add(v, "unit_max_opt", out_u64(s->unit_max_opt));
		add(o, "statx", v);
	}
	if (y) {
		v = json_object_new_object();
		add(v, "disk", str(y->disk));
		add(v, "unit_min", out_u64(y->unit_min));
		add(v, "unit_max", out_u64(y->unit_max));
		add(v, "max_bytes", out_u64(y->max_bytes));
		add(v, "boundary", out_u64(y->boundary));
		add(v, "logical_block_size", out_u64(y->logical_block_size));
		out_add_write_cache(v, y);
		add(o, "sysfs", v);
	}
	v = NULL;
	if (d) {
		v = json_object_new_object();
		device_add_json(v, d);
	}
	add(o, "device", v);
	return o;
}

static void discovery_json(struct json_object *f, const struct awr_qualify_report *r)
{
	add(f, "limits", out_limits_json(&r->limits));
	add(f, "views", views_json(r->probe));
	add(f, "findings", out_probe_findings_json(r->probe));
	if (r->checks[AWR_QUALIFY_DISCOVERY].status == AWR_QUALIFY_PASS)
		add(f, "single_block_unit", json_object_new_boolean(r->single_block_unit));
}

static void sweep_json(struct json_object *f, const struct awr_qualify_report *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < r->nr_sweep; i++) {
		const struct awr_qualify_sweep_write *w = &r->sweep[i];
		struct json_object *o = json_object_new_object();

		add(o, "size", out_u64(w->size));
		add(o, "offset", out_u64(w->offset));
		add(o, "latency_us", out_double(w->latency_us, 1));
		if (w->write_error)
			add(o, "write", str(out_errno_name(w->write_error)));
		else
			add(o, "read_back", str(awr_unit_class_name(w->read_back)));
		json_object_array_add(a, o);
	}
	add(f, "writes", a);
}

static void refusals_json(struct json_object *f, const struct awr_qualify_report *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < r->nr_refusals; i++) {
		const struct awr_qualify_refusal *x = &r->refusals[i];
		struct json_object *o = json_object_new_object();

		add(o, "case", str(x->name));
		add(o, "offset", out_u64(x->offset));
		add(o, "length", out_u64(x->length));
		add(o, "rule", str(awr_rule_name(x->rule)));
		add(o, "predicted", str(out_errno_name(x->predicted)));
		add(o, "kernel", str(x->kernel >= 0 ? "accepted" : out_errno_name((int)x->kernel)));
		json_object_array_add(a, o);
	}
	add(f, "cases", a);
}

static void stress_json(struct json_object *f, const struct awr_qualify_stress *s)
{
	const struct awr_stress_result *sr = &s->result;
	double sec = (double)sr->nsec / 1e9;

	if (s->ran) {
		add(f, "unit", out_u64(s->opts.unit));
		add(f, "threads", out_u64(s->opts.threads));
		add(f, "span", out_u64(s->opts.span));
		add(f, "writes", out_u64(sr->writes));
		add(f, "seconds", out_double(sec, 3));
		add(f, "writes_per_s", out_double(sec > 0 ? (double)sr->writes / sec : 0, 1));
		add(f, "stopped_by", sr->error ? str(out_errno_name(sr->error)) : NULL);
	}
	if (s->verified)
		add(f, "verify", verify_result_json(&s->verify, true));
}

static struct json_object *cycle_json(const struct awr_qualify_cycle *cy)
{
	struct json_object *o = json_object_new_object();

	if (cy->crashed) {
		add(o, "delay_after_first_ack_ms", out_u64(cy->delay_ms));
		add(o, "crash_ns", out_u64(cy->crash_ns));
	}
	stress_json(o, &cy->stress);
	return o;
}

static void crash_json(struct json_object *f, const struct awr_qualify_report *r)
{
	const struct awr_qualify_crash *x = &r->crash;
	const struct awr_sysfs_view *y = awr_probe_sysfs(r->probe);
	struct json_object *s = json_object_new_object(), *a = json_object_new_array(), *wc = NULL;

	if (x->scratch_tried) {
		add(s, "directory", str(x->directory));
		add(s, "image_size", out_u64(x->image_size));
		add(s, "device", x->device[0] ? str(x->device) : NULL);
		add(s, "mount", str(x->mount));
	}
	for (unsigned int i = 0; i < x->nr_cycles; i++)
		json_object_array_add(a, cycle_json(&x->cycles[i]));
	add(f, "scratch", s);
	add(f, "cycles", a);
	add(f, "proves", x->proves ? str(x->proves) : NULL);
	add(f, "cannot_prove", x->cannot_prove ? str(x->cannot_prove) : NULL);
	if (y) {
		wc = json_object_new_object();
		add(wc, "disk", str(y->disk));
		out_add_write_cache(wc, y);
	}
	add(f, "target_write_cache", wc);
}

static void hw_path_json(struct json_object *f, const struct awr_qualify_report *r)
{
	const struct awr_qualify_hw_path *h = &r->hw_path;

	if (!h->ran)
		return;
	add(f, "pages", out_u64(h->pages));
	add(f, "hardware", out_u64(h->count[AWR_PATH_HARDWARE]));
	add(f, "software", out_u64(h->count[AWR_PATH_SOFTWARE]));
	add(f, "unknown", out_u64(h->count[AWR_PATH_UNKNOWN]));
	add(f, "prepared_aligned_bytes", out_u64(h->prepared_aligned_bytes));
}

static void short_pin_json(struct json_object *f, const struct awr_qualify_report *r)
{
	const struct awr_qualify_short_pin *x = &r->short_pin;

	if (!x->ran)
		return;
	add(f, "unit", out_u64(x->unit));
	add(f, "offset", out_u64(x->offset));
	add(f, "pages", out_u64(x->pages));
	add(f, "readable_pages", out_u64(x->pages - 1));
	add(f, "returned", x->returned < 0 ? str(out_errno_name((int)x->returned)) :
					     out_u64((uint64_t)x->returned));
	add(f, "pages_new", out_u64(x->pages_new));
	add(f, "pages_old", out_u64(x->pages_old));
	add(f, "outcome", str(awr_qualify_pin_outcome_name(x->outcome)));
	add(f, "kernel_has_fix", json_object_new_boolean(x->kernel_has_fix));
}

static struct json_object *figures_json(const struct awr_qualify_report *r,
					enum awr_qualify_check_id id)
{
	static void (*const fig[AWR_QUALIFY__CHECKS])(struct json_object *f,
						       const struct awr_qualify_report *r) = {
		[AWR_QUALIFY_DISCOVERY] = discovery_json,
		[AWR_QUALIFY_SIZE_SWEEP] = sweep_json,
		[AWR_QUALIFY_KERNEL_REFUSALS] = refusals_json,
		[AWR_QUALIFY_CRASH] = crash_json,
		[AWR_QUALIFY_HARDWARE_PATH] = hw_path_json,
		[AWR_QUALIFY_SHORT_PIN] = short_pin_json,
	};
	struct json_object *f = json_object_new_object();

	if (id == AWR_QUALIFY_CONCURRENT_TORN)
		stress_json(f, &r->concurrent);
	else if (fig[id])
		fig[id](f, r);
	return f;
}

static struct json_object *check_json(const char *name, enum awr_qualify_status s,
				      const char *reason, double seconds,
				      struct json_object *figures)
{
	struct json_object *o = json_object_new_object();

	add(o, "name", str(name));
	add(o, "result", str(q_status_word(s)));
	add(o, "reason", str(reason));
	add(o, "seconds", out_double(seconds, 3));
	add(o, "figures", figures);
	return o;
}

static struct json_object *checks_json(const struct awr_qualify_report *r,
				       const struct qperf *perf)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int id = 0; id < AWR_QUALIFY__CHECKS; id++) {
		const struct awr_qualify_check *c = &r->checks[id];

		if (id == AWR_QUALIFY_PERFORMANCE && perf->ran)
			json_object_array_add(a, check_json("performance", perf->status,
							    perf->reason, perf->seconds,
							    json_object_get(perf->figures)));
		if (c->ran)
			json_object_array_add(a, check_json(awr_qualify_check_name(id), c->status,
							    c->reason, c->seconds,
							    figures_json(r, id)));
	}
	return a;
}

static struct json_object *extent_map_json(const struct awr_qualify_extent_map *m)
{
	struct json_object *o, *a;

	if (!m->present)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	for (unsigned int i = 0; i < m->nr_listed; i++) {
		const struct awr_qualify_range *x = &m->ranges[i];
		struct json_object *e = json_object_new_object();

		add(e, "offset", out_u64(x->offset));
		add(e, "length", out_u64(x->length));
		add(e, "path", str(awr_write_path_name(x->path)));
		add(e, "extents", out_u64(x->extents));
		json_object_array_add(a, e);
	}
	add(o, "unit", out_u64(m->unit));
	add(o, "file_size", out_u64(m->file_size));
	add(o, "nr_extents", out_u64(m->nr_extents));
	add(o, "nr_ranges", out_u64(m->nr_ranges));
	add(o, "ranges", a);
	add(o, "aligned_bytes", out_u64(m->aligned_bytes));
	add(o, "hardware_bytes", out_u64(m->bytes[AWR_PATH_HARDWARE]));
	add(o, "software_bytes", out_u64(m->bytes[AWR_PATH_SOFTWARE]));
	add(o, "unknown_bytes", out_u64(m->bytes[AWR_PATH_UNKNOWN] + m->bytes[AWR_PATH_REFUSED]));
	return o;
}

static struct json_object *notes_json(const struct awr_qualify_report *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < r->nr_notes; i++)
		json_object_array_add(a, str(r->notes[i]));
	return a;
}

struct json_object *q_report_json(const struct awr_qualify_report *r, const struct qperf *perf,
				  const char *path, bool scratch_file)
{
	struct json_object *o = json_object_new_object();
	unsigned int n[AWR_QUALIFY__STATUSES];
	struct tm tm;
	char date[32] = "";

	for (unsigned int i = 0; i < AWR_QUALIFY__STATUSES; i++)
		n[i] = r->count[i] + (perf->ran && perf->status == i);
	if (gmtime_r(&r->started, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	add(o, "path", str(path));
	add(o, "target", str(r->target));
	add(o, "target_type", str(r->block_device ? "block_device" : "file"));
	add(o, "scratch_file", json_object_new_boolean(scratch_file));
	out_add_versions(o);
	add(o, "date", str(date));
	add(o, "quick", json_object_new_boolean(r->quick));
	add(o, "limits", out_limits_json(&r->limits));
	add(o, "checks", checks_json(r, perf));
	add(o, "extent_map", extent_map_json(&r->extent_map));
	add(o, "notes", notes_json(r));
	add(o, "passed", out_u64(n[AWR_QUALIFY_PASS]));
	add(o, "failed", out_u64(n[AWR_QUALIFY_FAIL]));
	add(o, "skipped", out_u64(n[AWR_QUALIFY_SKIP]));
	add(o, "info", out_u64(n[AWR_QUALIFY_INFO]));
	add(o, "seconds", out_double(r->seconds, 3));	/* the performance check ran within */
	add(o, "verdict", str(n[AWR_QUALIFY_FAIL] ? "FAIL" : "PASS"));
	return o;
}
