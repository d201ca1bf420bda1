// SPDX-License-Identifier: MIT
/*
 * The kernel rules table: which atomic write rule applies on which Linux
 * release. One place, used by the device stage (what a driver and the block
 * layer derive), the discovery stage (stacking, partitions) and the rule
 * checker (errno order, O_DIRECT at open time).
 *
 * Each row was read in the kernel source of the release it names:
 *  - block/blk-settings.c blk_validate_atomic_write_limits(): 6.11 checks only
 *    hw_max != 0, chunk_sectors % boundary == 0 and a power-of-two boundary;
 *    6.13 ("block: Add extra checks in blk_validate_atomic_write_limits()",
 *    d00eea91deaf3) adds unit_min/unit_max powers of two, unit_min <= unit_max
 *    <= hw_max and hw_max <= boundary; 6.17 ("block: sanitize chunk_sectors
 *    for atomic write limits", 1de67e8e28fc, in 6.16.1 and 6.15.10 from the
 *    same stable batch) turns atomics off when chunk_sectors is below hw_max;
 *    6.18 lets boundary and chunk_sectors be multiples of each other either way.
 *  - block/blk-settings.c blk_stack_atomic_writes_limits(): stacking behind
 *    BLK_FEAT_ATOMIC_WRITES_STACKED, set by md raid0/1/10 in 6.13 and by
 *    dm-linear/stripe/mirror in 6.14; drivers/nvme/host/multipath.c stacks
 *    the head node from 6.15 (also 6.14.10).
 *  - blk_atomic_write_start_sect_aligned(): a partition start is checked
 *    against hw_unit_min from 6.14 (also 6.13.2), against unit_min before.
 *  - block/fops.c blkdev_write_iter() and fs/read_write.c
 *    generic_atomic_write_valid(): O_DIRECT checked per write from 6.13
 *    (also 6.11.11, 6.12.2); before, FMODE_CAN_ATOMIC_WRITE was set at open
 *    only for O_DIRECT opens ("fs: Only set FMODE_CAN_ATOMIC_WRITE ...").
 *  - drivers/nvme/host/core.c nvme_configure_atomic_write(): 7.0 ("nvme: stop
 *    using AWUPF") takes NAWUPF only, else one logical block.
 *  - fs/xfs, fs/ext4: one-block atomic files in 6.13; XFS large atomic writes
 *    (copy-on-write fallback, unit_max_opt) and ext4 bigalloc in 6.16.
 *  - drivers/target: the SCSI target passes atomic writes through in 6.19.
 *  - block/bio.c bio_iov_iter_get_pages(): a short pin tears an atomic write
 *    until the fix posted for 7.4 (a bug row: "since" is the fix's release).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel.h"

struct krule {
	const char *name;
	uint32_t since;			/* mainline release */
	uint32_t backports[3];		/* first stable release of an older series, 0 = none */
	const char *what;
};

