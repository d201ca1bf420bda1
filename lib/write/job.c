// SPDX-License-Identifier: MIT
/*
 * A write job: a range written as atomic units from a fill byte or a file's
 * content, by any engine, then read back and compared. Memory stays bounded
 * whatever the length: the data is made one unit at a time into one buffer
 * per write in flight, a pattern filled once, the input read unit by unit as
 * the writes go out; the read-back compares in chunks of 1 MiB. Every unit is
 * checked before the first write, so a refused range is left untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "write/queue.h"

#define VERIFY_CHUNK	(1U << 20)

struct job {
	const struct awr_write_job *j;
	struct awr_write_job_result *r;
	unsigned char *bufs;	/* nbuf buffers of unit bytes */
	unsigned int nbuf;
	struct awr_queue *q;	/* the queue the units go through, or NULL: pwritev2 */
};

/* Exactly @len bytes of the input at @pos: pread, or read for a pipe the first time. */
static int input_read(const struct awr_write_job *j, unsigned char *dst, uint64_t len,
		      uint64_t pos, bool again)
{
	uint64_t done = 0;
	ssize_t n = 0;

	while (done < len) {
		n = again ? pread(j->input_fd, dst + done, len - done, (off_t)(pos + done)) :
			    read(j->input_fd, dst + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (uint64_t)n;
	}
	if (done == len)
		return 0;
	return awr__fail(-EINVAL, "the input %s after %" PRIu64 " bytes, fewer than the length %"
			 PRIu64, n < 0 ? strerror(errno) : "ended", pos + done, j->length);
}

/* The data of unit @index into @buf (awr_queue_write_source() calls it as the queue has room). */
static int fill(void *arg, void *buf, uint64_t index)
{
	const struct awr_write_job *j = arg;

	if (j->pattern >= 0)
		return 0;	/* every buffer was filled with the pattern once */
	return input_read(j, buf, j->unit, index * j->unit, false);
}

static int failed(struct job *b, enum awr_job_stage stage, uint64_t off, int err)
{
	b->r->stage = stage;
	b->r->error_offset = off;
	b->r->error = err;
	return err;
}

/* What to do about a refused unit, by the rule broken, in awr write's words (limits: awr probe) */
static const char *const what_to_do[AWR_RULE__COUNT] = {
	[AWR_RULE_NOT_POWER_OF_TWO] = "give a --unit that is a power of two, such as 16k",
	[AWR_RULE_MISALIGNED] = "give an --offset that is a multiple of --unit",
	[AWR_RULE_TOO_SMALL] = "give a --unit of at least the target's unit_min (awr probe)",
	[AWR_RULE_TOO_LARGE] = "give a smaller --unit, at most the target's unit_max (awr probe)",
	[AWR_RULE_CROSSES_BOUNDARY] = "give an --offset and --unit that keep each unit within "
				      "one boundary (awr probe)",
	[AWR_RULE_DEVICE_LIMIT] = "give a --unit within the device's own atomic limit (awr probe)",
	[AWR_RULE_PAST_END] = "keep --offset plus --length within the device",
	[AWR_RULE_BEYOND_END] = "keep --offset plus --length within the device",
	[AWR_RULE_OFFSET_RANGE] = "give a smaller --offset",
	[AWR_RULE_READ_ONLY] = "make the device writable first (blockdev --setrw)",
};

static const char *advice(enum awr_rule rule)
{
	const char *todo = (unsigned int)rule < AWR_RULE__COUNT ? what_to_do[rule] : NULL;

	return todo ? todo : "";
}

/* Every unit against the target's (or device's) limits, before the first write. */
static int check_range(struct job *b)
{
	const struct awr_write_job *j = b->j;
	struct awr_verdict *v = &b->r->verdict;
	int ret;

	for (uint64_t off = j->offset; off < j->offset + j->length; off += j->unit) {
		ret = b->q ? awr_queue_check(b->q, b->bufs, j->unit, off, v) :
			     awr_file_check(j->file, b->bufs, j->unit, off, v);
		if (ret) {
			awr__fail(ret, "refused before writing at %" PRIu64 ": %s (rule %s); "
				  "nothing was written%s%s", off, v->message,
				  awr_rule_name(v->rule), *advice(v->rule) ? ": " : "",
				  advice(v->rule));
			return failed(b, AWR_JOB_REFUSED, off, ret);
		}
	}
	return 0;
}

static int unit_failed(struct job *b, uint64_t off, int err)
{
	const struct awr_verdict *v = &b->r->verdict;

	if (v->rule != AWR_RULE_OK && v->rule != AWR_RULE_DEVICE_ERROR)
		awr__fail(err, "refused before writing at %" PRIu64 ": %s (rule %s)", off,
			  v->message, awr_rule_name(v->rule));
	else
		awr__fail(err, "atomic write of %" PRIu64 " bytes at %" PRIu64 " failed: %s",
			  b->j->unit, off, v->rule == AWR_RULE_DEVICE_ERROR ? v->message :
			  strerror(-err));
	return failed(b, AWR_JOB_WRITE_FAILED, off, err);
}

/* pwritev2, one unit at a time; with AWR_JOB_ROUTES each unit's route read around it. */
static int run_sync(struct job *b)
{
	const struct awr_write_job *j = b->j;
	struct awr_write_job_result *r = b->r;
	enum awr_write_route route;
	ssize_t ret;

	for (uint64_t pos = 0; pos < j->length; pos += j->unit) {
		if (fill((void *)j, b->bufs, pos / j->unit))
			return failed(b, AWR_JOB_WRITE_FAILED, j->offset + pos, -EINVAL);
		r->verdict.rule = AWR_RULE_OK;
		if (j->flags & AWR_JOB_ROUTES)
			ret = awr_pwrite_route(j->file, b->bufs, j->unit, j->offset + pos,
					       j->write_flags, &r->verdict, &route);
		else
			ret = awr_pwrite(j->file, b->bufs, j->unit, j->offset + pos,
					 j->write_flags, &r->verdict);
		if (ret < 0)
			return unit_failed(b, j->offset + pos, (int)ret);
		if (j->flags & AWR_JOB_ROUTES) {
			r->routes[route]++;
			if (j->route)
				j->route(j->arg, j->offset + pos, j->unit, route);
		}
		r->bytes_written += j->unit;
		r->writes++;
	}
	return 0;
}

/* The units through the queue, refilled as writes complete; a depth of 0 one at a time. */
static int run_queued(struct job *b)
{
	const struct awr_write_job *j = b->j;
	struct awr_write_job_result *r = b->r;
	struct awr_queue_source src = {
		.bufs = b->bufs, .nbuf = b->nbuf, .fill = fill, .arg = (void *)j,
	};
	struct awr_batch_result res;
	int ret = awr_queue_write_source(b->q, &src, j->offset, j->length, j->unit,
					 j->write_flags, &res);

	r->writes = res.units_done;
	r->bytes_written = res.units_done * j->unit;
	awr_queue_stats(b->q, &r->stats);
	if (!ret)
		return 0;
	r->verdict = res.verdict;
	if (!res.error) {	/* the input failed (its sentence is set) or the queue did */
		if (ret != -EINVAL)
			awr__fail(ret, "queueing the write at %" PRIu64 " failed: %s",
				  res.error_offset, strerror(-ret));
		return failed(b, AWR_JOB_WRITE_FAILED, res.error_offset, ret);
	}
	if (!j->qd || (res.verdict.rule != AWR_RULE_OK &&
		       res.verdict.rule != AWR_RULE_DEVICE_ERROR)) {
		if (res.verdict.rule == AWR_RULE_DEVICE_ERROR)	/* the device's sentence alone */
			snprintf(r->verdict.message, sizeof(r->verdict.message), "%s",
				 awr_last_error());
		return unit_failed(b, res.error_offset, res.error);
	}
	awr__fail(res.error, "%s; %" PRIu64 " of %" PRIu64 " units landed", res.verdict.message,
		  res.units_done, j->length / j->unit);
	return failed(b, AWR_JOB_WRITE_FAILED, res.error_offset, res.error);
}

/* One chunk of the read-back against the pattern or a second read of the input. */
static int compare(struct job *b, int fd, unsigned char *rb, unsigned char *want,
		   uint64_t pos, uint64_t len)
{
	const struct awr_write_job *j = b->j;
	uint64_t off = j->offset + pos;
	ssize_t n = awr__pread_full(fd, rb, len, off);

	if (n < 0 || (uint64_t)n != len) {
		awr__fail(-EIO, "read-back failed at %" PRIu64 ": %s", off,
			  n < 0 ? strerror((int)-n) : "short read");
		return failed(b, AWR_JOB_VERIFY_FAILED, off, -EIO);
	}
	if (j->pattern < 0 && input_read(j, want, len, pos, true))
		return failed(b, AWR_JOB_VERIFY_FAILED, off, -EIO);
	for (uint64_t i = 0; i < len; i++) {
		if (rb[i] != want[i]) {
			awr__fail(-EIO, "verification failed: byte at %" PRIu64 " reads 0x%02x, "
				  "wrote 0x%02x", off + i, rb[i], want[i]);
			return failed(b, AWR_JOB_VERIFY_FAILED, off + i, -EIO);
		}
	}
	return 0;
}

static int verify(struct job *b, int fd)
{
	const struct awr_write_job *j = b->j;
	uint64_t chunk = j->length < VERIFY_CHUNK ? j->length : VERIFY_CHUNK, len;
	unsigned char *rb = NULL, *want = NULL;
	int ret = -ENOMEM;

	if (posix_memalign((void **)&rb, 4096, chunk) ||
	    posix_memalign((void **)&want, 4096, chunk)) {
		awr__fail(ret, "no memory for the read-back");
		goto err;
	}
	if (j->pattern >= 0)
		memset(want, j->pattern, chunk);
	ret = 0;
	for (uint64_t pos = 0; pos < j->length && !ret; pos += len) {
		len = j->length - pos < chunk ? j->length - pos : chunk;
		ret = compare(b, fd, rb, want, pos, len);
	}
	b->r->verified = !ret;
err:
	free(rb);
	free(want);
	return ret;
}

static int job_open(struct job *b)
{
	const struct awr_write_job *j = b->j;

	b->q = j->queue;
	if (j->file && j->qd) {
		int ret = awr_queue_open(AWR_QUEUE_URING, NULL, j->file, b->nbuf,
					 AWR_QUEUE_REGISTER_FILE | AWR_QUEUE_SUBMIT_EACH, &b->q);

		if (ret)
			return awr__fail(ret, "cannot set up io_uring with queue depth %u: %s",
					 b->nbuf, strerror(-ret));
	}
	if (posix_memalign((void **)&b->bufs, 4096, (size_t)b->nbuf * j->unit))
		return awr__fail(-ENOMEM, "no memory for %u buffers of %" PRIu64 " bytes", b->nbuf,
				 j->unit);
	return 0;
}

/* Each unit's route is read around a pwritev2 of it: AWR_JOB_ROUTES needs the sync engine. */
static int routes_refused(void)
{
	return awr__fail(-EINVAL, "--report-path works with --engine sync: each unit's extent map "
			 "is read before and after its write");
}

/* The range as awr_write_job_check() takes it; routes through pwritev2; one target, one source. */
static int job_valid(const struct awr_write_job *j)
{
	int ret = awr_write_job_check(j);

	if (ret)
		return ret;
	if ((j->flags & AWR_JOB_ROUTES) && (!j->file || j->qd))
		return routes_refused();
	if (!j->file == !j->queue || j->pattern > 255 || (j->pattern < 0 && j->input_fd < 0))
		return awr__fail(-EINVAL, "a write job names one target (a file or a queue) and "
				 "one source (a byte or an input)");
	return 0;
}

static int job_run(struct job *b)
{
	const struct awr_write_job *j = b->j;
	int vfd = j->file ? awr_file_fd(j->file) : j->verify_fd;
	uint64_t t0;
	int ret;

	ret = check_range(b);
	if (ret)
		return ret;
	if (j->pattern >= 0)
		memset(b->bufs, j->pattern, (size_t)b->nbuf * j->unit);
	t0 = awr__now_ns();
	ret = b->q ? run_queued(b) : run_sync(b);
	if (ret)
		return ret;
	b->r->seconds = (double)(awr__now_ns() - t0) / 1e9;
	if (!(j->flags & AWR_JOB_VERIFY))
		return 0;
	if (vfd < 0) {
		awr__fail(-ENODEV, "no block device to read back through");
		return failed(b, AWR_JOB_VERIFY_FAILED, j->offset, -ENODEV);
	}
	return verify(b, vfd);
}

/* ---- a job from awr write's options: the engine, the range, the input, in its words ---- */

static const char *const engines[AWR_JOB__ENGINES] = { "sync", "uring", "nvme", "scsi" };

const char *awr_job_engine_name(enum awr_job_engine e)
{
	return (unsigned int)e < AWR_JOB__ENGINES ? engines[e] : "unknown";
}

/* the depth asked for, 1 to 32768, within what the engine keeps in flight */
static int engine_depth(enum awr_job_engine e, const char *qd, uint64_t *v)
{
	static const unsigned int max[] = { 32768, 32768, AWR_QUEUE_NVME_MAX, AWR_QUEUE_SCSI_MAX };

	if (qd && (awr_parse_size(qd, v) || !*v || *v > 32768))
		return awr__fail(-EINVAL, "--qd %s: give a queue depth from 1 to 32768", qd);
	if (*v > max[e] && (qd || e == AWR_JOB_NVME))
		return awr__fail(-EINVAL, "--qd %s: the %s engine keeps at most %u writes in "
				 "flight%s: give 1 to %u", qd, engines[e], max[e],
				 e == AWR_JOB_SCSI ? " (the sg driver's queue of one open file)" :
				 "", max[e]);
	return 0;
}

int awr_write_job_engine(struct awr_write_job *j, const char *engine, const char *qd,
			 enum awr_job_engine *e)
{
	uint64_t v = 32;
	int ret;

	for (*e = AWR_JOB_SYNC; *e < AWR_JOB__ENGINES; (*e)++)
		if (!strcmp(engine ? engine : "sync", engines[*e]))
			break;
	if (*e == AWR_JOB__ENGINES)
		return awr__fail(-EINVAL, "--engine '%s' is unknown: use sync, uring, nvme or "
				 "scsi", engine);
	ret = engine_depth(*e, qd, &v);
	if (ret)
		return ret;
	/* scsi: one command at a time (SG_IO) unless --qd asks for the sg driver's queue */
	j->qd = *e == AWR_JOB_URING || *e == AWR_JOB_NVME || (*e == AWR_JOB_SCSI && qd) ?
		(unsigned int)v : 0;
	return 0;
}

int awr_write_job_check(const struct awr_write_job *j)
{
	if (!j->length || !j->unit || j->length % j->unit)
		return awr__fail(-EINVAL, "--length %" PRIu64 " must be a non-zero multiple of "
				 "--unit %" PRIu64 ": use --unit 16k and a --length of whole units",
				 j->length, j->unit);
	if (j->offset > (uint64_t)INT64_MAX - j->length)
		return awr__fail(-EINVAL, "--offset %" PRIu64 " plus --length %" PRIu64
				 " ends past the largest file offset (2^63 - 1): give a smaller "
				 "--offset", j->offset, j->length);
	if (j->unit > (1ULL << 30))
		return awr__fail(-EINVAL, "--unit %" PRIu64 " is larger than 1 GiB: give a smaller "
				 "--unit (each unit is one write held in memory)", j->unit);
	return 0;
}

/* The input is read as the writes go; AWR_JOB_VERIFY reads it again: a regular file then. */
int awr_write_job_input(struct awr_write_job *j, const char *path)
{
	struct stat st;

	j->input_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (j->input_fd < 0 || fstat(j->input_fd, &st))
		return awr__fail(-errno, "cannot open --input %s: %s", path, strerror(errno));
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < j->length)
		return awr__fail(-EINVAL, "--input %s holds %" PRIu64 " bytes, fewer than --length "
				 "%" PRIu64, path, (uint64_t)st.st_size, j->length);
	if ((j->flags & AWR_JOB_VERIFY) && !S_ISREG(st.st_mode))
		return awr__fail(-EINVAL, "--verify with --input %s: the input is read twice "
				 "(to write, then to compare), so it must be a regular file, not a "
				 "pipe or device", path);
	return 0;
}

