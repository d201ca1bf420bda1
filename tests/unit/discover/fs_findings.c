// SPDX-License-Identifier: MIT
/*
 * Description: awr_fs_findings() on made-up filesystem views: the ids and the
 * numbers in their sentences, the extent share, and the room given.
 */
#include <string.h>

#include "helpers.h"
#include "libatomicwr.h"

static const struct awr_finding *find(const struct awr_finding *f, unsigned int n, const char *id)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id))
			return &f[i];
	return NULL;
}

#define EXPECT_FINDING(f, n, id, text) do {						\
	const struct awr_finding *x_ = find(f, n, id);					\
	T_EXPECT(x_ && strstr(x_->message, text) && x_->severity == AWR_SEV_INFO,	\
		 "%s: \"%s\" in %s", id, text, x_ ? x_->message : "(none)");		\
} while (0)

static struct awr_fs_view xfs(uint32_t hw_max, uint64_t sw_max, bool reflink)
{
	struct awr_fs_view v = { .type = AWR_FS_XFS, .block_size = 4096, .atomic = true,
				 .unit_min = 4096, .unit_max = (uint32_t)sw_max, .reflink = reflink,
				 .ag_size = 1ULL << 30, .ag_count = 4, .software_max = sw_max,
				 .hw_atomic = hw_max != 0, .hw_unit_min = 4096,
				 .hw_unit_max = hw_max,
				 .hardware_max = hw_max };

	snprintf(v.type_name, sizeof(v.type_name), "xfs");
	return v;
}

int main(void)
{
	struct awr_finding f[16];
	struct awr_extent_report r = { .unit = 16384, .total_bytes = 1 << 20,
				       .aligned_bytes = 1 << 19, .nr_misaligned = 3 };
	struct awr_fs_view v;
	unsigned int n;

	/* XFS with reflink on a 16 KiB device: in place to 16 KiB, copy-on-write above */
	v = xfs(16384, 1 << 20, true);
	n = awr_fs_findings(&v, &r, f, 16);
	EXPECT_FINDING(f, n, "fs_hardware_path", "up to 16 KiB in place where extents are 16 KiB "
		       "aligned; larger, up to 1 MiB, by copy-on-write");
	EXPECT_FINDING(f, n, "fs_no_stripe_unit", "mkfs.xfs -d su=16 KiB,sw=1");
	EXPECT_FINDING(f, n, "fs_extents", "512 KiB of 1 MiB mapped bytes lie in 16 KiB-aligned "
		       "units (50%); 3 misaligned ranges");
	T_EXPECT(!find(f, n, "fs_no_reflink"), "reflink: no fs_no_reflink");

	/* a stripe unit of the hardware unit: no advice to set one; without extents, no share */
	v.stripe_unit = 65536;
	n = awr_fs_findings(&v, NULL, f, 16);
	T_EXPECT(!find(f, n, "fs_no_stripe_unit"), "stripe unit 64 KiB: no fs_no_stripe_unit");
	T_EXPECT(!find(f, n, "fs_extents"), "no report: no fs_extents");

	/* no reflink, no device atomics: nothing but the block */
	v = xfs(0, 0, false);
	n = awr_fs_findings(&v, NULL, f, 16);
	EXPECT_FINDING(f, n, "fs_no_reflink", "no copy-on-write path");
	/* copy-on-write only, a device without atomics: the probe's software_path_only says it */
	v = xfs(0, 1 << 20, true);
	n = awr_fs_findings(&v, NULL, f, 16);
	T_EXPECT(!find(f, n, "fs_software_only"), "no device atomics: no second fs_software_only");
	/* copy-on-write only, the device's unit above the block: that is the filesystem's fact */
	v.hw_atomic = true;
	v.hw_unit_min = 16384;
	n = awr_fs_findings(&v, NULL, f, 16);
	EXPECT_FINDING(f, n, "fs_software_only", "up to 1 MiB are served by copy-on-write only: "
		       "the device's atomic unit does not cover the filesystem block");

	/* the AG size caps what the device could write */
	v = xfs(16384, 1 << 20, true);
	v.hw_unit_max = 65536;
	v.ag_atomic_max = 8192;
	n = awr_fs_findings(&v, NULL, f, 16);
	EXPECT_FINDING(f, n, "fs_ag_size_caps_atomic",
		       "(262144 blocks) caps atomic writes at 8 KiB");

	/* ext4: one block without bigalloc, a cluster with it, unknown without the superblock */
	memset(&v, 0, sizeof(v));
	v.type = AWR_FS_EXT4;
	v.block_size = 4096;
	v.atomic = true;
	v.bigalloc_known = true;
	n = awr_fs_findings(&v, NULL, f, 16);
	EXPECT_FINDING(f, n, "fs_ext4_one_block", "one block (4 KiB)");
	EXPECT_FINDING(f, n, "fs_ext4_no_device", "no atomic support");
	v.bigalloc = true;
	v.cluster_size = v.unit_max = 65536;
	n = awr_fs_findings(&v, NULL, f, 16);
	EXPECT_FINDING(f, n, "fs_ext4_bigalloc", "clusters of 64 KiB: atomic writes up to 64 KiB");
	v.atomic = false;
	n = awr_fs_findings(&v, NULL, f, 16);
	/* said for the running kernel: "Linux 6.13+" to a 6.18 reader read as "too old" */
	EXPECT_FINDING(f, n, "fs_no_atomic", awr_kernel_has(awr_kernel_running(),
		       AWR_KRULE_FS_ONE_BLOCK) ? "on this kernel XFS and ext4 take them where" :
		       "from Linux 6.13, this kernel is older");
	T_EXPECT_EQ(n, 1, "no atomic writes: that finding alone");

	/* no room, one place */
	v = xfs(16384, 1 << 20, true);
	T_EXPECT_EQ(awr_fs_findings(&v, &r, NULL, 16), 0, "no room: none");
	T_EXPECT_EQ(awr_fs_findings(&v, &r, f, 1), 1, "room for one: one");
	T_EXPECT(!strcmp(f[0].id, "fs_hardware_path"), "the first kept: %s", f[0].id);
	return t_done("fs_findings");
}