static const struct krule krules[AWR_KRULE__COUNT] = {
	[AWR_KRULE_ATOMIC_WRITES] = { "atomic_writes", AWR_KERNEL(6, 11, 0), { 0 },
		"RWF_ATOMIC, statx and the queue/atomic_write_* limits of NVMe and SCSI disks" },
	[AWR_KRULE_BLK_SANITY] = { "blk_sanity_checks", AWR_KERNEL(6, 13, 0), { 0 },
		"the block layer turns atomics off for units that are not powers of two, unit_min "
		"> unit_max, unit_max > hw_max or hw_max > boundary" },
	[AWR_KRULE_DIRECT_PER_WRITE] = { "direct_per_write", AWR_KERNEL(6, 13, 0),
		{ AWR_KERNEL(6, 11, 11), AWR_KERNEL(6, 12, 2) },
		"O_DIRECT is checked on every atomic write (before, at open time only)" },
	[AWR_KRULE_FS_ONE_BLOCK] = { "fs_one_block", AWR_KERNEL(6, 13, 0), { 0 },
		"XFS and ext4 files write one filesystem block atomically (hardware only)" },
	[AWR_KRULE_MD_STACK] = { "md_stacking", AWR_KERNEL(6, 13, 0), { 0 },
		"md raid0/1/10 stack their members' atomic limits" },
	[AWR_KRULE_DM_STACK] = { "dm_stacking", AWR_KERNEL(6, 14, 0), { 0 },
		"dm-linear, dm-stripe and dm-mirror stack their legs' atomic limits" },
	[AWR_KRULE_PART_HW_UNIT_MIN] = { "partition_hw_unit_min", AWR_KERNEL(6, 14, 0),
		{ AWR_KERNEL(6, 13, 2) },
		"a partition start must be a multiple of hw_unit_min (and the boundary), not of "
		"unit_min" },
	[AWR_KRULE_NVME_MPATH_HEAD] = { "nvme_multipath_head", AWR_KERNEL(6, 15, 0),
		{ AWR_KERNEL(6, 14, 10) },
		"an NVMe multipath head node stacks its paths' atomic limits (before, the head "
		"reads 0)" },
	[AWR_KRULE_FS_LARGE] = { "fs_large_atomic", AWR_KERNEL(6, 16, 0), { 0 },
		"XFS large atomic writes with a copy-on-write fallback and unit_max_opt; ext4 "
		"bigalloc clusters" },
	[AWR_KRULE_CHUNK_LIMIT] = { "chunk_limit", AWR_KERNEL(6, 17, 0),
		{ AWR_KERNEL(6, 15, 10), AWR_KERNEL(6, 16, 1) },
		"chunk_sectors (NVMe NOIOB) below hw_max turns atomic writes off" },
	[AWR_KRULE_BOUNDARY_CHUNK_EITHER] = { "boundary_chunk_either", AWR_KERNEL(6, 18, 0), { 0 },
		"the atomic boundary and chunk_sectors need only be multiples of each other "
		"(before, chunk_sectors a multiple of the boundary)" },
	[AWR_KRULE_NVME_NO_AWUPF] = { "nvme_ignores_awupf", AWR_KERNEL(7, 0, 0), { 0 },
		"NVMe takes only the namespace's NAWUPF (NSFEAT bit 1); without it one logical "
		"block, the controller's AWUPF is ignored" },
	/* drivers/md/dm-crypt.c crypt_target.features (ce51c6963a91, "dm-crypt: enable
	 * DM_TARGET_ATOMIC_WRITES"), with dm_accept_partial_bio() refusing to split a REQ_ATOMIC
	 * bio (de67c139b384), both in the for-6.19/dm-changes merge */
	[AWR_KRULE_DM_CRYPT_STACK] = { "dm_crypt_stacking", AWR_KERNEL(6, 19, 0), { 0 },
		"dm-crypt stacks its device's atomic limits, and dm never splits an atomic bio" },
	/* drivers/md/dm-mpath.c multipath_target.features gains DM_TARGET_ATOMIC_WRITES in
	 * 61c73e8de993 ("dm mpath: enable DM_TARGET_ATOMIC_WRITES"), queued on linux-dm for-next
	 * on 2025-11-18 on top of the 6.19 series: not in the for-6.19 dm pull (dm-crypt's
	 * ce51c6963a91 and de67c139b384 are, next-20251211), merged for 7.0. Seen: 6.12.117 and
	 * 6.18.15 read 0, 7.3.4 stacks */
	[AWR_KRULE_DM_MPATH_STACK] = { "dm_multipath_stacking", AWR_KERNEL(7, 0, 0), { 0 },
		"dm-multipath stacks its paths' atomic limits" },
	/* fs/xfs/xfs_super.c xfs_fs_parse_param() Opt_max_atomic_write and fs/xfs/xfs_mount.c
	 * xfs_set_max_atomic_write_opt() (4528b9052731, merged for 6.16): a power of two, a
	 * multiple of the block, at most the AG's cap (xfs_calc_group_awu_max()) and what the log
	 * can complete, else mount(2) fails with EINVAL; statx unit_max follows it
	 * (xfs_calc_atomic_write_unit_max()) */
	[AWR_KRULE_XFS_MAX_ATOMIC_WRITE] = { "xfs_max_atomic_write", AWR_KERNEL(6, 16, 0), { 0 },
		"XFS takes the mount option max_atomic_write=, the largest software "
		"(copy-on-write) atomic write" },
	/* xfs_set_max_atomic_write_opt(): "cannot support atomic writes of size %lluk with no
	 * reflink support" (8dc5e9b03713, 6.17-rc2); one block stays allowed where the device
	 * writes atomically. In 6.16 the option was taken on such a filesystem and changed
	 * nothing */
	[AWR_KRULE_XFS_MAW_REFLINK] = { "xfs_max_atomic_write_reflink", AWR_KERNEL(6, 17, 0), { 0 },
		"XFS refuses max_atomic_write= above one block without reflink (mount fails, "
		"EINVAL)" },
	/* fs/xfs/xfs_inode.h xfs_inode_can_hw_atomic_write() / xfs_inode_can_sw_atomic_write()
	 * return false for IS_DAX (68456d05eb57) and fs/dax.c dax_iomap_rw() fails IOCB_ATOMIC with
	 * EIO (e7fb9b71326f), both 6.17-rc2; in 6.16 a reflink XFS on DAX reported software
	 * atomics */
	[AWR_KRULE_DAX_NO_ATOMIC] = { "dax_no_atomic", AWR_KERNEL(6, 17, 0), { 0 },
		"a DAX file takes no atomic writes (XFS reports none in statx; dax_iomap_rw() "
		"refuses them)" },
	/* drivers/target/target_core_device.c target_configure_write_atomic_from_bdev() (called by
	 * target_core_iblock.c iblock_configure_device(), which sets REQ_ATOMIC for SCF_ATOMIC
	 * commands), target_core_spc.c spc_emulate_evpd_b0() and target_core_sbc.c's WRITE
	 * ATOMIC(16) checks, merged for 6.19: MAXIMUM ATOMIC TRANSFER LENGTH = the disk's
	 * atomic_write_max_bytes, ALIGNMENT = GRANULARITY = its unit_min, in blocks, no boundary.
	 * Before, the Block Limits page has no atomic fields and 9Ch is an unsupported opcode. Seen
	 * in guests, tcm_loop over a NAWUPF 7 namespace: 7.3.4's target reports MATL 8, granularity
	 * and alignment 1 and writes WRITE ATOMIC(16) through to the namespace, but the initiator's
	 * SCSI midlayer keeps no VPD page of the LUN, so sd sets no atomic limits there (awr
	 * derives none, scsi_kernel_no_vpd); 6.12.117 and 6.18.15 report none (guest/lio.sh) */
	[AWR_KRULE_LIO_ATOMIC] = { "lio_atomic", AWR_KERNEL(6, 19, 0), { 0 },
		"the SCSI target (LIO, iblock backstore) takes WRITE ATOMIC(16) and reports its "
		"block device's atomic limits in the Block Limits page" },
	/* block/bio.c bio_iov_iter_get_pages(): an RWF_ATOMIC write to a raw block device from a
	 * buffer that pins only partly (a PROT_NONE page at its end) goes down as a shorter
	 * REQ_ATOMIC bio, and block/fops.c blkdev_write_iter() hands the rest to the page cache:
	 * the write returns a short count with part of the range new (since caf336f81b3a, 6.11).
	 * The fix, "block: fail a short atomic pin in bio_iov_iter_get_pages()", was posted for 7.4
	 * and is not merged: the row dates the posting. Seen torn in guests on 6.12.117, 6.18.15
	 * and 7.3.4 (NVMe, 16 KiB from a buffer whose 4th page is PROT_NONE: 12288 returned, pages
	 * 0-2 new, page 3 old); a scsi_debug disk with a unit_min of 8 KiB refuses the 12 KiB bio
	 * (EINVAL) and XFS files fail whole (EFAULT,
	 * 6.18 host). awr qualify of a block device tries it (short_pin) */
	[AWR_KRULE_SHORT_PIN_FIXED] = { "short_pin_fixed", AWR_KERNEL(7, 4, 0), { 0 },
		"an atomic write to a block device from a buffer that pins only partly fails whole "
		"(before, a short count with part of the range written: torn)" },
};

