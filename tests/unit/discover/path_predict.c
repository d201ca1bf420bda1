// SPDX-License-Identifier: MIT
/*
 * Description: the hardware/software path rule (awr_route_predict, its reason
 * as awr__route_predict gives it) and the
 * before/after comparison (awr_route_compare) on built filesystem views and
 * extent maps: XFS's rule judged within the allocation group, spans, shared
 * extents, holes, the device's limit; ext4 and block devices.
 */
#include <linux/fiemap.h>

#include "helpers.h"
#include "libatomicwr.h"
#include "discover/discover.h"

#define K 1024ULL

static struct awr_fs_view xfs_view(uint64_t hw_max)
{
	struct awr_fs_view v = { .type = AWR_FS_XFS, .block_size = 4096, .atomic = true,
				 .unit_min = 4096, .unit_max = 1024 * K, .reflink = true,
				 .ag_size = 100 * 1024 * K, .software_max = 1024 * K,
				 .hw_atomic = hw_max != 0, .hw_unit_min = 4096,
				 .hw_unit_max = (uint32_t)hw_max, .hardware_max = hw_max };
	return v;
}

static enum awr_write_route p(const struct awr_fs_view *v, struct awr_extent *e, unsigned int n,
			     uint64_t off, uint64_t len)
{
	struct awr_extent_report r = { .unit = 4096, .nr_extents = n, .extents = e };
	char why[256];
	enum awr_write_route ret = awr__route_predict(v, n ? &r : NULL, off, len, why, sizeof(why));

	T_EXPECT_EQ(awr_route_predict(v, n ? &r : NULL, off, len), ret, "the public call agrees");
	if (ret == AWR_ROUTE_REFUSED || ret == AWR_ROUTE_UNKNOWN)
		T_EXPECT(!strcmp(awr_last_error(), why), "its reason is the error: %s",
			 awr_last_error());

	printf("  %-8s %6llu KiB at %8llu: %s\n", awr_write_route_name(ret),
	       (unsigned long long)(len / K), (unsigned long long)off, why);
	return ret;
}

