// SPDX-License-Identifier: MIT
/* Description: the device limits each kernel range derives (AWUPF before and from 7.0, the 6.13
 * sanity checks, NOIOB chunk_sectors from 6.17 and its backports, boundary and chunk from 6.18),
 * the ranges listed beside a kernel's answer and the finding that names the release. */
#include "device_fixtures.h"
#include "device/device.h"

static uint8_t ctrl_buf[8192], ns_buf[8192];

static void load(const char *ctrl, const char *ns, struct awr_nvme_id *id)
{
	size_t n;

	memset(id, 0, sizeof(*id));
	n = fixture_bytes(ctrl, ctrl_buf, sizeof(ctrl_buf));
	T_EXPECT_EQ(awr_nvme_decode_ctrl(ctrl_buf, n, id), 0, ctrl);
	n = fixture_bytes(ns, ns_buf, sizeof(ns_buf));
	T_EXPECT_EQ(awr_nvme_decode_ns(ns_buf, n, id), 0, ns);
}

static struct awr_device_limits at(const struct awr_nvme_id *id, uint32_t kernel)
{
	struct awr_device_limits l;

	T_EXPECT_EQ(awr_nvme_derive(id, kernel, NULL, &l), 0, "derive");
	return l;
}

/* The QEMU controller AWUPF 15 without namespace fields: 64 KiB until 6.19, one block from 7.0. */
static void test_awupf(void)
{
	struct awr_nvme_id id;
	struct awr_device *d = NULL;
	struct awr_device_limits l;
	const char *label = NULL;

	load("ctrl-qemu-awun31-awupf15.hex", "ns-qemu-nsfeat34-4k.hex", &id);
	l = at(&id, AWR_KERNEL(6, 12, 57));
	EXPECT_LIMITS(&l, 4096, 65536, 65536, 0, "6.12.57");
	l = at(&id, AWR_KERNEL(6, 19, 9));
	EXPECT_LIMITS(&l, 4096, 65536, 65536, 0, "6.19.9");
	l = at(&id, AWR_KERNEL(7, 0, 0));
	EXPECT_LIMITS(&l, 4096, 4096, 4096, 0, "7.0");
	l = at(&id, AWR_KERNEL(6, 1, 0));
	T_EXPECT(!l.supported && !l.unit_max, "6.1: no atomic writes");

	T_EXPECT_EQ(awr_device_from_nvme(&id, NULL, &d), 0, "view");
	T_EXPECT_EQ(awr_device_set_kernel(d, AWR_KERNEL(7, 3, 4)), 0, "set 7.3.4");
	T_EXPECT_EQ(awr_device_kernel(d), AWR_KERNEL(7, 3, 4), "kernel");
	EXPECT_LIMITS(awr_device_derived(d), 4096, 4096, 4096, 0, "view on 7.3.4");
	T_EXPECT_EQ(awr_device_nr_kernel_ranges(d), 1, "one other answer");
	l = *awr_device_kernel_range(d, 0, &label);
	T_EXPECT(label && !strcmp(label, "6.11-6.19"), "merged range: %s",
		 label ? label : "(null)");
	EXPECT_LIMITS(&l, 4096, 65536, 65536, 0, "6.11-6.19");
	T_EXPECT(awr_device_kernel_range(d, 1, NULL) == NULL, "no second range");
	T_EXPECT(!strcmp(finding_message(d, "kernel_limits_change"),
			 "from 7.0 this namespace writes one block (4 KiB) atomically: AWUPF is "
			 "ignored; 4 KiB..64 KiB before"),
		 "finding: %s", finding_message(d, "kernel_limits_change"));
	T_EXPECT(has_finding(d, "nvme_single_block"), "single block on 7.3.4");
	T_EXPECT(strstr(finding_message(d, "nvme_nsabp_clear"), "kernel 7.3.4 ignores the "
								"controller's AWUPF 15"),
		 "nsabp_clear for 7.3.4: %s", finding_message(d, "nvme_nsabp_clear"));
	/* the interpretations with and without AWUPF stay whatever the kernel */
	EXPECT_LIMITS(with_awupf(d), 4096, 65536, 65536, 0, "with AWUPF");
	T_EXPECT_EQ(awr_device_set_kernel(d, AWR_KERNEL(6, 12, 57)), 0, "set 6.12.57");
	EXPECT_LIMITS(awr_device_derived(d), 4096, 65536, 65536, 0, "view on 6.12.57");
	T_EXPECT(awr_device_kernel_range(d, 0, &label) && !strcmp(label, "7.0+"),
		 "7.0+ beside 6.12");
	T_EXPECT(!has_finding(d, "nvme_single_block"), "not one block on 6.12");
	T_EXPECT_EQ(awr_device_set_kernel(d, AWR_KERNEL(1, 0, 0)), -EINVAL, "release below 2.0");
	awr_device_free(d);
}

