// SPDX-License-Identifier: MIT
/* Description: NVMe identify fixtures decode to the spec's fields, derive the kernel's limits and
 * explain each case. */
#include "device_fixtures.h"

static uint8_t ctrl_buf[8192], ns_buf[8192];

/* Decode a controller and a namespace fixture into @id. */
static void load(const char *ctrl, const char *ns, struct awr_nvme_id *id)
{
	size_t n;

	memset(id, 0, sizeof(*id));
	if (ctrl) {
		n = fixture_bytes(ctrl, ctrl_buf, sizeof(ctrl_buf));
		T_EXPECT_EQ(n, 4096, ctrl);
		T_EXPECT_EQ(awr_nvme_decode_ctrl(ctrl_buf, n, id), 0, ctrl);
	}
	if (ns) {
		n = fixture_bytes(ns, ns_buf, sizeof(ns_buf));
		T_EXPECT_EQ(n, 4096, ns);
		T_EXPECT_EQ(awr_nvme_decode_ns(ns_buf, n, id), 0, ns);
	}
}

static struct awr_device *view(const char *ctrl, const char *ns, const struct awr_queue_caps *caps)
{
	struct awr_nvme_id id;
	struct awr_device *d = NULL;

	load(ctrl, ns, &id);
	if (awr_device_from_nvme(&id, caps, &d)) {
		printf("FAIL: awr_device_from_nvme(%s, %s)\n", ctrl, ns);
		exit(T_EXIT_FAIL);
	}
	return d;
}

/* QEMU atomic.awun=31 atomic.awupf=15, 4 KiB LBA, NSFEAT 0x34: the guest's sysfs. */
static void test_qemu(void)
{
	struct awr_queue_caps caps = {
		.max_segments = 128, .max_hw_bytes = 512 * 1024, .page_size = 4096};
	struct awr_device *d =
		view("ctrl-qemu-awun31-awupf15.hex", "ns-qemu-nsfeat34-4k.hex", &caps);
	const struct awr_nvme_id *id = awr_device_nvme(d);
	const struct awr_device_limits *alt = without_awupf(d);

	T_EXPECT_EQ(id->awun, 31, "awun");
	T_EXPECT_EQ(id->awupf, 15, "awupf");
	T_EXPECT_EQ(id->mdts, 7, "mdts");
	T_EXPECT_EQ(id->nsfeat, 0x34, "nsfeat");
	T_EXPECT_EQ(id->nawupf, 0, "nawupf");
	T_EXPECT_EQ(id->lbaf_index, 4, "lba format in use");
	T_EXPECT_EQ(id->lba_size, 4096, "lba size");
	T_EXPECT(with_awupf(d)->supported, "qemu: supported");
	T_EXPECT(with_awupf(d)->capped, "qemu: capped");
	EXPECT_LIMITS(with_awupf(d), 4096, 65536, 65536, 0, "qemu");
	T_EXPECT(alt != NULL, "qemu: an interpretation without AWUPF exists");
	if (alt)
		EXPECT_LIMITS(alt, 4096, 4096, 4096, 0, "qemu without AWUPF");
	T_EXPECT(has_finding(d, "nvme_nsabp_clear"), "nsabp_clear");
	T_EXPECT(has_finding(d, "nvme_awun_above_awupf"), "awun_above_awupf");
	T_EXPECT(has_finding(d, "nvme_awupf_ignored"), "awupf_ignored");
	/* which interpretation is which: 64 KiB with AWUPF (6.12), one block without (7.0+) */
	T_EXPECT(strstr(finding_message(d, "nvme_awupf_ignored"),
			"there atomic writes are 4096..4096 bytes instead of 4096..65536"),
		 "awupf_ignored names the limits without AWUPF first: %s",
		 finding_message(d, "nvme_awupf_ignored"));
	T_EXPECT(!has_finding(d, "block_caps_unknown"), "caps are known");
	awr_device_free(d);
}

/*
 * NSFEAT bit 1 set but NAWUPF 0: the kernel takes the per-namespace values only
 * when NAWUPF is non-zero, so the controller's AWUPF 15 gives 64 KiB (as in the
 * 6.12 guest), not one block, and NABSPF (valid only with NAWUPF) gives no
 * boundary; a kernel ignoring AWUPF has one block.
 */
