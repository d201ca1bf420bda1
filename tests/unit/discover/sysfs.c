// SPDX-License-Identifier: MIT
/*
 * Description: sysfs discovery on fixture trees: whole disk, aligned and misaligned
 * partitions, a device without atomics, a kernel without the atomic attributes.
 */
#include "helpers.h"
#include "libatomicwr.h"
#include "sysfs_fixture.h"

/* ROOT/dev/block/DEVNO, the link sysfs has for a block device number. */
static void link_dev(const char *devno, const char *target)
{
	char rel[64], tgt[PATH_MAX];

	snprintf(rel, sizeof(rel), "dev/block/%s", devno);
	snprintf(tgt, sizeof(tgt), "../../%s", target);
	fx_ln(tgt, rel);
}

static void queue(const char *disk, unsigned umin, unsigned umax, unsigned maxb, unsigned bnd,
		  bool atomic_attrs)
{
	char rel[256];

	if (atomic_attrs)
		fx_atomic_limits(disk, umin, umax, maxb, bnd);
	fx_nvme_caps(disk);
	fx_queue_attr(disk, "physical_block_size", 4096);
	snprintf(rel, sizeof(rel), "%s/size", disk);
	fx_put(rel, "2097152\n");
}

static void part(const char *dir, unsigned long start)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/partition", dir);
	fx_put(rel, "1\n");
	snprintf(rel, sizeof(rel), "%s/start", dir);
	fx_put(rel, "%lu\n", start);
	snprintf(rel, sizeof(rel), "%s/size", dir);
	fx_put(rel, "204800\n");
}

static void build_tree(void)
{
	queue("devices/pci0000:00/nvme/nvme0/nvme0n1", 4096, 65536, 65536, 0, true);
	part("devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p1", 2048);	/* 1 MiB: aligned */
	part("devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p2",
	     2055); /* 1052160: not 4 KiB aligned */
	link_dev("259:0", "devices/pci0000:00/nvme/nvme0/nvme0n1");
	link_dev("259:1", "devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p1");
	link_dev("259:2", "devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p2");
	queue("devices/virtual/block/loop0", 0, 0, 0, 0, true);
	link_dev("7:0", "devices/virtual/block/loop0");
	queue("devices/virtual/block/sdz", 0, 0, 0, 0, false);
	link_dev("8:0", "devices/virtual/block/sdz");
	/* A boundary disk: a partition aligned to unit_min but not to the boundary. */
	queue("devices/virtual/block/sdb", 8192, 65536, 131072, 131072, true);
	part("devices/virtual/block/sdb/sdb1", 16);			/* 8 KiB */
	link_dev("8:16", "devices/virtual/block/sdb");
	link_dev("8:17", "devices/virtual/block/sdb/sdb1");
}

int main(void)
{
	struct awr_sysfs_view v;

	fx_make_root("sysfs");
	build_tree();
	awr_set_sysfs_root(fx_root);

	T_EXPECT_EQ(awr_sysfs_lookup(259, 0, &v), 0, "whole disk lookup");
	T_EXPECT(!strcmp(v.disk, "nvme0n1") && !v.partition[0], "disk name '%s' part '%s'", v.disk,
		 v.partition);
	T_EXPECT(v.has_atomic_attrs, "atomic attrs present");
	T_EXPECT_EQ(v.unit_min, 4096, "unit_min");
	T_EXPECT_EQ(v.unit_max, 65536, "unit_max");
	T_EXPECT_EQ(v.max_bytes, 65536, "max_bytes");
	T_EXPECT_EQ(v.boundary, 0, "boundary");
	T_EXPECT_EQ(v.logical_block_size, 4096, "lbs");
	T_EXPECT_EQ(v.max_hw_bytes, 512 * 1024, "max_hw_bytes");
	T_EXPECT_EQ(v.max_segments, 128, "max_segments");
	T_EXPECT_EQ(v.size, 2097152ULL * 512, "size");
	T_EXPECT(v.part_aligned, "a whole disk counts as aligned");

	T_EXPECT_EQ(awr_sysfs_lookup(259, 1, &v), 0, "aligned partition lookup");
	T_EXPECT(!strcmp(v.disk, "nvme0n1") && !strcmp(v.partition, "nvme0n1p1"), "names %s %s",
		 v.disk, v.partition);
	T_EXPECT_EQ(v.unit_max, 65536, "partition reads the parent's queue");
	T_EXPECT_EQ(v.part_start, 2048 * 512, "partition start");
	T_EXPECT(v.part_aligned, "1 MiB start is aligned");
	T_EXPECT_EQ(v.size, 204800ULL * 512, "partition size");

	T_EXPECT_EQ(awr_sysfs_lookup(259, 2, &v), 0, "misaligned partition lookup");
	T_EXPECT_EQ(v.part_start, 2055 * 512, "partition start");
	T_EXPECT(!v.part_aligned, "start 2055 sectors is not 4 KiB aligned");

	T_EXPECT_EQ(awr_sysfs_lookup(8, 17, &v), 0, "boundary partition lookup");
	T_EXPECT(!v.part_aligned, "8 KiB start is not aligned to the 128 KiB boundary");

	T_EXPECT_EQ(awr_sysfs_lookup(7, 0, &v), 0, "loop lookup");
	T_EXPECT(v.has_atomic_attrs && !v.unit_min && !v.unit_max, "loop: attrs present, all zero");

	T_EXPECT_EQ(awr_sysfs_lookup(8, 0, &v), 0, "old kernel lookup");
	T_EXPECT(!v.has_atomic_attrs, "old kernel: no atomic attrs");
	T_EXPECT_EQ(v.logical_block_size, 4096, "old kernel still has block sizes");

	T_EXPECT_EQ(awr_sysfs_lookup(1, 99, &v), -ENOENT, "unknown device");

	awr_set_sysfs_root(NULL);
	if (fx_remove())
		t_failures++;
	return t_done("sysfs");
}
