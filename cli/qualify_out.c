// SPDX-License-Identifier: MIT
/*
 * awr qualify's JSON report, drawn from the typed report of awr_qualify_run(): every check's
 * figures under the keys the report has always had (tests/report_check.py and the HTML report
 * read them).
 */
#include <time.h>

#include "qualify.h"

const char *q_status_word(enum awr_qualify_status s)
{
	static const char *const words[AWR_QUALIFY__STATUSES] = { "PASS", "FAIL", "SKIP", "INFO" };

	return (unsigned int)s < AWR_QUALIFY__STATUSES ? words[s] : "INFO";
}

#define V(m, t, k, ...) FLD(struct awr_statx_view, m, t, k, __VA_ARGS__)
static const struct field statx_fields[] = {
	V(atomic_reported, FLD_BOOL, "atomic_reported"),
	V(unit_min, FLD_SIZE, "unit_min"),
	V(unit_max, FLD_SIZE, "unit_max"),
	V(unit_max_opt, FLD_SIZE, "unit_max_opt"),
	FLD_END
};

#define Y(m, t, k, ...) FLD(struct awr_sysfs_view, m, t, k, __VA_ARGS__)
static const struct field sysfs_fields[] = {
	Y(disk, FLD_CHARS, "disk"),
	Y(unit_min, FLD_SIZE, "unit_min"),
	Y(unit_max, FLD_SIZE, "unit_max"),
	Y(max_bytes, FLD_SIZE, "max_bytes"),
	Y(boundary, FLD_SIZE, "boundary"),
	Y(logical_block_size, FLD_SIZE, "logical_block_size"),
	FLD_END
};

/* the crash check's target_write_cache: the disk, then its write cache */
static const struct field disk_fields[] = { Y(disk, FLD_CHARS, "disk"), FLD_END };

#define Q(m, t, k, ...) FLD(struct awr_qualify_report, m, t, k, __VA_ARGS__)
static const struct field single_block_fields[] = {
	Q(single_block_unit, FLD_BOOL, "single_block_unit"),
	FLD_END
};

/* What each view says, side by side. */
static struct json_object *views_json(const struct awr_probe *p)
{
	const struct awr_statx_view *s = awr_probe_statx(p);
	const struct awr_sysfs_view *y = awr_probe_sysfs(p);
	const struct awr_device *d = awr_probe_device(p);
	struct json_object *o = json_object_new_object(), *v = NULL;

	if (s)
		json_object_object_add(o, "statx", fld_json(statx_fields, s));
	if (y) {
		v = fld_json(sysfs_fields, y);
		out_add_write_cache(v, y);
		json_object_object_add(o, "sysfs", v);
	}
	v = NULL;
	if (d) {
		v = json_object_new_object();
		device_add_json(v, d);
	}
	json_object_object_add(o, "device", v);
	return o;
}

static void discovery_json(struct json_object *f, const struct awr_qualify_report *r)
{
	json_object_object_add(f, "limits", out_limits_json(&r->limits));
	json_object_object_add(f, "views", views_json(r->probe));
	json_object_object_add(f, "findings", out_probe_findings_json(r->probe));
	if (r->checks[AWR_QUALIFY_DISCOVERY].status == AWR_QUALIFY_PASS)
		fld_json_add(f, single_block_fields, r);
}

FLD_ENUM_NAME(awr_unit_class_name, enum awr_unit_class)
FLD_ENUM_NAME(awr_rule_name, enum awr_rule)
FLD_ENUM_NAME(awr_write_route_name, enum awr_write_route)
FLD_ENUM_NAME(awr_qualify_pin_outcome_name, enum awr_qualify_pin_outcome)
FLD_ENUM_NAME(awr_bench_durability_name, enum awr_bench_durability)

#define W(m, t, k, ...) FLD(struct awr_qualify_sweep_write, m, t, k, __VA_ARGS__)
/* a write that failed has no read-back */
static const struct field sweep_wrote = W(write_error, FLD_BOOL, "wrote", .flags = FLD_NOT);

