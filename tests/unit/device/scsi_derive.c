// SPDX-License-Identifier: MIT
/* Description: SCSI Block Limits VPD fixtures decode per SBC, derive sd's and the block layer's
 * limits and explain each case. */
#include "device_fixtures.h"
#include "device/device.h"

static uint8_t vpd[4096];

static void load(const char *name, uint32_t lbs, uint32_t pbs, struct awr_scsi_id *id)
{
	size_t n = fixture_bytes(name, vpd, sizeof(vpd));

	memset(id, 0, sizeof(*id));
	id->write_atomic16 = -1;
	T_EXPECT_EQ(awr_scsi_decode_bl_vpd(vpd, n, id), 0, name);
	id->logical_block_size = lbs;
	id->physical_block_size = pbs;
}

static struct awr_device *view_id(const struct awr_scsi_id *id, const struct awr_queue_caps *caps)
{
	struct awr_device *d = NULL;

	if (awr_device_from_scsi(id, caps, &d)) {
		printf("FAIL: awr_device_from_scsi\n");
		exit(T_EXIT_FAIL);
	}
	return d;
}

static struct awr_device *view(const char *name, uint32_t lbs, uint32_t pbs,
			       const struct awr_queue_caps *caps)
{
	struct awr_scsi_id id;

	load(name, lbs, pbs, &id);
	return view_id(&id, caps);
}

/* scsi_debug atomic_wr=1 sector_size=4096 on 6.12: the guest's sysfs of sda. */
static void test_scsi_debug(void)
{
	struct awr_queue_caps caps = {
		.max_segments = 2048, .max_hw_bytes = 32 << 20, .page_size = 4096};
	struct awr_device *d = view("vpd-bl-scsi-debug-default.hex", 4096, 4096, &caps);
	const struct awr_scsi_id *id = awr_device_scsi(d);

	T_EXPECT_EQ(id->vpd_page_length, 0x3c, "page length");
	T_EXPECT(id->vpd_has_atomic, "atomic fields present");
	T_EXPECT_EQ(id->max_atomic_transfer_length, 8192, "MATL");
	T_EXPECT_EQ(id->atomic_alignment, 2, "alignment");
	T_EXPECT_EQ(id->atomic_granularity, 2, "granularity");
	T_EXPECT_EQ(id->max_atomic_transfer_length_with_boundary, 8192, "MATL with boundary");
	T_EXPECT_EQ(id->max_atomic_boundary_size, 128, "max boundary");
	EXPECT_LIMITS(derived_618(d), 8192, 1048576, 33554432, 0, "scsi_debug");
	T_EXPECT_EQ(derived_618(d)->hw_unit_max, 33554432, "sd's unit_max before the caps");
	T_EXPECT(has_finding(d, "block_caps_unit_max"), "capped to 1 MiB by 256 segments");
	awr_device_free(d);

	d = view("vpd-bl-scsi-debug-default.hex", 4096, 4096, NULL);
	EXPECT_LIMITS(derived_618(d), 8192, 33554432, 33554432, 0, "scsi_debug offline");
	T_EXPECT(has_finding(d, "block_caps_unknown"), "offline: caps unknown");
	awr_device_free(d);
}

static void test_pi(void)
{
	struct awr_scsi_id id;
	struct awr_device *d;

	load("vpd-bl-scsi-debug-default.hex", 4096, 4096, &id);
	id.have_capacity = true;
	id.prot_en = true;
	id.p_type = 1;		/* type 2 */
	d = view_id(&id, NULL);
	T_EXPECT(!derived_618(d)->supported, "PI type 2 disables atomics");
	T_EXPECT(has_finding(d, "scsi_pi_type2"), "PI type 2 finding");
	awr_device_free(d);
	id.p_type = 0;		/* type 1 */
	d = view_id(&id, NULL);
	T_EXPECT(derived_618(d)->supported, "PI type 1 keeps atomics");
	awr_device_free(d);
}

static void test_disabled(void)
{
	struct awr_device *d = view("vpd-bl-short-page.hex", 512, 512, NULL);

	T_EXPECT(has_finding(d, "scsi_vpd_short"), "short page");
	T_EXPECT(strstr(awr_device_finding(d, 0)->message, "short VPD page: no atomic fields") !=
			 NULL,
		 "short page message: %s", awr_device_finding(d, 0)->message);
	T_EXPECT_EQ(awr_device_scsi(d)->max_transfer_length, 0x4000, "max transfer length within "
								     "the short page");
	T_EXPECT(!derived_618(d)->supported, "short page: unsupported");
	awr_device_free(d);

	d = view("vpd-bl-granularity-mismatch.hex", 512, 512, NULL);
	T_EXPECT(has_finding(d, "scsi_granularity_mismatch"), "granularity 3");
	T_EXPECT(has_finding(d, "scsi_granularity_not_pow2"), "granularity 3 not pow2");
	T_EXPECT(!derived_618(d)->supported, "granularity mismatch: unsupported");
	awr_device_free(d);

	d = view("vpd-bl-alignment-mismatch.hex", 512, 512, NULL);
	T_EXPECT(has_finding(d, "scsi_alignment_mismatch"), "alignment 8 vs unit_max 4");
	T_EXPECT(!derived_618(d)->supported, "alignment mismatch: unsupported");
	awr_device_free(d);

	d = view("vpd-bl-no-atomic.hex", 512, 512, NULL);
	T_EXPECT(has_finding(d, "scsi_no_atomic"), "no atomic");
	T_EXPECT(!derived_618(d)->supported, "no atomic: unsupported");
	awr_device_free(d);
}

