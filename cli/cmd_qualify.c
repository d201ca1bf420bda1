// SPDX-License-Identifier: MIT
/*
 * awr qualify PATH: the scripted device qualification. Runs the checks of
 * qualify.c in order, each PASS, FAIL or SKIP with a reason, then a verdict;
 * -o json or --report FILE give every check's figures for automation.
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

#define STRESS_UNIT	16384U	/* a database page */

static const struct {
	const char *name;
	void (*run)(struct qctx *q, struct qcheck *c);
} checks[] = {
	{ "discovery", q_discovery },
	{ "size_sweep", q_size_sweep },
	{ "kernel_refusals", q_refusals },
	{ "concurrent_torn", q_concurrency },
	{ "crash", q_crash },
	{ "performance", q_performance },
	{ "hardware_path", q_hw_path },	/* cli/qualify_path.c */
	{ "short_pin", q_short_pin },	/* cli/qualify_pin.c: last, its range is left as written */
};

#define NR_CHECKS (sizeof(checks) / sizeof(checks[0]))

/* What to remove when qualify is interrupted: its scratch file, journal directory and crash scratch XFS. */
static char scratch[4200];

static void on_signal(int sig)
{
	if (scratch[0])
		unlink(scratch);
	q_rmdir();
	q_crash_cleanup();
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
		snprintf(q->target, sizeof(q->target), "%s/awr-qualify.%d.dat", q->dir, (int)getpid());
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
		/* a typo must not qualify a new file and report PASS: a missing PATH only with --create */
		if (!q->create) {
			out_error("%s does not exist: give an existing directory (qualify makes its scratch file in "
				  "it), file or block device, or --create to make the file %s for the run and remove "
				  "it at the end", q->path, q->path);
			out_set_errno(ENOENT);
			return -ENOENT;
		}
		ret = file_target(q, q->path, false);
		return ret ? ret : create_file(q);	/* --create: made new, removed at the end */
	}
	if (S_ISBLK(st.st_mode))
		return block_target(q, q->path);
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		out_error("%s is neither a directory, a regular file nor a block device: "
			  "give a directory on the filesystem to qualify, a file, or a block device", q->path);
		return -EINVAL;
	}
	ret = file_target(q, q->path, S_ISDIR(st.st_mode));
	if (ret)
		return ret;
	if (S_ISDIR(st.st_mode))
		return create_file(q);
	/* a file that holds data is refused: give its directory (a scratch file), an empty file, or --force */
	q->fd = target_open("qualify", q->target, O_RDWR | O_DIRECT, 0, q->force);
	return q->fd < 0 ? q->fd : 0;
}

static int probe_target(struct qctx *q)
{
	int ret = awr_probe_path(q->target, 0, &q->probe);

	if (ret) {
		out_error("cannot probe %s: %s", q->target, strerror(-ret));
		return ret;
	}
	q->lim = *awr_probe_effective(q->probe);
	q->unit = STRESS_UNIT;
	if (q->lim.supported && q->unit < q->lim.unit_min)
		q->unit = q->lim.unit_min;
	if (q->lim.supported && q->unit > q->lim.unit_max)
		q->unit = q->lim.unit_max;
	return 0;
}

static void print_check(const struct qcheck *c)
{
	printf("  %-4s  %-16s %s\n", q_result_name(c->result), c->name, c->reason);
	fflush(stdout);
}

static struct json_object *check_json(const struct qcheck *c)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "result", json_object_new_string(q_result_name(c->result)));
	json_object_object_add(o, "reason", json_object_new_string(c->reason));
	json_object_object_add(o, "seconds", out_double(c->seconds, 3));
	json_object_object_add(o, "figures", json_object_get(c->figures));
	return o;
}

struct tally {
	unsigned int n[Q__RESULTS];	/* per enum q_result */
	double seconds;
};

static struct json_object *report_json(const struct qctx *q, const struct qcheck *c, const struct tally *t)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct tm tm;
	char date[32] = "";

	if (gmtime_r(&q->started, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);

	json_object_object_add(o, "path", json_object_new_string(q->path));
	json_object_object_add(o, "target", json_object_new_string(q->target));
	json_object_object_add(o, "target_type", json_object_new_string(q->is_blk ? "block_device" : "file"));
	json_object_object_add(o, "scratch_file", json_object_new_boolean(q->created));
	out_add_versions(o);
	json_object_object_add(o, "date", json_object_new_string(date));
	json_object_object_add(o, "quick", json_object_new_boolean(q->quick));
	json_object_object_add(o, "limits", out_limits_json(&q->lim));
	for (size_t i = 0; i < NR_CHECKS; i++)
		if (c[i].name)
			json_object_array_add(a, check_json(&c[i]));
	json_object_object_add(o, "checks", a);
	json_object_object_add(o, "extent_map", q_extent_map(q));
	json_object_object_add(o, "notes", json_object_get(q->notes));
	json_object_object_add(o, "passed", out_u64(t->n[Q_PASS]));
	json_object_object_add(o, "failed", out_u64(t->n[Q_FAIL]));
	json_object_object_add(o, "skipped", out_u64(t->n[Q_SKIP]));
	json_object_object_add(o, "info", out_u64(t->n[Q_INFO]));
	json_object_object_add(o, "seconds", out_double(t->seconds, 3));
	json_object_object_add(o, "verdict", json_object_new_string(t->n[Q_FAIL] ? "FAIL" : "PASS"));
	return o;
}