static const struct field sweep_fields[] = {
	W(size, FLD_SIZE, "size"),
	W(offset, FLD_SIZE, "offset"),
	W(latency_us, FLD_DOUBLE, "latency_us", .decimals = 1),
	W(write_error, FLD_ENUM, "write", .name = awr__errno_name,
	  .flags = FLD_NULL_ZERO | FLD_OMIT),
	W(read_back, FLD_ENUM, "read_back", .name = awr_unit_class_name_int, .flags = FLD_OMIT,
	  .when = &sweep_wrote),
	FLD_END
};

/* the kernel's answer: "accepted" (a count), or its errno */
static const char *kernel_answer(int v)
{
	return v >= 0 ? "accepted" : awr__errno_name(v);
}

#define R(m, t, k, ...) FLD(struct awr_qualify_refusal, m, t, k, __VA_ARGS__)
static const struct field refusal_fields[] = {
	R(name, FLD_STR, "case"),
	R(offset, FLD_SIZE, "offset"),
	R(length, FLD_SIZE, "length"),
	R(rule, FLD_ENUM, "rule", .name = awr_rule_name_int),
	R(predicted, FLD_ENUM, "predicted", .name = awr__errno_name),
	R(kernel, FLD_ENUM, "kernel", .name = kernel_answer),
	FLD_END
};

static const struct field sweep_figures[] = {
	FLD_ARR(struct awr_qualify_report, sweep, nr_sweep, "writes", sweep_fields),
	FLD_END
};

static const struct field refusal_figures[] = {
	FLD_ARR(struct awr_qualify_report, refusals, nr_refusals, "cases", refusal_fields),
	FLD_END
};

/* the writers' figures, with their rate */
struct stress_row {
	uint32_t unit, threads;
	uint64_t span, writes, nsec;
	double per_s;
	int error;
};

#define S(m, t, k, ...) FLD(struct stress_row, m, t, k, __VA_ARGS__)
static const struct field stress_fields[] = {
	S(unit, FLD_SIZE, "unit"),
	S(threads, FLD_UINT, "threads"),
	S(span, FLD_SIZE, "span"),
	S(writes, FLD_UINT, "writes"),
	S(nsec, FLD_NSEC, "seconds", .decimals = 3),
	S(per_s, FLD_DOUBLE, "writes_per_s", .decimals = 1),
	S(error, FLD_ENUM, "stopped_by", .name = awr__errno_name, .flags = FLD_NULL_ZERO),
	FLD_END
};

static void stress_json(struct json_object *f, const struct awr_qualify_stress *s)
{
	const struct awr_stress_result *sr = &s->result;
	double sec = (double)sr->nsec / 1e9;
	struct stress_row row = { s->opts.unit, s->opts.threads, s->opts.span, sr->writes,
				  sr->nsec, sec > 0 ? (double)sr->writes / sec : 0, sr->error };

	if (s->ran)
		fld_json_add(f, stress_fields, &row);
	if (s->verified)
		json_object_object_add(f, "verify", verify_result_json(&s->verify, true));
}

#define C(m, t, k, ...) FLD(struct awr_qualify_cycle, m, t, k, __VA_ARGS__)
static const struct field cycle_fields[] = {
	C(delay_ms, FLD_UINT, "delay_after_first_ack_ms"),
	C(crash_ns, FLD_UINT, "crash_ns"),
	FLD_END
};

#define X(m, t, k, ...) FLD(struct awr_qualify_crash, m, t, k, __VA_ARGS__)
static const struct field scratch_fields[] = {
	X(directory, FLD_CHARS, "directory"),
	X(image_size, FLD_SIZE, "image_size"),
	X(device, FLD_CHARS, "device", .flags = FLD_NULL_ZERO),
	X(mount, FLD_CHARS, "mount"),
	FLD_END
};

static const struct field scope_fields[] = {
	X(proves, FLD_STR, "proves", .flags = FLD_NULL_ZERO),
	X(cannot_prove, FLD_STR, "cannot_prove", .flags = FLD_NULL_ZERO),
	FLD_END
};

