// SPDX-License-Identifier: MIT
/*
 * Description: stacked devices on sysfs fixture trees whose legs have atomic writes: md raid1 and
 * raid0 (a chunk that caps unit_max), dm, NVMe multipath heads; each kernel's rule (md from 6.13,
 * dm from 6.14, heads from 6.15 and 6.14.10, the chunk from io_min before 6.17 and chunk_sectors
 * after), and the disagreements named: a leg without atomics, boundaries that differ, a misaligned
 * leg, a kernel older than the feature, a result that differs from sysfs; a head before 6.15 (no
 * multipath/, its paths found by name).
 */
#include "helpers.h"
#include "libatomicwr.h"
#include "private.h"
#include "sysfs_fixture.h"
#include "discover/discover.h"

/* A disk's queue/ with atomic limits and the caps of an NVMe queue (128 segments, 512 KiB). */
static void queue(const char *dir, unsigned umin, unsigned umax, unsigned maxb, unsigned bnd,
		  unsigned chunk_sectors, unsigned io_min)
{
	fx_atomic_limits(dir, umin, umax, maxb, bnd);
	fx_nvme_caps(dir);
	fx_queue_attr(dir, "chunk_sectors", chunk_sectors);
	fx_queue_attr(dir, "minimum_io_size", io_min);
}

static struct awr_stack_view look(const char *disk, uint32_t kernel)
{
	struct awr_stack_view s;
	int ret = awr_stack_lookup(disk, kernel, &s);

	T_EXPECT(ret == 0, "lookup %s: %d", disk, ret);
	return s;
}

#define EXPECT_STACK(s, umin, umax, maxb, bnd, what) do {				\
	T_EXPECT_EQ((s).derived.unit_min, umin, what " unit_min");			\
	T_EXPECT_EQ((s).derived.unit_max, umax, what " unit_max");			\
	T_EXPECT_EQ((s).derived.max_bytes, maxb, what " max_bytes");			\
	T_EXPECT_EQ((s).derived.boundary, bnd, what " boundary");			\
} while (0)

static bool probe_has(const struct awr_stack_view *s, const char *id, const char *text)
{
	struct awr_probe *p = calloc(1, sizeof(*p));
	bool found = false;

	if (!p)
		exit(T_EXIT_FAIL);
	p->have_sysfs = true;
	snprintf(p->sysfs.disk, sizeof(p->sysfs.disk), "%s", s->disk);
	p->sysfs.has_atomic_attrs = true;
	awr__stack_findings(p, s);
	for (unsigned int i = 0; i < p->nr_findings; i++)
		if (!strcmp(p->findings[i].id, id) &&
		    (!text || strstr(p->findings[i].message, text)))
			found = true;
	if (!found)
		for (unsigned int i = 0; i < p->nr_findings; i++)
			printf("  (finding %s: %s)\n", p->findings[i].id, p->findings[i].message);
	free(p);
	return found;
}