/* ---- the target, opened once and guarded, as awr write opens it ---- */

/*
 * nvme, scsi: the device's queue (a partition is refused: a passthrough command addresses the
 * whole namespace or disk), its block disk claimed like any target (awr_target_open(), O_EXCL)
 * and kept for the read-back, so that nothing can mount or claim it while the job writes; with
 * no block disk bound its content is unknown: written only when forced.
 */
static int open_passthrough(struct awr_write_job *j, const char *path, enum awr_job_engine e,
			    unsigned int flags, struct awr_safety *why)
{
	bool nvme = e == AWR_JOB_NVME;
	char node[128], said[1024];
	const char *disk;
	int ret = awr_queue_open(nvme ? AWR_QUEUE_NVME : AWR_QUEUE_SCSI, path, NULL,
				 nvme && !j->qd ? 1 : j->qd, AWR_QUEUE_SUBMIT_EACH, &j->queue);

	if (ret == -EINVAL) {	/* a partition; not a device of the kind is -ENODEV */
		snprintf(said, sizeof(said), "%s", awr_last_error());
		return awr__fail(ret, "%s, or --engine sync for a partition", said);
	}
	if (ret)
		return ret;
	disk = awr_device_disk(awr_queue_device(j->queue));
	snprintf(node, sizeof(node), "/dev/%s", disk);
	if (*disk && !access(node, F_OK)) {
		j->verify_fd = awr_target_open(node, O_RDONLY | O_DIRECT, flags, why);
		if (j->verify_fd < 0)
			return awr_target_refusal(why, j->verify_fd, node, O_RDONLY | O_DIRECT,
						  "write");
		return 0;
	}
	if (!(flags & AWR_TARGET_FORCE))
		return awr__fail(-EBUSY, "cannot tell whether %s holds data: no block device is "
				 "bound to it. Nothing was written. Use --force to write it "
				 "anyway.", path);
	return 0;
}