static void crash_json(struct json_object *f, const struct awr_qualify_report *r)
{
	const struct awr_qualify_crash *x = &r->crash;
	const struct awr_sysfs_view *y = awr_probe_sysfs(r->probe);
	struct json_object *a = json_object_new_array(), *wc = NULL;

	json_object_object_add(f, "scratch", x->scratch_tried ? fld_json(scratch_fields, x) :
					     json_object_new_object());
	for (unsigned int i = 0; i < x->nr_cycles; i++) {
		const struct awr_qualify_cycle *cy = &x->cycles[i];
		struct json_object *o = cy->crashed ? fld_json(cycle_fields, cy) :
						      json_object_new_object();

		stress_json(o, &cy->stress);
		json_object_array_add(a, o);
	}
	json_object_object_add(f, "cycles", a);
	fld_json_add(f, scope_fields, x);
	if (y) {
		wc = fld_json(disk_fields, y);
		out_add_write_cache(wc, y);
	}
	json_object_object_add(f, "target_write_cache", wc);
}

/* the pages and their paths, when every page was written */
static const struct field hw_ran = Q(hw_path.ran, FLD_BOOL, "ran");

#define H(m, t, k) Q(hw_path.m, t, k, .flags = FLD_OMIT, .when = &hw_ran)
static const struct field hw_path_figures[] = {
	H(pages, FLD_UINT, "pages"),
	H(count[AWR_ROUTE_HARDWARE], FLD_UINT, "hardware"),
	H(count[AWR_ROUTE_SOFTWARE], FLD_UINT, "software"),
	H(count[AWR_ROUTE_UNKNOWN], FLD_UINT, "unknown"),
	H(prepared_aligned_bytes, FLD_SIZE, "prepared_aligned_bytes"),
	FLD_END
};

/* the pages the kernel could read, and the write's count or errno ("returned" either way) */
struct pin_row {
	struct awr_qualify_short_pin x;
	uint32_t readable;
	int64_t count;
	int error;
};

#define P(m, t, k, ...) FLD(struct pin_row, m, t, k, __VA_ARGS__)
static const struct field pin_fields[] = {
	P(x.unit, FLD_SIZE, "unit"),
	P(x.offset, FLD_SIZE, "offset"),
	P(x.pages, FLD_UINT, "pages"),
	P(readable, FLD_UINT, "readable_pages"),
	P(count, FLD_INT, "returned", .flags = FLD_NULL_NEG | FLD_OMIT),
	P(error, FLD_ENUM, "returned", .name = awr__errno_name, .flags = FLD_NULL_ZERO | FLD_OMIT),
	P(x.pages_new, FLD_UINT, "pages_new"),
	P(x.pages_old, FLD_UINT, "pages_old"),
	P(x.outcome, FLD_ENUM, "outcome", .name = awr_qualify_pin_outcome_name_int),
	P(x.kernel_has_fix, FLD_BOOL, "kernel_has_fix"),
	FLD_END
};

/* the benchmark's settings and each mode's figures (awr bench -o json's) */
struct perf_row {
	const char *method;
	struct awr_bench_opts o;
	uint64_t span;
};

#define B(m, t, k, ...) FLD(struct perf_row, m, t, k, __VA_ARGS__)
static const struct field perf_fields[] = {
	B(method, FLD_STR, "method"),
	B(o.unit, FLD_SIZE, "unit"),
	B(o.qd, FLD_UINT, "qd"),
	B(o.durability, FLD_ENUM, "durability", .name = awr_bench_durability_name_int),
	B(o.seconds, FLD_DOUBLE, "seconds_per_mode", .decimals = 3),
	B(span, FLD_SIZE, "span"),
	FLD_END
};

static void perf_json(struct json_object *f, const struct awr_qualify_report *r)
{
	struct perf_row row = { "awr bench: random page writes, io_uring", r->perf_opts, 0 };

	if (!r->perf || r->perf_error)
		return;
	row.span = r->perf->span;
	fld_json_add(f, perf_fields, &row);
	bench_modes_add(f, r->perf);
}

