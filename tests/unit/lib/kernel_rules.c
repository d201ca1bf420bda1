// SPDX-License-Identifier: MIT
/* Description: the kernel rules table: releases parsed from uname -r with distribution suffixes,
 * each rule at its mainline step and at its stable backports (not the release before), the
 * partition start rule with a capped unit_min, the derivation ranges. */
#include <stdbool.h>
#include <stdint.h>

#include "helpers.h"
#include "kernel.h"
#include "libatomicwr.h"

static void expect_parse(const char *release, uint32_t want)
{
	uint32_t k = 0;
	int ret = awr_kernel_parse(release, &k);

	T_EXPECT(ret == 0 && k == want, "parse %s: ret %d, %u (expected %u)", release, ret, k,
		 want);
}

static void expect_reject(const char *release)
{
	uint32_t k = 12345;

	T_EXPECT(awr_kernel_parse(release, &k) == -EINVAL && k == 12345, "%s must be refused",
		 release);
}

static void test_parse(void)
{
	char buf[16];

	expect_parse("6.12.57+deb13-amd64", AWR_KERNEL(6, 12, 57));
	expect_parse("7.3.4+deb13-amd64", AWR_KERNEL(7, 3, 4));
	expect_parse("6.18.15-1-pve", AWR_KERNEL(6, 18, 15));
	expect_parse("6.1.0-28-cloud-amd64", AWR_KERNEL(6, 1, 0));
	expect_parse("7.0", AWR_KERNEL(7, 0, 0));
	expect_parse("7.0-rc3", AWR_KERNEL(7, 0, 0));
	expect_parse("6.6.120", AWR_KERNEL(6, 6, 120));
	expect_reject("");
	expect_reject("7");
	expect_reject("7.");
	expect_reject("7.x");
	expect_reject("6.12.");
	expect_reject("v6.12");
	expect_reject("1.2");
	expect_reject("6.1234");
	T_EXPECT(awr_kernel_parse(NULL, &(uint32_t){ 0 }) == -EINVAL, "NULL release");
	T_EXPECT(!strcmp(awr_kernel_format(AWR_KERNEL(6, 12, 57), buf, sizeof(buf)), "6.12.57"),
		 "format %s", buf);
	T_EXPECT(!strcmp(awr_kernel_format(AWR_KERNEL(7, 0, 0), buf, sizeof(buf)), "7.0"),
		 "format %s", buf);
	T_EXPECT(awr_kernel_running() >= AWR_KERNEL(2, 0, 0), "the running kernel parses");
}

struct edge {
	enum awr_kernel_rule rule;
	uint32_t without, with;		/* the last release without it, the first with it */
};

