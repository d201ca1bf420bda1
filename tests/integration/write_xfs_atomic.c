// SPDX-License-Identifier: MIT
/*
 * Description: on scratch XFS, probe equals statx; every power of two from
 * unit_min to unit_max is written atomically and read back; each bad write is
 * refused by the library with the right rule and by the kernel with the errno
 * the library predicted; the raw loop device reports no atomic support.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"
#include "compat.h"

static char path[4096];

static int raw_statx(const char *p, struct awr_kstatx *stx)
{
	memset(stx, 0, sizeof(*stx));
	return (int)syscall(SYS_statx, AT_FDCWD, p, 0, STATX_BASIC_STATS | STATX_WRITE_ATOMIC, stx);
}

static void check_probe_equals_statx(const struct awr_kstatx *stx)
{
	struct awr_probe *p;
	const struct awr_limits *e;

	T_EXPECT_EQ(awr_probe_path(path, 0, &p), 0, "probe file");
	e = awr_probe_effective(p);
	T_EXPECT(e->supported, "file supports atomic writes");
	T_EXPECT_EQ(e->unit_min, stx->stx_atomic_write_unit_min, "effective unit_min == statx");
	T_EXPECT_EQ(e->unit_max, stx->stx_atomic_write_unit_max, "effective unit_max == statx");
	T_EXPECT_EQ(e->segments_max, stx->stx_atomic_write_segments_max, "segments_max == statx");
	T_EXPECT_EQ(e->unit_max_opt, stx->stx_atomic_write_unit_max_opt, "unit_max_opt == statx");
	T_EXPECT_EQ(awr_probe_statx(p)->unit_max, stx->stx_atomic_write_unit_max, "statx view");
	awr_probe_free(p);
}

static void fill(unsigned char *buf, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 12));
}

static void check_sweep(struct awr_file *f, unsigned char *wbuf, unsigned char *rbuf)
{
	const struct awr_limits *l = awr_file_limits(f);
	struct awr_verdict v;
	unsigned int n = 0;

	for (uint64_t len = l->unit_min; len <= l->unit_max; len *= 2, n++) {
		uint64_t off = len * 3;	/* naturally aligned, not at 0 */
		ssize_t ret;

		fill(wbuf, len, n + 1);
		ret = awr_pwrite(f, wbuf, len, off, n % 2 ? AWR_WRITE_DSYNC : 0, &v);
		T_EXPECT(ret == (ssize_t)len, "atomic write of %llu at %llu returned %zd (%s)",
			 (unsigned long long)len, (unsigned long long)off, ret, v.message);
		memset(rbuf, 0, len);
		T_EXPECT(pread(awr_file_fd(f), rbuf, len, (off_t)off) == (ssize_t)len,
			 "read back %llu", (unsigned long long)len);
		T_EXPECT(!memcmp(wbuf, rbuf, len), "data of the %llu byte write reads back",
			 (unsigned long long)len);
	}
	T_EXPECT(n >= 1, "at least one size swept");
	printf("swept %u sizes from %u to %u\n", n, l->unit_min, l->unit_max);
}

struct bad_case {
	const char *name;
	uint64_t offset;
	uint64_t length;	/* 0: 2 * unit_max */
	int segs;
	bool buffered;
	enum awr_rule rule;
};

static void check_bad(const struct bad_case *c, struct awr_file *dio, struct awr_file *buffered,
		      unsigned char *buf)
{
	struct awr_file *f = c->buffered ? buffered : dio;
	uint64_t len = c->length ? c->length : 2ULL * awr_file_limits(f)->unit_max;
	struct awr_write_plan plan = {
		.offset = c->offset, .length = len, .buf = buf, .nr_segs = (unsigned int)c->segs,
		.open_flags = fcntl(awr_file_fd(f), F_GETFL),
	};
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = len / (size_t)c->segs },
		{ .iov_base = buf + len / 2, .iov_len = len / 2 },
	};
	struct awr_verdict v;
	int predicted, got;

	predicted = awr_check(awr_file_limits(f), &plan, &v);
	T_EXPECT(v.rule == c->rule, "%s: library rule %s, expected %s", c->name,
		 awr_rule_name(v.rule), awr_rule_name(c->rule));
	if (c->segs == 1) {
		got = (int)awr_pwrite(f, buf, len, c->offset, 0, &v);
		T_EXPECT(got == predicted, "%s: awr_pwrite returned %d, predicted %d", c->name, got,
			 predicted);
	}
	got = (int)awr_pwrite_raw(awr_file_fd(f), iov, c->segs, c->offset, 0);
	T_EXPECT(got == predicted, "%s: the kernel returned %d (%s), the library predicted %d (%s)",
		 c->name, got, got < 0 ? strerror(-got) : "written", predicted,
		 strerror(-predicted));
	printf("%-24s rule %-18s kernel %s\n", c->name, awr_rule_name(v.rule),
	       got < 0 ? strerror(-got) : "accepted");
}

