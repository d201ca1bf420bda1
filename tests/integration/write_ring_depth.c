// SPDX-License-Identifier: MIT
/*
 * Description: the io_uring engine keeps its queue full: in a queue-and-reap loop every reap hands
 * the writes queued since the last one to the kernel in one system call and finds the whole depth
 * in flight (awr_queue_stats()), for atomic and plain writes, QD 1 and 32, page batches and SQPOLL;
 * registered buffers carry plain writes and the kernel itself refuses RWF_ATOMIC on them; every
 * write's data reads back.
 *
 *   write_ring_depth [FILE]    (default: $AWR_SCRATCH_DIR/ring_depth.dat)
 *
 * Prints one "PASS name", "FAIL name: why" or "SKIP name: why" line per case;
 * exits 0, 1 on any failure, 77 when the target has no atomic support.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"
#include "../raw_atomic.h"

#define REG AWR_QUEUE_REGISTER_FILE
#define EACH AWR_QUEUE_SUBMIT_EACH

#ifndef RWF_ATOMIC
#define RWF_ATOMIC	0x00000040
#endif

#define PAGE	16384U
#define NPAGES	2048U		/* 32 MiB: every page written once per case */
#define REAP	64U

static struct awr_file *file;
static unsigned char *data;	/* NPAGES pages, page i stamped with (case, i) */
static unsigned char *rb;

static void stamp(unsigned int seed)
{
	for (uint64_t i = 0; i < (uint64_t)NPAGES * PAGE; i++)
		data[i] = (unsigned char)(seed * 29 + (i / PAGE) * 7 + (i & 0xff));
}

static bool reads_back(void)
{
	ssize_t n = pread(awr_file_fd(file), rb, (size_t)NPAGES * PAGE, 0);

	return n == (ssize_t)NPAGES * PAGE && !memcmp(rb, data, (size_t)NPAGES * PAGE);
}

static void verdict(const char *name, int before)
{
	printf("%s %s\n", t_failures == before ? "PASS" : "FAIL", name);
	fflush(stdout);
}

/*
 * The caller's loop of awr bench: queue until the depth is reached, reap, queue
 * one write per completion. Each reap made with the whole depth queued must
 * find the whole depth in the kernel and cost exactly one submission call.
 * Reaping one completion at a time leaves completions waiting in the CQ ring
 * at the next reap: the queued writes must be submitted all the same. A reap
 * with nothing queued may cost no call at all (completions already waiting).
 * With AWR_QUEUE_SUBMIT_EACH (at QD above 1) every write must be in the kernel
 * as soon as it is queued: one system call each, nothing left for the reap.
 */
static void stream(const char *name, unsigned int qd, unsigned int ring_flags, unsigned int wflags,
		   bool fixed, unsigned int reap_max)
{
	struct awr_completion c[REAP];
	struct awr_queue_stats st, prev;
	struct awr_queue *r;
	struct iovec iov = { data, (size_t)NPAGES * PAGE };
	unsigned int next = 0, done = 0, full_reaps = 0, late = 0;
	bool each = (ring_flags & AWR_QUEUE_SUBMIT_EACH) && qd > 1;
	int before = t_failures, n, ret;

	stamp(qd + wflags + fixed);
	ret = awr_queue_open(AWR_QUEUE_URING, NULL, file, qd, ring_flags, &r);
	T_EXPECT(!ret, "%s: awr_queue_open: %s", name, strerror(-ret));
	if (ret)
		return verdict(name, before);
	if (fixed) {
		ret = awr_queue_register_buffers(r, &iov, 1);
		T_EXPECT(!ret, "%s: awr_queue_register_buffers: %s", name, strerror(-ret));
	}
	while (!ret && done < NPAGES) {
		unsigned int first = next;

		while (next < NPAGES && awr_queue_outstanding(r) < qd) {
			unsigned char *p = data + (uint64_t)next * PAGE;

			ret = awr_queue_write(r, p, PAGE, (uint64_t)next * PAGE, next,
					      fixed ? wflags | AWR_WRITE_FIXED : wflags, NULL);
			T_EXPECT(!ret, "%s: queue write %u: %s", name, next, strerror(-ret));
			if (ret)
				break;
			next++;
			awr_queue_stats(r, &st);
			if (each && st.submitted != next)
				late++;
		}
		T_EXPECT(!late, "%s: %u writes were not in the kernel when queued (SUBMIT_EACH)",
			 name, late);
		late = 0;
		awr_queue_stats(r, &prev);
		bool full = awr_queue_outstanding(r) == qd;

		n = awr_queue_reap(r, c, reap_max, 1);
		T_EXPECT(n > 0, "%s: reap returned %d", name, n);
		if (n <= 0)
			break;
		awr_queue_stats(r, &st);
		if (next > first && !each)
			T_EXPECT_EQ(st.submit_calls - prev.submit_calls, 1, "system calls to "
									    "submit and wait in "
									    "one reap");
		else
			T_EXPECT(st.submit_calls - prev.submit_calls <= 1,
				 "%s: %" PRIu64 " system calls in one reap", name,
				 st.submit_calls - prev.submit_calls);
		if (full) {
			full_reaps++;
			T_EXPECT(st.inflight_last == qd, "%s: reap %u found %u writes in the "
							 "kernel, not the depth %u",
				 name, full_reaps, st.inflight_last, qd);
		}
		for (int i = 0; i < n; i++)
			T_EXPECT(c[i].res == (int)PAGE, "%s: write %" PRIu64 " ended with %d", name,
				 c[i].tag, c[i].res);
		done += (unsigned int)n;
	}
	awr_queue_stats(r, &st);
	T_EXPECT_EQ(st.submitted, NPAGES, "writes handed to the kernel");
	T_EXPECT_EQ(st.completed, NPAGES, "kernel completions reaped");
	T_EXPECT(full_reaps >= NPAGES / qd / 2, "%s: only %u reaps had the depth queued", name,
		 full_reaps);
	T_EXPECT(reads_back(), "%s: the data does not read back", name);
	printf("    %s: %u reaps with the depth queued, in the kernel min %u max %u, %" PRIu64
	       " reaps below depth of %" PRIu64 ", setup flags 0x%x\n",
	       name, full_reaps, st.inflight_min, st.inflight_max, st.reaps_below_depth, st.reaps,
	       st.setup_flags);
	awr_queue_close(r);
	verdict(name, before);
}