static void test_nawupf_zero_awupf15(void)
{
	struct awr_queue_caps caps = {
		.max_segments = 128, .max_hw_bytes = 512 * 1024, .page_size = 4096};
	struct awr_device *d =
		view("ctrl-qemu-awun31-awupf15.hex", "ns-nsabp-set-nawupf0.hex", &caps);
	const struct awr_device_limits *alt = without_awupf(d);
	struct awr_nvme_id id;

	T_EXPECT_EQ(awr_device_nvme(d)->nsfeat & 2, 2, "NSFEAT bit 1 set");
	T_EXPECT_EQ(awr_device_nvme(d)->nawupf, 0, "NAWUPF 0");
	EXPECT_LIMITS(with_awupf(d), 4096, 65536, 65536, 0, "NAWUPF 0 falls back to AWUPF 15");
	T_EXPECT_EQ(with_awupf(d)->hw_max, 65536, "hw_max from AWUPF");
	T_EXPECT(has_finding(d, "nvme_nawupf_zero"), "nawupf_zero finding");
	T_EXPECT(strstr(finding_message(d, "nvme_nawupf_zero"), "AWUPF 15 (65536 bytes)"),
		 "nawupf_zero names AWUPF: %s", finding_message(d, "nvme_nawupf_zero"));
	T_EXPECT(!has_finding(d, "nvme_nsabp_clear"), "NSFEAT bit 1 is set");
	T_EXPECT(!has_finding(d, "nvme_single_block"), "not a single block");
	T_EXPECT(alt != NULL, "an interpretation without AWUPF exists");
	if (alt)
		EXPECT_LIMITS(alt, 4096, 4096, 4096, 0, "NAWUPF 0 without AWUPF");
	T_EXPECT(has_finding(d, "nvme_awupf_ignored"), "awupf_ignored finding");
	awr_device_free(d);

	load("ctrl-qemu-awun31-awupf15.hex", "ns-nsabp-set-nawupf0.hex", &id);
	id.nabspf = 31;			/* a boundary without NAWUPF: not used */
	T_EXPECT_EQ(awr_device_from_nvme(&id, &caps, &d), 0, "from_nvme");
	EXPECT_LIMITS(with_awupf(d), 4096, 65536, 65536, 0, "NABSPF without NAWUPF");
	T_EXPECT_EQ(with_awupf(d)->hw_boundary, 0, "no hw boundary without NAWUPF");
	awr_device_free(d);
}

/* The same offline: the block layer's caps are skipped and said so. */
static void test_offline(void)
{
	struct awr_device *d =
		view("ctrl-qemu-awun31-awupf15.hex", "ns-qemu-nsfeat34-4k.hex", NULL);

	T_EXPECT(!with_awupf(d)->capped, "offline: not capped");
	EXPECT_LIMITS(with_awupf(d), 4096, 65536, 65536, 0, "offline");
	T_EXPECT(has_finding(d, "block_caps_unknown"), "caps unknown finding");
	awr_device_free(d);
}

/* AWUPF 63 (256 KiB) capped by 128 segments of 4 KiB: 2*4K + 126*4K = 512 KiB, not binding;
 * max_hw 128 KiB binds. */
static void test_caps_bind(void)
{
	struct awr_queue_caps caps = {
		.max_segments = 128, .max_hw_bytes = 128 * 1024, .page_size = 4096};
	struct awr_device *d = view("ctrl-awupf63.hex", "ns-qemu-nsfeat34-4k.hex", &caps);

	EXPECT_LIMITS(with_awupf(d), 4096, 131072, 131072, 0, "awupf63 capped");
	T_EXPECT_EQ(with_awupf(d)->hw_unit_max, 262144, "hw_unit_max");
	T_EXPECT(has_finding(d, "block_caps_unit_max"), "caps narrow unit_max");
	T_EXPECT(has_finding(d, "block_caps_max_bytes"), "caps narrow max_bytes");
	awr_device_free(d);
	caps.max_segments = 4;		/* 2*4K + 2*4K = 16 KiB */
	caps.max_hw_bytes = 1 << 20;
	d = view("ctrl-awupf63.hex", "ns-qemu-nsfeat34-4k.hex", &caps);
	EXPECT_LIMITS(with_awupf(d), 4096, 16384, 262144, 0, "4 segments");
	awr_device_free(d);
}

static void test_namespace_atomics(void)
{
	struct awr_device *d = view("ctrl-qemu-awun31-awupf15.hex", "ns-nawupf-16k.hex", NULL);

	EXPECT_LIMITS(with_awupf(d), 4096, 16384, 16384, 0, "nawupf 3 at 4 KiB");
	T_EXPECT(without_awupf(d) == NULL, "no second interpretation with NAWUPF");
	T_EXPECT(has_finding(d, "nvme_spec_nawupf_below_awupf"), "NAWUPF 3 < AWUPF 15");
	T_EXPECT(!has_finding(d, "nvme_nsabp_clear"), "nsabp set");
	awr_device_free(d);

	d = view("ctrl-awupf0.hex", "ns-nsabp-set-nawupf0.hex", NULL);
	T_EXPECT(has_finding(d, "nvme_nawupf_zero"), "nawupf 0 falls back");
	EXPECT_LIMITS(with_awupf(d), 4096, 4096, 4096, 0, "awupf 0: one block");
	T_EXPECT(has_finding(d, "nvme_single_block"), "single block");
	awr_device_free(d);
}

