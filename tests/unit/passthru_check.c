// SPDX-License-Identifier: MIT
/* Description: passthrough writes are judged against the device's own limits (NVMe (N)AWUPF, NABSPF from NABO; SCSI Block Limits VPD) before anything is sent. */
#include "device_fixtures.h"
#include "device.h"

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

#define NVME(id, len, off, want) do {							\
	struct awr_verdict _v = { .rule = AWR_RULE__COUNT };				\
	int _r = awr__nvme_pt_check(id, len, off, &_v);					\
	T_EXPECT(_v.rule == (want) && _r == awr_rule_errno(want),			\
		 "NVMe %zu at %llu: rule %s (%d), expected %s: %s", (size_t)(len),	\
		 (unsigned long long)(off), awr_rule_name(_v.rule), _r, awr_rule_name(want), _v.message); \
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

/* scsi_debug defaults: 4 KiB blocks, MATL 8192, alignment 2, granularity 2, max boundary 128. */
static void test_scsi(void)
{
	struct awr_scsi_id id;

	scsi_id("vpd-bl-scsi-debug-default.hex", 4096, 16384, &id);
	SCSI(&id, 16 * K, 4 * 4 * K, 0, AWR_RULE_OK);
	SCSI(&id, 16 * K, 1 * 4 * K, 0, AWR_RULE_MISALIGNED);	/* LBA 1, alignment 2 */
	SCSI(&id, 12 * K, 0, 0, AWR_RULE_DEVICE_LIMIT);		/* 3 blocks, granularity 2 */
	SCSI(&id, 8 * 4 * K, 16380 * 4 * K, 0, AWR_RULE_PAST_END);	/* the 64 MiB device ends at 16384 */
	SCSI(&id, 16 * K, 0, 256, AWR_RULE_DEVICE_LIMIT);	/* boundary above 128 */
	SCSI(&id, 16 * K, 0, 2, AWR_RULE_OK);
	SCSI(&id, 1000, 0, 0, AWR_RULE_DEVICE_LIMIT);
	id.nr_blocks = 0;
	SCSI(&id, 8194 * 4 * K, 0, 0, AWR_RULE_TOO_LARGE);	/* above MATL 8192 */
	SCSI(&id, 65536 * 4 * K, 0, 0, AWR_RULE_DEVICE_LIMIT);	/* beyond 16-bit TRANSFER LENGTH */
}

/* MATL 0, MATL with boundary 64, max boundary 16, 512 B blocks: boundary 0 means the whole transfer. */
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

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	test_nvme_awupf();
	test_nvme_boundary();
	test_scsi();
	test_scsi_boundary_mode();
	return t_done("passthru_check");
}