/* NAWUPF used by every release: one answer, no ranges beside it. */
static void test_namespace_fields(void)
{
	struct awr_nvme_id id;
	struct awr_device *d = NULL;

	load("ctrl-qemu-awun31-awupf15.hex", "ns-nawupf-16k.hex", &id);
	T_EXPECT_EQ(awr_device_from_nvme(&id, NULL, &d), 0, "view");
	for (uint32_t k = AWR_KERNEL(6, 11, 0); k <= AWR_KERNEL(7, 3, 0); k += 1000) {
		T_EXPECT_EQ(awr_device_set_kernel(d, k), 0, "set");
		EXPECT_LIMITS(awr_device_derived(d), 4096, 16384, 16384, 0, "NAWUPF 3 on every "
									    "release");
		T_EXPECT_EQ(awr_device_nr_kernel_ranges(d), 0, "no differing range");
		T_EXPECT(!has_finding(d, "kernel_limits_change"), "no change");
	}
	awr_device_free(d);
}

/*
 * NOIOB 8 blocks = 32 KiB chunk_sectors under AWUPF 15 (64 KiB): from 6.17
 * (6.15.10, 6.16.1) the block layer turns atomics off, before it keeps them.
 */
static void test_noiob_chunk(void)
{
	struct awr_nvme_id id;
	struct awr_device *d = NULL;
	struct awr_device_limits l;
	struct awr_queue_caps caps = { .chunk_bytes = 128 * 1024 };

	load("ctrl-qemu-awun31-awupf15.hex", "ns-qemu-nsfeat34-4k.hex", &id);
	id.noiob = 8;
	l = at(&id, AWR_KERNEL(6, 16, 0));
	EXPECT_LIMITS(&l, 4096, 65536, 65536, 0, "6.16.0 keeps atomics");
	l = at(&id, AWR_KERNEL(6, 16, 1));
	T_EXPECT(!l.supported, "6.16.1: chunk 32 KiB < 64 KiB turns atomics off");
	l = at(&id, AWR_KERNEL(6, 15, 9));
	T_EXPECT(l.supported, "6.15.9 keeps atomics");
	l = at(&id, AWR_KERNEL(6, 15, 10));
	T_EXPECT(!l.supported, "6.15.10 has the backport");
	l = at(&id, AWR_KERNEL(6, 17, 0));
	T_EXPECT(!l.supported, "6.17");
	/* a live device's queue/chunk_sectors is what the kernel applied: 128 KiB keeps them */
	T_EXPECT_EQ(awr_nvme_derive(&id, AWR_KERNEL(6, 17, 0), &caps, &l), 0, "with sysfs chunk");
	T_EXPECT(l.supported && l.unit_max == 65536, "chunk 128 KiB from sysfs");
	/* NOIOB 12 blocks is 96 sectors, not a power of two: the driver ignores it */
	id.noiob = 12;
	l = at(&id, AWR_KERNEL(6, 17, 0));
	T_EXPECT(l.supported, "an unaligned NOIOB is ignored");

	id.noiob = 8;
	T_EXPECT_EQ(awr_device_from_nvme(&id, NULL, &d), 0, "view");
	T_EXPECT_EQ(awr_device_set_kernel(d, AWR_KERNEL(6, 17, 0)), 0, "set 6.17");
	T_EXPECT_EQ(awr_device_chunk_bytes(d), 32768, "chunk from NOIOB");
	T_EXPECT(!awr_device_derived(d)->supported, "off on 6.17");
	T_EXPECT(has_finding(d, "block_layer_rejects"), "block_layer_rejects");
	T_EXPECT(strstr(finding_message(d, "block_layer_rejects"), "chunk_sectors is smaller than "
								   "the device maximum"),
		 "names chunk_sectors: %s", finding_message(d, "block_layer_rejects"));
	T_EXPECT(strstr(finding_message(d, "kernel_limits_change"),
			"from 6.17 atomic writes are off: chunk_sectors (32 KiB) is smaller than "
			"the device maximum (64 KiB)"),
		 "finding names 6.17: %s", finding_message(d, "kernel_limits_change"));
	awr_device_free(d);
}

/*
 * NAWUPF 7 (32 KiB) with NABSPF 15 (64 KiB boundary) and NOIOB 8 (32 KiB
 * chunk): up to 6.17 chunk_sectors must be a multiple of the boundary (off);
 * from 6.18 either may be the multiple (on).
 */
static void test_boundary_chunk(void)
{
	struct awr_nvme_id id;
	struct awr_device_limits l;

	load("ctrl-qemu-awun31-awupf15.hex", "ns-nawupf-16k.hex", &id);
	id.nawupf = 7;
	id.nawun = 7;
	id.nabspf = 15;
	id.nabsn = 15;
	id.noiob = 8;
	l = at(&id, AWR_KERNEL(6, 17, 5));
	T_EXPECT(!l.supported, "6.17: chunk 32 KiB not a multiple of the 64 KiB boundary");
	l = at(&id, AWR_KERNEL(6, 12, 57));
	T_EXPECT(!l.supported, "6.12: the same rule");
	l = at(&id, AWR_KERNEL(6, 18, 0));
	EXPECT_LIMITS(&l, 4096, 32768, 32768, 65536, "6.18: multiples of each other");
	id.noiob = 0;
	l = at(&id, AWR_KERNEL(6, 12, 57));
	EXPECT_LIMITS(&l, 4096, 32768, 32768, 65536, "no chunk: the QEMU 11 case on every kernel");
}

