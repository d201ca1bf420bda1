// SPDX-License-Identifier: MIT
/*
 * awr qualify PATH: the scripted device qualification. Has the library set the
 * target up (awr_qualify_target_open(): a scratch file, a file or a device), runs
 * awr_qualify_run() and renders its report: a line per check and the verdict,
 * -o json or --report FILE with every check's figures, -o prometheus, --html.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "qualify.h"

struct qctx {
	const char *path;		/* PATH as given */
	struct awr_qualify_target t;	/* what is written: awr_qualify_target_open() */
	unsigned int flags;		/* AWR_QUALIFY_*: --quick, --crash, --require-hardware */
	struct progress *pr;		/* the running check's line */
	unsigned int nr;		/* checks begun */
};

/* Interrupted: the library removes what it made (the scratch file, its scratch XFS). */
static void on_signal(int sig)
{
	awr_qualify_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remove_on_signal(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_signal);
}

/* PATH: a directory (scratch file inside), a file (made with --create) or a block device. */
static int open_target(struct qctx *q, bool create, bool force)
{
	unsigned int fl = (create ? AWR_QUALIFY_TARGET_CREATE : 0) |
			  (force ? AWR_QUALIFY_TARGET_FORCE : 0);
	int ret = awr_qualify_target_open(q->path, fl, &q->t);

	if (ret) {
		out_error("%s", awr_last_error());
		if (ret == -ENOENT)	/* PATH missing: the sentence names no errno */
			out_set_errno(ENOENT);
		return ret;
	}
	if (q->t.safety.reasons)
		out_error("warning: writing %s although it %s: --force given", q->t.path,
			  q->t.safety.detail);
	return 0;
}

/* @text after @lead, wrapped at word boundaries to 100 columns, later lines indented */
static void print_wrapped(const char *lead, const char *text)
{
	fputs(lead, stdout);
	text_wrap(stdout, text, (int)strlen(lead), (int)strlen(lead), 100);
}

/* A check's line; a FAIL's what to do under it. */
static void print_check(const char *name, const struct awr_qualify_check *c)
{
	printf("  %-4s  %-16s %s\n", q_status_word(c->status), name, c->reason);
	if (c->what_to_do[0])
		print_wrapped("        what to do: ", c->what_to_do);
	fflush(stdout);
}

/* hardware_path (files) or short_pin (block devices): one of the two runs */
#define NR_RUN	(AWR_QUALIFY__CHECKS - 1)

/* awr_qualify_run()'s progress: a progress line while a check runs, its line when it ends. */
static void on_check(const struct awr_qualify_report *r, enum awr_qualify_check_id id,
		     bool done, void *arg)
{
	const struct awr_qualify_check *c = &r->checks[id];
	struct qctx *q = arg;
	char label[96];

	if (!done) {
		snprintf(label, sizeof(label), "qualify: check %u of %u, %s", ++q->nr, NR_RUN,
			 awr_qualify_check_name(id));
		q->pr = progress_start(label, NULL, NULL);
		return;
	}
	progress_stop(q->pr);
	if (id == AWR_QUALIFY_PERFORMANCE && r->perf_error && r->perf && r->perf->message[0])
		out_error("%s", r->perf->message);
	if (out_mode == OUT_NORMAL)
		print_check(awr_qualify_check_name(id), c);
}

static int run_checks(struct qctx *q, struct awr_qualify_report **r)
{
	struct awr_qualify_opts o;
	int ret;

	awr_qualify_opts_init(&o);
	o.flags = q->flags;
	o.progress = on_check;
	o.arg = q;
	if (out_mode == OUT_NORMAL)
		printf("qualify %s (%s %s)%s\n", q->path,
		       q->t.block_device ? "block device" : "file", q->t.path,
		       q->flags & AWR_QUALIFY_QUICK ? ", quick" : "");
	ret = awr_qualify_run(q->t.fd, q->t.path, &o, r);
	if (ret)
		out_error("cannot probe %s: %s", q->t.path, strerror(-ret));
	return ret;
}

static int write_report(const char *file, struct json_object *o)
{
	FILE *f = fopen(file, "we");

	if (!f) {
		out_error("cannot write the report %s: %s", file, strerror(errno));
		return -errno;
	}
	fprintf(f, "%s\n", json_object_to_json_string_ext(out_json_schema(o),
			  JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			  JSON_C_TO_STRING_NOSLASHESCAPE));
	return fclose(f) ? -errno : 0;
}