/* sync, uring: the file or device (the named range only is written: it may hold data). */
static int open_file(struct awr_write_job *j, const char *path, unsigned int flags,
		     struct awr_safety *why)
{
	int fd = awr_target_open(path, O_RDWR | O_DIRECT,
				 flags | AWR_TARGET_CREATE | AWR_TARGET_KEEP_DATA, why);
	int ret;

	if (fd < 0)
		return awr_target_refusal(why, fd, path, O_RDWR | O_DIRECT, "write");
	ret = awr_file_adopt(fd, &j->file);
	if (ret)
		return awr__fail(ret, "cannot open %s for direct writing: %s", path,
				 strerror(-ret));
	return 0;
}

/* What awr_write_job_open() opened. */
static void close_target(struct awr_write_job *j)
{
	awr_file_close(j->file);
	awr_queue_close(j->queue);
	if (j->verify_fd >= 0)
		close(j->verify_fd);
	j->file = NULL;
	j->queue = NULL;
	j->verify_fd = -1;
}

int awr_write_job_open(struct awr_write_job *j, const char *path, enum awr_job_engine e,
		       unsigned int flags, struct awr_safety *why)
{
	struct awr_safety tmp;
	int ret;

	if (!why)
		why = &tmp;
	memset(why, 0, sizeof(*why));
	if (!j || !path || (unsigned int)e >= AWR_JOB__ENGINES || (flags & ~AWR_TARGET_FORCE))
		return awr__fail(-EINVAL, "awr_write_job_open: no job or path, an unknown engine "
				 "or unknown flags");
	j->file = NULL;
	j->queue = NULL;
	j->verify_fd = -1;
	if ((j->flags & AWR_JOB_ROUTES) && e != AWR_JOB_SYNC)
		return routes_refused();	/* before anything is made or claimed */
	ret = e >= AWR_JOB_NVME ? open_passthrough(j, path, e, flags, why) :
				  open_file(j, path, flags, why);
	if (ret)
		close_target(j);
	return ret;
}

void awr_write_job_close(struct awr_write_job *j)
{
	if (!j)
		return;
	close_target(j);
	if (j->input_fd >= 0)
		close(j->input_fd);
	j->input_fd = -1;
}

int awr_write_job_run(const struct awr_write_job *j, struct awr_write_job_result *r)
{
	struct job b = { .j = j, .r = r };
	int ret;

	if (!j || !r)
		return awr__fail(-EINVAL, "no job or no result");
	memset(r, 0, sizeof(*r));
	r->stage = AWR_JOB_BAD_JOB;
	ret = job_valid(j);
	if (ret)
		return ret;
	b.nbuf = j->qd ? j->qd : 1;
	if (b.nbuf > j->length / j->unit)
		b.nbuf = (unsigned int)(j->length / j->unit);
	ret = job_open(&b);
	if (!ret) {
		r->stage = AWR_JOB_DONE;
		r->depth = j->qd ? b.nbuf : 0;
		ret = job_run(&b);
	}
	if (b.q != j->queue)
		awr_queue_close(b.q);
	free(b.bufs);
	return ret;
}