static void predict(void)
{
	struct awr_fs_view v = xfs_view(16 * K), nohw = xfs_view(0), e4 = v, blk = v;
	/* file 0..1M on device 1M..2M: 16 KiB aligned; second extent misaligned by 4 KiB */
	struct awr_extent ext[2] = {
		{ 0, 1024 * K, 1024 * K, 0, true },
		{ 1024 * K, 4096 * K + 4 * K, 1024 * K, FIEMAP_EXTENT_LAST, false },
	};
	/* an extent at device byte 100 MiB + 20 KiB: not 16 KiB aligned on the device */
	struct awr_extent ag2[1] = {
		{0, 100 * 1024 * K + 4 * K + 16 * K, 256 * K, FIEMAP_EXTENT_LAST, false}};
	struct awr_extent shared[1] = {
		{0, 1024 * K, 64 * K, FIEMAP_EXTENT_SHARED | FIEMAP_EXTENT_LAST, true}};

	T_EXPECT_EQ(p(&v, ext, 2, 0, 16 * K), AWR_ROUTE_HARDWARE, "aligned 16k in one extent");
	T_EXPECT_EQ(p(&v, ext, 2, 48 * K, 16 * K), AWR_ROUTE_HARDWARE, "aligned 16k further in");
	T_EXPECT_EQ(p(&v, ext, 2, 0, 64 * K), AWR_ROUTE_SOFTWARE, "64k above the device's 16k");
	T_EXPECT_EQ(p(&v, ext, 2, 1024 * K, 16 * K), AWR_ROUTE_SOFTWARE, "misaligned extent");
	T_EXPECT_EQ(p(&v, ext, 2, 1024 * K - 16 * K, 16 * K), AWR_ROUTE_HARDWARE,
		    "last unit of extent 0");
	T_EXPECT_EQ(p(&v, ext, 2, 2048 * K, 16 * K), AWR_ROUTE_SOFTWARE, "hole, 4 blocks");
	T_EXPECT_EQ(p(&v, ext, 2, 2048 * K, 4 * K), AWR_ROUTE_HARDWARE, "hole, one block");
	T_EXPECT_EQ(p(&v, shared, 1, 0, 16 * K), AWR_ROUTE_SOFTWARE, "shared extent");
	T_EXPECT_EQ(p(&nohw, ext, 2, 0, 16 * K), AWR_ROUTE_SOFTWARE, "no hardware atomics");
	T_EXPECT_EQ(p(&v, ext, 2, 4 * K, 16 * K), AWR_ROUTE_REFUSED, "offset not a multiple of "
								     "length");
	T_EXPECT_EQ(p(&v, ext, 2, 0, 12 * K), AWR_ROUTE_REFUSED, "not a power of two");
	T_EXPECT_EQ(p(&v, ext, 2, 0, 2048 * K), AWR_ROUTE_REFUSED, "above unit_max");
	/* spanning two extents that are adjacent in the file */
	{
		struct awr_extent two[2] = {{0, 1024 * K, 8 * K, 0, true},
					    {8 * K, 1032 * K, 8 * K, 0, false}};

		T_EXPECT_EQ(p(&v, two, 2, 0, 16 * K), AWR_ROUTE_SOFTWARE, "two extents");
	}
	/* XFS judges the block number within the AG: device offset 100 MiB + 20 KiB is not 16 KiB
	 * aligned, but with AGs of 100 MiB + 4 KiB the block within AG 1 is 16 KiB: aligned */
	v.ag_size = 100 * 1024 * K + 4 * K;
	T_EXPECT_EQ(p(&v, ag2, 1, 0, 16 * K), AWR_ROUTE_HARDWARE, "AG-relative aligned");
	v.ag_size = 100 * 1024 * K;
	T_EXPECT_EQ(p(&v, ag2, 1, 0, 16 * K), AWR_ROUTE_SOFTWARE, "AG-relative misaligned");

	e4.type = AWR_FS_EXT4;
	e4.unit_max = 16 * K;
	T_EXPECT_EQ(p(&e4, ext, 2, 1024 * K, 16 * K), AWR_ROUTE_HARDWARE, "ext4: in place only");
	T_EXPECT_EQ(p(&e4, ext, 2, 0, 64 * K), AWR_ROUTE_REFUSED, "ext4: above the cluster");
	blk.type = AWR_FS_BLOCK;
	T_EXPECT_EQ(p(&blk, NULL, 0, 0, 16 * K), AWR_ROUTE_HARDWARE, "block device");
	v.atomic = false;
	T_EXPECT_EQ(p(&v, ext, 2, 0, 16 * K), AWR_ROUTE_REFUSED, "no atomic writes");
}

static void compare(void)
{
	struct awr_unit_map a = {.offset = 0,
				 .length = 16 * K,
				 .mapped = true,
				 .nr_parts = 1,
				 .part = {{0, 1024 * K, 16 * K, FIEMAP_EXTENT_UNWRITTEN, false}}};
	struct awr_unit_map b = a, split = a, hole = a;

	b.part[0].flags = 0;	/* unwritten became written in place */
	T_EXPECT_EQ(awr_route_compare(&a, &b), AWR_ROUTE_HARDWARE, "in place");
	b.part[0].physical = 4096 * K;
	T_EXPECT_EQ(awr_route_compare(&a, &b), AWR_ROUTE_SOFTWARE, "moved");
	/* the same blocks reported as two parts are still in place */
	split.nr_parts = 2;
	split.part[0].length = 8 * K;
	split.part[1] = (struct awr_extent){ 8 * K, 1032 * K, 8 * K, 0, false };
	T_EXPECT_EQ(awr_route_compare(&a, &split), AWR_ROUTE_HARDWARE, "same blocks, two parts");
	split.part[1].physical = 2048 * K;
	T_EXPECT_EQ(awr_route_compare(&a, &split), AWR_ROUTE_SOFTWARE, "half moved");
	hole.mapped = false;
	T_EXPECT_EQ(awr_route_compare(&hole, &a), AWR_ROUTE_UNKNOWN, "not mapped before");
}

int main(void)
{
	predict();
	compare();
	return t_done("path_predict");
}