/* md raid1 over two NVMe namespaces with 4K..32K: stacked from 6.13, 0 on 6.12. */
static void test_md_raid1(void)
{
	struct awr_stack_view s;

	queue("devices/nvme0n1", 4096, 32768, 32768, 0, 0, 4096);
	queue("devices/nvme1n1", 4096, 32768, 32768, 0, 0, 4096);
	queue("block/md0", 0, 0, 0, 0, 0, 512);
	fx_ln("../../../devices/nvme0n1", "block/md0/slaves/nvme0n1");
	fx_ln("../../../devices/nvme1n1", "block/md0/slaves/nvme1n1");
	fx_put("block/md0/md/level", "raid1\n");
	fx_put("block/md0/md/chunk_size", "0\n");
	fx_put("block/md0/md/dev-nvme0n1/offset", "%u\n", 262144);
	fx_put("block/md0/md/dev-nvme1n1/offset", "%u\n", 262144);
	s = look("md0", AWR_KERNEL(6, 13, 0));
	T_EXPECT(!strcmp(s.type, "md-raid1"), "type %s", s.type);
	T_EXPECT_EQ(s.nr_legs, 2, "legs");
	T_EXPECT(!strcmp(s.legs[0].name, "nvme0n1") && !strcmp(s.legs[1].name, "nvme1n1"),
		 "leg names");
	T_EXPECT_EQ(s.legs[0].start, 262144ULL * 512, "md data offset");
	T_EXPECT(s.kernel_stacks, "6.13 stacks md");
	EXPECT_STACK(s, 4096, 32768, 32768, 0, "raid1 on 6.13");
	T_EXPECT(probe_has(&s, "stack_sysfs_mismatch", "gives unit_min 4096, unit_max 32768"),
		 "sysfs of md0 reads 0 here: a mismatch is named");
	/*
	 * Up to 6.16 the top's io_min stands for a stripe chunk: legs with 4 KiB
	 * physical blocks make it 4096 and cap the units at 4 KiB; 6.17 reads
	 * chunk_sectors (0 for raid1) instead.
	 */
	queue("block/md0", 0, 0, 0, 0, 0, 4096);
	s = look("md0", AWR_KERNEL(6, 16, 0));
	EXPECT_STACK(s, 4096, 4096, 4096, 0, "raid1 with io_min 4096 on 6.16");
	s = look("md0", AWR_KERNEL(6, 17, 0));
	EXPECT_STACK(s, 4096, 32768, 32768, 0, "raid1 with io_min 4096 on 6.17");
	queue("block/md0", 0, 0, 0, 0, 0, 512);
	s = look("md0", AWR_KERNEL(6, 12, 57));
	T_EXPECT(!s.kernel_stacks && !s.derived.supported, "6.12 stacks no md");
	T_EXPECT(probe_has(&s, "stack_kernel_too_old", "kernel 6.12.57 does not stack md-raid1 "
						       "atomic write limits (from 6.13)"),
		 "the kernel is named");
	/* one leg without atomics (a loop device) turns them off */
	queue("devices/nvme1n1", 0, 0, 0, 0, 0, 512);
	s = look("md0", AWR_KERNEL(6, 18, 0));
	T_EXPECT(!s.derived.supported && s.why_leg == 1, "a leg without atomics: off (leg %d)",
		 s.why_leg);
	T_EXPECT(probe_has(&s, "stack_leg_no_atomic", "leg nvme1n1 of md0 (md-raid1) has no atomic "
						      "write support"),
		 "the leg is named");
	queue("devices/nvme1n1", 4096, 32768, 32768, 0, 0, 4096);
	/* a data offset that is not a multiple of unit_min */
	fx_put("block/md0/md/dev-nvme1n1/offset", "%u\n", 1);
	s = look("md0", AWR_KERNEL(6, 18, 0));
	T_EXPECT(!s.derived.supported, "misaligned leg: off");
	T_EXPECT(probe_has(&s, "stack_leg_misaligned", "starts at byte 512 of leg nvme1n1"),
		 "misaligned named");
	fx_put("block/md0/md/dev-nvme1n1/offset", "%u\n", 262144);
	/* boundaries that differ */
	queue("devices/nvme1n1", 4096, 32768, 32768, 131072, 0, 4096);
	s = look("md0", AWR_KERNEL(6, 18, 0));
	T_EXPECT(!s.derived.supported, "different boundaries: off");
	T_EXPECT(probe_has(&s, "stack_boundaries_differ", "leg nvme1n1 has boundary 131072 but leg "
							  "nvme0n1 0"),
		 "boundaries named");
	/* legs with different units: the largest unit_min, the smallest unit_max */
	queue("devices/nvme1n1", 8192, 16384, 16384, 0, 0, 4096);
	s = look("md0", AWR_KERNEL(6, 18, 0));
	EXPECT_STACK(s, 8192, 16384, 16384, 0, "narrowed by the second leg");
}

/*
 * md raid0 with a 24 KiB chunk over 4K..64K legs: unit_max 8 KiB (the largest power of two
 * dividing 24 KiB) and max_bytes 24 KiB, from io_min up to 6.16 and from chunk_sectors on 6.17+.
 */
