// SPDX-License-Identifier: MIT
/* Description: passthrough writes are judged against the device's own limits (NVMe (N)AWUPF, NABSPF
 * from NABO; SCSI Block Limits VPD) before anything is sent, and a partition (on a sysfs fixture
 * tree) is refused. */
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "device/device_fixtures.h"
#include "device/device.h"
#include "decide/decide.h"

static uint8_t buf[8192];

static void nvme_id(const char *ctrl, const char *ns, struct awr_nvme_id *id)
{
	size_t n;

	memset(id, 0, sizeof(*id));
	n = fixture_bytes(ctrl, buf, sizeof(buf));
	T_EXPECT_EQ(awr_nvme_decode_ctrl(buf, n, id), 0, ctrl);
	n = fixture_bytes(ns, buf, sizeof(buf));
	T_EXPECT_EQ(awr_nvme_decode_ns(buf, n, id), 0, ns);
}

static void scsi_id(const char *vpd, uint32_t lbs, uint64_t blocks, struct awr_scsi_id *id)
{
	size_t n = fixture_bytes(vpd, buf, sizeof(buf));

	memset(id, 0, sizeof(*id));
	T_EXPECT_EQ(awr_scsi_decode_bl_vpd(buf, n, id), 0, vpd);
	id->logical_block_size = lbs;
	id->physical_block_size = lbs;
	id->nr_blocks = blocks;
}

#define NVME(id, len, off, want)                                                                   \
	do {                                                                                       \
		struct awr_verdict _v = {.rule = AWR_RULE__COUNT};                                 \
		int _r = awr__nvme_pt_check(id, len, off, &_v);                                    \
		T_EXPECT(_v.rule == (want) && _r == awr_rule_errno(want),                          \
			 "NVMe %zu at %llu: rule %s (%d), expected %s: %s", (size_t)(len),         \
			 (unsigned long long)(off), awr_rule_name(_v.rule), _r,                    \
			 awr_rule_name(want), _v.message);                                         \
	} while (0)

#define SCSI(id, len, off, bndry, want) do {						\
	struct awr_verdict _v = { .rule = AWR_RULE__COUNT };				\
	int _r = awr__scsi_pt_check(id, len, off, bndry, &_v);				\
	T_EXPECT(_v.rule == (want) && _r == awr_rule_errno(want),			\
		 "SCSI %zu at %llu boundary %u: rule %s (%d), expected %s: %s", (size_t)(len), \
		 (unsigned long long)(off), (unsigned int)(bndry), awr_rule_name(_v.rule), _r, \
		 awr_rule_name(want), _v.message);					\
} while (0)

#define K 1024ULL

/* QEMU AWUPF 15, NSFEAT bit 1 clear: 16 blocks of 4 KiB, no boundary, 0x4000 blocks. */
static void test_nvme_awupf(void)
{
	struct awr_nvme_id id;

	nvme_id("ctrl-qemu-awun31-awupf15.hex", "ns-qemu-nsfeat34-4k.hex", &id);
	NVME(&id, 64 * K, 0, AWR_RULE_OK);
	NVME(&id, 64 * K, 4 * K, AWR_RULE_OK);		/* NVMe needs no natural alignment */
	NVME(&id, 68 * K, 0, AWR_RULE_TOO_LARGE);
	NVME(&id, 4 * K, 2 * K, AWR_RULE_MISALIGNED);
	NVME(&id, 1000, 0, AWR_RULE_DEVICE_LIMIT);
	NVME(&id, 8 * K, 0x3fffULL * 4 * K, AWR_RULE_PAST_END);
	NVME(&id, 4 * K, 0x3fffULL * 4 * K, AWR_RULE_OK);
}

/* NSFEAT bit 1, NAWUPF 15 (16 blocks), NABSPF 31 (32 blocks): the namespace values rule. */
static void test_nvme_boundary(void)
{
	struct awr_nvme_id id;

	nvme_id("ctrl-awupf0.hex", "ns-boundary-128k.hex", &id);
	NVME(&id, 64 * K, 16 * 4 * K, AWR_RULE_OK);
	NVME(&id, 64 * K, 24 * 4 * K, AWR_RULE_CROSSES_BOUNDARY);	/* 24..39 crosses 32 */
	NVME(&id, 68 * K, 0, AWR_RULE_TOO_LARGE);
	id.nabo = 8;	/* boundaries at LBA 8, 40, 72 ... */
	NVME(&id, 64 * K, 16 * 4 * K, AWR_RULE_OK);			/* 16..31 */
	NVME(&id, 64 * K, 0, AWR_RULE_CROSSES_BOUNDARY);		/* 0..15 crosses 8 */
	NVME(&id, 32 * K, 0, AWR_RULE_OK);				/* 0..7 before the first */
	NVME(&id, 64 * K, 32 * 4 * K, AWR_RULE_CROSSES_BOUNDARY);	/* 32..47 crosses 40 */
	NVME(&id, 64 * K, 40 * 4 * K, AWR_RULE_OK);			/* 40..55 */
}

