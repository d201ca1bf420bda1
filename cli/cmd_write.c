// SPDX-License-Identifier: MIT
/*
 * awr write PATH --offset O --length L [--unit U]: atomic writes of a pattern
 * or a file's content, each unit one untorn write, optionally read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awr.h"

/*
 * Memory stays bounded whatever --length is: the data is made one unit at a
 * time into a ring of buffers (one per write in flight: --qd for the uring
 * engine, one otherwise), a pattern filled once, --input read unit by unit as
 * the writes go out; --verify reads back and compares in chunks of 1 MiB.
 */
#define VERIFY_CHUNK	(1U << 20)

struct write_job {
	const char *path;
	uint64_t offset;
	uint64_t length;
	uint64_t unit;
	unsigned int flags;	/* AWR_WRITE_* */
	unsigned char *bufs;	/* nbuf buffers of unit bytes */
	unsigned int nbuf;
	int pattern;		/* the fill byte, or -1: data from input_fd */
	int input_fd;
	const char *input;
	uint64_t input_read;	/* bytes read from --input so far */
	uint64_t written;	/* bytes landed */
	uint64_t writes;	/* atomic writes issued */
	struct write_paths *paths;	/* --report-path (write_path.c), or NULL */
	unsigned int qd;	/* writes in flight (uring, nvme), 0 one at a time */
	bool have_stats;
	struct awr_queue_stats stats;	/* the queue's fill at each reap (uring, nvme) */
	double seconds;		/* the writes' wall time: first submission to last completion */
};

static int parse_pattern(struct write_job *j, const char *pattern)
{
	char *end;
	unsigned long v = 0x5a;

	if (pattern) {
		errno = 0;
		v = strtoul(pattern, &end, 0);
		if (errno || *end || end == pattern || v > 255) {
			out_error("--pattern '%s' is not a byte: use 0..255 or 0x00..0xff", pattern);
			return -EINVAL;
		}
	}
	j->pattern = (int)v;
	return 0;
}

/* The pattern is written into every buffer once, after the range passed its checks. */
static void fill_pattern(struct write_job *j)
{
	if (j->pattern >= 0)
		memset(j->bufs, j->pattern, (size_t)j->nbuf * j->unit);
}