static void test_md_raid0_chunk(void)
{
	struct awr_stack_view s;

	queue("devices/nvme2n1", 4096, 65536, 65536, 0, 0, 4096);
	queue("devices/nvme3n1", 4096, 65536, 65536, 0, 0, 4096);
	queue("block/md1", 0, 0, 0, 0, 48, 24576);
	fx_ln("../../../devices/nvme2n1", "block/md1/slaves/nvme2n1");
	fx_ln("../../../devices/nvme3n1", "block/md1/slaves/nvme3n1");
	fx_put("block/md1/md/level", "raid0\n");
	fx_put("block/md1/md/chunk_size", "%u\n", 24576);
	s = look("md1", AWR_KERNEL(6, 17, 0));
	T_EXPECT(!strcmp(s.type, "md-raid0") && s.chunk_bytes == 24576, "raid0, chunk %llu",
		 (unsigned long long)s.chunk_bytes);
	EXPECT_STACK(s, 4096, 8192, 24576, 0, "raid0 chunk 24K on 6.17");
	T_EXPECT(probe_has(&s, "stack_chunk_caps", "caps unit_max at 8192"), "the chunk is named");
	s = look("md1", AWR_KERNEL(6, 16, 0));
	EXPECT_STACK(s, 4096, 8192, 24576, 0, "raid0 chunk 24K from io_min on 6.16");
	/* 6.16 reads io_min, 6.17 chunk_sectors: with io_min 4 KiB only 6.17 sees the chunk */
	queue("block/md1", 0, 0, 0, 0, 48, 4096);
	s = look("md1", AWR_KERNEL(6, 16, 0));
	EXPECT_STACK(s, 4096, 4096, 4096, 0, "6.16: io_min 4 KiB taken as the chunk");
	s = look("md1", AWR_KERNEL(7, 0, 0));
	EXPECT_STACK(s, 4096, 8192, 24576, 0, "7.0: chunk_sectors");
}

/* dm over a fixture (no table: type "dm") and an NVMe multipath head. */
static void test_dm_and_head(void)
{
	struct awr_stack_view s;

	queue("devices/nvme4n1", 4096, 32768, 32768, 65536, 0, 4096);
	queue("block/dm-0", 0, 0, 0, 0, 0, 512);
	fx_ln("../../../devices/nvme4n1", "block/dm-0/slaves/nvme4n1");
	fx_put("block/dm-0/dm/name", "lv\n");
	s = look("dm-0", AWR_KERNEL(6, 14, 0));
	T_EXPECT(!strcmp(s.type, "dm") && !s.table_read, "dm table unread in a fixture: %s",
		 s.type);
	EXPECT_STACK(s, 4096, 32768, 32768, 65536, "dm on 6.14");
	T_EXPECT(probe_has(&s, "stack_dm_table_unread", NULL), "unread table said");
	s = look("dm-0", AWR_KERNEL(6, 13, 5));
	T_EXPECT(!s.derived.supported, "6.13 stacks no dm");

	queue("devices/subsys/nvme0c0n1", 4096, 32768, 32768, 0, 0, 4096);
	queue("devices/subsys/nvme0c1n1", 4096, 32768, 32768, 0, 0, 4096);
	queue("block/nvme5n1", 0, 0, 0, 0, 0, 512);
	fx_ln("../../../devices/subsys/nvme0c0n1", "block/nvme5n1/multipath/nvme0c0n1");
	fx_ln("../../../devices/subsys/nvme0c1n1", "block/nvme5n1/multipath/nvme0c1n1");
	s = look("nvme5n1", AWR_KERNEL(6, 15, 0));
	T_EXPECT(!strcmp(s.type, "nvme-multipath") && s.nr_legs == 2, "head: %s, %u paths", s.type,
		 s.nr_legs);
	EXPECT_STACK(s, 4096, 32768, 32768, 0, "head on 6.15");
	s = look("nvme5n1", AWR_KERNEL(6, 14, 10));
	T_EXPECT(s.derived.supported, "6.14.10 has the head backport");
	s = look("nvme5n1", AWR_KERNEL(6, 12, 57));
	T_EXPECT(!s.derived.supported, "the 6.12 head reads 0");
	T_EXPECT(probe_has(&s, "stack_kernel_too_old", "(from 6.15 (also 6.14.10))"),
		 "head kernel named");
	queue("block/nvme6n1", 4096, 32768, 32768, 0, 0, 4096);
	T_EXPECT_EQ(awr_stack_lookup("nvme6n1", 0, &s), -ENOENT,
		    "a plain namespace is not stacked");
	T_EXPECT_EQ(awr_stack_lookup("../x", 0, &s), -EINVAL, "a path is not a disk name");
}

