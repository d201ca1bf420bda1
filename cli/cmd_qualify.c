// SPDX-License-Identifier: MIT
/*
 * awr qualify PATH: the scripted device qualification. Sets the target up (a
 * scratch file, or a file or device opened by target_open()'s rules), runs
 * awr_qualify_run() and renders its report: a line per check and the verdict,
 * -o json or --report FILE with every check's figures, -o prometheus, --html.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "qualify.h"

struct qctx {
	const char *path;		/* PATH as given */
	char target[4200];		/* the file or device written */
	int fd;				/* the target, O_RDWR | O_DIRECT (target_open) */
	char dir[4096];			/* directory of a file target */
	bool is_blk;
	bool created;			/* we created target: remove it at the end */
	bool quick, crash, force;
	bool hardware;			/* --require-hardware */
	bool create;			/* --create: a missing PATH is made (removed at the end) */
	uint64_t size;			/* target size (block device) */
	struct progress *pr;		/* the running check's line */
	unsigned int nr;		/* checks begun */
};

/* What to remove when qualify is interrupted: its scratch file (the library: the rest). */
static char scratch[4200];

static void on_signal(int sig)
{
	if (scratch[0])
		unlink(scratch);
	awr_qualify_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void remove_on_signal(const struct qctx *q)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	if (q->created)
		snprintf(scratch, sizeof(scratch), "%s", q->target);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_signal);
}

/* The scratch file: new (O_EXCL), then opened and held like any target. */
static int create_file(struct qctx *q)
{
	int fd = open(q->target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0) {
		out_error("cannot create the scratch file %s: %s", q->target, strerror(errno));
		return -errno;
	}
	close(fd);
	q->created = true;
	q->fd = target_open("qualify", q->target, O_RDWR | O_DIRECT, 0, q->force);
	return q->fd < 0 ? q->fd : 0;
}

static int file_target(struct qctx *q, const char *path, bool dir)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	if (!realpath(dir ? path : dirname(tmp), q->dir)) {
		out_error("cannot resolve the directory of %s: %s", path, strerror(errno));
		return -errno;
	}
	snprintf(tmp, sizeof(tmp), "%s", path);
	if (dir)
		snprintf(q->target, sizeof(q->target), "%s/awr-qualify.%d.dat", q->dir,
			 (int)getpid());
	else
		snprintf(q->target, sizeof(q->target), "%s/%s", q->dir, basename(tmp));
	return 0;
}

static int block_target(struct qctx *q, const char *path)
{
	q->fd = target_open("qualify", path, O_RDWR | O_DIRECT, 0, q->force);
	if (q->fd < 0)
		return q->fd;
	if (ioctl(q->fd, BLKGETSIZE64, &q->size)) {
		out_error("cannot read the size of %s: %s", path, strerror(errno));
		return -errno;
	}
	snprintf(q->target, sizeof(q->target), "%s", path);
	q->is_blk = true;
	return 0;
}

/* PATH: a directory (scratch file inside), a file (created when missing) or a block device. */
static int setup_target(struct qctx *q)
{
	struct stat st;
	int ret;

	if (stat(q->path, &st)) {
		if (errno != ENOENT) {
			out_error("cannot examine %s: %s", q->path, strerror(errno));
			return -errno;
		}
		/* a typo must not qualify a new file and PASS: a missing PATH needs --create */
		if (!q->create) {
			out_error("%s does not exist: give an existing directory (qualify makes "
				  "its scratch file in it), file or block device, or --create to "
				  "make the file %s for the run and remove it at the end", q->path,
				  q->path);
			out_set_errno(ENOENT);
			return -ENOENT;
		}
		ret = file_target(q, q->path, false);
		return ret ? ret : create_file(q);	/* --create: made new, removed at the end */
	}
	if (S_ISBLK(st.st_mode))
		return block_target(q, q->path);
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		out_error("%s is neither a directory, a regular file nor a block device: give "
			  "a directory on the filesystem to qualify, a file, or a block device",
			  q->path);
		return -EINVAL;
	}
	ret = file_target(q, q->path, S_ISDIR(st.st_mode));
	if (ret)
		return ret;
	if (S_ISDIR(st.st_mode))
		return create_file(q);
	/* a file holding data is refused: give its directory, an empty file, or --force */
	q->fd = target_open("qualify", q->target, O_RDWR | O_DIRECT, 0, q->force);
	return q->fd < 0 ? q->fd : 0;
}

