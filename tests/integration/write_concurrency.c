// SPDX-License-Identifier: MIT
/*
 * Description: overlapping atomic writes from 8 threads sharing one awr_file and from 4 processes
 * with their own, for AWR_CONCURRENCY_SECONDS each (default 10, 60 with AWR_TEST_LONG=1: the
 * benchmark machine's and nightly length), on a small span of a scratch XFS so that
 * the writers keep landing on the same units; every unit must then read back untorn (awr_verify_run
 * and the stamp classifier: no torn, corrupt or misplaced unit). The writes' own count and a
 * read-back of the newest generation per unit are compared. A control plants one torn unit (two
 * halves of different writes, written without RWF_ATOMIC) that the same check must find.
 *
 *   write_concurrency [SCRATCH_DIR | BLOCK_DEVICE]	(default $AWR_SCRATCH_DIR)
 *
 * On a block device (the guest stage: a scsi_debug disk, an NVMe namespace with atomic writes) both
 * runs use its first 256 KiB (16 units), zeroed before each run and at the end: the device must
 * hold nothing else.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"

static bool blockdev;	/* the target is a block device */

#define UNIT	16384U
/* 1 MiB: 8 writers meet on every unit many times a second; on a block device (an emulated disk in
 * the guest, a few hundred writes a minute) 16 units, 256 KiB, so that they still meet */
#define UNITS	(blockdev ? 16U : 64U)
#define THREADS	8
#define PROCS	4

static struct awr_file *shared;
static uint64_t deadline_ns;
static atomic_uint_fast64_t writes_done, write_errors;
static bool plain; /* AWR_CONCURRENCY_PLAIN=1: plain O_DIRECT writes, the control of the method */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One writer: random units, generations unique to the writer (its id in the top bits). */
static void write_loop(struct awr_file *f, uint32_t id)
{
	uint64_t gen = (uint64_t)(id + 1) << 40, x = 0x9e3779b97f4a7c15ULL * (id + 1);
	struct awr_verdict v;
	void *buf;

	if (posix_memalign(&buf, 4096, UNIT))
		abort();
	while (now_ns() < deadline_ns) {
		uint64_t unit;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		unit = x % UNITS;
		awr_stamp_fill(buf, UNIT, unit, ++gen, id);
		if ((plain ? pwrite(awr_file_fd(f), buf, UNIT, (off_t)(unit * UNIT))
			   : awr_pwrite(f, buf, UNIT, unit * UNIT, 0, &v)) == UNIT) {
			atomic_fetch_add(&writes_done, 1);
		} else {
			if (!atomic_fetch_add(&write_errors, 1))
				printf("writer %u: %s\n", id, v.message);
		}
	}
	free(buf);
}

static void *thread_main(void *arg)
{
	write_loop(shared, (uint32_t)(uintptr_t)arg);
	return NULL;
}

struct tally {
	uint64_t units, torn, corrupt, misplaced, never, intact;
};

static int count_issue(const struct awr_verify_issue *is, void *arg)
{
	(void)is;
	(void)arg;
	return 0;
}

/* Verify the span with awr_verify_run() and read each unit back through the classifier. */
static struct tally check_span(const char *path)
{
	struct awr_verify_opts o = {
		.unit = UNIT, .span = (uint64_t)UNIT * UNITS, .issue = count_issue};
	struct awr_verify_result r;
	struct tally t = { 0 };
	int ret = awr_verify_run(path, &o, &r);

	T_EXPECT(!ret, "awr_verify_run: %d", ret);
	t.units = r.units;
	t.torn = r.count[AWR_UNIT_TORN];
	t.corrupt = r.count[AWR_UNIT_CORRUPT];
	t.misplaced = r.count[AWR_UNIT_MISPLACED];
	t.never = r.count[AWR_UNIT_NEVER_WRITTEN];
	t.intact = r.count[AWR_UNIT_INTACT];
	return t;
}