/*
 * The ranges over which the derivation of device limits can differ: each
 * starts where a rule of the derivation changes. The backports are named in
 * krules; a range stands for its mainline releases.
 */
static const struct awr_kernel_range ranges[] = {
	{ "6.11-6.12", AWR_KERNEL(6, 11, 0), AWR_KERNEL(6, 12, 999) },
	{ "6.13-6.14", AWR_KERNEL(6, 13, 0), AWR_KERNEL(6, 14, 999) },
	{ "6.15-6.16", AWR_KERNEL(6, 15, 0), AWR_KERNEL(6, 16, 999) },
	{ "6.17", AWR_KERNEL(6, 17, 0), AWR_KERNEL(6, 17, 999) },
	{ "6.18-6.19", AWR_KERNEL(6, 18, 0), AWR_KERNEL(6, 19, 999) },
	{ "7.0+", AWR_KERNEL(7, 0, 0), AWR_KERNEL(999, 999, 999) },
};

/* Digits at *p (at most 3) into *v; returns false when there are none. */
static bool number(const char **p, unsigned long *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return false;
	*v = strtoul(*p, &end, 10);
	if (end - *p > 3)
		return false;
	*p = end;
	return true;
}

/*
 * "MAJOR.MINOR[.PATCH]" then anything: uname -r of every distribution
 * ("6.12.57+deb13-amd64", "6.18.15-1-pve", "6.1.0-28-cloud-amd64", "7.0-rc3").
 */
