// SPDX-License-Identifier: MIT
/* Description: the rule checker over a table of cases covering every rule, in the kernel's
 * order. */
#include <fcntl.h>

#include "helpers.h"
#include "libatomicwr.h"

static const struct awr_limits lim = {
	.supported = true, .unit_min = 4096, .unit_max = 65536, .max_bytes = 65536,
	.segments_max = 1, .mem_align = 512, .offset_align = 512, .dev_size = 1 << 20,
	.kernel = AWR_KERNEL(6, 18, 0),
};

/* The same read-only (block/fops.c: EPERM before any atomic check). */
static const struct awr_limits lim_ro = {
	.supported = true, .unit_min = 4096, .unit_max = 65536, .max_bytes = 65536,
	.segments_max = 1, .dev_size = 1 << 20, .flags = AWR_LIMITS_READ_ONLY,
	.kernel = AWR_KERNEL(6, 18, 0),
};

/* Kernels that decide O_DIRECT at open time (6.11.0-6.11.10, 6.12.0-6.12.1) and the fixes. */
#define LIM_K(k) { .supported = true, .unit_min = 4096, .unit_max = 65536, .segments_max = 1, \
		   .dev_size = 1 << 20, .kernel = (k) }
static const struct awr_limits lim_6_12_1 = LIM_K(AWR_KERNEL(6, 12, 1));
static const struct awr_limits lim_6_12_2 = LIM_K(AWR_KERNEL(6, 12, 2));
static const struct awr_limits lim_6_11_10 = LIM_K(AWR_KERNEL(6, 11, 10));
static const struct awr_limits lim_6_11_11 = LIM_K(AWR_KERNEL(6, 11, 11));

/* Artificial limits whose boundary is below unit_max, to reach the boundary rule. */
static const struct awr_limits lim_bnd = {
	.supported = true, .unit_min = 4096, .unit_max = 65536, .boundary = 8192,
	.segments_max = 1, .kernel = AWR_KERNEL(6, 18, 0),
};

/* A device whose size is not a multiple of unit_max. */
static const struct awr_limits lim_past = {
	.supported = true,
	.unit_min = 4096,
	.unit_max = 65536,
	.segments_max = 1,
	.dev_size = 12288,
	.kernel = AWR_KERNEL(6, 18, 0),
};

/* A filesystem's file: the size range comes before the shape (XFS, ext4). */
static const struct awr_limits lim_file = {
	.supported = true, .unit_min = 4096, .unit_max = 65536, .segments_max = 1,
	.flags = AWR_LIMITS_FILE, .kernel = AWR_KERNEL(6, 18, 0),
};

static const struct awr_limits lim_none = { .supported = false };

#define DIO (O_RDWR | O_DIRECT)
#define ALIGNED ((const void *)0x10000)

