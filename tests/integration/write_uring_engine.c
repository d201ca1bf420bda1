// SPDX-License-Identifier: MIT
/*
 * Description: the io_uring engine on a real target: mixed valid and refused writes in one batch,
 * QD 1 and 128, batches larger than the ring, registered file on and off, plain writes, and the
 * kernel agreeing with the rule checker; a write job's engine, depth, range and input as awr
 * write gives them (awr_write_job_engine(), _check(), _input()), its target opened and refused
 * in awr write's words (awr_write_job_open(), _close()), and its range checked by _run() as
 * _check() checks it.
 *
 *   write_uring_engine [TARGET]
 *
 * TARGET is a file or a block device that may be overwritten (its first few
 * MiB); without it, $AWR_TEST_TARGET, else $AWR_SCRATCH_DIR/uring_engine.dat.
 * Prints one "PASS name", "FAIL name: why" or "SKIP name: why" line per case;
 * exits 0, 1 on any failure, 77 when the target has no atomic support.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"
#include "../raw_atomic.h"

#define MAX_WRITES 1024

struct target {
	const char *path;
	struct awr_file *file;
	const struct awr_limits *lim;
	uint64_t unit;		/* the page size used: unit_min, at least 4 KiB */
	uint64_t area;		/* bytes of the target the test may use, from 0 */
	unsigned char *buf;	/* area bytes of data, page aligned */
	unsigned char *rb;	/* read-back buffer */
};

struct planned {
	uint64_t offset;
	uint64_t len;
	unsigned int buf_shift;	/* bytes added to the buffer address */
	unsigned int flags;
	enum awr_rule rule;	/* expected rule; AWR_RULE_OK: expected to land */
};

static int case_failures;

#define CHECK(cond, ...) do {							\
	if (!(cond)) {								\
		case_failures++;						\
		printf("    %s:%d: ", __FILE__, __LINE__);			\
		printf(__VA_ARGS__);						\
		printf("\n");							\
	}									\
} while (0)

static int prefill(struct target *t, unsigned char byte)
{
	ssize_t n;

	memset(t->rb, byte, t->area);
	n = pwrite(awr_file_fd(t->file), t->rb, t->area, 0);
	if (n != (ssize_t)t->area)
		return -EIO;
	return fdatasync(awr_file_fd(t->file)) ? -errno : 0;
}

static int read_back(struct target *t)
{
	ssize_t n = pread(awr_file_fd(t->file), t->rb, t->area, 0);

	return n == (ssize_t)t->area ? 0 : -EIO;
}

/* Bytes [off, off+len) of the target read back as @want. */
static bool region_is(struct target *t, uint64_t off, uint64_t len, const unsigned char *want)
{
	return !memcmp(t->rb + off, want, len);
}

static bool region_is_byte(struct target *t, uint64_t off, uint64_t len, unsigned char b)
{
	for (uint64_t i = 0; i < len; i++)
		if (t->rb[off + i] != b)
			return false;
	return true;
}

/*
 * Queue @n planned writes (data taken from t->buf at the same offset), reap them all. A write
 * the rules refuse is not queued: its errno and rule are its result at once.
 */
static int run_plan(struct awr_queue *r, struct target *t, const struct planned *p, unsigned int n,
		    struct awr_completion *done)
{
	struct awr_completion c[64];
	unsigned int queued = 0, reaped = 0;
	struct awr_verdict v;
	int ret;

	while (reaped < n) {
		while (queued < n) {
			const struct planned *w = &p[queued];

			v.rule = AWR_RULE_OK;
			ret = awr_queue_write(r, t->buf + w->offset % t->area + w->buf_shift,
					      w->len, w->offset, queued, w->flags, &v);
			if (ret && v.rule != AWR_RULE_OK) {
				CHECK(v.message[0], "write %u refused without a sentence", queued);
				done[queued] = (struct awr_completion){ queued, ret, v.rule };
				queued++;
				reaped++;
				continue;
			}
			if (ret == -EBUSY) {
				CHECK(awr_queue_outstanding(r) == awr_queue_depth(r),
				      "-EBUSY with %u of %u outstanding", awr_queue_outstanding(r),
				      awr_queue_depth(r));
				break;
			}
			if (ret)
				return ret;
			queued++;
		}
		if (reaped == n)
			break;
		ret = awr_queue_reap(r, c, 64, 1);
		if (ret <= 0)
			return ret ? ret : -EIO;
		for (int i = 0; i < ret; i++) {
			CHECK(c[i].tag < n && done[c[i].tag].tag == UINT64_MAX,
			      "tag %" PRIu64 " unexpected or completed twice", c[i].tag);
			if (c[i].tag < n)
				done[c[i].tag] = c[i];
		}
		reaped += (unsigned int)ret;
	}
	CHECK(awr_queue_outstanding(r) == 0, "%u writes outstanding after all reaped",
	      awr_queue_outstanding(r));
	return 0;
}