static void print_verdict(const struct awr_qualify_report *r)
{
	const unsigned int *n = r->count;

	for (unsigned int i = 0; i < r->nr_notes; i++)
		print_wrapped("note: ", r->notes[i]);
	printf("verdict: %s (%u passed, %u failed, %u skipped, %u information only%s) in %.1f s\n",
	       r->verdict == AWR_QUALIFY_VERDICT_FAIL ? "FAIL" : "PASS", n[AWR_QUALIFY_PASS],
	       n[AWR_QUALIFY_FAIL], n[AWR_QUALIFY_SKIP], n[AWR_QUALIFY_INFO],
	       r->requirement_met ? "" : "; hardware atomic writes required, none", r->seconds);
	print_wrapped("scope: ", r->scope_text);
	if (!r->requirement_met)
		print_wrapped("what to do: ", r->what_to_do);
}

/* -o prometheus: each metric in the order printed, with its HELP */
enum { P_VERDICT, P_SCOPE, P_CHECK, P_SECONDS, P_MIN, P_MAX, P_UNIT, P_DURATION, P__N };
static const struct { const char *name, *help; } metrics[P__N] = {
	[P_VERDICT] = { "awr_qualify_verdict", "awr qualify's verdict for the target: 1 PASS "
			"(every check passed or was skipped), 0 FAIL; its scope in "
			"awr_qualify_scope" },
	[P_SCOPE] = { "awr_qualify_scope", "what makes the qualified unit atomic: 1 for the "
		      "target's scope (hardware, software_only: the filesystem's software path "
		      "alone, ...), 0 for the others" },
	[P_CHECK] = { "awr_qualify_check", "each check of awr qualify: 1 for the result it had, "
		      "0 for the others" },
	[P_SECONDS] = { "awr_qualify_check_seconds", "how long each check of awr qualify ran" },
	[P_MIN] = { "awr_qualify_atomic_unit_min_bytes", "the effective atomic unit_min qualified "
		    "(statx, sysfs and device views joined)" },
	[P_MAX] = { "awr_qualify_atomic_unit_max_bytes", "the effective atomic unit_max qualified "
		    "(0: no atomic writes)" },
	[P_UNIT] = { "awr_qualify_stress_unit_bytes", "the unit of the concurrent and crash "
		     "checks" },
	[P_DURATION] = { "awr_qualify_duration_seconds", "how long awr qualify ran" },
};

/* Metric @m's samples: per scope, per check (and result), or the one of the target. */
static void prom_samples(unsigned int m, const char *path, const struct awr_qualify_report *r)
{
	const char *l[7] = { "target", path, NULL, NULL, NULL, NULL, NULL }, *name;
	const struct awr_limits *lim = &r->limits;
	double v[P__N] = { [P_VERDICT] = r->verdict == AWR_QUALIFY_VERDICT_PASS,
			   [P_MIN] = lim->supported ? lim->unit_min : 0,
			   [P_MAX] = lim->supported ? lim->unit_max : 0,
			   [P_UNIT] = r->unit, [P_DURATION] = r->seconds };

	name = metrics[m].name;
	if (m == P_SCOPE) {
		l[2] = "scope";
		for (unsigned int i = 0; i < AWR_QUALIFY__SCOPES; i++) {
			l[3] = awr_qualify_scope_name(i);
			prom_sample(name, l, r->scope == i);
		}
	} else if (m == P_CHECK || m == P_SECONDS) {
		l[2] = "check";
		l[4] = m == P_CHECK ? "result" : NULL;
		for (unsigned int id = 0; id < AWR_QUALIFY__CHECKS; id++) {
			const struct awr_qualify_check *c = &r->checks[id];
			unsigned int s;

			l[3] = awr_qualify_check_name(id);
			for (s = 0; c->ran && m == P_CHECK && s < AWR_QUALIFY__STATUSES; s++) {
				l[5] = awr_qualify_status_name(s);
				prom_sample(name, l, c->status == s);
			}
			if (c->ran && m == P_SECONDS)
				prom_sample(name, l, c->seconds);
		}
	} else {
		prom_sample(name, l, v[m]);
	}
}

/*
 * -o prometheus: the verdict, each check's result and seconds, the limits qualified; target:
 * PATH as given (a directory's scratch file changes name every run)
 */