/* Each boundary of the table, from kernel-abi "What changed between kernels". */
static const struct edge edges[] = {
	{AWR_KRULE_ATOMIC_WRITES, AWR_KERNEL(6, 10, 14), AWR_KERNEL(6, 11, 0)},
	{AWR_KRULE_BLK_SANITY, AWR_KERNEL(6, 12, 60), AWR_KERNEL(6, 13, 0)},
	{AWR_KRULE_DIRECT_PER_WRITE, AWR_KERNEL(6, 11, 10), AWR_KERNEL(6, 11, 11)},
	{AWR_KRULE_DIRECT_PER_WRITE, AWR_KERNEL(6, 12, 1), AWR_KERNEL(6, 12, 2)},
	{AWR_KRULE_DIRECT_PER_WRITE, AWR_KERNEL(6, 12, 1), AWR_KERNEL(6, 13, 0)},
	{AWR_KRULE_FS_ONE_BLOCK, AWR_KERNEL(6, 12, 60), AWR_KERNEL(6, 13, 0)},
	{AWR_KRULE_MD_STACK, AWR_KERNEL(6, 12, 60), AWR_KERNEL(6, 13, 0)},
	{AWR_KRULE_DM_STACK, AWR_KERNEL(6, 13, 12), AWR_KERNEL(6, 14, 0)},
	{AWR_KRULE_PART_HW_UNIT_MIN, AWR_KERNEL(6, 13, 1), AWR_KERNEL(6, 13, 2)},
	{AWR_KRULE_PART_HW_UNIT_MIN, AWR_KERNEL(6, 13, 1), AWR_KERNEL(6, 14, 0)},
	{AWR_KRULE_NVME_MPATH_HEAD, AWR_KERNEL(6, 14, 9), AWR_KERNEL(6, 14, 10)},
	{AWR_KRULE_NVME_MPATH_HEAD, AWR_KERNEL(6, 14, 9), AWR_KERNEL(6, 15, 0)},
	{AWR_KRULE_FS_LARGE, AWR_KERNEL(6, 15, 11), AWR_KERNEL(6, 16, 0)},
	{AWR_KRULE_CHUNK_LIMIT, AWR_KERNEL(6, 15, 9), AWR_KERNEL(6, 15, 10)},
	{AWR_KRULE_CHUNK_LIMIT, AWR_KERNEL(6, 16, 0), AWR_KERNEL(6, 16, 1)},
	{AWR_KRULE_CHUNK_LIMIT, AWR_KERNEL(6, 14, 11), AWR_KERNEL(6, 17, 0)},
	{AWR_KRULE_BOUNDARY_CHUNK_EITHER, AWR_KERNEL(6, 17, 13), AWR_KERNEL(6, 18, 0)},
	{AWR_KRULE_NVME_NO_AWUPF, AWR_KERNEL(6, 19, 8), AWR_KERNEL(7, 0, 0)},
	{AWR_KRULE_DM_CRYPT_STACK, AWR_KERNEL(6, 18, 15), AWR_KERNEL(6, 19, 0)},
	{AWR_KRULE_DM_MPATH_STACK, AWR_KERNEL(6, 19, 8), AWR_KERNEL(7, 0, 0)},
	{AWR_KRULE_XFS_MAX_ATOMIC_WRITE, AWR_KERNEL(6, 15, 11), AWR_KERNEL(6, 16, 0)},
	{AWR_KRULE_XFS_MAW_REFLINK, AWR_KERNEL(6, 16, 12),
	 AWR_KERNEL(6, 17, 0)}, /* no 6.16.y backport seen */
	{AWR_KRULE_DAX_NO_ATOMIC, AWR_KERNEL(6, 16, 12), AWR_KERNEL(6, 17, 0)},
	{AWR_KRULE_LIO_ATOMIC, AWR_KERNEL(6, 18, 15), AWR_KERNEL(6, 19, 0)},
	/* a bug row: the fix posted for 7.4; Debian's 7.3.4 tears (a 7.3 guest, qualify's
	 * short_pin) */
	{AWR_KRULE_SHORT_PIN_FIXED, AWR_KERNEL(7, 3, 4), AWR_KERNEL(7, 4, 0)},
};

/* The rows whose step lies after the newest kernel of the guests (7.3.4): not "on 7.3.4". */
static bool after_guests(enum awr_kernel_rule rule)
{
	return rule == AWR_KRULE_SHORT_PIN_FIXED;
}

/* Every rule has an edge at its mainline release (X.Y.0, from the table's own "since"). */
static void test_mainline_steps(void)
{
	char since[64];

	for (int r = 0; r < AWR_KRULE__COUNT; r++) {
		uint32_t k = 0;
		bool found = false;

		awr_kernel_rule_since(r, since, sizeof(since));
		T_EXPECT(!awr_kernel_parse(since, &k), "rule %s: since '%s' parses",
			 awr_kernel_rule_name(r), since);
		for (unsigned int i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
			found |= edges[i].rule == (enum awr_kernel_rule)r && edges[i].with == k;
		T_EXPECT(found, "rule %s: no edge tests its mainline step %s",
			 awr_kernel_rule_name(r), since);
	}
}

/*
 * blk_atomic_write_start_sect_aligned(): a driver's 64 KiB hw_unit_min that max_hw_sectors_kb 32
 * capped to a 32 KiB unit_min. A start at 32 KiB passes before 6.14 (and 6.13.2), not after.
 */
static void test_part_start(void)
{
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(6, 12, 60), 32768, 65536, 0), 32768,
		    "6.12: unit_min");
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(6, 13, 1), 32768, 65536, 0), 32768,
		    "6.13.1: unit_min");
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(6, 13, 2), 32768, 65536, 0), 65536,
		    "6.13.2: hw_unit_min");
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(6, 14, 0), 32768, 65536, 0), 65536,
		    "6.14: hw_unit_min");
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(7, 3, 4), 32768, 65536, 0), 65536,
		    "7.3: hw_unit_min");
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(7, 3, 4), 32768, 0, 0), 32768,
		    "hw_unit_min unknown: unit_min");
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(7, 3, 4), 32768, 65536, 131072), 131072,
		    "the boundary is larger");
	T_EXPECT_EQ(awr__part_start_align(AWR_KERNEL(6, 12, 60), 4096, 4096, 0), 4096,
		    "uncapped: the same either way");
}

