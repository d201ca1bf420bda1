// SPDX-License-Identifier: MIT
/*
 * Description: the page store's hardware-mode rule on XFS on made-up extent maps: a store whose
 * every 16 KiB page lies in one naturally aligned extent within the device's atomic limit goes in
 * place; a misaligned extent, a hole, a shared extent, an empty file, a page above the device's
 * limit do not (each must be refused, so a rule that always says yes fails here).
 */
#include <stdint.h>

#include "pages/pages.h"
#include "helpers.h"

#define KIB 1024ULL
#define SHARED 0x2000U	/* FIEMAP_EXTENT_SHARED */

static struct awr_fs_view xfs(uint64_t hardware_max)
{
	struct awr_fs_view v = {.type = AWR_FS_XFS,
				.block_size = 4096,
				.atomic = true,
				.unit_min = 4096,
				.unit_max = 1 << 20,
				.unit_max_opt = (uint32_t)hardware_max,
				.reflink = true,
				.ag_size = 1ULL << 30,
				.ag_count = 4,
				.hardware_max = hardware_max};

	return v;
}

static bool judge(const struct awr_fs_view *fs, struct awr_extent *e, unsigned int n, uint64_t size,
		  const char *name, bool want)
{
	struct awr_extent_report r = {
		.unit = 16 * KIB, .file_size = size, .nr_extents = n, .extents = e};
	char why[384] = "";
	bool got;

	for (unsigned int i = 0; i < n; i++)
		r.total_bytes += e[i].length;
	got = awr__pages_xfs_in_place(fs, &r, 16 * KIB, why, sizeof(why));
	printf("%-22s %s: %s\n", name, got ? "in place" : "not    ", why);
	T_EXPECT(got == want, "%s: got %d, expected %d (%s)", name, got, want, why);
	T_EXPECT(got || strlen(why) > 20, "%s: a refusal says why", name);
	return got;
}

int main(void)
{
	struct awr_fs_view fs16 = xfs(16 * KIB), fs4 = xfs(4 * KIB);
	struct awr_extent two[2] = {
		{ .logical = 0, .physical = 64 * KIB, .length = 256 * KIB },
		{ .logical = 256 * KIB, .physical = 1024 * KIB, .length = 768 * KIB },
	};
	struct awr_extent misaligned[2] = {
		{ .logical = 0, .physical = 64 * KIB, .length = 256 * KIB },
		{ .logical = 256 * KIB, .physical = 1028 * KIB, .length = 768 * KIB },
	};
	struct awr_extent hole[2] = {
		{ .logical = 0, .physical = 64 * KIB, .length = 256 * KIB },
		{ .logical = 512 * KIB, .physical = 1024 * KIB, .length = 512 * KIB },
	};
	struct awr_extent shared[1] = {
		{.logical = 0, .physical = 64 * KIB, .length = 1024 * KIB, .flags = SHARED}};
	struct awr_extent short_end[1] = {
		{.logical = 0, .physical = 64 * KIB, .length = 512 * KIB}};

	judge(&fs16, two, 2, 1024 * KIB, "aligned extents", true);
	judge(&fs16, misaligned, 2, 1024 * KIB, "misaligned extent", false);
	judge(&fs16, hole, 2, 1024 * KIB, "a hole", false);
	judge(&fs16, shared, 1, 1024 * KIB, "shared extent", false);
	judge(&fs16, short_end, 1, 1024 * KIB, "unallocated end", false);
	judge(&fs16, two, 0, 0, "empty file", false);
	judge(&fs4, two, 2, 1024 * KIB, "page above hw limit", false);
	return t_done("pages_hardware_rule");
}
