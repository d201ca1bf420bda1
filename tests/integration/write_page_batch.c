// SPDX-License-Identifier: MIT
/*
 * Description: awr_queue_write_units() writes a range as naturally aligned atomic (or plain) units
 * through a queue smaller than the batch, reads back, and reports the first error with its verdict,
 * queueing no unit after it.
 *
 *   write_page_batch [TARGET]
 *
 * TARGET as for write_uring_engine: a file or block device that may be overwritten;
 * default $AWR_TEST_TARGET, else $AWR_SCRATCH_DIR/page_batch.dat.
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

#define SPAN (4U << 20)

static struct awr_file *file;
static unsigned char *buf, *rb;
static uint64_t page;

static void fill(unsigned int seed, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		buf[i] = (unsigned char)((i / page) * 13 + seed + (i & 0xff));
}

static bool reads_back(uint64_t off, uint64_t len)
{
	ssize_t n = pread(awr_file_fd(file), rb, len, (off_t)off);

	return n == (ssize_t)len && !memcmp(rb, buf, len);
}

static void ok_batch(const char *name, unsigned int qd, unsigned int ring_flags, uint64_t off,
		     uint64_t len, uint64_t unit, unsigned int flags)
{
	struct awr_batch_result res;
	struct awr_queue *r;
	int before = t_failures, ret;

	ret = awr_queue_open(AWR_QUEUE_URING, NULL, file, qd, ring_flags, &r);
	T_EXPECT(!ret, "%s: ring: %s", name, strerror(-ret));
	if (ret)
		return;
	fill(qd + unit / 512 + flags, len);
	ret = awr_queue_write_units(r, buf, off, len, unit, flags, &res);
	T_EXPECT_EQ(ret, 0, name);
	T_EXPECT_EQ(res.units_done, len / unit, name);
	T_EXPECT_EQ(res.units_failed, 0, name);
	T_EXPECT_EQ(awr_queue_outstanding(r), 0, name);
	T_EXPECT(reads_back(off, len), "%s: data does not read back", name);
	awr_queue_close(r);
	printf("%s %s\n", t_failures == before ? "PASS" : "FAIL", name);
}

static void bad_batch(const char *name, uint64_t off, uint64_t unit, unsigned int flags,
		      enum awr_rule rule, int err)
{
	struct awr_batch_result res;
	struct awr_queue *r;
	int before = t_failures, ret;
	uint64_t nr;

	ret = awr_queue_open(AWR_QUEUE_URING, NULL, file, 4, 0, &r);
	T_EXPECT(!ret, "%s: ring: %s", name, strerror(-ret));
	if (ret)
		return;
	nr = SPAN / unit < 16 ? SPAN / unit : 16;
	ret = awr_queue_write_units(r, buf, off, nr * unit, unit, flags, &res);
	T_EXPECT_EQ(ret, err, name);
	T_EXPECT_EQ(res.error, err, name);
	T_EXPECT_EQ(res.error_offset, off, name);
	T_EXPECT_EQ(res.units_done, 0, name);
	T_EXPECT(res.units_failed >= 1 && res.units_failed <= nr, "%s: %" PRIu64 " failed", name,
		 res.units_failed);
	/* none is queued after the first failure: those in flight then (depth 4) may fail too */
	T_EXPECT(res.units_failed <= 4, "%s: %" PRIu64 " units failed, more than were in flight "
		 "at the first failure", name, res.units_failed);
	T_EXPECT(res.verdict.rule == rule, "%s: rule %s, expected %s (%s)", name,
		 awr_rule_name(res.verdict.rule), awr_rule_name(rule), res.verdict.message);
	T_EXPECT(res.verdict.message[0], "%s: no verdict message", name);
	T_EXPECT_EQ(awr_queue_outstanding(r), 0, name);
	printf("    %s: %s\n", name, res.verdict.message);
	awr_queue_close(r);
	printf("%s %s\n", t_failures == before ? "PASS" : "FAIL", name);
}