static void check_results(struct target *t, const struct planned *p, unsigned int n,
			  const struct awr_completion *done)
{
	for (unsigned int i = 0; i < n; i++) {
		if (p[i].rule == AWR_RULE_OK) {
			CHECK(done[i].res == (int)p[i].len && done[i].rule == AWR_RULE_OK,
			      "write %u (%" PRIu64 " at %" PRIu64
			      "): res %d rule %s, expected %" PRIu64,
			      i, p[i].len, p[i].offset, done[i].res, awr_rule_name(done[i].rule),
			      p[i].len);
			CHECK(region_is(t, p[i].offset, p[i].len, t->buf + p[i].offset),
			      "write %u at %" PRIu64 " does not read back", i, p[i].offset);
		} else {
			CHECK(done[i].rule == p[i].rule && done[i].res == awr_rule_errno(p[i].rule),
			      "write %u (%" PRIu64 " at %" PRIu64 "): res %d rule %s, expected "
								  "refusal %s",
			      i, p[i].len, p[i].offset, done[i].res, awr_rule_name(done[i].rule),
			      awr_rule_name(p[i].rule));
		}
	}
}

static void fill_pattern(struct target *t, unsigned int seed)
{
	for (uint64_t i = 0; i < t->area; i++)
		t->buf[i] = (unsigned char)(((i / t->unit) * 7 + seed) | 1);
}

static int with_ring(struct target *t, unsigned int qd, bool reg, struct awr_queue **r)
{
	int ret = awr_queue_open(AWR_QUEUE_URING, NULL, t->file, qd,
				 reg ? AWR_QUEUE_REGISTER_FILE : 0, r);

	CHECK(!ret, "awr_queue_open(uring, qd %u, registered %d): %s", qd, reg, strerror(-ret));
	return ret;
}

/*
 * Valid writes on even pages; refused ones aimed at odd pages only, so a
 * refused write that reached the kernel and landed would show in the read-back.
 */
static unsigned int plan_mixed(struct target *t, struct planned *p)
{
	uint64_t u = t->unit;
	unsigned int n = 0;

	for (uint64_t page = 0; page < 16; page += 2)
		p[n++] = (struct planned){ page * u, u, 0, 0, AWR_RULE_OK };
	/* XFS and ext4 check the size range before the shape: below unit_min is too_small there */
	bool file_small = (t->lim->flags & AWR_LIMITS_FILE) && u / 2 < t->lim->unit_min;

	p[n++] = (struct planned){ 1 * u + u / 4, u / 2, 0, 0,
				   file_small ? AWR_RULE_TOO_SMALL : AWR_RULE_MISALIGNED };
	p[n++] = (struct planned){ 3 * u, u / 2 + u / 4, 0, 0,
				   file_small ? AWR_RULE_TOO_SMALL : AWR_RULE_NOT_POWER_OF_TWO };
	p[n++] = (struct planned){ 0, 2ULL * t->lim->unit_max, 0, 0, AWR_RULE_TOO_LARGE };
	/* a length in range at an offset not a multiple of it: the shape rule everywhere */
	p[n++] = (struct planned){ 13 * u + u / 2, u, 0, 0, AWR_RULE_MISALIGNED };
	if (t->lim->mem_align > 1)
		p[n++] = (struct planned){5 * u, u, t->lim->mem_align / 2, 0,
					  AWR_RULE_BUFFER_ALIGNMENT};
	if (t->lim->unit_min >= 1024 &&
	    (!t->lim->offset_align || t->lim->offset_align <= t->lim->unit_min / 2))
		p[n++] = (struct planned){ 7 * u, t->lim->unit_min / 2, 0, 0, AWR_RULE_TOO_SMALL };
	if (t->lim->dev_size)
		p[n++] = (struct planned){ t->lim->dev_size, u, 0, 0, AWR_RULE_BEYOND_END };
	p[n++] = (struct planned){ 9 * u, u, 0, AWR_WRITE_DSYNC, AWR_RULE_OK };
	return n;
}