/*
 * A page batch refills as completions arrive: only its tail may run below the depth.
 * On a ring made with AWR_QUEUE_SUBMIT_EACH each unit costs its own submission call.
 */
static void batch(const char *name, unsigned int qd, unsigned int ring_flags, unsigned int wflags)
{
	struct awr_batch_result res;
	struct awr_queue_stats st;
	struct awr_queue *r;
	int before = t_failures, ret;

	stamp(100 + qd + wflags);
	ret = awr_queue_open(AWR_QUEUE_URING, NULL, file, qd, REG | ring_flags, &r);
	T_EXPECT(!ret, "%s: awr_queue_open: %s", name, strerror(-ret));
	if (ret)
		return verdict(name, before);
	ret = awr_queue_write_units(r, data, 0, (uint64_t)NPAGES * PAGE, PAGE, wflags, &res);
	T_EXPECT_EQ(ret, 0, name);
	T_EXPECT_EQ(res.units_done, NPAGES, "units landed");
	awr_queue_stats(r, &st);
	T_EXPECT_EQ(st.submitted, NPAGES, "writes handed to the kernel");
	T_EXPECT_EQ(st.inflight_max, qd, "most writes in the kernel at a reap");
	if (ring_flags & AWR_QUEUE_SUBMIT_EACH)
		T_EXPECT(st.submit_calls >= NPAGES,
			 "%s: %" PRIu64 " submission calls for %u "
			 "units, each submitted as queued",
			 name, st.submit_calls, NPAGES);
	/* every reap takes at least one completion: once the last unit is queued, at most qd reaps
	 * follow */
	T_EXPECT(st.reaps_below_depth <= qd, "%s: %" PRIu64 " of %" PRIu64 " reaps found fewer "
									   "than %u writes in the "
									   "kernel",
		 name, st.reaps_below_depth, st.reaps, qd);
	T_EXPECT(reads_back(), "%s: the data does not read back", name);
	printf("    %s: %" PRIu64 " reaps, %" PRIu64 " below depth, mean in flight %.1f\n", name,
	       st.reaps, st.reaps_below_depth,
	       st.reaps ? (double)st.inflight_sum / (double)st.reaps : 0.0);
	awr_queue_close(r);
	verdict(name, before);
}

/*
 * Does this kernel know IORING_ENTER_NO_IOWAIT? Read straight from a ring set up with the raw
 * system call: io_uring_params.features bit 17, IORING_FEAT_NO_IOWAIT (Linux 6.15).
 */
static bool kernel_no_iowait(void)
{
	struct io_uring_params p = { 0 };
	long fd = syscall(__NR_io_uring_setup, 2, &p);

	if (fd < 0)
		return false;
	close((int)fd);
	return p.features & (1U << 17);
}

/*
 * Linux 6.1 or later takes DEFER_TASKRUN; the ring must not have fallen back there. Where the
 * kernel knows IORING_ENTER_NO_IOWAIT (6.15), every wait carries it, as fio's does.
 */
static void setup_flags(void)
{
	struct awr_queue_stats st;
	struct awr_queue *r;
	struct utsname u;
	int before = t_failures, major = 0, minor = 0;
	bool no_iowait = kernel_no_iowait();

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	if (awr_queue_open(AWR_QUEUE_URING, NULL, file, 4, 0, &r)) {
		T_EXPECT(0, "awr_queue_open failed");
		return verdict("setup_flags", before);
	}
	awr_queue_stats(r, &st);
	if (major > 6 || (major == 6 && minor >= 1))
		T_EXPECT(st.setup_flags == (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
					    IORING_SETUP_DEFER_TASKRUN),
			 "kernel %s: setup flags 0x%x, expected "
			 "COOP_TASKRUN|SINGLE_ISSUER|DEFER_TASKRUN", u.release,
			 st.setup_flags);
	T_EXPECT(st.wait_flags == (no_iowait ? (1U << 7) : 0),
		 "kernel %s: wait flags 0x%x, but the kernel %s IORING_FEAT_NO_IOWAIT", u.release,
		 st.wait_flags, no_iowait ? "has" : "lacks");
	if (major > 6 || (major == 6 && minor >= 15))
		T_EXPECT(no_iowait, "kernel %s (6.15 or later) lacks IORING_FEAT_NO_IOWAIT",
			 u.release);
	printf("    setup flags 0x%x, wait flags 0x%x\n", st.setup_flags, st.wait_flags);
	awr_queue_close(r);
	verdict("setup_flags", before);
}