/*
 * A file opened without O_DIRECT, written with a raw pwritev2(RWF_ATOMIC): the
 * kernel checks the write's shape before O_DIRECT (6.18: a misaligned buffered
 * write gets EINVAL, an aligned one EOPNOTSUPP). The library's prediction for
 * the same write must carry the kernel's errno and the rule that gives it.
 */
struct buffered_case {
	const char *name;
	uint64_t offset, length;
	enum awr_rule rule;
};

static void check_buffered_raw(const struct awr_kstatx *stx, unsigned char *buf)
{
	const uint32_t umin = stx->stx_atomic_write_unit_min, umax = stx->stx_atomic_write_unit_max;
	/* a length in the size range (XFS checks it first), so the shape decides */
	const uint64_t len = umax >= 2ULL * umin ? 2ULL * umin : umin;
	const struct buffered_case cases[] = {
		{ "buffered, misaligned", len / 2, len, AWR_RULE_MISALIGNED },
		{ "buffered, aligned", 2 * len, len, AWR_RULE_NOT_DIRECT },
		{ "buffered, not pow2", 0, 3ULL * umin, AWR_RULE_NOT_POWER_OF_TWO },
	};
	struct awr_file *f;
	struct awr_verdict v;
	int fd = open(path, O_RDWR);
	int fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);

	T_EXPECT(fd >= 0 && fl >= 0 && !(fl & O_DIRECT), "open %s without O_DIRECT: %s", path,
		 fd < 0 ? strerror(errno) : "ok");
	T_EXPECT_EQ(awr_file_open(path, AWR_OPEN_BUFFERED, &f), 0, "awr_file_open buffered");
	if (fd < 0 || fl < 0 || !f)
		return;
	T_EXPECT(!(fcntl(awr_file_fd(f), F_GETFL) & O_DIRECT), "the library's buffered file has no "
							       "O_DIRECT");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct buffered_case *c = &cases[i];
		struct iovec iov = { .iov_base = buf, .iov_len = c->length };
		struct awr_write_plan plan = {
			.offset = c->offset,
			.length = c->length,
			.buf = buf,
			.nr_segs = 1,
			.open_flags = fl,
		};
		ssize_t n;
		int kernel, predicted, planned;

		if (c->length > umax) {
			printf("%-24s not run: %llu bytes exceed unit_max %u (the size rule would "
			       "decide)\n",
			       c->name, (unsigned long long)c->length, umax);
			continue;
		}
		memset(buf, 0x5a, c->length);
		n = pwritev2(fd, &iov, 1, (off_t)c->offset, RWF_ATOMIC);
		kernel = n < 0 ? -errno : 0;
		T_EXPECT(n < 0 || n == (ssize_t)c->length, "%s: short write %zd", c->name, n);
		predicted = awr_file_check(f, buf, c->length, c->offset, &v);
		T_EXPECT(predicted == kernel,
			 "%s: the kernel returned %d (%s), awr_file_check "
			 "predicted %d (%s, rule %s)",
			 c->name, kernel, strerror(-kernel), predicted, strerror(-predicted),
			 awr_rule_name(v.rule));
		T_EXPECT(v.rule == c->rule, "%s: rule %s, expected %s", c->name,
			 awr_rule_name(v.rule), awr_rule_name(c->rule));
		T_EXPECT(v.error == predicted, "%s: verdict errno %d, returned %d", c->name,
			 v.error, predicted);
		planned = awr_check(awr_file_limits(f), &plan, &v);
		T_EXPECT(planned == kernel && v.rule == c->rule,
			 "%s: awr_check on the raw descriptor's flags: %d rule %s, the kernel %d",
			 c->name, planned, awr_rule_name(v.rule), kernel);
		printf("%-24s offset %-8llu length %-8llu kernel %-24s library rule %s\n", c->name,
		       (unsigned long long)c->offset, (unsigned long long)c->length,
		       kernel ? strerror(-kernel) : "accepted", awr_rule_name(v.rule));
	}
	awr_file_close(f);
	close(fd);
}

