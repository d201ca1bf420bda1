// SPDX-License-Identifier: MIT
/*
 * awr: the command table and dispatch. cli/ parses and renders, nothing else:
 * each command parses its options (args.c), calls the library stage that
 * does the work (discover, decide, write, verify, bench, qualify, database)
 * and renders the typed result it gets back through one output layer
 * (output.c, fields.c: field tables walked by the text, JSON and Prometheus
 * back ends), or the HTML report (report_html.c). Decisions, findings and
 * verdicts are the library's; a command only says them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "awr.h"

static int cmd_help(int argc, const char **argv);

static const struct awr_cmd commands[] = {
	{ "probe",   "show statx, sysfs and device limits, effective limits and findings",
	  cmd_probe },
	{ "check",   "would a write at --offset of --length be atomic? which rule fails?",
	  cmd_check },
	{ "extents", "a file's extents: which are aligned to a unit, the misaligned ranges",
	  cmd_extents },
	{ "prepare", "aligned preallocation of a new file for atomic writes of a unit", cmd_prepare,
	  true },
	{ "list",    "every block device with its atomic write limits, one line each", cmd_list },
	{ "decode",  "analyse nvme-cli / sg_vpd output or saved identify and VPD dumps",
	  cmd_decode },
	{ "write",   "atomic writes from a pattern or a file, optionally read back", cmd_write,
	  true },
	{ "bench",   "atomic vs plain vs doublewrite page writes: pages/s, MB/s, latency",
	  cmd_bench, true },
	{ "stress",  "concurrent stamped atomic writers, journaled for a crash check", cmd_stress,
	  true },
	{ "verify",  "scan stamped units: torn, corrupt, misplaced, lost writes", cmd_verify },
	{ "replay",  "list a dm-log-writes log, or write the device's state at an entry, flush or "
		     "mark",
	  cmd_replay, true },
	{ "journal-serve", "keep stress journals of other machines (tcp://), to survive their "
			   "power cut",
	  cmd_journal_serve },
	{ "qualify", "scripted device qualification: every check PASS/FAIL/SKIP and a verdict",
	  cmd_qualify, true },
	{ "report",  "draw a saved qualify report (JSON) as one self-contained HTML page",
	  cmd_report },
	{ "database", "may a data directory's doublewrite buffer / full_page_writes be turned off? "
		      "(reads only)",
	  cmd_database },
	{ "preload-stats", "the counters of a program run under libatomicwr-preload: page writes "
			   "made atomic",
	  cmd_preload_stats },
	{ "help",    "show the commands, or the options of one: awr help COMMAND", cmd_help },
	{ "version", "library and tool versions, the running kernel and what it supports",
	  cmd_version },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct awr_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	int w = 0;

	for (size_t i = 0; i < NR_COMMANDS; i++)
		if ((int)strlen(commands[i].name) > w)
			w = (int)strlen(commands[i].name);
	fprintf(f, "Usage: awr COMMAND [OPTIONS] [PATH]\n\nCommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-*s %s\n", w, commands[i].name, commands[i].summary);
	fprintf(f, "\nEvery command takes --help and -o normal|json. See awr(1).\n");
}

static int cmd_help(int argc, const char **argv)
{
	const struct awr_cmd *c;
	const char *args[] = { NULL, "--help", NULL };

	if (argc < 2) {
		usage(stdout);
		return AWR_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c || c->handler == cmd_help) {
		out_error("unknown command '%s'", argv[1]);
		usage(stderr);
		return AWR_EXIT_USAGE;
	}
	args[0] = c->name;
	return c->handler(2, args);
}

int main(int argc, const char **argv)
{
	const struct awr_cmd *c;
	int rc;

	/* a tool that writes raw devices must not lend its privileges to whoever runs it */
	if (getuid() != geteuid() || getgid() != getegid()) {
		out_error("refusing to run set-user-ID or set-group-ID: run awr as the user whose "
			  "rights it should have");
		return AWR_EXIT_USAGE;
	}
	if (argc < 2) {
		usage(stderr);
		return AWR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return AWR_EXIT_OK;
	}
	/* --version is the version command, through the same output layer (-o json included) */
	c = find_command(strcmp(argv[1], "--version") ? argv[1] : "version");
	if (!c) {
		out_error("unknown command '%s'", argv[1]);
		usage(stderr);
		return AWR_EXIT_USAGE;
	}
#ifdef AWR_TEST_HOOKS
	/*
	 * the writing commands decide safety and partitions from the real /sys, never
	 * AWR_SYSFS_ROOT
	 */
	if (c->writes)
		awr_set_sysfs_root("/sys");
#endif
	out_prescan(argc - 1, argv + 1);
	rc = c->handler(argc - 1, argv + 1);
	out_finish(rc);
	return rc;
}