/*
 * Registered buffers and RWF_ATOMIC: the library refuses the pair, and the
 * kernel does too (generic_atomic_write_valid() takes only a user-backed
 * iterator): a raw IORING_OP_WRITE_FIXED with RWF_ATOMIC must fail with EINVAL
 * while the same write without RWF_ATOMIC lands.
 */
static void fixed_atomic(void)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct awr_queue *r;
	struct iovec iov = { data, PAGE };
	int before = t_failures, res[2] = { 1, 1 };

	if (!awr_queue_open(AWR_QUEUE_URING, NULL, file, 4, 0, &r)) {
		T_EXPECT_EQ(awr_queue_register_buffers(r, &iov, 1), 0, "register");
		T_EXPECT_EQ(awr_queue_write(r, data, PAGE, 0, 0, AWR_WRITE_FIXED, NULL), -EINVAL,
			    "an atomic write from a registered buffer is refused by the library");
		awr_queue_close(r);
	}
	if (io_uring_queue_init(4, &ring, 0) || io_uring_register_buffers(&ring, &iov, 1)) {
		T_EXPECT(0, "raw io_uring setup failed");
		return verdict("fixed_buffer_atomic_refused", before);
	}
	for (int i = 0; i < 2; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_write_fixed(sqe, awr_file_fd(file), data, PAGE, 0, 0);
		sqe->rw_flags = i ? 0 : RWF_ATOMIC;
		io_uring_submit_and_wait(&ring, 1);
		if (!io_uring_wait_cqe(&ring, &cqe)) {
			res[i] = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	T_EXPECT(res[0] == -EINVAL, "the kernel answered %d (%s) to RWF_ATOMIC from a registered "
				    "buffer, expected -EINVAL",
		 res[0], strerror(-res[0]));
	T_EXPECT(res[1] == (int)PAGE, "the same write without RWF_ATOMIC ended with %d", res[1]);
	verdict("fixed_buffer_atomic_refused", before);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("AWR_SCRATCH_DIR");
	const char *path = argc > 1 ? argv[1] : NULL;
	struct raw_atomic raw;
	char def[4096];
	int fd;

	if (!path && dir) {
		snprintf(def, sizeof(def), "%s/ring_depth.dat", dir);
		path = def;
	}
	if (!path)
		T_SKIP("no target: give a file, or run under with-scratch-xfs.sh");
	fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)NPAGES * PAGE))
		T_SKIP("cannot create %s for direct I/O: %s", path, strerror(errno));
	close(fd);
	raw_atomic_read(path, &raw);
	if (!raw.supported || raw.unit_min > PAGE || raw.unit_max < PAGE)
		T_SKIP("%s: no 16 KiB atomic writes (%s)", path,
		       raw.why[0] ? raw.why : "unit range");
	if (awr_file_open(path, 0, &file) ||
	    posix_memalign((void **)&data, 4096, (size_t)NPAGES * PAGE) ||
	    posix_memalign((void **)&rb, 4096, (size_t)NPAGES * PAGE))
		T_SKIP("cannot open %s or allocate buffers", path);
	setup_flags();
	stream("stream_atomic_qd32", 32, REG, 0, false, REAP);
	stream("stream_plain_qd32", 32, REG, AWR_WRITE_PLAIN, false, REAP);
	stream("stream_plain_qd32_reap_one", 32, REG, AWR_WRITE_PLAIN, false, 1);
	stream("stream_atomic_qd1", 1, 0, 0, false, REAP);
	stream("stream_atomic_submit_each_qd32", 32, REG | EACH, 0, false, REAP);
	stream("stream_atomic_submit_each_qd1", 1, EACH, 0, false, REAP);
	stream("stream_plain_fixed_buffers_qd32", 32, REG, AWR_WRITE_PLAIN, true, REAP);
	stream("stream_plain_sqpoll_qd32", 32, AWR_QUEUE_SQPOLL, AWR_WRITE_PLAIN, false, REAP);
	batch("batch_atomic_qd32", 32, 0, 0);
	batch("batch_atomic_submit_each_qd32", 32, EACH, 0);
	batch("batch_plain_qd8", 8, 0, AWR_WRITE_PLAIN);
	fixed_atomic();
	awr_file_close(file);
	unlink(path);
	free(data);
	free(rb);
	return t_done("write_ring_depth");
}