/* NSFEAT bit 1 with NAWUPF 0: the controller's AWUPF applies, as Linux takes it (not one block). */
static void test_nvme_nawupf_zero(void)
{
	struct awr_verdict v = { .rule = AWR_RULE__COUNT };
	struct awr_nvme_id id;

	nvme_id("ctrl-qemu-awun31-awupf15.hex", "ns-nsabp-set-nawupf0.hex", &id);
	T_EXPECT(id.nsfeat & 2 && !id.nawupf && id.awupf == 15, "fixture: NSFEAT bit 1, NAWUPF 0, "
								"AWUPF 15");
	NVME(&id, 64 * K, 0, AWR_RULE_OK);				/* AWUPF 15: 16 blocks */
	NVME(&id, 8 * K, 4 * K, AWR_RULE_OK);
	NVME(&id, 68 * K, 0, AWR_RULE_TOO_LARGE);
	awr__nvme_pt_check(&id, 68 * K, 0, &v);
	T_EXPECT(strstr(v.message, "AWUPF+1 = 16 blocks") && !strstr(v.message, "NAWUPF"),
		 "the refusal names AWUPF: %s", v.message);
	nvme_id("ctrl-awupf0.hex", "ns-nsabp-set-nawupf0.hex", &id);
	NVME(&id, 4 * K, 0, AWR_RULE_OK);				/* AWUPF 0: one block */
	NVME(&id, 8 * K, 0, AWR_RULE_TOO_LARGE);
	id.have_ctrl = false;
	T_EXPECT_EQ(awr__nvme_pt_check(&id, 4 * K, 0, NULL), -EINVAL, "AWUPF unknown: no verdict");
}

/* scsi_debug defaults: 4 KiB blocks, MATL 8192, alignment 2, granularity 2, max boundary 128. */
static void test_scsi(void)
{
	struct awr_scsi_id id;

	scsi_id("vpd-bl-scsi-debug-default.hex", 4096, 16384, &id);
	SCSI(&id, 16 * K, 4 * 4 * K, 0, AWR_RULE_OK);
	SCSI(&id, 16 * K, 1 * 4 * K, 0, AWR_RULE_MISALIGNED);	/* LBA 1, alignment 2 */
	SCSI(&id, 12 * K, 0, 0, AWR_RULE_DEVICE_LIMIT);		/* 3 blocks, granularity 2 */
	SCSI(&id, 8 * 4 * K, 16380 * 4 * K, 0,
	     AWR_RULE_PAST_END); /* the 64 MiB device ends at 16384 */
	SCSI(&id, 16 * K, 0, 256, AWR_RULE_DEVICE_LIMIT);	/* boundary above 128 */
	SCSI(&id, 16 * K, 0, 2, AWR_RULE_OK);
	SCSI(&id, 1000, 0, 0, AWR_RULE_DEVICE_LIMIT);
	id.nr_blocks = 0;
	SCSI(&id, 8194 * 4 * K, 0, 0, AWR_RULE_TOO_LARGE);	/* above MATL 8192 */
	SCSI(&id, 65536 * 4 * K, 0, 0, AWR_RULE_DEVICE_LIMIT);	/* beyond 16-bit TRANSFER LENGTH */
}

/* MATL 0, MATL with boundary 64, max boundary 16, 512 B blocks: boundary 0 means the whole
 * transfer. */
static void test_scsi_boundary_mode(void)
{
	struct awr_scsi_id id;

	scsi_id("vpd-bl-boundary-mode.hex", 512, 0, &id);
	T_EXPECT_EQ(awr__scsi_boundary(&id, 16, 0), 16, "boundary 0 sent as the transfer length");
	SCSI(&id, 16 * 512, 0, 0, AWR_RULE_OK);
	SCSI(&id, 32 * 512, 0, 0, AWR_RULE_DEVICE_LIMIT);	/* 32 > max boundary 16 */
	SCSI(&id, 32 * 512, 0, 16, AWR_RULE_OK);		/* 32 <= 64 in units of 16 */
	SCSI(&id, 66 * 512, 0, 16, AWR_RULE_TOO_LARGE);
	scsi_id("vpd-bl-no-atomic.hex", 512, 0, &id);
	SCSI(&id, 512, 0, 0, AWR_RULE_UNSUPPORTED);
	scsi_id("vpd-bl-short-page.hex", 512, 0, &id);
	SCSI(&id, 512, 0, 0, AWR_RULE_UNSUPPORTED);
}

static char root[PATH_MAX];

/* A shell command run inside the fixture tree. */
static void in_tree(const char *cmd)
{
	char full[PATH_MAX * 2];

	snprintf(full, sizeof(full), "cd '%s' && %s", root, cmd);
	if (system(full)) {
		printf("FAIL: %s\n", full);
		exit(T_EXIT_FAIL);
	}
}