static void short_pin_json(struct json_object *f, const struct awr_qualify_report *r)
{
	int64_t ret = r->short_pin.returned;
	struct pin_row row = { r->short_pin, r->short_pin.pages - 1, ret < 0 ? -1 : ret,
			       ret < 0 ? (int)ret : 0 };

	if (row.x.ran)
		fld_json_add(f, pin_fields, &row);
}

static struct json_object *figures_json(const struct awr_qualify_report *r,
					enum awr_qualify_check_id id)
{
	static void (*const fig[AWR_QUALIFY__CHECKS])(struct json_object *f,
						       const struct awr_qualify_report *r) = {
		[AWR_QUALIFY_DISCOVERY] = discovery_json,
		[AWR_QUALIFY_CRASH] = crash_json,
		[AWR_QUALIFY_PERFORMANCE] = perf_json,
		[AWR_QUALIFY_SHORT_PIN] = short_pin_json,
	};
	/* or rows of the report */
	static const struct field *const rows[AWR_QUALIFY__CHECKS] = {
		[AWR_QUALIFY_SIZE_SWEEP] = sweep_figures,
		[AWR_QUALIFY_KERNEL_REFUSALS] = refusal_figures,
		[AWR_QUALIFY_HARDWARE_PATH] = hw_path_figures,
	};
	struct json_object *f = json_object_new_object();

	if (id == AWR_QUALIFY_CONCURRENT_TORN)
		stress_json(f, &r->concurrent);
	else if (fig[id])
		fig[id](f, r);
	else if (rows[id])
		fld_json_add(f, rows[id], r);
	return f;
}

/* one check's line of the report */
struct check_row {
	const char *name;
	const char *result;
	struct awr_qualify_check c;
};

#define K(m, t, k, ...) FLD(struct check_row, m, t, k, __VA_ARGS__)
static const struct field check_fields[] = {
	K(name, FLD_STR, "name"),
	K(result, FLD_STR, "result"),
	K(c.reason, FLD_CHARS, "reason"),
	K(c.what_to_do, FLD_CHARS, "what_to_do", .flags = FLD_NULL_ZERO),
	K(c.seconds, FLD_DOUBLE, "seconds", .decimals = 3),
	FLD_END
};

static struct json_object *check_json(const struct awr_qualify_report *r,
				      enum awr_qualify_check_id id)
{
	struct check_row row = { awr_qualify_check_name(id),
				 awr_qualify_status_name(r->checks[id].status), r->checks[id] };
	struct json_object *o = fld_json(check_fields, &row);

	json_object_object_add(o, "figures", figures_json(r, id));
	return o;
}

static struct json_object *checks_json(const struct awr_qualify_report *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int id = 0; id < AWR_QUALIFY__CHECKS; id++) {
		const struct awr_qualify_check *c = &r->checks[id];

		if (c->ran)
			json_object_array_add(a, check_json(r, id));
	}
	return a;
}

#define E(m, t, k, ...) FLD(struct awr_qualify_range, m, t, k, __VA_ARGS__)
static const struct field range_fields[] = {
	E(offset, FLD_SIZE, "offset"),
	E(length, FLD_SIZE, "length"),
	E(route, FLD_ENUM, "path", .name = awr_write_route_name_int),
	E(extents, FLD_UINT, "extents"),
	FLD_END
};

/* the map's bytes per path, unknown counting the refused */
struct map_row {
	struct awr_qualify_extent_map m;
	uint64_t unknown;
};

#define M(m, t, k, ...) FLD(struct map_row, m, t, k, __VA_ARGS__)
static const struct field map_fields[] = {
	M(m.unit, FLD_SIZE, "unit"),
	M(m.file_size, FLD_SIZE, "file_size"),
	M(m.nr_extents, FLD_UINT, "nr_extents"),
	M(m.nr_ranges, FLD_UINT, "nr_ranges"),
	FLD_ARR(struct map_row, m.ranges, m.nr_listed, "ranges", range_fields, .flags = FLD_PTR),
	M(m.aligned_bytes, FLD_SIZE, "aligned_bytes"),
	M(m.bytes[AWR_ROUTE_HARDWARE], FLD_SIZE, "hardware_bytes"),
	M(m.bytes[AWR_ROUTE_SOFTWARE], FLD_SIZE, "software_bytes"),
	M(unknown, FLD_SIZE, "unknown_bytes"),
	FLD_END
};