/* The same units read independently (buffered pread after the verifier's O_DIRECT scan). */
static uint64_t torn_by_pread(const char *path)
{
	uint8_t *buf = malloc(UNIT);
	struct awr_unit_state st;
	uint64_t bad = 0;
	int fd = open(path, O_RDONLY);

	T_EXPECT(fd >= 0 && buf, "open %s", path);
	for (uint32_t u = 0; fd >= 0 && u < UNITS; u++) {
		T_EXPECT(pread(fd, buf, UNIT, (off_t)u * UNIT) == UNIT, "pread unit %u", u);
		awr_stamp_classify(buf, UNIT, u, &st);
		bad += st.cls != AWR_UNIT_INTACT;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return bad;
}

static void report(const char *what, const char *path, unsigned int secs)
{
	struct tally t = check_span(path);
	uint64_t bad = torn_by_pread(path);

	printf("%s: %llu %s writes of 16 KiB in %u s over %u units, %llu errors; verify: intact "
	       "%llu, "
	       "torn %llu, corrupt %llu, misplaced %llu, never written %llu; classifier on pread: "
	       "%llu not intact\n",
	       what, (unsigned long long)writes_done, plain ? "plain" : "atomic", secs, UNITS,
	       (unsigned long long)write_errors, (unsigned long long)t.intact,
	       (unsigned long long)t.torn, (unsigned long long)t.corrupt,
	       (unsigned long long)t.misplaced, (unsigned long long)t.never,
	       (unsigned long long)bad);
	T_EXPECT(writes_done > 10 * UNITS, "%s: only %llu writes: the writers did not overlap "
					   "enough", what,
		 (unsigned long long)writes_done);
	T_EXPECT_EQ(write_errors, 0, "write errors");
	T_EXPECT_EQ(t.units, UNITS, "units scanned");
	T_EXPECT_EQ(t.torn + t.corrupt + t.misplaced, 0, "torn + corrupt + misplaced units");
	T_EXPECT_EQ(t.intact, UNITS, "intact units");
	T_EXPECT_EQ(bad, 0, "units the classifier finds not intact on a buffered read");
}

static void prepare(const char *path)
{
	uint8_t *zero = calloc(1, (size_t)UNIT * UNITS);
	int fd = open(path, blockdev ? O_RDWR : O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || !zero || pwrite(fd, zero, (size_t)UNIT * UNITS, 0) != (ssize_t)UNIT * UNITS ||
	    fsync(fd))
		T_SKIP("cannot make %s", path);
	close(fd);
	free(zero);
	writes_done = write_errors = 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("AWR_SCRATCH_DIR");
	const char *s = getenv("AWR_CONCURRENCY_SECONDS");
	const char *lng = getenv("AWR_TEST_LONG");
	unsigned int secs = s ? (unsigned int)atoi(s) : lng && !strcmp(lng, "1") ? 60 : 10;
	struct stat dst;
	char path[4096];
	pthread_t t[THREADS];
	struct awr_verdict v;
	void *buf;
	int ret;

	plain = getenv("AWR_CONCURRENCY_PLAIN") && !strcmp(getenv("AWR_CONCURRENCY_PLAIN"), "1");
	if (!dir)
		T_SKIP("no scratch directory (run under with-scratch-xfs.sh)");
	setvbuf(stdout, NULL, _IOLBF, 0);
	blockdev = !stat(dir, &dst) && S_ISBLK(dst.st_mode);

	/* 8 threads, one shared awr_file (libatomicwr(7): an awr_file may be shared by threads) */
	snprintf(path, sizeof(path), blockdev ? "%s" : "%s/threads", dir);
	prepare(path);
	ret = awr_file_open(path, 0, &shared);
	if (ret)
		T_SKIP("awr_file_open %s: %s", path, strerror(-ret));
	if (posix_memalign(&buf, 4096, UNIT))
		abort();
	if (awr_file_check(shared, buf, UNIT, 0, &v))
		T_SKIP("16 KiB atomic writes are not supported here: %s", v.message);
	deadline_ns = now_ns() + secs * 1000000000ULL;
	for (uintptr_t i = 0; i < THREADS; i++)
		T_EXPECT(!pthread_create(&t[i], NULL, thread_main, (void *)i), "pthread_create");
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	awr_file_close(shared);
	report("8 threads", path, secs);

	/* 4 processes, each its own awr_file; the counters live in shared memory */
	snprintf(path, sizeof(path), blockdev ? "%s" : "%s/procs", dir);
	prepare(path);
	deadline_ns = now_ns() + secs * 1000000000ULL;
	uint64_t total = 0, errors = 0;
	int pipes[PROCS][2];

	for (int i = 0; i < PROCS; i++) {
		pid_t pid;

		T_EXPECT(!pipe(pipes[i]), "pipe");
		pid = fork();
		if (pid == 0) {
			struct awr_file *f;
			uint64_t res[2];

			if (awr_file_open(path, 0, &f))
				_exit(2);
			write_loop(f, 100 + (uint32_t)i);
			awr_file_close(f);
			res[0] = writes_done;
			res[1] = write_errors;
			_exit(write(pipes[i][1], res, sizeof(res)) == sizeof(res) ? 0 : 3);
		}
		T_EXPECT(pid > 0, "fork");
		close(pipes[i][1]);
	}
	for (int i = 0; i < PROCS; i++) {
		uint64_t res[2] = { 0, 0 };
		int st;

		T_EXPECT(read(pipes[i][0], res, sizeof(res)) == sizeof(res), "process %d reported "
									     "nothing", i);
		close(pipes[i][0]);
		wait(&st);
		T_EXPECT(WIFEXITED(st) && !WEXITSTATUS(st),
			 "a writer process ended with status %#x", st);
		total += res[0];
		errors += res[1];
	}
	writes_done = total;
	write_errors = errors;
	report("4 processes", path, secs);

	/* the control: one unit made of two writes' halves (plain pwrite) must be found torn */
	{
		uint8_t *a, *b;
		int fd = open(path, O_RDWR);
		struct tally c;

		if (posix_memalign((void **)&a, 4096, UNIT) ||
		    posix_memalign((void **)&b, 4096, UNIT))
			abort();
		awr_stamp_fill(a, UNIT, 7, 1ULL << 50, 9);
		awr_stamp_fill(b, UNIT, 7, (1ULL << 50) + 1, 9);
		memcpy(a + UNIT / 2, b + UNIT / 2, UNIT / 2);
		T_EXPECT(fd >= 0 && pwrite(fd, a, UNIT, 7 * UNIT) == UNIT && !fsync(fd),
			 "plant a torn unit");
		close(fd);
		c = check_span(path);
		printf("control: a unit planted torn: verify finds torn %llu, the classifier %llu "
		       "not intact\n",
		       (unsigned long long)c.torn, (unsigned long long)torn_by_pread(path));
		T_EXPECT_EQ(c.torn, 1, "the planted torn unit found by awr_verify_run");
		free(a);
		free(b);
	}
	if (blockdev)
		prepare(path);	/* the device as it was found: zeros */
	free(buf);
	return t_done("write_concurrency");
}
