// SPDX-License-Identifier: MIT
/*
 * awr verify PATH --unit U [--journal FILE]: scan a stamped target, count
 * units per class, list the first offending ones, and find lost writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"
#include "platform/platform.h"

struct issues {
	unsigned int max;	/* how many to keep */
	unsigned int nr;
	uint32_t unit;
	struct json_object *list;
	char text[16][200];
};

static const char *class_name(int c)
{
	return awr_unit_class_name((enum awr_unit_class)c);
}

#define I(m, t, k, ...) FLD(struct awr_verify_issue, m, t, k, __VA_ARGS__)
static const struct field issue_fields[] = {
	I(unit, FLD_UINT, "unit"),
	I(offset, FLD_UINT, "offset"),
	I(state.cls, FLD_ENUM, "class", .name = class_name),
	I(state.generation, FLD_UINT, "generation"),
	I(state.other_generation, FLD_UINT, "other_generation"),
	I(state.bad_sector, FLD_UINT, "bad_sector"),
	I(lost, FLD_BOOL, "lost"),
	I(acked_generation, FLD_UINT, "acked_generation"),
	I(unjournaled, FLD_BOOL, "unjournaled"),
	FLD_END
};
#undef I

static struct json_object *verify_issue_json(const struct awr_verify_issue *is)
{
	return fld_json(issue_fields, is);
}

static int keep_issue(const struct awr_verify_issue *is, void *arg)
{
	struct issues *k = arg;

	if (k->nr >= k->max)
		return 0;
	if (k->list)
		json_object_array_add(k->list, verify_issue_json(is));
	else
		awr_verify_issue_text(is, k->unit, k->text[k->nr], sizeof(k->text[0]));
	k->nr++;
	return 0;
}

/* --unit U of awr stress and awr verify (awr_stamp_unit_check()) */
int stamp_unit_arg(const char *text, uint32_t *unit)
{
	uint64_t v;

	if (parse_size_arg("unit", text, &v))
		return -EINVAL;
	if (awr_stamp_unit_check(v)) {
		out_error("%s", awr_last_error());
		return -EINVAL;
	}
	*unit = (uint32_t)v;
	return 0;
}

#define R(m, t, k, ...) FLD(struct awr_verify_result, m, t, k, __VA_ARGS__)
static const struct field journal_fields[] = {
	R(lost, FLD_UINT, "lost"),
	R(unjournaled, FLD_UINT, "unjournaled"),
	FLD_END
};

static const struct field result_fields[] = {
	R(journal_records, FLD_UINT, "journal_records"),
	R(acked_writes, FLD_UINT, "acked_writes"),
	R(acked_units, FLD_UINT, "acked_units"),
	R(acked_late, FLD_UINT, "acked_late"),
	R(bytes, FLD_UINT, "bytes"),
	R(nsec, FLD_NSEC, "seconds", .decimals = 3),
	R(mb_per_s, FLD_DOUBLE, "mb_per_s", .decimals = 1),
	R(direct, FLD_BOOL, "direct"),
	R(failed, FLD_BOOL, "ok", .flags = FLD_NOT),	/* the opposite of failed */
	FLD_END
};
#undef R

/* awr verify's own: what to do about a failed scan (null when it did not fail) */
static const struct field advice_fields[] = {
	FLD(struct awr_verify_result, what_to_do, FLD_CHARS, "what_to_do", .flags = FLD_NULL_ZERO),
	FLD_END
};

struct json_object *verify_result_json(const struct awr_verify_result *r, bool journal)
{
	struct json_object *o = json_object_new_object(), *c = json_object_new_object();

	for (int i = 0; i < AWR_UNIT__COUNT; i++)
		json_object_object_add(c, awr_unit_class_name(i), out_u64(r->count[i]));
	json_object_object_add(o, "units", out_u64(r->units));
	json_object_object_add(o, "counts", c);
	if (journal)
		fld_json_add(o, journal_fields, r);
	else
		for (const struct field *j = journal_fields; j->key; j++)
			json_object_object_add(o, j->key, NULL);
	fld_json_add(o, result_fields, r);
	return o;
}