static void busy_ring(void)
{
	struct awr_queue *r;
	int before = t_failures;

	if (awr_queue_open(AWR_QUEUE_URING, NULL, file, 4, 0, &r))
		return;
	T_EXPECT_EQ(awr_queue_write(r, buf, page, 0, 1, 0, NULL), 0, "queue one");
	T_EXPECT_EQ(awr_queue_write_units(r, buf, 0, page, page, 0, NULL), -EBUSY,
		    "batch on a busy queue");
	T_EXPECT_EQ(awr_queue_write_units(r, buf, 0, page + 512, page, 0, NULL), -EINVAL,
		    "length not a multiple");
	awr_queue_close(r);
	printf("%s busy_and_bad_arguments\n", t_failures == before ? "PASS" : "FAIL");
}

/* raw_atomic_read(): raw_atomic.h */

static int open_target(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) && errno == ENOENT) {
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	return awr_file_open(path, 0, &file);
}

int main(int argc, char **argv)
{
	const struct awr_limits *lim;
	struct raw_atomic raw;
	const char *dir = getenv("AWR_SCRATCH_DIR");
	const char *path = argc > 1 ? argv[1] : getenv("AWR_TEST_TARGET");
	char def[4096];
	int ret;

	if (!path && dir) {
		snprintf(def, sizeof(def), "%s/page_batch.dat", dir);
		path = def;
	}
	if (!path)
		T_SKIP("no target: give a path, or set AWR_TEST_TARGET or AWR_SCRATCH_DIR");
	ret = open_target(path);
	if (ret)
		T_SKIP("cannot open %s for direct I/O: %s", path, strerror(-ret));
	lim = awr_file_limits(file);
	/* whether to skip is the kernel's answer, read here; the library's must agree with it */
	raw_atomic_read(path, &raw);
	if (raw.supported != lim->supported) {
		printf("FAIL library_agrees_with_kernel: the kernel %s atomic writes on %s (statx "
		       "unit %u..%u%s%s),"
		       " the library says %s\n",
		       raw.supported ? "offers" : "does not offer", path, raw.unit_min,
		       raw.unit_max, raw.why[0] ? "; " : "", raw.why,
		       lim->supported ? "supported" : "unsupported");
		return T_EXIT_FAIL;
	}
	page = raw.unit_min > 16384 ? raw.unit_min : 16384;
	if (!raw.supported)
		T_SKIP("%s: %s", path, raw.why);
	if (page > raw.unit_max || (raw.dev_size && raw.dev_size < SPAN + page))
		T_SKIP("%s: no atomic writes of %" PRIu64
		       " bytes here (kernel unit %u..%u, size %" PRIu64 ")",
		       path, page, raw.unit_min, raw.unit_max, raw.dev_size);
	if (posix_memalign((void **)&buf, 4096, SPAN) || posix_memalign((void **)&rb, 4096, SPAN))
		return T_EXIT_FAIL;

	ok_batch("atomic_qd8_256_pages", 8, 0, 0, 256 * page, page, 0);
	ok_batch("atomic_qd1_registered_dsync", 1, AWR_QUEUE_REGISTER_FILE, 64 * page, 16 * page,
		 page, AWR_WRITE_DSYNC);
	ok_batch("atomic_qd32_unit_max", 32, AWR_QUEUE_REGISTER_FILE, 0,
		 SPAN / lim->unit_max * lim->unit_max, lim->unit_max, 0);
	ok_batch("plain_qd8_256_pages", 8, 0, 0, 256 * page, page, AWR_WRITE_PLAIN);
	ok_batch("plain_qd4_12k_units", 4, 0, 4096, 60 * 12288, 12288, AWR_WRITE_PLAIN);
	bad_batch("refused_too_large", 0, 2ULL * lim->unit_max, 0, AWR_RULE_TOO_LARGE, -EINVAL);
	bad_batch("refused_misaligned", page / 2, page, 0, AWR_RULE_MISALIGNED, -EINVAL);
	bad_batch("kernel_refuses_misaligned", page / 2, page, AWR_WRITE_NOCHECK, AWR_RULE_OK,
		  -EINVAL);
	busy_ring();

	awr_file_close(file);
	free(buf);
	free(rb);
	return t_done("write_page_batch");
}