static void print_prometheus(const struct qctx *q, const struct awr_qualify_report *r)
{
	for (unsigned int m = 0; m < P__N; m++) {
		prom_gauge(metrics[m].name, metrics[m].help);
		prom_samples(m, q->path, r);
	}
	prom_info();
}

static int write_outputs(struct json_object *o, const char *report, const char *html)
{
	int rc = 0;

	if (report && write_report(report, o))
		rc = AWR_EXIT_USAGE;
	if (html) {	/* drawn from the JSON as written, as awr report draws a saved one */
		const char *text = json_object_to_json_string(out_json_schema(o));
		struct json_object *doc = json_tokener_parse(text);

		if (report_html_file(doc, html))
			rc = AWR_EXIT_USAGE;
		json_object_put(doc);
	}
	return rc;
}

static int finish(struct qctx *q, const struct awr_qualify_report *r, const char *report,
		  const char *html)
{
	struct json_object *o = q_report_json(r, q->path, q->t.created);
	int rc = r->verdict == AWR_QUALIFY_VERDICT_FAIL ? AWR_EXIT_FAIL : AWR_EXIT_OK, wrc;

	out_outcome("verdict_fail");
	json_object_object_add(o, "outcome", json_object_new_string(rc ? "verdict_fail" : "ok"));
	wrc = write_outputs(o, report, html);
	if (wrc)
		rc = wrc;
	if (out_mode == OUT_JSON)
		out_print_json(o);
	else
		json_object_put(o);
	if (out_mode == OUT_NORMAL)
		print_verdict(r);
	else if (out_mode == OUT_PROMETHEUS)
		print_prometheus(q, r);
	return rc;
}

int cmd_qualify(int argc, const char **argv)
{
	int quick = 0, crash = 0, force = 0, create = 0, hardware = 0;
	char *report = NULL, *html = NULL;
	struct poptOption table[] = {
		{ "create", 0, POPT_ARG_NONE, &create, 0,
		  "PATH does not exist: make it as the file to qualify (removed at the end); "
		  "without it a missing PATH is refused", NULL },
		{ "quick", 0, POPT_ARG_NONE, &quick, 0, "short runs: under 30 s on a scratch XFS",
		  NULL },
		{ "crash", 0, POPT_ARG_NONE, &crash, 0,
		  "also crash-test: shut down a scratch XFS that qualify makes itself (an image on "
		  "PATH's filesystem, a loop device; needs root and mkfs.xfs) mid-write", NULL },
		{ "require-hardware", 0, POPT_ARG_NONE, &hardware, 0,
		  "FAIL unless the device itself writes the unit atomically (not the filesystem's "
		  "software path alone)", NULL },
		{ "report", 0, POPT_ARG_STRING, &report, 0, "write the JSON report to FILE",
		  "FILE" },
		{ "html", 0, POPT_ARG_STRING, &html, 0, "write the report as one self-contained "
		  "HTML page to FILE (charts drawn inline, nothing loaded)", "FILE" },
		{ "for", 0, POPT_ARG_STRING, NULL, 0, "PATH is a database's data directory: judge "
		  "whether its torn-page protection may be turned off instead (innodb or "
		  "postgresql; awr database, reads only)", "innodb|postgresql" },
		{ "force", 0, POPT_ARG_NONE, &force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options_prom, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_qualify_report *r = NULL;
	struct qctx q = { .t.fd = -1 };
	struct cmd_ctx cc;
	int rc = AWR_EXIT_USAGE;

	/* qualify DATADIR --for ENGINE: the database verdict, which only reads */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--for") || !strncmp(argv[i], "--for=", 6))
			return cmd_database(argc, argv);
	if (cmd_parse(&cc, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	q.path = cc.operand;
	q.flags = (quick ? AWR_QUALIFY_QUICK : 0) | (crash ? AWR_QUALIFY_CRASH_TEST : 0) |
		  (hardware ? AWR_QUALIFY_REQUIRE_HARDWARE : 0);
	if (html && report_html_dest_ok(html, force))
		goto out;
	if (open_target(&q, create, force))
		goto out;
	remove_on_signal();
	if (!run_checks(&q, &r))
		rc = finish(&q, r, report, html);
out:
	awr_qualify_report_free(r);
	awr_qualify_target_close(&q.t);
	cmd_done(&cc);
	return rc;
}