static void check_loop_device(const char *dev)
{
	struct awr_probe *p;
	struct awr_file *f;
	unsigned char *buf;
	struct iovec iov;
	bool found = false;
	int predicted, got;

	T_EXPECT_EQ(awr_probe_path(dev, 0, &p), 0, "probe loop device");
	T_EXPECT(!awr_probe_effective(p)->supported, "loop device unsupported");
	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++)
		found |= !strcmp(awr_probe_finding(p, i)->id, "device_no_atomic");
	T_EXPECT(found, "loop device has the device_no_atomic finding");
	awr_probe_free(p);

	/* Write back what is there, so the mounted filesystem is unchanged whatever happens. */
	T_EXPECT_EQ(awr_file_open(dev, 0, &f), 0, "open loop device");
	if (posix_memalign((void **)&buf, 4096, 4096))
		exit(T_EXIT_FAIL);
	T_EXPECT(pread(awr_file_fd(f), buf, 4096, 1 << 20) == 4096, "read loop device");
	predicted = awr_file_check(f, buf, 4096, 1 << 20, NULL);
	iov = (struct iovec){ .iov_base = buf, .iov_len = 4096 };
	got = (int)awr_pwrite_raw(awr_file_fd(f), &iov, 1, 1 << 20, 0);
	T_EXPECT(predicted == -EOPNOTSUPP, "library predicts EOPNOTSUPP on the loop device (%d)",
		 predicted);
	T_EXPECT(got == predicted, "kernel returned %d on the loop device, predicted %d", got,
		 predicted);
	free(buf);
	awr_file_close(f);
}

int main(void)
{
	const char *dir = getenv("AWR_SCRATCH_DIR"), *dev = getenv("AWR_SCRATCH_DEV");
	struct awr_file *dio, *buffered;
	unsigned char *wbuf, *rbuf;
	struct awr_kstatx stx;
	int fd;

	if (!dir || !dev)
		T_SKIP("run under with-scratch-xfs.sh (AWR_SCRATCH_DIR and AWR_SCRATCH_DEV unset)");
	snprintf(path, sizeof(path), "%s/atomic.dat", dir);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	if (fd < 0 || ftruncate(fd, 64 << 20))
		return T_EXIT_FAIL;
	close(fd);
	if (raw_statx(path, &stx))
		return T_EXIT_FAIL;
	if (!(stx.stx_mask & STATX_WRITE_ATOMIC) || !stx.stx_atomic_write_unit_min)
		T_SKIP("this kernel's XFS reports no atomic writes for files (needs Linux 6.13+)");

	check_probe_equals_statx(&stx);
	if (awr_file_open(path, 0, &dio) || awr_file_open(path, AWR_OPEN_BUFFERED, &buffered))
		return T_EXIT_FAIL;
	if (posix_memalign((void **)&wbuf, 4096, 4ULL * stx.stx_atomic_write_unit_max) ||
	    posix_memalign((void **)&rbuf, 4096, stx.stx_atomic_write_unit_max))
		return T_EXIT_FAIL;
	check_sweep(dio, wbuf, rbuf);

	const uint32_t umin = stx.stx_atomic_write_unit_min;
	const struct bad_case bad[] = {
		{"non power of two", 0, 3ULL * umin, 1, false, AWR_RULE_NOT_POWER_OF_TWO},
		{"misaligned", umin, 4ULL * umin, 1, false, AWR_RULE_MISALIGNED},
		{"larger than unit_max", 0, 0, 1, false, AWR_RULE_TOO_LARGE},
		{"smaller than unit_min", 0, umin / 2, 1, false, AWR_RULE_TOO_SMALL},
		{"two iovecs", 0, 2ULL * umin, 2, false, AWR_RULE_SEGMENTS},
		{"buffered fd", 0, umin, 1, true, AWR_RULE_NOT_DIRECT},
		/* XFS checks the size range before the buffered-I/O rule */
		{"buffered and too large", 0, 0, 1, true, AWR_RULE_TOO_LARGE},
		{"misaligned and too small", umin / 4, umin / 2, 1, false, AWR_RULE_TOO_SMALL},
		{"past the largest offset", (1ULL << 63) - umin, 2ULL * umin, 1, false,
		 AWR_RULE_OFFSET_RANGE},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_bad(&bad[i], dio, buffered, wbuf);

	check_buffered_raw(&stx, wbuf);
	check_loop_device(dev);
	free(wbuf);
	free(rbuf);
	awr_file_close(dio);
	awr_file_close(buffered);
	unlink(path);
	return t_done("xfs_atomic");
}