static void test_rules(void)
{
	char since[64];

	for (unsigned int i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		const struct edge *e = &edges[i];

		T_EXPECT(!awr_kernel_has(e->without, e->rule), "%s not on %u",
			 awr_kernel_rule_name(e->rule), e->without);
		T_EXPECT(awr_kernel_has(e->with, e->rule), "%s on %u",
			 awr_kernel_rule_name(e->rule), e->with);
		T_EXPECT(awr_kernel_has(AWR_KERNEL(7, 3, 4), e->rule) != after_guests(e->rule),
			 "%s on 7.3.4: %s", awr_kernel_rule_name(e->rule),
			 after_guests(e->rule) ? "the fix is after it" : "applies");
	}
	/* the kernels the guests saw a torn short pin on, and the LIO rule on each of them */
	T_EXPECT(!awr_kernel_has(AWR_KERNEL(6, 12, 117), AWR_KRULE_SHORT_PIN_FIXED),
		 "6.12.117 tears");
	T_EXPECT(!awr_kernel_has(AWR_KERNEL(6, 18, 15), AWR_KRULE_SHORT_PIN_FIXED),
		 "6.18.15 tears");
	T_EXPECT(!awr_kernel_has(AWR_KERNEL(6, 12, 117), AWR_KRULE_LIO_ATOMIC),
		 "6.12: LIO without atomics");
	T_EXPECT(!awr_kernel_has(AWR_KERNEL(6, 18, 15), AWR_KRULE_LIO_ATOMIC),
		 "6.18: LIO without atomics");
	T_EXPECT(!strcmp(awr_kernel_rule_name(AWR_KRULE_LIO_ATOMIC), "lio_atomic"), "name");
	T_EXPECT(!strcmp(awr_kernel_rule_name(AWR_KRULE_SHORT_PIN_FIXED), "short_pin_fixed"),
		 "name");
	/* a backport to 6.12.2 says nothing about 6.11.5 */
	T_EXPECT(!awr_kernel_has(AWR_KERNEL(6, 11, 5), AWR_KRULE_DIRECT_PER_WRITE),
		 "6.11.5 decides O_DIRECT at open");
	T_EXPECT(!awr_kernel_has(AWR_KERNEL(6, 12, 57), AWR_KRULE_DM_STACK), "Debian's 6.12 stacks "
									     "no dm");
	T_EXPECT(!awr_kernel_has(AWR_KERNEL(7, 0, 0), AWR_KRULE__COUNT), "out of range");
	T_EXPECT(!strcmp(awr_kernel_rule_since(AWR_KRULE_CHUNK_LIMIT, since, sizeof(since)),
			 "6.17 (also 6.15.10, 6.16.1)"), "since: %s", since);
	T_EXPECT(!strcmp(awr_kernel_rule_since(AWR_KRULE_NVME_NO_AWUPF, since, sizeof(since)),
			 "7.0"),
		 "since: %s", since);
	T_EXPECT(!strcmp(awr_kernel_rule_name(AWR_KRULE_NVME_NO_AWUPF), "nvme_ignores_awupf"),
		 "name");
	T_EXPECT(!strcmp(awr_kernel_rule_name(AWR_KRULE__COUNT), "unknown"), "unknown name");
	for (int r = 0; r < AWR_KRULE__COUNT; r++)
		T_EXPECT(strlen(awr_kernel_rule_text(r)) > 20, "rule %d explains itself", r);
}

static void test_ranges(void)
{
	static const char *const labels[] = {"6.11-6.12", "6.13-6.14", "6.15-6.16",
					     "6.17",	  "6.18-6.19", "7.0+"};

	T_EXPECT_EQ(awr_kernel_nr_ranges(), 6, "ranges");
	for (unsigned int i = 0; i < 6; i++)
		T_EXPECT(awr_kernel_range(i) && !strcmp(awr_kernel_range(i)->label, labels[i]),
			 "range %u", i);
	T_EXPECT(awr_kernel_range(6) == NULL, "out of range");
	T_EXPECT_EQ(awr_kernel_range_of(AWR_KERNEL(6, 12, 57)), 0, "6.12.57");
	T_EXPECT_EQ(awr_kernel_range_of(AWR_KERNEL(6, 14, 3)), 1, "6.14.3");
	T_EXPECT_EQ(awr_kernel_range_of(AWR_KERNEL(6, 16, 3)), 2, "6.16.3");
	T_EXPECT_EQ(awr_kernel_range_of(AWR_KERNEL(6, 18, 15)), 4, "6.18.15");
	T_EXPECT_EQ(awr_kernel_range_of(AWR_KERNEL(7, 3, 4)), 5, "7.3.4");
	T_EXPECT_EQ(awr_kernel_range_of(AWR_KERNEL(6, 1, 0)), -1, "6.1 predates");
}

int main(void)
{
	test_parse();
	test_rules();
	test_mainline_steps();
	test_part_start();
	test_ranges();
	return t_done("kernel_rules");
}