static const struct {
	const char *name;
	const struct awr_limits *lim;
	struct awr_write_plan plan;
	enum awr_rule rule;
	int err;
	const char *msg;	/* expected substring of the message */
} cases[] = {
	{"4k at 0", &lim, {0, 4096, ALIGNED, 1, DIO}, AWR_RULE_OK, 0, "is atomic"},
	{"64k at 64k", &lim, {65536, 65536, ALIGNED, 1, DIO}, AWR_RULE_OK, 0, "is atomic"},
	{"fd flags unknown", &lim, {8192, 8192, NULL, 0, -1}, AWR_RULE_OK, 0, "is atomic"},
	{"unsupported target",
	 &lim_none,
	 {0, 4096, ALIGNED, 1, DIO},
	 AWR_RULE_UNSUPPORTED,
	 -EOPNOTSUPP,
	 "does not support"},
	{"read-only fd",
	 &lim,
	 {0, 4096, ALIGNED, 1, O_RDONLY | O_DIRECT},
	 AWR_RULE_NOT_WRITABLE,
	 -EBADF,
	 "not open for writing"},
	{"two iovecs", &lim, {0, 8192, ALIGNED, 2, DIO}, AWR_RULE_SEGMENTS, -EINVAL, "2 iovecs"},
	{"12k not pow2",
	 &lim,
	 {0, 12288, ALIGNED, 1, DIO},
	 AWR_RULE_NOT_POWER_OF_TWO,
	 -EINVAL,
	 "length 12288 is not a power of two"},
	/* block/fops.c blkdev_write_iter: a zero length returns 0 before the atomic checks */
	{"zero length on a block device",
	 &lim,
	 {0, 0, ALIGNED, 1, DIO},
	 AWR_RULE_OK,
	 0,
	 "returns 0 and writes nothing"},
	{"zero length past the end",
	 &lim,
	 {2 << 20, 0, ALIGNED, 1, DIO},
	 AWR_RULE_OK,
	 0,
	 "returns 0 and writes nothing"},
	{"zero length, buffered",
	 &lim,
	 {4096, 0, ALIGNED, 1, O_RDWR},
	 AWR_RULE_OK,
	 0,
	 "writes nothing"},
	{"zero length in a file",
	 &lim_file,
	 {0, 0, NULL, 1, DIO},
	 AWR_RULE_TOO_SMALL,
	 -EINVAL,
	 "length 0"},
	{"read-only device",
	 &lim_ro,
	 {0, 4096, ALIGNED, 1, DIO},
	 AWR_RULE_READ_ONLY,
	 -EPERM,
	 "read-only"},
	{"read-only device, zero length",
	 &lim_ro,
	 {0, 0, ALIGNED, 1, DIO},
	 AWR_RULE_READ_ONLY,
	 -EPERM,
	 "EPERM"},
	{"read-only device, misaligned",
	 &lim_ro,
	 {4096, 16384, ALIGNED, 1, DIO},
	 AWR_RULE_READ_ONLY,
	 -EPERM,
	 "before any atomic check"},
	{"read-only device, past the end",
	 &lim_ro,
	 {2 << 20, 4096, ALIGNED, 1, DIO},
	 AWR_RULE_READ_ONLY,
	 -EPERM,
	 "read-only"},
	/* O_DIRECT decided at open: refused before the shape rules there, after them elsewhere */
	{"6.12.1: buffered and misaligned",
	 &lim_6_12_1,
	 {4096, 16384, NULL, 1, O_RDWR},
	 AWR_RULE_NOT_DIRECT,
	 -EOPNOTSUPP,
	 "kernel 6.12.1 decides O_DIRECT at open time"},
	{"6.12.2: buffered and misaligned",
	 &lim_6_12_2,
	 {4096, 16384, NULL, 1, O_RDWR},
	 AWR_RULE_MISALIGNED,
	 -EINVAL,
	 "offset 4096"},
	{"6.11.10: buffered and not pow2",
	 &lim_6_11_10,
	 {0, 12288, NULL, 1, O_WRONLY},
	 AWR_RULE_NOT_DIRECT,
	 -EOPNOTSUPP,
	 "writes go buffered, not atomic"},
	{"6.11.11: buffered and not pow2",
	 &lim_6_11_11,
	 {0, 12288, NULL, 1, O_WRONLY},
	 AWR_RULE_NOT_POWER_OF_TWO,
	 -EINVAL,
	 "length 12288"},
	{"6.12.1: O_DIRECT", &lim_6_12_1, {0, 4096, NULL, 1, DIO}, AWR_RULE_OK, 0, "is atomic"},
	{"6.12.1: fd flags unknown",
	 &lim_6_12_1,
	 {0, 4096, NULL, 1, -1},
	 AWR_RULE_OK,
	 0,
	 "is atomic"},
	{"16k at 4k",
	 &lim,
	 {4096, 16384, ALIGNED, 1, DIO},
	 AWR_RULE_MISALIGNED,
	 -EINVAL,
	 "offset 4096 is not a multiple of the length 16384"},
	{"buffered fd",
	 &lim,
	 {0, 4096, ALIGNED, 1, O_RDWR},
	 AWR_RULE_NOT_DIRECT,
	 -EOPNOTSUPP,
	 "O_DIRECT"},
	{"2k below unit_min",
	 &lim,
	 {0, 2048, ALIGNED, 1, DIO},
	 AWR_RULE_TOO_SMALL,
	 -EINVAL,
	 "below the atomic unit minimum 4096"},
	{"128k above unit_max",
	 &lim,
	 {0, 131072, ALIGNED, 1, DIO},
	 AWR_RULE_TOO_LARGE,
	 -EINVAL,
	 "exceeds the atomic unit maximum 65536"},
	{"16k crosses 8k boundary",
	 &lim_bnd,
	 {16384, 16384, NULL, 1, DIO},
	 AWR_RULE_CROSSES_BOUNDARY,
	 -EINVAL,
	 "crosses the atomic boundary at 24576"},
	{"8k within boundary", &lim_bnd, {8192, 8192, NULL, 1, DIO}, AWR_RULE_OK, 0, "is atomic"},
	{"buffer at odd address",
	 &lim,
	 {0, 4096, (const void *)0x10001, 1, DIO},
	 AWR_RULE_BUFFER_ALIGNMENT,
	 -EINVAL,
	 "memory alignment 512"},
	{"straddles the end of device",
	 &lim,
	 {(1 << 20) - 4096, 8192, ALIGNED, 1, DIO},
	 AWR_RULE_MISALIGNED,
	 -EINVAL,
	 "offset 1044480"},
	{"ends past the end of device",
	 &lim,
	 {(1 << 20) - 8192, 16384, NULL, 1, -1},
	 AWR_RULE_MISALIGNED,
	 -EINVAL,
	 "not a multiple"},
	{"runs past the end of device",
	 &lim_past,
	 {0, 16384, ALIGNED, 1, DIO},
	 AWR_RULE_PAST_END,
	 -EINVAL,
	 "past the end"},
	{"starts at the end of device",
	 &lim,
	 {1 << 20, 4096, ALIGNED, 1, DIO},
	 AWR_RULE_BEYOND_END,
	 -ENOSPC,
	 "at or past the end"},
	{"starts past the end, misaligned",
	 &lim,
	 {(1 << 20) + 4096, 16384, ALIGNED, 1, DIO},
	 AWR_RULE_BEYOND_END,
	 -ENOSPC,
	 "at or past the end"},
	{"offset beyond the largest file offset",
	 &lim_file,
	 {UINT64_MAX - 65535, 65536, NULL, 1, DIO},
	 AWR_RULE_OFFSET_RANGE,
	 -EINVAL,
	 "beyond the largest file offset"},
	{"offset range before support",
	 &lim_none,
	 {1ULL << 63, 4096, NULL, 1, DIO},
	 AWR_RULE_OFFSET_RANGE,
	 -EINVAL,
	 "beyond the largest file offset"},
	{"read-only fd before support",
	 &lim_none,
	 {0, 4096, NULL, 1, O_RDONLY},
	 AWR_RULE_NOT_WRITABLE,
	 -EBADF,
	 "not open for writing"},
	{"file: buffered and too large",
	 &lim_file,
	 {0, 131072, NULL, 1, O_RDWR},
	 AWR_RULE_TOO_LARGE,
	 -EINVAL,
	 "exceeds"},
	{"file: misaligned and too small",
	 &lim_file,
	 {1024, 2048, NULL, 1, DIO},
	 AWR_RULE_TOO_SMALL,
	 -EINVAL,
	 "below"},
	{"file: buffered, size in range",
	 &lim_file,
	 {0, 8192, NULL, 1, O_RDWR},
	 AWR_RULE_NOT_DIRECT,
	 -EOPNOTSUPP,
	 "O_DIRECT"},
	{"block: buffered and too large",
	 &lim,
	 {0, 131072, NULL, 1, O_RDWR},
	 AWR_RULE_NOT_DIRECT,
	 -EOPNOTSUPP,
	 "O_DIRECT"},
	/* A write that ends exactly at the end of the device is inside it. */
	{"ends at the end of device",
	 &lim_past,
	 {8192, 4096, ALIGNED, 1, DIO},
	 AWR_RULE_OK,
	 0,
	 "is atomic"},
	{"64k ending at the end of device",
	 &lim,
	 {(1 << 20) - 65536, 65536, ALIGNED, 1, DIO},
	 AWR_RULE_OK,
	 0,
	 "is atomic"},
	/*
	 * The shape comes before O_DIRECT (generic_atomic_write_valid): a buffered
	 * write of a bad shape gets EINVAL, not EOPNOTSUPP (XFS on 6.18, seen with
	 * a raw pwritev2 in tests/integration/write_xfs_atomic.c).
	 */
	{"buffered and misaligned",
	 &lim,
	 {4096, 16384, ALIGNED, 1, O_RDWR},
	 AWR_RULE_MISALIGNED,
	 -EINVAL,
	 "offset 4096 is not a multiple of the length 16384"},
	{"file: buffered and misaligned",
	 &lim_file,
	 {4096, 16384, NULL, 1, O_RDWR},
	 AWR_RULE_MISALIGNED,
	 -EINVAL,
	 "offset 4096"},
	{"buffered and not pow2",
	 &lim,
	 {0, 12288, ALIGNED, 1, O_WRONLY},
	 AWR_RULE_NOT_POWER_OF_TWO,
	 -EINVAL,
	 "length 12288"},
	{"buffered, two iovecs",
	 &lim,
	 {0, 8192, ALIGNED, 2, O_RDWR},
	 AWR_RULE_SEGMENTS,
	 -EINVAL,
	 "2 iovecs"},
	/* First broken rule wins, in the kernel's order. */
	{"misaligned and too large",
	 &lim,
	 {4096, 131072, ALIGNED, 1, DIO},
	 AWR_RULE_MISALIGNED,
	 -EINVAL,
	 "offset 4096"},
	{"two iovecs and not pow2",
	 &lim,
	 {0, 12288, ALIGNED, 3, DIO},
	 AWR_RULE_SEGMENTS,
	 -EINVAL,
	 "3 iovecs"},
};