/* @text after @lead, wrapped at word boundaries to 100 columns, later lines indented */
static void print_wrapped(const char *lead, const char *text)
{
	size_t col = strlen(lead), indent = col;

	fputs(lead, stdout);
	while (*text) {
		size_t w = strcspn(text, " ");

		if (col > indent && col + 1 + w > 100) {
			printf("\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		fwrite(text, 1, w, stdout);
		col += w;
		text += w;
		text += strspn(text, " ");
	}
	putchar('\n');
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

static void progress_check(struct qctx *q, const char *name)
{
	char label[96];

	snprintf(label, sizeof(label), "qualify: check %u of %u, %s", ++q->nr, NR_RUN, name);
	q->pr = progress_start(label, NULL, NULL);
}

/* awr_qualify_run()'s progress: a progress line while a check runs, its line when it ends. */
static void on_check(const struct awr_qualify_report *r, enum awr_qualify_check_id id,
		     bool done, void *arg)
{
	const struct awr_qualify_check *c = &r->checks[id];
	struct qctx *q = arg;

	if (!done) {
		progress_check(q, awr_qualify_check_name(id));
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
	o.flags = (q->quick ? AWR_QUALIFY_QUICK : 0) | (q->crash ? AWR_QUALIFY_CRASH_TEST : 0) |
		  (q->hardware ? AWR_QUALIFY_REQUIRE_HARDWARE : 0);
	o.progress = on_check;
	o.arg = q;
	if (out_mode == OUT_NORMAL)
		printf("qualify %s (%s %s)%s\n", q->path, q->is_blk ? "block device" : "file",
		       q->target, q->quick ? ", quick" : "");
	ret = awr_qualify_run(q->fd, q->target, &o, r);
	if (ret)
		out_error("cannot probe %s: %s", q->target, strerror(-ret));
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

static void prom_check(const char *path, const char *name, enum awr_qualify_status s)
{
	const char *l[7] = { "target", path, "check", name, "result", NULL, NULL };

	for (unsigned int i = 0; i < AWR_QUALIFY__STATUSES; i++) {
		l[5] = awr_qualify_status_name(i);
		prom_sample("awr_qualify_check", l, s == i);
	}
}

static void prom_seconds(const char *path, const char *name, double seconds)
{
	const char *l[5] = { "target", path, "check", name, NULL };

	prom_sample("awr_qualify_check_seconds", l, seconds);
}

/* Each check that ran: its result, or its seconds. */
static void prom_checks(const struct qctx *q, const struct awr_qualify_report *r, bool seconds)
{
	for (unsigned int id = 0; id < AWR_QUALIFY__CHECKS; id++) {
		const struct awr_qualify_check *c = &r->checks[id];
		const char *name = awr_qualify_check_name(id);

		if (c->ran && seconds)
			prom_seconds(q->path, name, c->seconds);
		else if (c->ran)
			prom_check(q->path, name, c->status);
	}
}

/* The verdict's scope: 1 for the scope the target has, 0 for the others. */
static void prom_scope(const struct qctx *q, const struct awr_qualify_report *r)
{
	const char *l[5] = { "target", q->path, "scope", NULL, NULL };

	prom_gauge("awr_qualify_scope", "what makes the qualified unit atomic: 1 for the target's "
		   "scope (hardware, software_only: the filesystem's software path alone, ...), "
		   "0 for the others");
	for (unsigned int i = 0; i < AWR_QUALIFY__SCOPES; i++) {
		l[3] = awr_qualify_scope_name(i);
		prom_sample("awr_qualify_scope", l, r->scope == i);
	}
}

/* -o prometheus: the verdict, each check's result and seconds, the limits qualified */
static void print_prometheus(const struct qctx *q, const struct awr_qualify_report *r)
{
	const struct awr_limits *lim = &r->limits;
	const char *l[3] = { "target", q->path, NULL };

	/* target: PATH as given (a directory's scratch file changes name every run) */
	prom_gauge("awr_qualify_verdict", "awr qualify's verdict for the target: 1 PASS (every "
		   "check passed or was skipped), 0 FAIL; its scope in awr_qualify_scope");
	prom_sample("awr_qualify_verdict", l, r->verdict == AWR_QUALIFY_VERDICT_PASS);
	prom_scope(q, r);
	prom_gauge("awr_qualify_check", "each check of awr qualify: 1 for the result it had, 0 for "
		   "the others");
	prom_checks(q, r, false);
	prom_gauge("awr_qualify_check_seconds", "how long each check of awr qualify ran");
	prom_checks(q, r, true);
	prom_gauge("awr_qualify_atomic_unit_min_bytes", "the effective atomic unit_min qualified "
		   "(statx, sysfs and device views joined)");
	prom_sample("awr_qualify_atomic_unit_min_bytes", l, lim->supported ? lim->unit_min : 0);
	prom_gauge("awr_qualify_atomic_unit_max_bytes", "the effective atomic unit_max qualified "
		   "(0: no atomic writes)");
	prom_sample("awr_qualify_atomic_unit_max_bytes", l, lim->supported ? lim->unit_max : 0);
	prom_gauge("awr_qualify_stress_unit_bytes", "the unit of the concurrent and crash checks");
	prom_sample("awr_qualify_stress_unit_bytes", l, r->unit);
	prom_gauge("awr_qualify_duration_seconds", "how long awr qualify ran");
	prom_sample("awr_qualify_duration_seconds", l, r->seconds);
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
	struct json_object *o = q_report_json(r, q->path, q->created);
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
	struct qctx q = { .fd = -1 };
	struct cmd_ctx cc;
	int rc = AWR_EXIT_USAGE;

	/* qualify DATADIR --for ENGINE: the database verdict, which only reads */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--for") || !strncmp(argv[i], "--for=", 6))
			return cmd_database(argc, argv);
	if (cmd_parse(&cc, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	q.path = cc.operand;
	q.quick = quick;
	q.crash = crash;
	q.hardware = hardware;
	q.force = force;
	q.create = create;
	if (html && report_html_dest_ok(html, force))
		goto out;
	if (setup_target(&q))
		goto out;
	remove_on_signal(&q);
	if (!run_checks(&q, &r))
		rc = finish(&q, r, report, html);
out:
	awr_qualify_report_free(r);
	if (q.fd >= 0)
		close(q.fd);
	if (q.created)
		unlink(q.target);
	cmd_done(&cc);
	return rc;
}