static struct json_object *extent_map_json(const struct awr_qualify_extent_map *m)
{
	struct map_row row = { *m, m->bytes[AWR_ROUTE_UNKNOWN] + m->bytes[AWR_ROUTE_REFUSED] };

	return m->present ? fld_json(map_fields, &row) : NULL;
}

static struct json_object *notes_json(const struct awr_qualify_report *r)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < r->nr_notes; i++)
		json_object_array_add(a, json_object_new_string(r->notes[i]));
	return a;
}

/* the report's own lines: what was qualified, and the tally */
struct report_row {
	const char *path, *target, *type;
	bool scratch_file;
	char date[32];
	bool quick;
	unsigned int n[AWR_QUALIFY__STATUSES];
	double seconds;
	const char *verdict;
	const char *scope;
};

#define T(m, t, k, ...) FLD(struct report_row, m, t, k, __VA_ARGS__)
static const struct field report_head_fields[] = {
	T(path, FLD_STR, "path"),
	T(target, FLD_STR, "target"),
	T(type, FLD_STR, "target_type"),
	T(scratch_file, FLD_BOOL, "scratch_file"),
	FLD_END
};

static const struct field report_run_fields[] = {
	T(date, FLD_CHARS, "date"),
	T(quick, FLD_BOOL, "quick"),
	FLD_END
};

static const struct field report_tally_fields[] = {
	T(n[AWR_QUALIFY_PASS], FLD_UINT, "passed"),
	T(n[AWR_QUALIFY_FAIL], FLD_UINT, "failed"),
	T(n[AWR_QUALIFY_SKIP], FLD_UINT, "skipped"),
	T(n[AWR_QUALIFY_INFO], FLD_UINT, "info"),
	T(seconds, FLD_DOUBLE, "seconds", .decimals = 3),
	T(verdict, FLD_STR, "verdict"),
	T(scope, FLD_STR, "scope"),
	FLD_END
};

/* --require-hardware's outcome, when it was asked */
static const struct field require_fields[] = {
	Q(require_hardware, FLD_BOOL, "hardware", .flags = FLD_NULL_ZERO),
	Q(requirement_met, FLD_BOOL, "met"),
	Q(requirement, FLD_CHARS, "reason", .flags = FLD_NULL_ZERO),
	Q(what_to_do, FLD_CHARS, "what_to_do", .flags = FLD_NULL_ZERO),
	FLD_END
};

/* the verdict's scope in words, and "require" when it was asked */
static const struct field scope_text_fields[] = {
	Q(scope_text, FLD_CHARS, "scope_text"),
	FLD_GROUP("require", require_fields, .flags = FLD_NULL_HEAD | FLD_OMIT),
	FLD_END
};

struct json_object *q_report_json(const struct awr_qualify_report *r, const char *path,
				  bool scratch_file)
{
	struct report_row row = { path, r->target, r->block_device ? "block_device" : "file",
				  scratch_file, "", r->quick, { 0 }, r->seconds,
				  r->verdict == AWR_QUALIFY_VERDICT_FAIL ? "fail" : "pass",
				  awr_qualify_scope_name(r->scope) };
	struct json_object *o;
	struct tm tm;

	for (unsigned int i = 0; i < AWR_QUALIFY__STATUSES; i++)
		row.n[i] = r->count[i];
	if (gmtime_r(&r->started, &tm))
		strftime(row.date, sizeof(row.date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	o = fld_json(report_head_fields, &row);
	out_add_versions(o);
	fld_json_add(o, report_run_fields, &row);
	json_object_object_add(o, "limits", out_limits_json(&r->limits));
	json_object_object_add(o, "checks", checks_json(r));
	json_object_object_add(o, "extent_map", extent_map_json(&r->extent_map));
	json_object_object_add(o, "notes", notes_json(r));
	fld_json_add(o, report_tally_fields, &row);
	fld_json_add(o, scope_text_fields, r);
	return o;
}