static int write_report(const char *file, struct json_object *o)
{
	FILE *f = fopen(file, "we");

	if (!f) {
		out_error("cannot write the report %s: %s", file, strerror(errno));
		return -errno;
	}
	fprintf(f, "%s\n", json_object_to_json_string_ext(out_json_schema(o), JSON_C_TO_STRING_PRETTY |
			  JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	return fclose(f) ? -errno : 0;
}

/* Whether check @i is in @q's list: hardware_path for files only, short_pin for block devices only. */
static bool check_applies(const struct qctx *q, size_t i)
{
	if (checks[i].run == q_hw_path)
		return !q->is_blk;	/* a check of files on a filesystem */
	if (checks[i].run == q_short_pin)
		return q->is_blk;	/* the block layer's bug with a partly pinned buffer */
	return true;
}

static void run_checks(struct qctx *q, struct qcheck *c, struct tally *t)
{
	double start = cli_now_s(), t0;
	size_t total = 0, nr = 0;

	q->started = time(NULL);

	if (out_mode == OUT_NORMAL)
		printf("qualify %s (%s %s)%s\n", q->path, q->is_blk ? "block device" : "file", q->target,
		       q->quick ? ", quick" : "");
	for (size_t i = 0; i < NR_CHECKS; i++)
		total += check_applies(q, i);
	for (size_t i = 0; i < NR_CHECKS; i++) {
		if (!check_applies(q, i))
			continue;
		c[i].name = checks[i].name;
		c[i].figures = json_object_new_object();
		t0 = cli_now_s();
		{
			char label[96];
			struct progress *pr;

			snprintf(label, sizeof(label), "qualify: check %zu of %zu, %s", ++nr, total,
				 checks[i].name);
			pr = progress_start(label, NULL, NULL);
			checks[i].run(q, &c[i]);
			progress_stop(pr);
		}
		c[i].seconds = cli_now_s() - t0;
		t->n[c[i].result]++;
		if (out_mode == OUT_NORMAL)
			print_check(&c[i]);
	}
	t->seconds = cli_now_s() - start;
}

/* @text after @lead, wrapped at word boundaries to 100 columns, the lines after the first indented */
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

static void print_verdict(const struct qctx *q, const struct tally *t)
{
	size_t n = json_object_array_length(q->notes);

	for (size_t i = 0; i < n; i++)
		print_wrapped("note: ", json_object_get_string(json_object_array_get_idx(q->notes, i)));
	printf("verdict: %s (%u passed, %u failed, %u skipped, %u information only) in %.1f s\n",
	       t->n[Q_FAIL] ? "FAIL" : "PASS", t->n[Q_PASS], t->n[Q_FAIL], t->n[Q_SKIP], t->n[Q_INFO], t->seconds);
}

/* -o prometheus: the verdict, each check's result and seconds, the limits qualified */
static void print_prometheus(const struct qctx *q, const struct qcheck *c, const struct tally *t)
{
	static const char *const results[Q__RESULTS] = { "pass", "fail", "skip", "info" };
	const char *l[9];

	/* target: PATH as given (a directory's scratch file changes name every run) */
	prom_gauge("awr_qualify_verdict", "awr qualify's verdict for the target: 1 PASS (every check passed or was skipped), 0 FAIL");
	l[0] = "target"; l[1] = q->path; l[2] = NULL;
	prom_sample("awr_qualify_verdict", l, !t->n[Q_FAIL]);
	prom_gauge("awr_qualify_check", "each check of awr qualify: 1 for the result it had, 0 for the others");
	for (size_t i = 0; i < NR_CHECKS; i++) {
		if (!c[i].name)
			continue;
		for (size_t r = 0; r < Q__RESULTS; r++) {
			l[0] = "target"; l[1] = q->path; l[2] = "check"; l[3] = c[i].name;
			l[4] = "result"; l[5] = results[r]; l[6] = NULL;
			prom_sample("awr_qualify_check", l, c[i].result == (enum q_result)r);
		}
	}
	prom_gauge("awr_qualify_check_seconds", "how long each check of awr qualify ran");
	for (size_t i = 0; i < NR_CHECKS; i++) {
		if (!c[i].name)
			continue;
		l[0] = "target"; l[1] = q->path; l[2] = "check"; l[3] = c[i].name; l[4] = NULL;
		prom_sample("awr_qualify_check_seconds", l, c[i].seconds);
	}
	l[0] = "target"; l[1] = q->path; l[2] = NULL;
	prom_gauge("awr_qualify_atomic_unit_min_bytes", "the effective atomic unit_min qualified (statx, sysfs and device views joined)");
	prom_sample("awr_qualify_atomic_unit_min_bytes", l, q->lim.supported ? q->lim.unit_min : 0);
	prom_gauge("awr_qualify_atomic_unit_max_bytes", "the effective atomic unit_max qualified (0: no atomic writes)");
	prom_sample("awr_qualify_atomic_unit_max_bytes", l, q->lim.supported ? q->lim.unit_max : 0);
	prom_gauge("awr_qualify_stress_unit_bytes", "the unit of the concurrent and crash checks");
	prom_sample("awr_qualify_stress_unit_bytes", l, q->unit);
	prom_gauge("awr_qualify_duration_seconds", "how long awr qualify ran");
	prom_sample("awr_qualify_duration_seconds", l, t->seconds);
	prom_info();
}

static int finish(struct qctx *q, struct qcheck *c, const struct tally *t, const char *report, const char *html)
{
	struct json_object *o = report_json(q, c, t);
	int rc = t->n[Q_FAIL] ? AWR_EXIT_FAIL : AWR_EXIT_OK;

	out_outcome("verdict_fail");
	json_object_object_add(o, "outcome", json_object_new_string(rc ? "verdict_fail" : "ok"));

	if (report && write_report(report, o))
		rc = AWR_EXIT_USAGE;
	if (html) {	/* drawn from the JSON as written, as awr report draws a saved one */
		struct json_object *doc = json_tokener_parse(json_object_to_json_string(out_json_schema(o)));

		if (report_html_file(doc, html))
			rc = AWR_EXIT_USAGE;
		json_object_put(doc);
	}
	if (out_mode == OUT_JSON)
		out_print_json(o);
	else
		json_object_put(o);
	if (out_mode == OUT_NORMAL)
		print_verdict(q, t);
	else if (out_mode == OUT_PROMETHEUS)
		print_prometheus(q, c, t);
	return rc;
}

int cmd_qualify(int argc, const char **argv)
{
	int quick = 0, crash = 0, force = 0, create = 0;
	char *report = NULL, *html = NULL;
	struct poptOption table[] = {
		{ "create", 0, POPT_ARG_NONE, &create, 0, "PATH does not exist: make it as the file to qualify "
		  "(removed at the end); without it a missing PATH is refused", NULL },
		{ "quick", 0, POPT_ARG_NONE, &quick, 0, "short runs: under 30 s on a scratch XFS", NULL },
		{ "crash", 0, POPT_ARG_NONE, &crash, 0,
		  "also crash-test: shut down a scratch XFS that qualify makes itself (an image on "
		  "PATH's filesystem, a loop device; needs root and mkfs.xfs) mid-write", NULL },
		{ "report", 0, POPT_ARG_STRING, &report, 0, "write the JSON report to FILE", "FILE" },
		{ "html", 0, POPT_ARG_STRING, &html, 0, "write the report as one self-contained HTML page to FILE "
		  "(charts drawn inline, nothing loaded)", "FILE" },
		{ "for", 0, POPT_ARG_STRING, NULL, 0, "PATH is a database's data directory: judge whether its "
		  "torn-page protection may be turned off instead (innodb or postgresql; awr database, reads only)",
		  "ENGINE" },
		{ "force", 0, POPT_ARG_NONE, &force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options_prom, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct qcheck c[NR_CHECKS] = { 0 };
	struct qctx q = { .fd = -1 };
	struct tally t = { 0 };
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
	q.force = force;
	q.create = create;
	q.notes = json_object_new_array();
	if (html && report_html_dest_ok(html, force))
		goto out;
	if (setup_target(&q))
		goto out;
	remove_on_signal(&q);
	if (probe_target(&q))
		goto out;
	run_checks(&q, c, &t);
	rc = finish(&q, c, &t, report, html);
out:
	for (size_t i = 0; i < NR_CHECKS; i++)
		json_object_put(c[i].figures);
	if (q.fd >= 0)
		close(q.fd);
	if (q.created)
		unlink(q.target);
	json_object_put(q.notes);
	awr_probe_free(q.probe);
	cmd_done(&cc);
	return rc;
}