/*
 * A 6.12 multipath head: no multipath/ links (they came in 6.15), the head's
 * disk under nvme-subsystem/nvme-subsysS, the paths nvmeScCnH hidden disks in
 * /sys/block under their controllers. The head is still the stacked device:
 * its legs are the two paths (not another namespace's path, not another
 * subsystem's), and 6.12 derives nothing, saying why with the release.
 */
static void test_head_without_multipath_dir(void)
{
	struct awr_stack_view s;

	queue("devices/virtual/nvme-subsystem/nvme-subsys7/nvme7n1", 0, 0, 0, 0, 0, 512);
	fx_ln("../devices/virtual/nvme-subsystem/nvme-subsys7/nvme7n1", "block/nvme7n1");
	queue("devices/pci/nvme/nvme2/nvme7c2n1", 4096, 32768, 32768, 0, 0, 4096);
	queue("devices/pci/nvme/nvme3/nvme7c3n1", 4096, 16384, 16384, 0, 0, 4096);
	queue("devices/pci/nvme/nvme3/nvme7c3n2", 4096, 4096, 4096, 0, 0, 4096);
	queue("devices/pci/nvme/nvme4/nvme8c4n1", 4096, 4096, 4096, 0, 0, 4096);
	fx_ln("../devices/pci/nvme/nvme2/nvme7c2n1", "block/nvme7c2n1");
	fx_ln("../devices/pci/nvme/nvme3/nvme7c3n1", "block/nvme7c3n1");
	fx_ln("../devices/pci/nvme/nvme3/nvme7c3n2", "block/nvme7c3n2");
	fx_ln("../devices/pci/nvme/nvme4/nvme8c4n1", "block/nvme8c4n1");
	s = look("nvme7n1", AWR_KERNEL(6, 12, 57));
	T_EXPECT(!strcmp(s.type, "nvme-multipath") && s.nr_legs == 2, "6.12 head: %s, %u paths",
		 s.type, s.nr_legs);
	T_EXPECT(s.nr_legs == 2 && !strcmp(s.legs[0].name, "nvme7c2n1") &&
			 !strcmp(s.legs[1].name, "nvme7c3n1"),
		 "the head's own paths: %s %s", s.legs[0].name,
		 s.nr_legs > 1 ? s.legs[1].name : "-");
	T_EXPECT_EQ(s.legs[1].unit_max, 16384, "a path's own limits");
	T_EXPECT(!s.kernel_stacks && !s.derived.supported, "6.12 derives nothing for a head");
	EXPECT_STACK(s, 0, 0, 0, 0, "head on 6.12");
	T_EXPECT(strstr(s.why, "NVMe multipath heads") && strstr(s.why, "from 6.15") &&
		 strstr(s.why, "this is 6.12.57"), "why_off names the release: %s", s.why);
	T_EXPECT(probe_has(&s, "stack_kernel_too_old", "from 6.15"), "the finding names 6.15");
	s = look("nvme7n1", AWR_KERNEL(6, 15, 0));
	EXPECT_STACK(s, 4096, 16384, 16384, 0, "the same head on 6.15: the paths stacked");

	/* A namespace of a one-controller subsystem sits under its controller: no head. */
	queue("devices/pci/nvme/nvme5/nvme9n1", 4096, 32768, 32768, 0, 0, 4096);
	fx_ln("../devices/pci/nvme/nvme5/nvme9n1", "block/nvme9n1");
	queue("devices/pci/nvme/nvme5/nvme9c5n1", 4096, 32768, 32768, 0, 0, 4096);
	fx_ln("../devices/pci/nvme/nvme5/nvme9c5n1", "block/nvme9c5n1");
	T_EXPECT_EQ(awr_stack_lookup("nvme9n1", 0, &s), -ENOENT, "a namespace under its controller "
								 "is no head");
}

int main(void)
{
	fx_make_root("stack");
	awr_set_sysfs_root(fx_root);
	test_md_raid1();
	test_md_raid0_chunk();
	test_dm_and_head();
	test_head_without_multipath_dir();
	if (fx_remove())
		T_EXPECT(0, "cleanup");
	return t_done("stack");
}