/* --input: read as the writes go; --verify reads it a second time, so it must be a regular file then. */
static int open_input(struct write_job *j, const char *input, bool do_verify)
{
	struct stat st;

	j->input = input;
	j->input_fd = open(input, O_RDONLY | O_CLOEXEC);
	if (j->input_fd < 0) {
		out_error("cannot open --input %s: %s", input, strerror(errno));
		return -errno;
	}
	if (fstat(j->input_fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < j->length) {
		out_error("--input %s holds %" PRIu64 " bytes, fewer than --length %" PRIu64,
			  input, (uint64_t)st.st_size, j->length);
		return -EINVAL;
	}
	if (do_verify && !S_ISREG(st.st_mode)) {
		out_error("--verify with --input %s: the input is read twice (to write, then to compare), so it must be a regular file, not a pipe or device",
			  input);
		return -EINVAL;
	}
	return 0;
}

/* Read exactly @len bytes of --input at @pos (pread for a regular file, read for a pipe). */
static int input_read(struct write_job *j, unsigned char *dst, uint64_t len, uint64_t pos, bool again)
{
	uint64_t done = 0;
	ssize_t n;

	while (done < len) {
		n = again ? pread(j->input_fd, dst + done, len - done, (off_t)(pos + done))
			  : read(j->input_fd, dst + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (uint64_t)n;
	}
	if (done == len)
		return 0;
	out_error("--input %s: %s after %" PRIu64 " bytes, fewer than --length %" PRIu64, j->input,
		  n < 0 ? strerror(errno) : "ended", pos + done, j->length);
	return -EINVAL;
}

/* The data of the unit at @pos (bytes from --offset) into @dst. */
static int produce(struct write_job *j, unsigned char *dst, uint64_t pos)
{
	if (j->pattern >= 0)
		return 0;	/* every buffer was filled with the pattern once */
	j->input_read = pos + j->unit;
	return input_read(j, dst, j->unit, pos, false);
}

static int write_failed(const struct write_job *j, uint64_t pos, ssize_t ret, const struct awr_verdict *v)
{
	if (v->rule != AWR_RULE_OK && v->rule != AWR_RULE_DEVICE_ERROR)
		out_error("refused before writing at %" PRIu64 ": %s (rule %s)",
			  j->offset + pos, v->message, awr_rule_name(v->rule));
	else
		out_error("atomic write of %" PRIu64 " bytes at %" PRIu64 " failed: %s", j->unit,
			  j->offset + pos, v->rule == AWR_RULE_DEVICE_ERROR ? v->message : strerror((int)-ret));
	return (int)ret;
}

static int run_sync(struct write_job *j, struct awr_file *f)
{
	struct awr_verdict v;
	ssize_t ret;

	for (uint64_t pos = 0; pos < j->length; pos += j->unit) {
		if (produce(j, j->bufs, pos))
			return -EINVAL;
		v.rule = AWR_RULE_OK;
		ret = j->paths ? write_paths_pwrite(j->paths, f, j->bufs, j->unit, j->offset + pos, j->flags, &v)
			       : awr_pwrite(f, j->bufs, j->unit, j->offset + pos, j->flags, &v);
		if (ret < 0)
			return write_failed(j, pos, ret, &v);
		j->written += j->unit;
		j->writes++;
	}
	return 0;
}

/* The data of unit @index into @buf (awr_queue_write_source() calls it as the queue has room). */
static int unit_fill(void *arg, void *buf, uint64_t index)
{
	struct write_job *j = arg;

	return produce(j, buf, index * j->unit);
}

/* The first failure of a queued run, named: one at a time (qd 0) as each write's own error. */
static void queued_failed(const struct write_job *j, int ret,
			  const struct awr_batch_result *res)
{
	uint64_t pos = res->error_offset - j->offset;
	struct awr_verdict v = res->verdict;

	if (v.rule == AWR_RULE_DEVICE_ERROR && awr_last_error()[0])	/* its sentence alone */
		snprintf(v.message, sizeof(v.message), "%s", awr_last_error());
	if (ret && !res->error) {
		if (ret != -EINVAL)	/* -EINVAL: --input failed, produce() said why */
			out_error("queueing the write at %" PRIu64 " failed: %s",
				  res->error_offset, strerror(-ret));
	} else if (!j->qd || (res->verdict.rule != AWR_RULE_OK &&
			      res->verdict.rule != AWR_RULE_DEVICE_ERROR)) {
		write_failed(j, pos, res->error, &v);
	} else {
		out_error("%s; %" PRIu64 " of %" PRIu64 " units landed", res->verdict.message,
			  res->units_done, j->length / j->unit);
	}
}

/* The units refilled as writes complete (nbuf buffers); with --qd the queue's fill is kept. */
static int run_queued(struct write_job *j, struct awr_queue *q)
{
	struct awr_queue_source src = {
		.bufs = j->bufs, .nbuf = j->nbuf, .fill = unit_fill, .arg = j,
	};
	struct awr_batch_result res;
	int ret = awr_queue_write_source(q, &src, j->offset, j->length, j->unit, j->flags, &res);

	j->writes = res.units_done;
	j->written = res.units_done * j->unit;
	if (ret)
		queued_failed(j, ret, &res);
	j->have_stats = j->qd != 0;
	awr_queue_stats(q, &j->stats);
	return ret;
}

/* --engine uring: a queue of depth nbuf on @f. */
static int run_uring(struct write_job *j, struct awr_file *f)
{
	struct awr_queue *q;
	int ret = awr_queue_open(AWR_QUEUE_URING, NULL, f, j->nbuf,
				 AWR_QUEUE_REGISTER_FILE | AWR_QUEUE_SUBMIT_EACH, &q);

	if (ret) {
		out_error("cannot set up io_uring with queue depth %u: %s", j->nbuf,
			  strerror(-ret));
		return ret;
	}
	ret = run_queued(j, q);
	awr_queue_close(q);
	return ret;
}

static bool is_passthrough(const char *engine)
{
	return engine && (!strcmp(engine, "nvme") || !strcmp(engine, "scsi"));
}

static int parse_engine(const char *engine, const char *qd_s, unsigned int *qd)
{
	uint64_t v = 32;

	if (engine && strcmp(engine, "sync") && strcmp(engine, "uring") && !is_passthrough(engine)) {
		out_error("--engine '%s' is unknown: use sync, uring, nvme or scsi", engine);
		return -EINVAL;
	}
	if (qd_s && (parse_size_arg("qd", qd_s, &v) || !v || v > 32768)) {
		out_error("--qd %s: give a queue depth from 1 to 32768", qd_s);
		return -EINVAL;
	}
	if (engine && !strcmp(engine, "nvme") && v > AWR_QUEUE_NVME_MAX) {
		out_error("--qd %s: the nvme engine keeps at most %u writes in flight: give 1 to %u", qd_s,
			  AWR_QUEUE_NVME_MAX, AWR_QUEUE_NVME_MAX);
		return -EINVAL;
	}
	if (engine && !strcmp(engine, "scsi") && qd_s && v > AWR_QUEUE_SCSI_MAX) {
		out_error("--qd %s: the scsi engine keeps at most %u writes in flight (the sg "
			  "driver's queue of one open file): give 1 to %u", qd_s,
			  AWR_QUEUE_SCSI_MAX, AWR_QUEUE_SCSI_MAX);
		return -EINVAL;
	}
	/* scsi: one command at a time (SG_IO) unless --qd asks for the sg driver's queue */
	*qd = engine && (!strcmp(engine, "uring") || !strcmp(engine, "nvme")) ? (unsigned int)v :
	      engine && !strcmp(engine, "scsi") && qd_s ? (unsigned int)v : 0;
	return 0;
}

/* Read the range back in chunks and compare with the pattern or a second read of --input. */
static int verify(struct write_job *j, int fd)
{
	uint64_t chunk = j->length < VERIFY_CHUNK ? j->length : VERIFY_CHUNK, len;
	unsigned char *rb = NULL, *want = NULL;
	ssize_t n;
	int ret = 0;

	if (posix_memalign((void **)&rb, 4096, chunk) || posix_memalign((void **)&want, 4096, chunk)) {
		ret = -ENOMEM;
		goto out;
	}
	if (j->pattern >= 0)
		memset(want, j->pattern, chunk);
	for (uint64_t pos = 0; pos < j->length && !ret; pos += len) {
		len = j->length - pos < chunk ? j->length - pos : chunk;
		n = pread(fd, rb, len, (off_t)(j->offset + pos));
		if (n < 0 || (uint64_t)n != len) {
			out_error("read-back of %s failed at %" PRIu64 ": %s", j->path, j->offset + pos,
				  n < 0 ? strerror(errno) : "short read");
			ret = -EIO;
			break;
		}
		if (j->pattern < 0 && input_read(j, want, len, pos, true)) {
			ret = -EIO;
			break;
		}
		for (uint64_t i = 0; i < len; i++) {
			if (rb[i] != want[i]) {
				out_error("verification failed: byte at %" PRIu64 " reads 0x%02x, wrote 0x%02x",
					  j->offset + pos + i, rb[i], want[i]);
				ret = -EIO;
				break;
			}
		}
	}
out:
	free(rb);
	free(want);
	return ret;
}

static void report(const struct write_job *j, int verified);
static int check_range(const struct write_job *j, const struct awr_file *f,
		       const struct awr_queue *q);

static int run_passthrough(struct write_job *j, const char *engine, bool force, bool do_verify)
{
	struct pt_target *t = NULL;
	int verified = -1, rc = AWR_EXIT_FAIL;


	if (pt_open(engine, j->path, j->qd ? j->nbuf : 0, force, &t))
		return AWR_EXIT_USAGE;
	out_outcome("not_atomic");
	if (check_range(j, NULL, pt_queue(t)))
		goto out;
	fill_pattern(j);
	out_outcome("write_failed");
	j->seconds = cli_now_s();
	if (!run_queued(j, pt_queue(t))) {
		j->seconds = cli_now_s() - j->seconds;
		if (do_verify && pt_read_fd(t) >= 0)
			verified = !verify(j, pt_read_fd(t));
		report(j, verified);
		rc = verified == 0 ? AWR_EXIT_FAIL : AWR_EXIT_OK;
		out_outcome("verify_failed");
		if (do_verify && pt_read_fd(t) < 0) {
			out_error("cannot verify %s: no block device to read back through", j->path);
			rc = AWR_EXIT_USAGE;
		}
	}
out:
	pt_close(t);
	return rc;
}

/* Every unit of the range against the target's (or device's) limits, before the first write. */
static int check_range(const struct write_job *j, const struct awr_file *f,
		       const struct awr_queue *q)
{
	struct awr_verdict v = { 0 };
	uint64_t off;
	int ret;

	for (uint64_t pos = 0; pos < j->length; pos += j->unit) {
		off = j->offset + pos;
		ret = q ? awr_queue_check(q, j->bufs, j->unit, off, &v) :
			  awr_file_check(f, j->bufs, j->unit, off, &v);
		if (ret) {
			out_error("refused before writing at %" PRIu64 ": %s (rule %s); nothing was written",
				  j->offset + pos, v.message, awr_rule_name(v.rule));
			return ret;
		}
	}
	return 0;
}

static void report(const struct write_job *j, int verified)
{
	struct json_object *o;
	char a[32], b[32];

	if (out_mode == OUT_NORMAL) {
		printf("wrote %s at %" PRIu64 " as %" PRIu64 " atomic write%s of %s%s%s\n",
		       out_size(j->written, a, sizeof(a)), j->offset, j->writes, j->writes == 1 ? "" : "s",
		       out_size(j->unit, b, sizeof(b)), (j->flags & AWR_WRITE_DSYNC) ? ", durable (dsync)" : "",
		       verified > 0 ? ", read back and verified" : "");
		write_paths_report(j->paths, NULL);	/* write_path.c */
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(j->path));
	json_object_object_add(o, "offset", out_u64(j->offset));
	json_object_object_add(o, "length", out_u64(j->length));
	json_object_object_add(o, "unit", out_u64(j->unit));
	json_object_object_add(o, "writes", out_u64(j->writes));
	json_object_object_add(o, "bytes_written", out_u64(j->written));
	json_object_object_add(o, "dsync", json_object_new_boolean(j->flags & AWR_WRITE_DSYNC));
	json_object_object_add(o, "verified", verified < 0 ? NULL : json_object_new_boolean(verified));
	json_object_object_add(o, "seconds", out_double(j->seconds, 6));
	if (j->have_stats) {	/* writes in the kernel at each reap (awr_queue_stats()) */
		struct json_object *q = json_object_new_object();
		double mean = j->stats.reaps ? (double)j->stats.inflight_sum / (double)j->stats.reaps : 0;

		json_object_object_add(q, "depth", out_u64(j->nbuf));
		json_object_object_add(q, "reaps", out_u64(j->stats.reaps));
		json_object_object_add(q, "reaps_below_depth", out_u64(j->stats.reaps_below_depth));
		json_object_object_add(q, "inflight_min", out_u64(j->stats.inflight_min));
		json_object_object_add(q, "inflight_max", out_u64(j->stats.inflight_max));
		json_object_object_add(q, "inflight_mean", out_double(mean, 2));
		json_object_object_add(q, "submit_calls", out_u64(j->stats.submit_calls));
		json_object_object_add(o, "queue", q);
	}
	write_paths_report(j->paths, o);
	out_print_json(o);
}

static int job_setup(struct write_job *j, const char *offset_s, const char *length_s,
		     const char *unit_s, const char *pattern, const char *input, unsigned int qd,
		     bool do_verify)
{
	if (parse_size_arg("offset", offset_s, &j->offset) ||
	    parse_size_arg("length", length_s, &j->length))
		return -EINVAL;
	j->unit = j->length;
	if (unit_s && parse_size_arg("unit", unit_s, &j->unit))
		return -EINVAL;
	if (!j->length || !j->unit || j->length % j->unit) {
		out_error("--length %" PRIu64 " must be a non-zero multiple of --unit %" PRIu64,
			  j->length, j->unit);
		return -EINVAL;
	}
	if (pattern && input) {
		out_error("--pattern and --input exclude each other: give one");
		return -EINVAL;
	}
	if (j->offset > (uint64_t)INT64_MAX - j->length) {
		out_error("--offset %" PRIu64 " plus --length %" PRIu64 " ends past the largest file offset (2^63 - 1)",
			  j->offset, j->length);
		return -EINVAL;
	}
	if (j->unit > (1ULL << 30)) {
		out_error("--unit %" PRIu64 " is larger than 1 GiB: give a smaller --unit (each unit is one write held in memory)",
			  j->unit);
		return -EINVAL;
	}
	j->qd = qd;
	j->nbuf = qd ? qd : 1;
	if (j->nbuf > j->length / j->unit)
		j->nbuf = (unsigned int)(j->length / j->unit);
	if (posix_memalign((void **)&j->bufs, 4096, (size_t)j->nbuf * j->unit))
		return -ENOMEM;
	j->pattern = -1;
	return input ? open_input(j, input, do_verify) : parse_pattern(j, pattern);
}

int cmd_write(int argc, const char **argv)
{
	char *offset_s = NULL, *length_s = NULL, *unit_s = NULL, *pattern = NULL, *input = NULL;
	char *engine = NULL, *qd_s = NULL;
	unsigned int qd = 0;
	int dsync = 0, do_verify = 0, force = 0, report_path = 0;
	struct poptOption table[] = {
		{ "offset", 0, POPT_ARG_STRING, &offset_s, 0, "byte offset of the first write", "O" },
		{ "length", 0, POPT_ARG_STRING, &length_s, 0, "bytes to write in all", "L" },
		{ "unit", 0, POPT_ARG_STRING, &unit_s, 0,
		  "size of each atomic write (default: the whole length)", "U" },
		{ "pattern", 0, POPT_ARG_STRING, &pattern, 0, "fill byte (default 0x5a)", "BYTE" },
		{ "input", 0, POPT_ARG_STRING, &input, 0, "take the data from FILE", "FILE" },
		{ "dsync", 0, POPT_ARG_NONE, &dsync, 0, "make each write durable (RWF_DSYNC; FUA for nvme/scsi)", NULL },
		{ "verify", 0, POPT_ARG_NONE, &do_verify, 0, "read back with O_DIRECT and compare", NULL },
		{ "engine", 0, POPT_ARG_STRING, &engine, 0,
		  "sync (pwritev2), uring (io_uring batch), nvme (uring_cmd on /dev/ngXnY) or scsi (WRITE ATOMIC(16))",
		  "sync|uring|nvme|scsi" },
		{ "qd", 0, POPT_ARG_STRING, &qd_s, 0, "writes in flight: uring and nvme engines (default 32; nvme at most 64), scsi (default one at a time; at most 16)", "N" },
		{ "force", 0, POPT_ARG_NONE, &force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ "report-path", 0, POPT_ARG_NONE, &report_path, 0,
		  "report per unit whether it took the hardware or the software path (sync engine)", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct write_job j = { .input_fd = -1 };
	struct awr_file *f = NULL;
	struct cmd_ctx c;
	int ret, rc = AWR_EXIT_USAGE, verified = -1;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	j.path = c.operand;
	j.flags = dsync ? AWR_WRITE_DSYNC : 0;
	if (parse_engine(engine, qd_s, &qd) ||
	    job_setup(&j, offset_s, length_s, unit_s, pattern, input, qd, do_verify) ||
	    (report_path && !(j.paths = write_paths_new(engine)))) /* write_path.c */
		goto out;
	if (is_passthrough(engine)) {
		rc = run_passthrough(&j, engine, force, do_verify);
		goto out;
	}
	/* the named range of a regular file may hold data: only it changes */
	ret = target_open("write", j.path, O_RDWR | O_DIRECT, AWR_TARGET_CREATE | AWR_TARGET_KEEP_DATA, force);
	if (ret < 0)
		goto out;
	ret = awr_file_adopt(ret, &f);
	if (ret) {
		out_error("cannot open %s for direct writing: %s", j.path, strerror(-ret));
		goto out;
	}
	rc = AWR_EXIT_FAIL;	/* a rule broken by any unit: refused before the first write, exit 1 */
	out_outcome("not_atomic");
	if (check_range(&j, f, NULL))
		goto out;
	fill_pattern(&j);
	out_outcome("write_failed");
	j.seconds = cli_now_s();
	if (qd ? run_uring(&j, f) : run_sync(&j, f))
		goto out;
	j.seconds = cli_now_s() - j.seconds;
	if (do_verify)
		verified = !verify(&j, awr_file_fd(f));
	report(&j, verified);
	rc = verified == 0 ? AWR_EXIT_FAIL : AWR_EXIT_OK;
	out_outcome("verify_failed");
out:
	write_paths_free(j.paths);
	awr_file_close(f);
	free(j.bufs);
	if (j.input_fd >= 0)
		close(j.input_fd);
	cmd_done(&c);
	return rc;
}