static int case_mixed(struct target *t, unsigned int qd, bool reg)
{
	struct awr_completion done[MAX_WRITES];
	struct planned p[32];
	struct awr_queue *r;
	unsigned int n = plan_mixed(t, p);

	if (with_ring(t, qd, reg, &r))
		return -1;
	fill_pattern(t, qd + reg);
	memset(done, 0xff, sizeof(done));
	CHECK(!prefill(t, 0), "prefill failed");
	CHECK(!run_plan(r, t, p, n, done), "queue/reap failed");
	CHECK(!read_back(t), "read-back failed");
	check_results(t, p, n, done);
	for (uint64_t page = 1; page < 9; page += 2)
		CHECK(region_is_byte(t, page * t->unit, t->unit, 0),
		      "page %" PRIu64 ", aimed at by refused writes only, changed", page);
	awr_queue_close(r);
	return 0;
}

static int case_larger_than_ring(struct target *t, unsigned int qd, bool reg)
{
	static struct awr_completion done[MAX_WRITES];
	static struct planned p[MAX_WRITES];
	unsigned int n = 4 * qd + 3;
	struct awr_queue *r;

	if (n > MAX_WRITES || n * t->unit > t->area)
		n = (unsigned int)(t->area / t->unit);
	if (with_ring(t, qd, reg, &r))
		return -1;
	for (unsigned int i = 0; i < n; i++)
		p[i] = (struct planned){(uint64_t)((i * 37) % n) * t->unit, t->unit, 0, 0,
					AWR_RULE_OK};
	fill_pattern(t, 3 * qd + reg);
	memset(done, 0xff, sizeof(done));
	CHECK(!prefill(t, 0), "prefill failed");
	CHECK(!run_plan(r, t, p, n, done), "queue/reap failed");
	CHECK(!read_back(t), "read-back failed");
	check_results(t, p, n, done);
	awr_queue_close(r);
	return 0;
}

/* A plain write is not checked and carries no RWF_ATOMIC: 3 pages at once land. */
static int case_plain(struct target *t, unsigned int qd, bool reg)
{
	struct awr_completion done[4];
	struct planned p[1] = { { t->unit, 3 * t->unit, 0, AWR_WRITE_PLAIN, AWR_RULE_OK } };
	struct awr_queue *r;

	if (with_ring(t, qd, reg, &r))
		return -1;
	fill_pattern(t, 11);
	memset(done, 0xff, sizeof(done));
	CHECK(!prefill(t, 0), "prefill failed");
	CHECK(!run_plan(r, t, p, 1, done), "queue/reap failed");
	CHECK(!read_back(t), "read-back failed");
	check_results(t, p, 1, done);
	CHECK(region_is_byte(t, 0, t->unit, 0), "page 0 changed by a write at page 1");
	awr_queue_close(r);
	return 0;
}

/* With the check skipped the kernel itself refuses, with the errno the rule predicted. */
static int case_kernel_agrees(struct target *t, unsigned int qd, bool reg)
{
	struct awr_completion done[4];
	struct planned p[2];
	unsigned int n = 0;
	struct awr_queue *r;

	p[n++] = (struct planned){t->unit + t->unit / 4, t->unit / 2, 0, AWR_WRITE_NOCHECK,
				  AWR_RULE_MISALIGNED};
	p[n++] = (struct planned){ 3 * t->unit, t->unit / 2 + t->unit / 4, 0, AWR_WRITE_NOCHECK,
				   AWR_RULE_NOT_POWER_OF_TWO };
	if (with_ring(t, qd, reg, &r))
		return -1;
	memset(done, 0xff, sizeof(done));
	CHECK(!run_plan(r, t, p, n, done), "queue/reap failed");
	for (unsigned int i = 0; i < n; i++)
		CHECK(done[i].rule == AWR_RULE_OK && done[i].res == awr_rule_errno(p[i].rule),
		      "write %u: kernel gave res %d, the checker predicted %d (%s)", i, done[i].res,
		      awr_rule_errno(p[i].rule), awr_rule_name(p[i].rule));
	awr_queue_close(r);
	return 0;
}

/* A target without atomic support: every atomic write refused before the kernel, plain ones
 * land. */