static void test_nabo(void)
{
	struct awr_device *d = view("ctrl-awupf0.hex", "ns-nabo-nonzero.hex", NULL);

	T_EXPECT(!with_awupf(d)->supported, "NABO != 0 disables atomics");
	EXPECT_LIMITS(with_awupf(d), 0, 0, 0, 0, "nabo");
	T_EXPECT(has_finding(d, "nvme_nabo_nonzero"), "nabo finding");
	awr_device_free(d);
}

static void test_boundaries(void)
{
	struct awr_device *d = view("ctrl-awupf0.hex", "ns-boundary-not-pow2.hex", NULL);

	T_EXPECT(!with_awupf(d)->supported, "12-block boundary disables atomics");
	T_EXPECT_EQ(with_awupf(d)->hw_boundary, 12 * 4096, "hw boundary");
	T_EXPECT(has_finding(d, "nvme_boundary_not_pow2"), "boundary finding");
	T_EXPECT(has_finding(d, "block_layer_rejects"), "block layer finding");
	awr_device_free(d);

	d = view("ctrl-awupf0.hex", "ns-boundary-128k.hex", NULL);
	EXPECT_LIMITS(with_awupf(d), 4096, 65536, 65536, 131072,
		      "16-block unit, 32-block boundary");
	awr_device_free(d);
}

static void test_normal_vs_power_fail(void)
{
	struct awr_device *d = view("ctrl-awun-below-awupf.hex", "ns-nawun-above-nawupf.hex", NULL);

	T_EXPECT(has_finding(d, "nvme_spec_awupf_above_awun"), "AWUPF 15 > AWUN 3");
	T_EXPECT(has_finding(d, "nvme_nawun_above_nawupf"), "NAWUN 15 > NAWUPF 3");
	EXPECT_LIMITS(with_awupf(d), 4096, 16384, 16384, 0, "power-fail value used");
	awr_device_free(d);

	d = view("ctrl-awupf0.hex", "ns-nawupf-above-nawun.hex", NULL);
	T_EXPECT(has_finding(d, "nvme_spec_nawupf_above_nawun"), "NAWUPF 3 > NAWUN 1");
	awr_device_free(d);
}

static void test_dn(void)
{
	struct awr_nvme_id id;
	struct awr_device *d = NULL;

	load("ctrl-qemu-awun31-awupf15.hex", "ns-qemu-nsfeat34-4k.hex", &id);
	id.have_dn = true;
	id.dn = true;
	T_EXPECT_EQ(awr_device_from_nvme(&id, NULL, &d), 0, "from_nvme");
	T_EXPECT(d && has_finding(d, "nvme_dn_set"), "DN finding");
	awr_device_free(d);
}

static void test_lba_formats(void)
{
	struct awr_nvme_id id = { 0 };
	size_t n = fixture_bytes("ns-flbas-high-bits-format17.hex", ns_buf, sizeof(ns_buf));
	struct awr_device *d = NULL;

	T_EXPECT_EQ(awr_nvme_decode_ns(ns_buf, n, &id), 0, "format 17");
	T_EXPECT_EQ(id.lbaf_index, 17, "FLBAS 0x21 -> index 17");
	T_EXPECT_EQ(id.lba_size, 4096, "format 17 is 4 KiB");
	T_EXPECT_EQ(awr_device_from_nvme(&id, NULL, &d), 0, "from_nvme");
	T_EXPECT(d && !has_finding(d, "nvme_flbas_high_bits"), "NLBAF 19: high bits are valid");
	T_EXPECT(d && has_finding(d, "nvme_no_controller"), "no controller data");
	awr_device_free(d);

	n = fixture_bytes("ns-flbas-beyond-nlbaf.hex", ns_buf, sizeof(ns_buf));
	T_EXPECT_EQ(awr_nvme_decode_ns(ns_buf, n, &id), -EINVAL, "index 5 beyond NLBAF 1");
	n = fixture_bytes("ns-lbads-zero.hex", ns_buf, sizeof(ns_buf));
	T_EXPECT_EQ(awr_nvme_decode_ns(ns_buf, n, &id), -EINVAL, "LBADS 0");
	T_EXPECT(!id.have_ns, "invalid namespace is not marked decoded");
	memset(&id, 0, sizeof(id));
	T_EXPECT_EQ(
		awr_nvme_derive(&id, AWR_KERNEL(6, 18, 0), NULL, &(struct awr_device_limits){0}),
		-EINVAL, "derive without namespace");
}

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	test_qemu();
	test_offline();
	test_caps_bind();
	test_namespace_atomics();
	test_nawupf_zero_awupf15();
	test_nabo();
	test_boundaries();
	test_normal_vs_power_fail();
	test_dn();
	test_lba_formats();
	return t_done("nvme_derive");
}
