// SPDX-License-Identifier: MIT
/*
 * awr stress PATH --unit U: concurrent stamped atomic writers, optionally
 * journaled on another filesystem so that awr verify can find lost writes.
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

static void report_text(const struct awr_stress_opts *o, const struct awr_stress_result *r)
{
	double sec = (double)r->nsec / 1e9;
	char a[32], b[32], t[32];

	printf("stress: %" PRIu64 " %s writes of %s (%s) over %" PRIu64 " units by %u writers in "
	       "%s", r->writes, (o->flags & AWR_STRESS_PLAIN) ? "plain (not atomic)" : "atomic",
	       awr__human_bytes(o->unit, a, sizeof(a)), awr__human_bytes(r->bytes, b, sizeof(b)),
	       r->units, o->threads, awr__human_usec((double)r->nsec / 1e3, t, sizeof(t)));
	if (sec > 0)
		printf(": %.0f writes/s, %.1f MB/s", (double)r->writes / sec,
		       (double)r->bytes / 1e6 / sec);
	printf("\n  generations %" PRIu64 "..%" PRIu64 "%s\n", r->first_generation,
	       r->last_generation,
	       (o->flags & AWR_STRESS_DSYNC) ? ", each write durable (RWF_DSYNC)" : "");
	if (o->journal)
		printf("  journal %s (%" PRIu64 " fdatasync)\n", o->journal, r->journal_syncs);
	if (r->journal_error)
		printf("  the journal failed: %s; writes after that are not recorded: give a "
		       "journal on a filesystem with space that stays up during the test\n",
		       strerror(-r->journal_error));
	if (r->error)
		printf("  stopped by a failed write at offset %" PRIu64 ": %s; the writes before "
		       "it are %s: %s\n", r->error_offset, strerror(-r->error),
		       o->journal ? "journaled" : "counted", o->journal ?
		       "after the crash or shutdown, run awr verify with this journal" :
		       "check the target (dmesg), or give --journal to find lost writes after a "
		       "crash");
}

#define S(m, t, k, ...) FLD(struct awr_stress_result, m, t, k, __VA_ARGS__)
static const struct field run_fields[] = {
	S(units, FLD_UINT, "units"),
	S(writes, FLD_UINT, "writes"),
	S(bytes, FLD_SIZE, "bytes"),
	S(nsec, FLD_NSEC, "seconds", .decimals = 3),
	S(first_generation, FLD_UINT, "first_generation"),
	S(last_generation, FLD_UINT, "last_generation"),
	FLD_END
};

static const struct field error_fields[] = {
	S(journal_syncs, FLD_UINT, "journal_syncs"),
	S(error, FLD_ENUM, "error", .name = awr__errno_name, .flags = FLD_NULL_ZERO),
	FLD_END
};
#undef S

/* What the options asked, as the document gives it */
struct stress_asked {
	uint32_t unit;
	unsigned int threads;
	bool dsync, atomic;
	const char *journal;
};

static const struct field asked_head[] = {
	FLD(struct stress_asked, unit, FLD_SIZE, "unit"),
	FLD(struct stress_asked, threads, FLD_UINT, "threads"),
	FLD_END
};

static const struct field asked_tail[] = {
	FLD(struct stress_asked, dsync, FLD_BOOL, "dsync"),
	FLD(struct stress_asked, atomic, FLD_BOOL, "atomic"),
	FLD(struct stress_asked, journal, FLD_STR, "journal", .flags = FLD_NULL_ZERO),
	FLD_END
};

static void report_json(const char *path, const struct awr_stress_opts *o,
			const struct awr_stress_result *r)
{
	struct json_object *j = json_object_new_object();
	struct stress_asked a = { o->unit, o->threads, o->flags & AWR_STRESS_DSYNC,
				  !(o->flags & AWR_STRESS_PLAIN), o->journal };

	json_object_object_add(j, "path", json_object_new_string(path));
	fld_json_add(j, asked_head, &a);
	fld_json_add(j, run_fields, r);
	fld_json_add(j, asked_tail, &a);
	fld_json_add(j, error_fields, r);
	json_object_object_add(j, "error_offset", r->error ? out_u64(r->error_offset) : NULL);
	json_object_object_add(j, "journal_error", r->journal_error ?
			       json_object_new_string(awr__errno_name(r->journal_error)) : NULL);
	out_print_json(j);
}

/*
 * SIGINT, SIGTERM: the writers finish their write in flight and its journal record, then the
 * report.
 */
static void on_stop(int sig)
{
	stop_signal = sig;
	awr_stress_stop();
}

/*
 * The unit, the span, seconds or writes (10 s when neither) and the threads into @o, judged by
 * awr_stress_opts_check(). Refused here only what its unsigned fields cannot hold: a --size of
 * 0 (the whole target there), a negative or second limit, fewer than one thread.
 */
