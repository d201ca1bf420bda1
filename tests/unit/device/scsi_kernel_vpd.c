// SPDX-License-Identifier: MIT
/* Description: sd derives atomic limits only from the Block Limits page the kernel's SCSI layer
 * holds (sysfs device/vpd_pgb0): a SCSI disk without it (a tcm_loop LUN on 7.3.4) derives none for
 * the running kernel, with the finding scsi_kernel_no_vpd, while the same page with it derives the
 * target's limits; a fixture directory without scsi_level is not taken for the kernel's. */
#include "helpers.h"
#include "device/device.h"
#include "sysfs_fixture.h"

/* LIO over a NAWUPF 7 namespace (7.3.4): MATL 8, granularity and alignment 1, 4 KiB blocks. */
static struct awr_device *lio_view(void)
{
	struct awr_queue_caps caps = {
		.max_segments = 256, .max_hw_bytes = 32764 << 10, .page_size = 4096};
	struct awr_scsi_id id = { 0 };
	struct awr_device *d = NULL;

	id.write_atomic16 = 1;
	id.have_vpd = true;
	id.vpd_has_atomic = true;
	id.vpd_page_length = 0x3c;
	id.max_atomic_transfer_length = 8;
	id.atomic_alignment = 1;
	id.atomic_granularity = 1;
	id.logical_block_size = 4096;
	id.physical_block_size = 4096;
	if (awr_device_from_scsi(&id, &caps, &d)) {
		printf("FAIL: awr_device_from_scsi\n");
		exit(T_EXIT_FAIL);
	}
	return d;
}

static bool has_finding(const struct awr_device *d, const char *id)
{
	for (unsigned int i = 0; i < d->nr_findings; i++)
		if (!strcmp(d->findings[i].id, id))
			return true;
	return false;
}

static void test_derive(void)
{
	struct awr_device *d = lio_view();

	T_EXPECT_EQ(d->kder.unit_max, 32768, "with the page: the target's 32 KiB");
	T_EXPECT(!has_finding(d, "scsi_kernel_no_vpd"), "no finding with the page");
	d->scsi_kernel_no_vpd = true;
	awr__device_derive(d);
	T_EXPECT_EQ(d->kder.unit_max, 0, "without the page: none for the running kernel");
	T_EXPECT_EQ(d->kder.max_bytes, 0, "max_bytes none");
	T_EXPECT(has_finding(d, "scsi_kernel_no_vpd"), "the finding names the missing page");
	T_EXPECT_EQ(d->derived.unit_max, 32768, "the device's own derivation stays the page's");
	awr_device_free(d);
}

static void test_sysfs(void)
{
	fx_mkdir("block/sda/device");
	fx_put("block/sda/device/scsi_level", "7\n");
	fx_mkdir("block/sdb/device");
	fx_put("block/sdb/device/scsi_level", "8\n");
	fx_put("block/sdb/device/vpd_pgb0", "x");
	fx_mkdir("block/sdc/device/scsi_disk");
	T_EXPECT(awr__scsi_kernel_lacks_vpd("sda"), "sda: scsi_level, no vpd_pgb0");
	T_EXPECT(!awr__scsi_kernel_lacks_vpd("sdb"), "sdb: the page is there");
	T_EXPECT(!awr__scsi_kernel_lacks_vpd("sdc"), "sdc: no scsi_level, not the kernel's "
						     "directory");
	T_EXPECT(!awr__scsi_kernel_lacks_vpd(""), "no disk");
	T_EXPECT(!awr__scsi_kernel_lacks_vpd("sdz"), "no such disk");
}

int main(void)
{
	fx_make_root("scsivpd");
	atexit(fx_remove_at_exit);
	awr_set_sysfs_root(fx_root);
	test_derive();
	test_sysfs();
	return t_done("scsi_kernel_vpd");
}