int awr_kernel_parse(const char *release, uint32_t *out)
{
	unsigned long major, minor, patch = 0;
	const char *p = release;

	if (!release || !out)
		return -EINVAL;
	if (!number(&p, &major) || *p++ != '.' || !number(&p, &minor))
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (!number(&p, &patch))
			return -EINVAL;
	}
	if (major < 2)
		return -EINVAL;
	*out = AWR_KERNEL(major, minor, patch);
	return 0;
}

/*
 * The release does not change while a process runs: uname() is asked once.
 * The rule checker consults it on every write whose limits name no kernel,
 * and a system call there would cost more than the rest of the check (about
 * 2 us against 10 ns). A race of two first callers stores the same value.
 */
uint32_t awr_kernel_running(void)
{
	static _Atomic uint32_t cached;
	uint32_t k = atomic_load_explicit(&cached, memory_order_relaxed);
	struct utsname u;

	if (k)
		return k;
	if (uname(&u) || awr_kernel_parse(u.release, &k))
		return 0;
	atomic_store_explicit(&cached, k, memory_order_relaxed);
	return k;
}

char *awr_kernel_format(uint32_t kernel, char *buf, size_t len)
{
	if (AWR_KERNEL_PATCH(kernel))
		snprintf(buf, len, "%u.%u.%u", AWR_KERNEL_MAJOR(kernel), AWR_KERNEL_MINOR(kernel),
			 AWR_KERNEL_PATCH(kernel));
	else
		snprintf(buf, len, "%u.%u", AWR_KERNEL_MAJOR(kernel), AWR_KERNEL_MINOR(kernel));
	return buf;
}

/* The same major.minor series: a backport applies from its patch release on. */
static bool same_series(uint32_t a, uint32_t b)
{
	return a / 1000 == b / 1000;
}

uint32_t awr__part_start_align(uint32_t kernel, uint32_t unit_min, uint32_t hw_unit_min,
			       uint32_t boundary)
{
	uint32_t unit = hw_unit_min && awr_kernel_has(kernel, AWR_KRULE_PART_HW_UNIT_MIN) ?
			hw_unit_min : unit_min;

	return unit > boundary ? unit : boundary;
}

bool awr_kernel_has(uint32_t kernel, enum awr_kernel_rule rule)
{
	const struct krule *r;

	if ((unsigned int)rule >= AWR_KRULE__COUNT)
		return false;
	r = &krules[rule];
	if (kernel >= r->since)
		return true;
	for (unsigned int i = 0; i < 3 && r->backports[i]; i++)
		if (same_series(kernel, r->backports[i]) && kernel >= r->backports[i])
			return true;
	return false;
}

const char *awr_kernel_rule_name(enum awr_kernel_rule rule)
{
	return (unsigned int)rule < AWR_KRULE__COUNT ? krules[rule].name : "unknown";
}

const char *awr_kernel_rule_text(enum awr_kernel_rule rule)
{
	return (unsigned int)rule < AWR_KRULE__COUNT ? krules[rule].what : "unknown";
}

char *awr_kernel_rule_since(enum awr_kernel_rule rule, char *buf, size_t len)
{
	const struct krule *r;
	size_t n;
	char v[16];

	if ((unsigned int)rule >= AWR_KRULE__COUNT) {
		snprintf(buf, len, "unknown");
		return buf;
	}
	r = &krules[rule];
	n = (size_t)snprintf(buf, len, "%s", awr_kernel_format(r->since, v, sizeof(v)));
	for (unsigned int i = 0; i < 3 && r->backports[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : " (also ",
				      awr_kernel_format(r->backports[i], v, sizeof(v)));
	if (r->backports[0] && n < len)
		snprintf(buf + n, len - n, ")");
	return buf;
}

unsigned int awr_kernel_nr_ranges(void)
{
	return sizeof(ranges) / sizeof(ranges[0]);
}

const struct awr_kernel_range *awr_kernel_range(unsigned int i)
{
	return i < awr_kernel_nr_ranges() ? &ranges[i] : NULL;
}

int awr_kernel_range_of(uint32_t kernel)
{
	for (unsigned int i = 0; i < awr_kernel_nr_ranges(); i++)
		if (kernel >= ranges[i].first && kernel <= ranges[i].last)
			return (int)i;
	return -1;
}
