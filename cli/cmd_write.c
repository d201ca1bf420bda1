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

struct write_job {
	const char *path;
	uint64_t offset;
	uint64_t length;
	uint64_t unit;
	unsigned int flags;	/* AWR_WRITE_* */
	unsigned char *buf;
	uint64_t written;	/* bytes landed */
	unsigned int writes;	/* atomic writes issued */
};

static int fill_pattern(struct write_job *j, const char *pattern)
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
	memset(j->buf, (int)v, j->length);
	return 0;
}

static int fill_input(struct write_job *j, const char *input)
{
	uint64_t done = 0;
	ssize_t n;
	int fd = open(input, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		out_error("cannot open --input %s: %s", input, strerror(errno));
		return -errno;
	}
	while (done < j->length && (n = read(fd, j->buf + done, j->length - done)) > 0)
		done += (uint64_t)n;
	close(fd);
	if (done < j->length) {
		out_error("--input %s holds %" PRIu64 " bytes, fewer than --length %" PRIu64,
			  input, done, j->length);
		return -EINVAL;
	}
	return 0;
}

static int run_sync(struct write_job *j, struct awr_file *f)
{
	struct awr_verdict v;
	ssize_t ret;

	for (uint64_t pos = 0; pos < j->length; pos += j->unit) {
		v.rule = AWR_RULE_OK;
		ret = awr_pwrite(f, j->buf + pos, j->unit, j->offset + pos, j->flags, &v);
		if (ret < 0 && v.rule != AWR_RULE_OK) {
			out_error("refused before writing at %" PRIu64 ": %s (rule %s)",
				  j->offset + pos, v.message, awr_rule_name(v.rule));
			return (int)ret;
		}
		if (ret < 0) {
			out_error("atomic write of %" PRIu64 " bytes at %" PRIu64 " failed: %s",
				  j->unit, j->offset + pos, strerror((int)-ret));
			return (int)ret;
		}
		j->written += j->unit;
		j->writes++;
	}
	return 0;
}

/* --engine uring: the whole range as one page batch through a ring of depth @qd. */
static int run_uring(struct write_job *j, struct awr_file *f, unsigned int qd)
{
	struct awr_batch_result res;
	struct awr_ring *r;
	int ret = awr_ring_create(f, qd, AWR_RING_REGISTER_FILE, &r);

	if (ret) {
		out_error("cannot set up io_uring with queue depth %u: %s", qd, strerror(-ret));
		return ret;
	}
	ret = awr_write_units(r, j->buf, j->offset, j->length, j->unit, j->flags, &res);
	j->written = res.units_done * j->unit;
	j->writes = (unsigned int)res.units_done;
	if (ret && res.verdict.rule != AWR_RULE_OK)
		out_error("refused before writing at %" PRIu64 ": %s (rule %s)",
			  res.error_offset, res.verdict.message, awr_rule_name(res.verdict.rule));
	else if (ret)
		out_error("%s; %" PRIu64 " of %" PRIu64 " units landed", res.verdict.message,
			  res.units_done, j->length / j->unit);
	awr_ring_free(r);
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
	*qd = engine && !strcmp(engine, "uring") ? (unsigned int)v : 0;
	return 0;
}

static int verify(struct write_job *j, int fd)
{
	unsigned char *rb;
	ssize_t n;
	int ret = 0;

	if (posix_memalign((void **)&rb, 4096, j->length))
		return -ENOMEM;
	n = pread(fd, rb, j->length, (off_t)j->offset);
	if (n < 0 || (uint64_t)n != j->length) {
		out_error("read-back of %s failed: %s", j->path, n < 0 ? strerror(errno) : "short read");
		ret = -EIO;
	} else {
		for (uint64_t i = 0; i < j->length; i++) {
			if (rb[i] != j->buf[i]) {
				out_error("verification failed: byte at %" PRIu64 " reads 0x%02x, wrote 0x%02x",
					  j->offset + i, rb[i], j->buf[i]);
				ret = -EIO;
				break;
			}
		}
	}
	free(rb);
	return ret;
}