static int stress_setup(struct awr_stress_opts *o, const char *unit_s, const char *size_s,
			double seconds, long long writes, int threads)
{
	if (stamp_unit_arg(unit_s, &o->unit) ||
	    (size_s && parse_size_arg("size", size_s, &o->span)))
		return -EINVAL;
	if (size_s && !o->span) {
		out_error("--size %s is not a multiple of --unit %s: the span holds whole units, "
			  "such as --size %" PRIu32, size_s, unit_s, o->unit);
		return -EINVAL;
	}
	if (seconds < 0 || writes < 0 || (seconds > 0 && writes > 0)) {
		out_error("give --seconds S or --writes N (one, positive)");
		return -EINVAL;
	}
	o->writes = (uint64_t)writes;
	o->duration_ms = (uint64_t)(seconds * 1000);
	if (!o->writes && !o->duration_ms)
		o->duration_ms = 10000;
	if (threads < 1) {
		out_error("--threads %d must be between 1 and 256", threads);
		return -EINVAL;
	}
	o->threads = (uint32_t)threads;
	if (awr_stress_opts_check(o)) {
		out_error("%s", awr_last_error());
		return -EINVAL;
	}
	return 0;
}

int cmd_stress(int argc, const char **argv)
{
	char *unit_s = NULL, *size_s = NULL, *journal = NULL, *secret = NULL;
	int threads = 4, dsync = 0, force = 0, plain = 0, journal_force = 0;
	long long writes = 0;
	double seconds = 0;
	struct poptOption table[] = {
		{ "unit", 0, POPT_ARG_STRING, &unit_s, 0, "bytes per atomic write (stamped unit)",
		  "U" },
		{ "threads", 0, POPT_ARG_INT, &threads, 0, "writer threads (default 4)", "T" },
		{ "seconds", 0, POPT_ARG_DOUBLE, &seconds, 0, "run time (default 10 s)", "S" },
		{ "writes", 0, POPT_ARG_LONGLONG, &writes, 0, "stop after N writes in all", "N" },
		{ "dsync", 0, POPT_ARG_NONE, &dsync, 0, "make each write durable (RWF_DSYNC)",
		  NULL },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0,
		  "record issued and acknowledged writes in FILE, a new file or an earlier run's "
		  "journal, on another filesystem, or tcp://HOST:PORT[/NAME] on a journal server "
		  "(implies --dsync)",
		  "FILE|URL" },
		{ "secret-file", 0, POPT_ARG_STRING, &secret, 0,
		  "the shared secret of a tcp:// journal (mode 0600; default: $AWR_JOURNAL_SECRET)",
		  "FILE" },
		{ "size", 0, POPT_ARG_STRING, &size_s, 0,
		  "bytes from offset 0 to write (default: the file or device; 64 MiB for a new "
		  "file)", "SPAN" },
		{ "no-atomic", 0, POPT_ARG_NONE, &plain, 0,
		  "plain O_DIRECT writes without RWF_ATOMIC: a control run", NULL },
		{ "force", 0, POPT_ARG_NONE, &force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ "journal-force", 0, POPT_ARG_NONE, &journal_force, 0,
		  "replace the content of a journal file that is not an awr journal (a journal is "
		  "never replaced: move it away)", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_stress_opts o = { 0 };
	struct awr_stress_result r;
	struct cmd_ctx c;
	int ret, fd = -1, rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	if (stress_setup(&o, unit_s, size_s, seconds, writes, threads))
		goto out;
	o.journal = journal;
	o.flags = (dsync || journal ? AWR_STRESS_DSYNC : 0) | (plain ? AWR_STRESS_PLAIN : 0);
	o.journal_force = journal_force;	/* --force is about the target only */
	o.journal_secret_file = secret;
	if (secret_file_check(secret))
		goto out;
	if (awr_journal_check(journal, journal_force)) {
		out_error("%s", awr_last_error());
		goto out;
	}
	fd = target_open("stress", c.operand, O_RDWR | O_DIRECT, AWR_TARGET_CREATE, force);
	if (fd < 0)
		goto out;
	catch_stop_signals(on_stop);
	{
		double total = (double)o.duration_ms / 1000;
		struct progress *pr = progress_start("stress", progress_seconds, &total);

		ret = awr_stress_run_fd(fd, &o, &r);
		progress_stop(pr);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (ret) {
		out_error("cannot stress %s: %s", c.operand, awr_last_error());
		goto out;
	}
	if (out_mode == OUT_JSON)
		report_json(c.operand, &o, &r);
	else
		report_text(&o, &r);
	rc = r.journal_error ? AWR_EXIT_USAGE : r.error ? AWR_EXIT_FAIL : AWR_EXIT_OK;
	out_outcome("write_failed");
	if (stop_signal && rc == AWR_EXIT_OK) {
		out_error("stress: stopped by %s after %" PRIu64 " writes; the journal is complete",
			  strsignal(stop_signal),
			  r.writes);
		rc = 128 + stop_signal;
	}
out:
	if (fd >= 0)
		close(fd);
	cmd_done(&c);
	return rc;
}