/* NAWUPF 15 (64 KiB) above a 32 KiB boundary: 6.13's sanity check turns it off, 6.11 did not
 * check. */
static void test_sanity_checks(void)
{
	struct awr_nvme_id id;
	struct awr_device_limits l;

	load("ctrl-qemu-awun31-awupf15.hex", "ns-nawupf-16k.hex", &id);
	id.nawupf = 15;
	id.nawun = 15;
	id.nabspf = 7;
	l = at(&id, AWR_KERNEL(6, 12, 57));
	EXPECT_LIMITS(&l, 4096, 65536, 65536, 32768, "6.12 keeps a boundary below hw_max");
	l = at(&id, AWR_KERNEL(6, 13, 0));
	T_EXPECT(!l.supported, "6.13: hw_max above the boundary turns atomics off");
}

/* SCSI: sd_config_atomic is the same on every release; the block layer's rules apply to it too. */
static void test_scsi(void)
{
	static uint8_t vpd[4096];
	struct awr_scsi_id id = { .write_atomic16 = -1 };
	struct awr_device_limits l;
	size_t n = fixture_bytes("vpd-bl-scsi-debug-default.hex", vpd, sizeof(vpd));

	T_EXPECT_EQ(awr_scsi_decode_bl_vpd(vpd, n, &id), 0, "vpd");
	id.logical_block_size = id.physical_block_size = 4096;
	T_EXPECT_EQ(awr_scsi_derive(&id, AWR_KERNEL(6, 12, 57), NULL, &l), 0, "6.12");
	EXPECT_LIMITS(&l, 8192, 8192 * 4096U, 8192 * 4096U, 0, "scsi_debug on 6.12, uncapped");
	T_EXPECT_EQ(awr_scsi_derive(&id, AWR_KERNEL(6, 17, 0),
				    &(struct awr_queue_caps){.chunk_bytes = 1 << 20}, &l),
		    0, "6.17");
	T_EXPECT(!l.supported, "6.17: a 1 MiB chunk below the 32 MiB maximum");
	T_EXPECT_EQ(awr_scsi_derive(&id, AWR_KERNEL(6, 16, 0),
				    &(struct awr_queue_caps){.chunk_bytes = 1 << 20}, &l),
		    0, "6.16");
	T_EXPECT(l.supported, "6.16.0: no chunk rule yet");
}

/* A multipath head node (sysfs multipath/, set by the device read): 0 before 6.15 and 6.14.10. */
static void test_head(void)
{
	struct awr_nvme_id id;
	struct awr_device *d = NULL;
	const char *label = NULL;

	load("ctrl-qemu-awun31-awupf15.hex", "ns-nawupf-16k.hex", &id);
	id.nawupf = 7;
	T_EXPECT_EQ(awr_device_from_nvme(&id, NULL, &d), 0, "view");
	d->mpath_head = true;
	awr__strjoin(d->disk, sizeof(d->disk), "", "nvme0n1");
	T_EXPECT_EQ(awr_device_set_kernel(d, AWR_KERNEL(6, 12, 57)), 0, "6.12.57");
	T_EXPECT(!awr_device_derived(d)->supported, "a 6.12 head reads 0");
	T_EXPECT(strstr(finding_message(d, "nvme_head_no_limits"), "nvme0n1 is an NVMe multipath "
								   "head node: kernel 6.12.57"),
		 "head finding: %s", finding_message(d, "nvme_head_no_limits"));
	T_EXPECT(awr_device_kernel_range(d, 0, &label) && !strcmp(label, "6.15+"),
		 "6.15+ beside: %s", label ? label : "(null)");
	T_EXPECT(strstr(finding_message(d, "kernel_limits_change"), "from 6.15 atomic writes are 4 "
								    "KiB..32 KiB: the multipath "
								    "head node stacks"),
		 "change at 6.15: %s", finding_message(d, "kernel_limits_change"));
	T_EXPECT_EQ(awr_device_set_kernel(d, AWR_KERNEL(6, 14, 10)), 0, "6.14.10");
	EXPECT_LIMITS(awr_device_derived(d), 4096, 32768, 32768, 0, "6.14.10 head");
	T_EXPECT(!has_finding(d, "nvme_head_no_limits"), "no head finding on 6.14.10");
	awr_device_free(d);
}

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	test_awupf();
	test_namespace_fields();
	test_noiob_chunk();
	test_boundary_chunk();
	test_sanity_checks();
	test_scsi();
	test_head();
	return t_done("kernel_derive");
}