/* --engine nvme|scsi: passthrough writes, checked against the device's own limits. */
static int run_pt(struct write_job *j, struct pt_target *t)
{
	struct awr_verdict v;
	ssize_t ret;

	for (uint64_t pos = 0; pos < j->length; pos += j->unit) {
		v.rule = AWR_RULE_OK;
		ret = pt_write(t, j->buf + pos, j->unit, j->offset + pos, j->flags & AWR_WRITE_DSYNC, &v);
		if (ret < 0 && v.rule != AWR_RULE_OK && v.rule != AWR_RULE_DEVICE_ERROR)
			out_error("refused before writing at %" PRIu64 ": %s (rule %s)",
				  j->offset + pos, v.message, awr_rule_name(v.rule));
		else if (ret < 0)
			out_error("atomic write of %" PRIu64 " bytes at %" PRIu64 " failed: %s", j->unit,
				  j->offset + pos, v.rule == AWR_RULE_DEVICE_ERROR ? v.message : strerror((int)-ret));
		if (ret < 0)
			return (int)ret;
		j->written += j->unit;
		j->writes++;
	}
	return 0;
}

static void report(const struct write_job *j, int verified);

static int run_passthrough(struct write_job *j, const char *engine, bool force, bool do_verify)
{
	struct pt_target *t = NULL;
	int verified = -1, rc = AWR_EXIT_FAIL;

	struct awr_verdict v = { 0 };
	uint64_t bad = 0;

	if (pt_open(engine, j->path, force, &t))
		return AWR_EXIT_USAGE;
	if (pt_check_range(t, j->unit, j->offset, j->length, &v, &bad)) {
		out_error("refused before writing at %" PRIu64 ": %s (rule %s); nothing was written", bad,
			  v.message, awr_rule_name(v.rule));
	} else if (!run_pt(j, t)) {
		if (do_verify && pt_read_fd(t) >= 0)
			verified = !verify(j, pt_read_fd(t));
		report(j, verified);
		rc = verified == 0 ? AWR_EXIT_FAIL : AWR_EXIT_OK;
		if (do_verify && pt_read_fd(t) < 0) {
			out_error("cannot verify %s: no block device to read back through", j->path);
			rc = AWR_EXIT_USAGE;
		}
	}
	pt_close(t);
	return rc;
}

/* Every unit of the range against the target's limits, before the first write. */
static int check_range(const struct write_job *j, const struct awr_file *f)
{
	struct awr_verdict v = { 0 };
	int ret;

	for (uint64_t pos = 0; pos < j->length; pos += j->unit) {
		ret = awr_file_check(f, j->buf + pos, j->unit, j->offset + pos, &v);
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
		printf("wrote %s at %" PRIu64 " as %u atomic write%s of %s%s%s\n",
		       out_size(j->written, a, sizeof(a)), j->offset, j->writes, j->writes == 1 ? "" : "s",
		       out_size(j->unit, b, sizeof(b)), (j->flags & AWR_WRITE_DSYNC) ? ", durable (dsync)" : "",
		       verified > 0 ? ", read back and verified" : "");
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
	out_print_json(o);
}

static int job_setup(struct write_job *j, const char *offset_s, const char *length_s,
		     const char *unit_s, const char *pattern, const char *input)
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
	if (j->length > (1ULL << 30)) {
		out_error("--length %" PRIu64 " is larger than 1 GiB: write in several runs", j->length);
		return -EINVAL;
	}
	if (posix_memalign((void **)&j->buf, 4096, j->length))
		return -ENOMEM;
	return input ? fill_input(j, input) : fill_pattern(j, pattern);
}

int cmd_write(int argc, const char **argv)
{
	char *offset_s = NULL, *length_s = NULL, *unit_s = NULL, *pattern = NULL, *input = NULL;
	char *engine = NULL, *qd_s = NULL;
	unsigned int qd = 0;
	int dsync = 0, do_verify = 0, force = 0;
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
		{ "qd", 0, POPT_ARG_STRING, &qd_s, 0, "io_uring queue depth (default 32)", "N" },
		{ "force", 0, POPT_ARG_NONE, &force, 0,
		  "write even if the target is mounted, in use, formatted or holds data", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct write_job j = { 0 };
	struct awr_file *f = NULL;
	struct cmd_ctx c;
	int ret, rc = AWR_EXIT_USAGE, verified = -1;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	j.path = c.operand;
	j.flags = dsync ? AWR_WRITE_DSYNC : 0;
	if (parse_engine(engine, qd_s, &qd) ||
	    job_setup(&j, offset_s, length_s, unit_s, pattern, input))
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
	if (check_range(&j, f))
		goto out;
	if (qd ? run_uring(&j, f, qd) : run_sync(&j, f))
		goto out;
	if (do_verify)
		verified = !verify(&j, awr_file_fd(f));
	report(&j, verified);
	rc = verified == 0 ? AWR_EXIT_FAIL : AWR_EXIT_OK;
out:
	awr_file_close(f);
	free(j.buf);
	cmd_done(&c);
	return rc;
}