static void test_boundary_mode(void)
{
	struct awr_device *d = view("vpd-bl-boundary-mode.hex", 512, 512, NULL);

	EXPECT_LIMITS(derived_618(d), 512, 8192, 32768, 0, "boundary mode");
	T_EXPECT(has_finding(d, "scsi_boundary_mode"), "boundary mode finding");
	awr_device_free(d);

	/* 4 KiB physical blocks on 512 B logical ones: unit_min is a physical block */
	d = view("vpd-bl-boundary-mode.hex", 512, 4096, NULL);
	EXPECT_LIMITS(derived_618(d), 4096, 8192, 32768, 0, "boundary mode, 4K physical");
	awr_device_free(d);
}

static void test_relations(void)
{
	struct awr_scsi_id id;
	struct awr_device *d = view("vpd-bl-matl-above-max-transfer.hex", 512, 512, NULL);

	T_EXPECT(has_finding(d, "scsi_spec_matl_above_max_transfer"), "MATL > max transfer");
	awr_device_free(d);

	load("vpd-bl-scsi-debug-default.hex", 4096, 4096, &id);
	id.write_atomic16 = 0;
	d = view_id(&id, NULL);
	T_EXPECT(has_finding(d, "scsi_write_atomic16_unsupported"), "RSOC says no");
	awr_device_free(d);

	load("vpd-bl-scsi-debug-default.hex", 0, 0, &id);
	d = view_id(&id, NULL);
	T_EXPECT(has_finding(d, "scsi_block_size_unknown"), "no block size");
	T_EXPECT_EQ(
		awr_scsi_derive(&id, AWR_KERNEL(6, 18, 0), NULL, &(struct awr_device_limits){0}),
		-EINVAL, "derive without lbs");
	awr_device_free(d);
}

static void test_truncated(void)
{
	struct awr_scsi_id id = { 0 };
	size_t n = fixture_bytes("vpd-bl-truncated.hex", vpd, sizeof(vpd));

	T_EXPECT_EQ(n, 40, "truncated fixture length");
	T_EXPECT_EQ(awr_scsi_decode_bl_vpd(vpd, n, &id), -EMSGSIZE, "page length 0x3c in 40 bytes");
	vpd[1] = 0x83;
	T_EXPECT_EQ(awr_scsi_decode_bl_vpd(vpd, n, &id), -EINVAL, "page 83h is not Block Limits");
}

/* READ CAPACITY(16) and REPORT SUPPORTED OPERATION CODES parameter data (SBC/SPC). */
static void test_readcap_rsoc(void)
{
	uint8_t rc[32] = { 0 }, rsoc[16] = { 0 };
	struct awr_scsi_id id = { 0 };

	rc[6] = 0x3f;	/* last LBA 0x3fff */
	rc[7] = 0xff;
	rc[10] = 0x10;	/* 4096 bytes */
	rc[12] = 1 << 1 | 1;	/* P_TYPE 1 (type 2), PROT_EN */
	rc[13] = 1;	/* 2 logical blocks per physical block */
	T_EXPECT_EQ(awr__scsi_decode_readcap16(rc, sizeof(rc), &id), 0, "readcap16");
	T_EXPECT_EQ(id.nr_blocks, 0x4000, "blocks");
	T_EXPECT_EQ(id.logical_block_size, 4096, "lbs");
	T_EXPECT_EQ(id.physical_block_size, 8192, "pbs");
	T_EXPECT(id.prot_en && id.p_type == 1, "PI type 2");
	T_EXPECT_EQ(awr__scsi_decode_readcap16(rc, 8, &id), -EMSGSIZE, "short readcap");
	rc[10] = 0x11;	/* 4352: not a power of two */
	T_EXPECT_EQ(awr__scsi_decode_readcap16(rc, sizeof(rc), &id), -EINVAL, "bad block length");
	rsoc[1] = 3;
	awr__scsi_decode_rsoc(rsoc, sizeof(rsoc), &id);
	T_EXPECT_EQ(id.write_atomic16, 1, "support 3");
	rsoc[1] = 1;
	awr__scsi_decode_rsoc(rsoc, sizeof(rsoc), &id);
	T_EXPECT_EQ(id.write_atomic16, 0, "support 1");
	rsoc[1] = 0;
	awr__scsi_decode_rsoc(rsoc, sizeof(rsoc), &id);
	T_EXPECT_EQ(id.write_atomic16, -1, "support 0: unknown");
}

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	test_scsi_debug();
	test_pi();
	test_disabled();
	test_boundary_mode();
	test_relations();
	test_truncated();
	test_readcap_rsoc();
	return t_done("scsi_derive");
}