int main(void)
{
	struct awr_verdict v;
	int ret;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&v, 0xff, sizeof(v));
		ret = awr_check(cases[i].lim, &cases[i].plan, &v);
		T_EXPECT(ret == cases[i].err, "%s: returned %d, expected %d", cases[i].name, ret,
			 cases[i].err);
		T_EXPECT(v.rule == cases[i].rule, "%s: rule %s, expected %s", cases[i].name,
			 awr_rule_name(v.rule), awr_rule_name(cases[i].rule));
		T_EXPECT(v.error == ret, "%s: verdict errno %d, returned %d", cases[i].name,
			 v.error, ret);
		T_EXPECT(strstr(v.message, cases[i].msg), "%s: message '%s' lacks '%s'",
			 cases[i].name, v.message, cases[i].msg);
		/* A NULL verdict gives the same answer. */
		T_EXPECT_EQ(awr_check(cases[i].lim, &cases[i].plan, NULL), ret, cases[i].name);
	}
	/* Every rule has a distinct name and the errno its comment promises. */
	for (int r = 0; r < AWR_RULE__COUNT; r++) {
		T_EXPECT(strcmp(awr_rule_name((enum awr_rule)r), "unknown"), "rule %d has no name",
			 r);
		for (int q = 0; q < r; q++)
			T_EXPECT(strcmp(awr_rule_name((enum awr_rule)r),
					awr_rule_name((enum awr_rule)q)),
				 "rules %d and %d share a name", r, q);
	}
	T_EXPECT(!strcmp(awr_rule_name(AWR_RULE__COUNT), "unknown"), "out of range name");
	T_EXPECT_EQ(awr_rule_errno(AWR_RULE_NOT_DIRECT), -EOPNOTSUPP, "not_direct errno");
	T_EXPECT_EQ(awr_check(NULL, &cases[0].plan, &v), -EINVAL, "NULL limits");
	return t_done("rules");
}