/* sysfs as the kernel shapes it: nvme0n1 with partition nvme0n1p1, sda with sda1. */
static void build_tree(void)
{
	in_tree("mkdir -p devices/nvme0/nvme0n1/nvme0n1p1 devices/nvme0/nvme0n1/queue "
		"devices/host0/sda/sda1 devices/host0/sda/device/scsi_disk/0:0:0:0 "
		"block dev/block");
	in_tree("ln -s ../devices/nvme0/nvme0n1 block/nvme0n1 && ln -s ../devices/host0/sda "
		"block/sda");
	in_tree("ln -s ../../devices/nvme0/nvme0n1 dev/block/259:0 && "
		"ln -s ../../devices/nvme0/nvme0n1/nvme0n1p1 dev/block/259:1 && "
		"ln -s ../../devices/host0/sda dev/block/8:0 && "
		"ln -s ../../devices/host0/sda/sda1 dev/block/8:1");
	in_tree("for p in devices/nvme0/nvme0n1/nvme0n1p1 devices/host0/sda/sda1; do "
		"echo 1 > $p/partition && echo 2048 > $p/start; done");
}

static void remove_tree(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("cannot remove %s\n", root);
}

/* A block node with the numbers of the fixture tree; false when this process may not make one. */
static bool node(const char *name, unsigned int maj, unsigned int min, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", root, name);
	if (!mknod(path, S_IFBLK | 0600, makedev(maj, min)))
		return true;
	printf("skipping the partition checks: cannot make a block node: %s\n", strerror(errno));
	return false;
}

/*
 * A partition's offset 0 is its disk's LBA 0 to a passthrough command: the
 * node lookup, and so both open calls, refuse it before any device I/O (the
 * fixture has no /dev/ng0n1 or /dev/sg node to reach). The whole disk maps.
 */
static void test_partition_refused(void)
{
	char p1[PATH_MAX + 16], disk[PATH_MAX + 16], sda1[PATH_MAX + 16];
	struct awr_queue *nvme = NULL;
	struct awr_queue *scsi = NULL;
	struct awr_devnode n;

	snprintf(root, sizeof(root), "/tmp/awr-ptnode-XXXXXX");
	if (!mkdtemp(root))
		exit(T_EXIT_FAIL);
	atexit(remove_tree);
	build_tree();
	if (!node("p1", 259, 1, p1, sizeof(p1)) || !node("disk", 259, 0, disk, sizeof(disk)) ||
	    !node("sda1", 8, 1, sda1, sizeof(sda1)))
		return;
	awr_set_sysfs_root(root);
	T_EXPECT_EQ(awr__pt_node(p1, &n), -EINVAL, "NVMe partition node");
	T_EXPECT_EQ(awr__pt_node(sda1, &n), -EINVAL, "SCSI partition node");
	T_EXPECT_EQ(awr__pt_node(disk, &n), 0, "whole namespace");
	T_EXPECT(n.kind == AWR_NODE_NVME_NS && !strcmp(n.generic, "ng0n1"),
		 "whole namespace maps to ng0n1 (kind %d, generic %s)", n.kind, n.generic);
	T_EXPECT_EQ(awr__devnode_from_mode(S_IFBLK, 259, 1, NULL, &n), 0, "probe still maps a "
									  "partition");
	T_EXPECT_EQ(awr_queue_open(AWR_QUEUE_NVME, p1, NULL, 1, 0, &nvme), -EINVAL,
		    "an NVMe queue on a partition");
	T_EXPECT_EQ(awr_queue_open(AWR_QUEUE_SCSI, sda1, NULL, 0, 0, &scsi), -EINVAL,
		    "a SCSI queue on a partition");
	T_EXPECT(!nvme && !scsi, "no handle for a partition");
	/* the queue is settled at open: a depth out of range or an unknown flag is refused first */
	T_EXPECT_EQ(awr_queue_open(AWR_QUEUE_NVME, disk, NULL, 0, 0, &nvme), -EINVAL, "depth 0");
	T_EXPECT_EQ(awr_queue_open(AWR_QUEUE_NVME, disk, NULL, AWR_QUEUE_NVME_MAX + 1, 0, &nvme),
		    -EINVAL, "depth above the maximum");
	T_EXPECT_EQ(awr_queue_open(AWR_QUEUE_NVME, disk, NULL, 8, AWR_QUEUE_REGISTER_FILE, &nvme),
		    -EINVAL, "a ring flag it has no use for");
	T_EXPECT_EQ(awr_queue_open(AWR_QUEUE_SCSI, sda1, NULL, AWR_QUEUE_SCSI_MAX + 1, 0, &scsi),
		    -EINVAL, "a SCSI depth above the sg driver's queue");
	T_EXPECT(!nvme && !scsi, "no handle for a bad queue");
	awr_set_sysfs_root(NULL);
}

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	test_partition_refused();
	test_nvme_awupf();
	test_nvme_boundary();
	test_nvme_nawupf_zero();
	test_scsi();
	test_scsi_boundary_mode();
	return t_done("passthru_check");
}
