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

#define DEFAULT_SPAN	(64ULL << 20)

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
	S(error, FLD_ENUM, "error", .name = out_errno_name, .flags = FLD_NULL_ZERO),
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
			       json_object_new_string(out_errno_name(r->journal_error)) : NULL);
	out_print_json(j);
}

static int explain_start_error(const char *path, const struct awr_stress_opts *o,
			       const struct awr_stress_result *r, int ret)
{
	if (r->verdict.rule == AWR_RULE_OK && o->journal &&
	    journal_remote_error("stress", o->journal, o->journal_secret_file, ret))
		return AWR_EXIT_USAGE;
	if (r->verdict.rule != AWR_RULE_OK)
		out_error("cannot stress %s with --unit %u: %s (rule %s)", path, o->unit,
			  r->verdict.message, awr_rule_name(r->verdict.rule));
	else if (ret == -ENOSPC)
		out_error("%s is smaller than --size %" PRIu64 ": give a smaller --size", path,
			  o->span);
	else if (ret == -EBADMSG)
		out_error("journal %s is damaged before its end, forged, or a record was refused "
			  "(a generation no stress run could issue): awr never empties a journal; "
			  "keep it for awr verify, move it away, and give a new journal file",
			  o->journal);
	else if (o->journal && ret == -ENOEXEC)
		out_error("refusing to use %s as the journal: it holds data that is not an awr "
			  "journal (its first record is not valid). Give a new file or the journal "
			  "of an earlier awr stress run, or --journal-force to replace the file's "
			  "content.", o->journal);
	else if (o->journal && ret == -ELOOP)
		out_error("refusing to use %s as the journal: it is a symbolic link; give the path "
			  "of the file itself", o->journal);
	else
		out_error("cannot stress %s: %s", path, strerror(-ret));
	return AWR_EXIT_USAGE;
}

/* The type of a file that is not a regular one, in words. */
static const char *file_type(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* "AWRJ" XOR (type << 24), little endian: the first 4 bytes of every journal record. */
static bool journal_record_start(const uint8_t *b, size_t len)
{
	uint8_t type = b[3] ^ 0x4a;

	return len >= 48 && b[0] == 'A' && b[1] == 'W' && b[2] == 'R' && type >= 1 && type <= 3;
}

/* What the first bytes of a file that is not a journal look like, in words. */
static void describe_data(const uint8_t *b, size_t len, char *out, size_t outlen)
{
	size_t text = 0, zero = 0, n = 0;
	char shown[40];

	for (size_t i = 0; i < len; i++) {
		zero += !b[i];
		text += (b[i] >= 32 && b[i] < 127) || b[i] == '\n' || b[i] == '\t' || b[i] == '\r';
	}
	if (zero == len) {
		snprintf(out, outlen, "its first %zu bytes are zero", len);
		return;
	}
	if (text == len) {
		for (size_t i = 0; i < len && n + 3 < sizeof(shown); i++) {
			if (b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
				shown[n++] = '\\';
				shown[n++] = b[i] == '\n' ? 'n' : b[i] == '\t' ? 't' : 'r';
			} else {
				shown[n++] = (char)b[i];
			}
		}
		shown[n] = '\0';
		snprintf(out, outlen, "text beginning \"%s\"", shown);
		return;
	}
	for (size_t i = 0; i < len && i < 8 && n + 4 < sizeof(shown); i++)
		n += (size_t)snprintf(shown + n, sizeof(shown) - n, "%s%02x", i ? " " : "", b[i]);
	snprintf(out, outlen, "binary data beginning %s", shown);
}

/*
 * The journal must be a new file or a journal of an earlier run: records
 * appended to anything else destroy it (a block device even from offset 0).
 * Checked before the target is opened, so a refusal changes nothing; the
 * library checks again on the file it opens.
 */
static int guard_journal(const char *path, bool force)
{
	uint8_t head[48];
	char what[128];
	struct stat st;
	ssize_t got;
	int fd;

	if (lstat(path, &st))
		return 0;	/* missing: made new (other errors: the open says) */
	if (!S_ISREG(st.st_mode)) {
		out_error("refusing to use %s as the journal: it is %s. The journal must be a new "
			  "or existing journal file (a regular file) on another filesystem than "
			  "the target%s",
			  path, file_type(st.st_mode),
			  S_ISLNK(st.st_mode) ? "; give the path of the file itself, not a link" :
			  S_ISBLK(st.st_mode) ? "; records written to a block device land from "
						"offset 0 over its data" : "");
		return -EINVAL;
	}
	if (!st.st_size || force)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = read(fd, head, sizeof(head));
	close(fd);
	if (got <= 0 || journal_record_start(head, (size_t)st.st_size))
		return 0;	/* the library checks the whole record */
	describe_data(head, (size_t)got, what, sizeof(what));
	out_error("refusing to use %s as the journal: it holds %lld bytes that are not an awr "
		  "journal (%s; a journal begins with an AWRJ record). Give a new file or the "
		  "journal of an earlier awr stress run, or --journal-force to replace the file's "
		  "content.",
		  path, (long long)st.st_size, what);
	return -ENOEXEC;
}

static bool new_file(const char *path)
{
	struct stat st;

	return stat(path, &st) && errno == ENOENT;
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

/* Seconds or writes, the unit, the span; fills @o. */
static int stress_setup(struct awr_stress_opts *o, const char *path, const char *unit_s,
			const char *size_s, double seconds, long long writes)
{
	uint64_t v;

	if (parse_size_arg("unit", unit_s, &v))
		return -EINVAL;
	if (!v || v % AWR_STAMP_SECTOR || v > (1U << 30)) {
		out_error("--unit %" PRIu64 " must be a multiple of 512 up to 1 GiB, such as 16k",
			  v);
		return -EINVAL;
	}
	o->unit = (uint32_t)v;
	if (size_s && parse_size_arg("size", size_s, &o->span))
		return -EINVAL;
	if (size_s && (!o->span || o->span % o->unit)) {
		out_error("--size %s is not a multiple of --unit %s: the span holds whole units, "
			  "such as --size %" PRIu64,
			  size_s, unit_s, (o->span / o->unit + 1) * o->unit);
		return -EINVAL;
	}
	if (!size_s && new_file(path))
		o->span = DEFAULT_SPAN;	/* decided before the open creates it */
	if (seconds < 0 || writes < 0 || (seconds > 0 && writes > 0)) {
		out_error("give --seconds S or --writes N (one, positive)");
		return -EINVAL;
	}
	o->writes = (uint64_t)writes;
	o->duration_ms = (uint64_t)(seconds * 1000);
	if (!o->writes && !o->duration_ms)
		o->duration_ms = 10000;
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
	if (stress_setup(&o, c.operand, unit_s, size_s, seconds, writes))
		goto out;
	if (threads < 1 || threads > 256) {
		out_error("--threads %d must be between 1 and 256", threads);
		goto out;
	}
	o.threads = (uint32_t)threads;
	o.journal = journal;
	o.flags = (dsync || journal ? AWR_STRESS_DSYNC : 0) | (plain ? AWR_STRESS_PLAIN : 0);
	o.journal_force = journal_force;	/* --force is about the target only */
	o.journal_secret_file = secret;
	if (secret_file_check(secret))
		goto out;
	if (journal && strncmp(journal, "tcp://", 6) && guard_journal(journal, journal_force))
		goto out;
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
		rc = explain_start_error(c.operand, &o, &r, ret);
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