static int case_unsupported(struct target *t, unsigned int qd, bool reg)
{
	struct awr_completion done[4];
	struct planned p[2] = {
		{ 0, t->unit, 0, 0, AWR_RULE_UNSUPPORTED },
		{ 2 * t->unit, t->unit, 0, AWR_WRITE_PLAIN, AWR_RULE_OK },
	};
	struct awr_queue *r;

	if (with_ring(t, qd, reg, &r))
		return -1;
	fill_pattern(t, 5);
	memset(done, 0xff, sizeof(done));
	CHECK(!prefill(t, 0), "prefill failed");
	CHECK(!run_plan(r, t, p, 2, done), "queue/reap failed");
	CHECK(!read_back(t), "read-back failed");
	check_results(t, p, 2, done);
	CHECK(region_is_byte(t, 0, t->unit, 0),
	      "page 0, aimed at by a refused write only, changed");
	awr_queue_close(r);
	return 0;
}

/* raw_atomic_read(): raw_atomic.h */

static int open_target(struct target *t)
{
	struct stat st;
	int ret, fd;

	if (stat(t->path, &st) && errno == ENOENT) {
		fd = open(t->path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		close(fd);
	} else if (!S_ISBLK(st.st_mode) && truncate(t->path, 0)) {
		return -errno;
	}
	ret = awr_file_open(t->path, 0, &t->file);
	if (ret)
		return ret;
	t->lim = awr_file_limits(t->file);
	return 0;
}

/* The page size and area from the kernel's own figures, and the buffers. */
static int size_target(struct target *t, const struct raw_atomic *raw)
{
	t->unit = raw->unit_min > 4096 ? raw->unit_min : 4096;
	t->area = 1040 * t->unit;
	if (raw->dev_size && raw->dev_size < t->area)
		t->area = raw->dev_size / t->unit * t->unit;
	if (posix_memalign((void **)&t->buf, 4096, t->area + 4096) ||
	    posix_memalign((void **)&t->rb, 4096, t->area))
		return -ENOMEM;
	return 0;
}

typedef int (*case_fn)(struct target *t, unsigned int qd, bool reg);

static void run_case(struct target *t, const char *name, case_fn fn, unsigned int qd, bool reg)
{
	char label[96];

	snprintf(label, sizeof(label), "%s_qd%u_%s", name, qd, reg ? "registered" : "fd");
	case_failures = 0;
	if (fn(t, qd, reg) < 0 || case_failures) {
		printf("FAIL %s\n", label);
		t_failures++;
		return;
	}
	printf("PASS %s\n", label);
}

/* awr write's options as a job: each refusal in its words, each default as it says */
static void job_options(const char *path)
{
	struct awr_write_job j = { .input_fd = -1, .pattern = -1 };
	enum awr_job_engine e;
	struct stat st;

	T_EXPECT(!awr_write_job_engine(&j, NULL, NULL, &e) && e == AWR_JOB_SYNC && !j.qd,
		 "sync by default, no queue");
	T_EXPECT(!awr_write_job_engine(&j, "uring", NULL, &e) && e == AWR_JOB_URING &&
		 j.qd == 32, "uring: depth %u", j.qd);
	T_EXPECT(!awr_write_job_engine(&j, "scsi", NULL, &e) && !j.qd, "scsi: SG_IO");
	T_EXPECT(!awr_write_job_engine(&j, "scsi", "4", &e) && j.qd == 4, "scsi --qd 4");
	T_EXPECT(awr_write_job_engine(&j, "nvme", "100", &e) == -EINVAL &&
		 !strcmp(awr_last_error(), "--qd 100: the nvme engine keeps at most 64 writes in "
			 "flight: give 1 to 64"), "nvme 100: %s", awr_last_error());
	T_EXPECT(awr_write_job_engine(&j, "uring", "0", &e) == -EINVAL, "uring --qd 0");
	T_EXPECT(awr_write_job_engine(&j, "raw", NULL, &e) == -EINVAL && e == AWR_JOB__ENGINES &&
		 !strcmp(awr_job_engine_name(AWR_JOB_NVME), "nvme"), "unknown engine");
	j.length = 40960;
	j.unit = 16384;
	T_EXPECT(awr_write_job_check(&j) == -EINVAL && strstr(awr_last_error(),
		 "--length 40960 must be a non-zero multiple of --unit 16384"), "40k of 16k");
	j.length = 32768;
	j.unit = 2ULL << 30;
	T_EXPECT(awr_write_job_check(&j) == -EINVAL, "a unit of 2 GiB");
	j.unit = 16384;
	j.offset = (uint64_t)INT64_MAX;
	T_EXPECT(awr_write_job_check(&j) == -EINVAL, "an end past 2^63 - 1");
	j.offset = 0;
	T_EXPECT(!awr_write_job_check(&j), "32k of 16k at 0: %s", awr_last_error());
	j.flags = AWR_JOB_VERIFY;
	T_EXPECT(awr_write_job_input(&j, "/dev/zero") == -EINVAL, "--verify with a device");
	close(j.input_fd);
	j.flags = 0;
	if (!stat(path, &st) && S_ISREG(st.st_mode)) {	/* a block device has no short size */
		j.length = 1ULL << 40;	/* the target is shorter */
		T_EXPECT(awr_write_job_input(&j, path) == -EINVAL && strstr(awr_last_error(),
			 "bytes, fewer than --length"), "a short input: %s", awr_last_error());
		close(j.input_fd);
	}
	j.length = 0;	/* the target may be empty yet */
	T_EXPECT(!awr_write_job_input(&j, path) && j.input_fd >= 0, "input %s: %s", path,
		 awr_last_error());
	close(j.input_fd);
	T_EXPECT(awr_write_job_input(&j, "/nonexistent/x") == -ENOENT, "no input");
}

/* A job's target in @dir: opened once and guarded, refused in awr write's words, closed. */
static void job_open(const char *dir)
{
	struct awr_write_job j = { .input_fd = -1, .verify_fd = -1, .pattern = 0x5a,
				   .length = 40960, .unit = 16384 };
	struct awr_write_job k = { .input_fd = -1, .verify_fd = -1, .pattern = -1 };
	struct awr_write_job_result res;
	char path[512], link_[520], want[1200];
	struct awr_safety s;
	int ret;

	snprintf(path, sizeof(path), "%s/job.dat", dir);
	snprintf(link_, sizeof(link_), "%s.link", path);
	unlink(path);
	k.flags = AWR_JOB_ROUTES;	/* routes are read around pwritev2 only */
	ret = awr_write_job_open(&k, path, AWR_JOB_URING, 0, &s);
	T_EXPECT(ret == -EINVAL && !k.file && access(path, F_OK) && !strcmp(awr_last_error(),
		 "--report-path works with --engine sync: each unit's extent map is read before "
		 "and after its write"), "routes on uring, refused before the open: %d %s", ret,
		 awr_last_error());
	k.flags = 0;
	ret = awr_write_job_open(&j, path, AWR_JOB_SYNC, 0, &s);
	T_EXPECT(!ret && j.file && !j.queue && s.created, "a new file for sync: %d %s", ret,
		 awr_last_error());
	ret = awr_write_job_open(&k, path, AWR_JOB_URING, 0, &s);
	snprintf(want, sizeof(want), "refusing to write %s (awr write): it is locked for writing "
		 "by another program. Nothing was written. Use --force to write it anyway and lose "
		 "its data.", path);
	T_EXPECT(ret == -EBUSY && !k.file && !strcmp(awr_last_error(), want),
		 "a file another job writes: %d \"%s\"", ret, awr_last_error());
	T_EXPECT(awr_write_job_run(&j, &res) == -EINVAL && res.stage == AWR_JOB_BAD_JOB &&
		 !strcmp(awr_last_error(), "--length 40960 must be a non-zero multiple of --unit "
			 "16384: use --unit 16k and a --length of whole units"),
		 "a range of part units, as awr_write_job_check() says it: %s", awr_last_error());
	j.length = 16384;
	j.flags = AWR_JOB_ROUTES;
	j.qd = 4;
	T_EXPECT(awr_write_job_run(&j, &res) == -EINVAL && res.stage == AWR_JOB_BAD_JOB &&
		 strstr(awr_last_error(), "--report-path works with --engine sync"),
		 "routes through a queue of 4: %s", awr_last_error());
	j.flags = 0;
	j.qd = 0;
	j.offset = 4096;
	T_EXPECT(awr_write_job_run(&j, &res) == -EINVAL && res.stage == AWR_JOB_REFUSED &&
		 (res.verdict.rule != AWR_RULE_MISALIGNED || strstr(awr_last_error(),
		  "; nothing was written: give an --offset that is a multiple of --unit")),
		 "a misaligned unit, with what to do: %s", awr_last_error());
	awr_write_job_close(&j);
	T_EXPECT(!j.file && j.verify_fd == -1, "closed and cleared");
	T_EXPECT(!symlink(path, link_), "a symbolic link to the file");
	ret = awr_write_job_open(&k, link_, AWR_JOB_SYNC, AWR_TARGET_FORCE, NULL);
	T_EXPECT(ret == -ELOOP && !k.file && strstr(awr_last_error(), "(awr write): it is a "
		 "symbolic link to a regular file"), "a link: %d %s", ret, awr_last_error());
	ret = awr_write_job_open(&k, path, AWR_JOB_NVME, 0, &s);
	T_EXPECT(ret < 0 && !k.queue && k.verify_fd == -1 && *awr_last_error(),
		 "nvme on a regular file: %d %s", ret, awr_last_error());
	T_EXPECT(awr_write_job_open(&k, path, AWR_JOB__ENGINES, 0, NULL) == -EINVAL,
		 "an unknown engine");
	unlink(link_);
	unlink(path);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; case_fn fn; } cases[] = {
		{ "mixed_batch", case_mixed },
		{ "larger_than_ring", case_larger_than_ring },
		{ "plain_write", case_plain },
		{ "kernel_agrees", case_kernel_agrees },
	};
	static const unsigned int depths[] = { 1, 128 };
	char path[4096];
	struct target t = { 0 };
	struct awr_queue *probe = NULL;
	const char *dir = getenv("AWR_SCRATCH_DIR");
	struct raw_atomic raw;
	int ret;

	t.path = argc > 1 ? argv[1] : getenv("AWR_TEST_TARGET");
	if (!t.path && dir) {
		snprintf(path, sizeof(path), "%s/uring_engine.dat", dir);
		t.path = path;
	}
	if (!t.path)
		T_SKIP("no target: give a path, or set AWR_TEST_TARGET or AWR_SCRATCH_DIR");
	ret = open_target(&t);
	if (ret)
		T_SKIP("cannot open %s for direct I/O: %s", t.path, strerror(-ret));
	job_options(t.path);
	if (dir)
		job_open(dir);
	else
		printf("job_open: no AWR_SCRATCH_DIR: its checks are not run\n");
	/* whether to skip is the kernel's answer, read here; the library's must agree with it */
	raw_atomic_read(t.path, &raw);
	if (size_target(&t, &raw))
		return T_EXIT_FAIL;
	if (raw.supported != t.lim->supported) {
		printf("FAIL library_agrees_with_kernel: the kernel %s atomic writes on %s (statx "
		       "unit %u..%u%s%s),"
		       " the library says %s\n",
		       raw.supported ? "offers" : "does not offer", t.path, raw.unit_min,
		       raw.unit_max, raw.why[0] ? "; " : "", raw.why,
		       t.lim->supported ? "supported" : "unsupported");
		return T_EXIT_FAIL;
	}
	ret = awr_queue_open(AWR_QUEUE_URING, NULL, t.file, 1, 0, &probe);
	if (ret == -EPERM || ret == -ENOSYS)
		T_SKIP("io_uring is unavailable or disabled: %s", strerror(-ret));
	awr_queue_close(probe);
	if (!raw.supported && t.area >= 16 * t.unit) {
		run_case(&t, "unsupported_refused", case_unsupported, 8, false);
		if (t_failures)
			return T_EXIT_FAIL;
	}
	if (!raw.supported || t.unit > raw.unit_max || t.area < 16 * t.unit) {
		printf("SKIP write_uring_engine: %s has no usable atomic write support: %s "
		       "(page %" PRIu64 ", kernel unit %u..%u, area %" PRIu64 ")\n", t.path,
		       raw.why[0] ? raw.why : "the page size is outside the unit range or the "
					      "target is too small",
		       t.unit, raw.unit_min, raw.unit_max, t.area);
		return T_EXIT_SKIP;
	}
	printf("target %s: unit %" PRIu64 ", atomic %u..%u, mem_align %u\n", t.path, t.unit,
	       t.lim->unit_min, t.lim->unit_max, t.lim->mem_align);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
			for (int reg = 0; reg < 2; reg++) {
				run_case(&t, cases[c].name, cases[c].fn, depths[d], reg);
			}
	awr_file_close(t.file);
	free(t.buf);
	free(t.rb);
	return t_done("write_uring_engine");
}