static void report_text(const struct awr_verify_opts *o, const struct awr_verify_result *r,
			const struct issues *k)
{
	char a[32], b[32], t[32];

	printf("verify: %" PRIu64 " units of %s (%s) in %s, %.0f MB/s%s\n", r->units,
	       awr__human_bytes(o->unit, a, sizeof(a)), awr__human_bytes(r->bytes, b, sizeof(b)),
	       awr__human_usec((double)r->nsec / 1e3, t, sizeof(t)), r->mb_per_s,
	       r->direct ? " (O_DIRECT)" : " (through the page cache)");
	printf("  never_written %" PRIu64 ", intact %" PRIu64 ", torn %" PRIu64 ", corrupt %" PRIu64
	       ", misplaced %" PRIu64 "\n", r->count[AWR_UNIT_NEVER_WRITTEN],
	       r->count[AWR_UNIT_INTACT],
	       r->count[AWR_UNIT_TORN], r->count[AWR_UNIT_CORRUPT], r->count[AWR_UNIT_MISPLACED]);
	if (o->journal)
		printf("  journal: %" PRIu64 " records, %" PRIu64 " acknowledged writes to %" PRIu64
		       " units; lost %" PRIu64 ", unjournaled %" PRIu64 "\n", r->journal_records,
		       r->acked_writes, r->acked_units, r->lost, r->unjournaled);
	if (r->acked_late)
		printf("  %" PRIu64 " writes acknowledged after the crash began count as in "
		       "flight\n",
		       r->acked_late);
	for (unsigned int i = 0; i < k->nr; i++)
		printf("  %s\n", k->text[i]);
	if (r->stamped_unit)
		printf("hint: units were stamped with a unit size of %u bytes: give --unit %u\n",
		       r->stamped_unit, r->stamped_unit);
	if (r->failed)
		printf("result: FAILED: %s\n", r->what_to_do);
	else
		printf("result: OK\n");
}

int cmd_verify(int argc, const char **argv)
{
	char *unit_s = NULL, *size_s = NULL, *journal = NULL, *secret = NULL;
	long long crash_ns = 0;
	int max_issues = 10;
	struct poptOption table[] = {
		{ "unit", 0, POPT_ARG_STRING, &unit_s, 0,
		  "the unit size the target was stamped with", "U" },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0,
		  "the stress journal (a file, or tcp://HOST:PORT[/NAME] on a journal server): "
		  "also report lost acknowledged writes", "FILE|URL" },
		{ "secret-file", 0, POPT_ARG_STRING, &secret, 0,
		  "the shared secret of a tcp:// journal (mode 0600; default: $AWR_JOURNAL_SECRET)",
		  "FILE" },
		{ "size", 0, POPT_ARG_STRING, &size_s, 0,
		  "bytes from offset 0 to scan (default: the whole file or device)", "SPAN" },
		{ "crash-time", 0, POPT_ARG_LONGLONG, &crash_ns, 0,
		  "when the crash began (CLOCK_REALTIME ns, date +%s%N): later acks count as in "
		  "flight", "NS" },
		{ "show", 0, POPT_ARG_INT, &max_issues, 0,
		  "list at most N offending units (default 10)", "N" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_verify_opts o = { .issue = keep_issue };
	struct issues k = { 0 };
	struct awr_verify_result r;
	struct json_object *j;
	struct cmd_ctx c;
	int ret, rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	if (stamp_unit_arg(unit_s, &o.unit) ||
	    (size_s && parse_size_arg("size", size_s, &o.span)))
		goto out;
	o.journal = journal;
	o.journal_secret_file = secret;
	if (secret_file_check(secret))
		goto out;
	o.crash_time_ns = crash_ns > 0 ? (uint64_t)crash_ns : 0;
	k.unit = o.unit;
	k.max = max_issues < 0 ? 0 : max_issues > 16 && out_mode == OUT_NORMAL ? 16 :
		(unsigned int)max_issues;
	k.list = out_mode == OUT_JSON ? json_object_new_array() : NULL;
	o.arg = &k;
	{
		/* the bytes the scan reads at most: --size, or the file's or device's */
		struct progress_file pf = { .total = o.span, .base = awr__io_read_bytes() };
		struct progress *pr;

		if (!pf.total && awr__path_size(c.operand, &pf.total))
			pf.total = 0;
		pr = progress_start("verify", progress_read, &pf);

		ret = awr_verify_run(c.operand, &o, &r);
		progress_stop(pr);
	}
	if (ret) {
		json_object_put(k.list);
		out_error("cannot verify %s: %s", c.operand, awr_last_error());
		goto out;
	}
	if (out_mode == OUT_JSON) {
		j = verify_result_json(&r, journal);
		json_object_object_add(j, "path", json_object_new_string(c.operand));
		json_object_object_add(j, "unit", out_u64(o.unit));
		json_object_object_add(j, "issues", k.list);
		fld_json_add(j, advice_fields, &r);
		out_print_json(j);
	} else {
		report_text(&o, &r, &k);
	}
	rc = r.failed ? AWR_EXIT_FAIL : AWR_EXIT_OK;
	out_outcome("verify_failed");
out:
	cmd_done(&c);
	return rc;
}
