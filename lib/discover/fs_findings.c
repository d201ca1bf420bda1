// SPDX-License-Identifier: MIT
/*
 * Findings of the filesystem view: which sizes a file's atomic writes can
 * take in place, by copy-on-write or not at all, and what would change it.
 * Each one an id and a sentence with the numbers, severity info.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "private.h"
#include "discover/discover.h"

struct fs_list {
	struct awr_finding *arr;
	unsigned int nr, max;
};

static void add(struct fs_list *f, enum awr__finding_key key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct fs_list *f, enum awr__finding_key key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	awr__finding_vadd(f->arr, &f->nr, f->max, key, fmt, ap);
	va_end(ap);
}

/* "16 KiB": a size in the sentences, one buffer of @b per use in a call */
#define SZ(v, b) awr_format_size((v), (b), sizeof(b))

static bool running_has(enum awr_kernel_rule r)
{
	return awr_kernel_has(awr_kernel_running(), r);
}

static void xfs_no_reflink(const struct awr_fs_view *v, struct fs_list *f)
{
	char a[32];

	/* 6.16+: xfs_fs_fill_super() refuses max_atomic_write= above a block without reflink */
	add(f, AWR_FIND(fs_no_reflink), SZ(v->hardware_max, a),
	    running_has(AWR_KRULE_XFS_MAW_REFLINK) ? "; the mount option max_atomic_write= above "
	    "one block is refused here" : "");
}

static void xfs_hardware(const struct awr_fs_view *v, struct fs_list *f)
{
	bool more = v->software_max > v->hardware_max;
	char a[32], b[32], c[32];

	add(f, AWR_FIND(fs_hardware_path),
	    SZ(v->hardware_max, a), SZ(v->hardware_max, b), more ? "; larger, up to " : "",
	    more ? SZ(v->software_max, c) : "", more ? ", by copy-on-write" : "");
	if (!v->stripe_unit || v->stripe_unit % v->hardware_max)
		add(f, AWR_FIND(fs_no_stripe_unit),
		    SZ(v->hardware_max, a), v->stripe_unit ? SZ(v->stripe_unit, b) : "none",
		    SZ(v->hardware_max, c));
	if (v->extsize_hint && v->extsize_hint % v->hardware_max)
		add(f, AWR_FIND(fs_extsize_hint), SZ(v->extsize_hint, a), SZ(v->hardware_max, b));
}

/* xfs_calc_group_awu_max() (6.16+): the largest power of two dividing the AG size caps it */
static void xfs_ag_cap(const struct awr_fs_view *v, struct fs_list *f)
{
	char a[32], b[32], c[32];

	add(f, AWR_FIND(fs_ag_size_caps_atomic),
	    v->block_size ? v->ag_size / v->block_size : 0, SZ(v->ag_atomic_max, a),
	    SZ(v->hw_unit_max, b), SZ(v->hw_unit_max, c));
}

static void xfs_findings(const struct awr_fs_view *v, struct fs_list *f)
{
	char a[32];

	if (!v->reflink)
		xfs_no_reflink(v, f);
	/* a device without atomics: the probe's software_path_only says it (and the path list) */
	if (v->software_max && !v->hardware_max && v->hw_atomic)
		add(f, AWR_FIND(fs_software_only), SZ(v->software_max, a));
	if (v->hardware_max)
		xfs_hardware(v, f);
	if (v->ag_atomic_max && v->hw_atomic && v->ag_atomic_max < v->hw_unit_max)
		xfs_ag_cap(v, f);
	if (v->max_atomic_write_opt)
		add(f, AWR_FIND(fs_max_atomic_write), SZ(v->max_atomic_write_opt, a));
	if (v->realtime)
		add(f, AWR_FIND(fs_realtime));
}

/* ext4_init_atomic_write_bsize() (6.13+): one block, or a bigalloc cluster */
static void ext4_findings(const struct awr_fs_view *v, struct fs_list *f)
{
	char a[32], b[32];

	if (!v->bigalloc_known)
		add(f, AWR_FIND(fs_ext4_unknown));
	else if (!v->bigalloc)
		add(f, AWR_FIND(fs_ext4_one_block),
		    SZ(v->block_size, a));
	else
		add(f, AWR_FIND(fs_ext4_bigalloc),
		    SZ(v->cluster_size, a), SZ(v->unit_max, b));
	if (v->atomic && !v->hw_atomic)
		add(f, AWR_FIND(fs_ext4_no_device));
}

static void file_findings(const struct awr_fs_view *v, struct fs_list *f)
{
	if (v->dax && running_has(AWR_KRULE_DAX_NO_ATOMIC))
		add(f, AWR_FIND(fs_dax));
	else if (v->dax && v->atomic)
		add(f, AWR_FIND(fs_dax_ignored));
	/* ext4_dio_write_iter(): no direct I/O, so RWF_ATOMIC goes through the page cache */
	if (v->no_direct_io && v->atomic)
		add(f, AWR_FIND(fs_no_direct_io));
}

static void extent_findings(const struct awr_extent_report *r, struct fs_list *f)
{
	char a[32], b[32], c[32];

	add(f, AWR_FIND(fs_extents), SZ(r->aligned_bytes, a), SZ(r->total_bytes, b),
	    SZ(r->unit, c), r->aligned_bytes * 100 / r->total_bytes, r->nr_misaligned,
	    r->nr_misaligned == 1 ? "" : "s");
}

unsigned int awr_fs_findings(const struct awr_fs_view *v, const struct awr_extent_report *r,
			     struct awr_finding *out, unsigned int max)
{
	struct fs_list f = { out, 0, out ? max : 0 };

	if (!v)
		return 0;
	file_findings(v, &f);
	if (!v->atomic && (v->type == AWR_FS_XFS || v->type == AWR_FS_EXT4))
		add(&f, AWR_FIND(fs_view_no_atomic), awr__fs_atomic_kernel());
	else if (v->type == AWR_FS_XFS)
		xfs_findings(v, &f);
	else if (v->type == AWR_FS_EXT4)
		ext4_findings(v, &f);
	if (r && r->total_bytes && v->hardware_max)
		extent_findings(r, &f);
	return f.nr;
}
