// SPDX-License-Identifier: MIT
/*
 * Output of the filesystem view and extent reports, shared by awr probe
 * (the fs section), awr extents and awr prepare: which sizes take which path
 * and why, as sentences and as JSON (fs.*).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "awr.h"

const char *fs_type_label(const struct awr_fs_view *v)
{
	return v->type_name[0] ? v->type_name : "unknown";
}

/* The unit extents are judged against when none is given: the hardware path's maximum, else the block. */
uint64_t fs_default_unit(const struct awr_fs_view *v)
{
	if (v->hardware_max)
		return v->hardware_max;
	return v->unit_min ? v->unit_min : v->block_size;
}

/* One finding: (id, sentence); up to FS_MAX_FINDINGS. */
static void add(struct fs_findings *f, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct fs_findings *f, const char *id, const char *fmt, ...)
{
	va_list ap;

	if (f->n == FS_MAX_FINDINGS)
		return;
	f->id[f->n] = id;
	va_start(ap, fmt);
	vsnprintf(f->text[f->n], sizeof(f->text[0]), fmt, ap);
	va_end(ap);
	f->n++;
}

static void xfs_findings(const struct awr_fs_view *v, struct fs_findings *f)
{
	char a[32], b[32], c[32];

	if (!v->reflink)
		add(f, "fs_no_reflink", "XFS without reflink has no copy-on-write path: atomic writes only up to "
		    "what the device writes itself (%s)%s", out_size(v->hardware_max, a, sizeof(a)),
		    awr_kernel_has(awr_kernel_running(), AWR_KRULE_XFS_MAW_REFLINK) ? "; the mount option "
		    "max_atomic_write= above one block is refused here" : "");
	if (v->software_max && !v->hardware_max)
		add(f, "fs_software_only", "atomic writes up to %s are served by copy-on-write only: %s",
		    out_size(v->software_max, a, sizeof(a)), v->hw_atomic ? "the device's atomic unit does "
		    "not cover the filesystem block" : "the device has no atomic support");
	if (v->hardware_max) {
		add(f, "fs_hardware_path", "up to %s in place where extents are %s aligned%s%s%s",
		    out_size(v->hardware_max, a, sizeof(a)), out_size(v->hardware_max, b, sizeof(b)),
		    v->software_max > v->hardware_max ? "; larger, up to " : "",
		    v->software_max > v->hardware_max ? out_size(v->software_max, c, sizeof(c)) : "",
		    v->software_max > v->hardware_max ? ", by copy-on-write" : "");
		if (!v->stripe_unit || v->stripe_unit % v->hardware_max)
			add(f, "fs_no_stripe_unit", "no stripe unit that is a multiple of %s (%s): the extents a growing "
			    "file gets start at any block (an extent size hint aligns file offsets, not device "
			    "offsets), so its new units can fall to copy-on-write; mkfs.xfs -d su=%s,sw=1 aligns new "
			    "extents at a file's end where space allows, awr prepare lays out a file of known size",
			    out_size(v->hardware_max, a, sizeof(a)), v->stripe_unit ? out_size(v->stripe_unit, b,
			    sizeof(b)) : "none", out_size(v->hardware_max, c, sizeof(c)));
		if (v->extsize_hint && v->extsize_hint % v->hardware_max)
			add(f, "fs_extsize_hint", "the extent size hint %s is not a multiple of the hardware "
			    "unit %s", out_size(v->extsize_hint, a, sizeof(a)),
			    out_size(v->hardware_max, b, sizeof(b)));
	}
	if (v->ag_atomic_max && v->hw_atomic && v->ag_atomic_max < v->hw_unit_max)
		add(f, "fs_ag_size_caps_atomic", "the allocation group size (%" PRIu64 " blocks) caps atomic writes "
		    "at %s, the largest power of two dividing it, though the device writes up to %s atomically: "
		    "an agsize that is a multiple of %s lifts the cap (mkfs.xfs -d agsize=; xfsprogs 6.16+ aligns "
		    "it on a device with atomic writes)", v->block_size ? v->ag_size / v->block_size : 0,
		    out_size(v->ag_atomic_max, a, sizeof(a)), out_size(v->hw_unit_max, b, sizeof(b)),
		    out_size(v->hw_unit_max, c, sizeof(c)));
	if (v->max_atomic_write_opt)
		add(f, "fs_max_atomic_write", "the mount option max_atomic_write=%s sets the software maximum",
		    out_size(v->max_atomic_write_opt, a, sizeof(a)));
	if (v->realtime)
		add(f, "fs_realtime", "the file is on the realtime device: its hardware path depends on that "
		    "device, which this view does not read");
}

static void ext4_findings(const struct awr_fs_view *v, struct fs_findings *f)
{
	char a[32], b[32];

	if (!v->bigalloc_known)
		add(f, "fs_ext4_unknown", "the ext4 superblock could not be read (read access to the device is "
		    "needed): bigalloc unknown");
	else if (!v->bigalloc)
		add(f, "fs_ext4_one_block", "ext4 without bigalloc: one block (%s)",
		    out_size(v->block_size, a, sizeof(a)));
	else
		add(f, "fs_ext4_bigalloc", "ext4 bigalloc, clusters of %s: atomic writes up to %s in place, "
		    "larger ones refused (ext4 has no software path)", out_size(v->cluster_size, a, sizeof(a)),
		    out_size(v->unit_max, b, sizeof(b)));
	if (v->atomic && !v->hw_atomic)
		add(f, "fs_ext4_no_device", "the device has no atomic support");
}

void fs_findings(const struct awr_fs_view *v, const struct awr_extent_report *r, struct fs_findings *f)
{
	char a[32], b[32], c[32];

	f->n = 0;
	if (v->dax && awr_kernel_has(awr_kernel_running(), AWR_KRULE_DAX_NO_ATOMIC))
		add(f, "fs_dax", "the file is DAX: it takes no atomic writes (6.17+: xfs_inode_can_hw_atomic_write() "
		    "and dax_iomap_rw() refuse them)");
	else if (v->dax && v->atomic)
		add(f, "fs_dax", "the file is DAX: statx reports atomic writes, but before 6.17 a DAX write ignores "
		    "RWF_ATOMIC: none of them is atomic");
	if (v->no_direct_io && v->atomic)
		add(f, "fs_no_direct_io", "the file takes no direct I/O (ext4 data=journal, a journalled file, inline "
		    "data or fs-verity): its O_DIRECT writes, RWF_ATOMIC ones too, go through the page cache as plain "
		    "writes, none atomic, though statx reports atomic writes");
	if (!v->atomic && (v->type == AWR_FS_XFS || v->type == AWR_FS_EXT4))
		add(f, "fs_no_atomic", "the kernel offers no atomic writes on this file (XFS and ext4 files: "
		    "Linux 6.13+)");
	else if (v->type == AWR_FS_XFS)
		xfs_findings(v, f);
	else if (v->type == AWR_FS_EXT4)
		ext4_findings(v, f);
	if (r && r->total_bytes && v->hardware_max)
		add(f, "fs_extents", "%s of %s mapped bytes lie in %s-aligned units (%" PRIu64 "%%); %u misaligned "
		    "range%s (awr extents)", out_size(r->aligned_bytes, a, sizeof(a)),
		    out_size(r->total_bytes, b, sizeof(b)), out_size(r->unit, c, sizeof(c)),
		    r->aligned_bytes * 100 / r->total_bytes, r->nr_misaligned, r->nr_misaligned == 1 ? "" : "s");
}

/* Which sizes take which path: up to three bands. */
void fs_paths(const struct awr_fs_view *v, struct fs_band *band, unsigned int *n)
{
	*n = 0;
	if (!v->atomic || !v->unit_min)
		return;
	if (v->hardware_max >= v->unit_min) {
		band[*n] = (struct fs_band){ v->unit_min, v->hardware_max,
			v->type == AWR_FS_XFS ? "hardware" : "hardware",
			v->type == AWR_FS_XFS ? "in place where the unit lies on one aligned extent, else copy-on-write"
			: v->type == AWR_FS_EXT4 ? "in place (ext4 has no other path)" : "the device writes it" };
		(*n)++;
	}
	if (v->software_max > v->hardware_max)
		band[(*n)++] = (struct fs_band){ v->hardware_max >= v->unit_min ? v->hardware_max * 2 : v->unit_min,
			v->software_max, "software", v->hardware_max ? "above the device's atomic unit: copy-on-write"
			: "copy-on-write: the device has no atomic support" };
	if (v->unit_max && !v->hardware_max && !v->software_max)
		band[(*n)++] = (struct fs_band){ v->unit_min, v->unit_max, "unknown", "the filesystem's path is not known" };
}

#define V(m, t, k, ...) FLD(struct awr_fs_view, m, t, k, __VA_ARGS__)
static const struct field view_fields[] = {
	V(tmpfile, FLD_BOOL, "tmpfile"),
	V(block_size, FLD_SIZE, "block_size"),
	V(atomic, FLD_BOOL, "atomic"),
	V(dax, FLD_BOOL, "dax"),
	V(no_direct_io, FLD_BOOL, "no_direct_io"),
	FLD_END
};

static const struct field xfs_fields[] = {
	V(reflink, FLD_BOOL, "reflink"),
	V(ag_size, FLD_SIZE, "ag_size"),
	V(ag_count, FLD_UINT, "ag_count"),
	V(realtime, FLD_BOOL, "realtime"),
	V(extsize_hint, FLD_SIZE, "extsize_hint"),
	V(stripe_unit, FLD_SIZE, "stripe_unit"),
	V(max_atomic_write_opt, FLD_SIZE, "max_atomic_write"),
	V(ag_atomic_max, FLD_SIZE, "ag_atomic_max"),
	FLD_END
};

static const struct field device_fields[] = {
	V(software_max, FLD_SIZE, "software_max"),
	V(hardware_max, FLD_SIZE, "hardware_max"),
	V(device, FLD_CHARS, "device", .flags = FLD_NULL_ZERO),
	V(hw_atomic, FLD_BOOL, "hw_atomic"),
	V(hw_unit_min, FLD_SIZE, "hw_unit_min"),
	V(hw_unit_max, FLD_SIZE, "hw_unit_max"),
	FLD_END
};
#undef V

static const struct field band_fields[] = {
	FLD(struct fs_band, from, FLD_SIZE, "from"),
	FLD(struct fs_band, to, FLD_SIZE, "to"),
	FLD(struct fs_band, path, FLD_STR, "path"),
	FLD(struct fs_band, why, FLD_STR, "why"),
	FLD_END
};

static const struct field report_fields[] = {
	FLD(struct awr_extent_report, unit, FLD_SIZE, "unit"),
	FLD(struct awr_extent_report, aligned_bytes, FLD_SIZE, "aligned_bytes"),
	FLD(struct awr_extent_report, total_bytes, FLD_SIZE, "total_bytes"),
	FLD_END
};

static const struct field range_fields[] = {
	FLD(struct awr_range, offset, FLD_SIZE, "offset"),
	FLD(struct awr_range, length, FLD_SIZE, "length"),
	FLD_END
};

struct json_object *fs_view_json(const struct awr_fs_view *v, const struct awr_extent_report *r)
{
	struct json_object *o = json_object_new_object(), *a, *b;
	struct fs_findings f;
	struct fs_band band[3];
	unsigned int n;

	json_object_object_add(o, "type", json_object_new_string(fs_type_label(v)));
	fld_json_add(o, view_fields, v);
	if (v->type == AWR_FS_XFS)
		fld_json_add(o, xfs_fields, v);
	if (v->type == AWR_FS_EXT4) {
		json_object_object_add(o, "bigalloc", v->bigalloc_known ?
				       json_object_new_boolean(v->bigalloc) : NULL);
		json_object_object_add(o, "cluster_size", out_u64(v->cluster_size));
	}
	fld_json_add(o, device_fields, v);
	fs_paths(v, band, &n);
	json_object_object_add(o, "paths", fld_json_array(band_fields, band, sizeof(*band), n));
	if (r) {
		b = fld_json(report_fields, r);
		json_object_object_add(b, "misaligned", extents_ranges_json(r));
		json_object_object_add(o, "extents", b);
	}
	fs_findings(v, r, &f);
	a = json_object_new_array();
	for (unsigned int i = 0; i < f.n; i++) {
		b = json_object_new_object();
		json_object_object_add(b, "id", json_object_new_string(f.id[i]));
		json_object_object_add(b, "severity", json_object_new_string("info"));	/* as the text prints them */
		json_object_object_add(b, "message", json_object_new_string(f.text[i]));
		json_object_array_add(a, b);
	}
	json_object_object_add(o, "findings", a);
	return o;
}

void fs_view_print(const struct awr_fs_view *v, const struct awr_extent_report *r)
{
	struct fs_findings f;
	struct fs_band band[3];
	char a[32], b[32], c[32];
	unsigned int n;

	printf("\nfilesystem%s: %s, block %s", v->tmpfile ? " (a new file in this directory)" : "",
	       fs_type_label(v), out_size(v->block_size, a, sizeof(a)));
	if (v->type == AWR_FS_XFS)
		printf(", reflink %s, AG %s x %u%s, extent size hint %s, stripe unit %s", v->reflink ? "on" : "off",
		       out_size(v->ag_size, b, sizeof(b)), v->ag_count, v->realtime ? ", realtime" : "",
		       v->extsize_hint ? out_size(v->extsize_hint, c, sizeof(c)) : "none",
		       v->stripe_unit ? out_size(v->stripe_unit, a, sizeof(a)) : "none");
	if (v->type == AWR_FS_EXT4)
		printf(", bigalloc %s", !v->bigalloc_known ? "unknown" : v->bigalloc ?
		       out_size(v->cluster_size, b, sizeof(b)) : "off");
	printf("\n  device %s: %s\n", v->device[0] ? v->device : "-", v->hw_atomic ? "hardware atomic writes" :
	       "no hardware atomic writes");
	if (v->hw_atomic)
		printf("    %s .. %s\n", out_size(v->hw_unit_min, a, sizeof(a)), out_size(v->hw_unit_max, b, sizeof(b)));
	fs_paths(v, band, &n);
	for (unsigned int i = 0; i < n; i++)
		printf("  %9s .. %-9s %-9s %s\n", out_size(band[i].from, a, sizeof(a)),
		       out_size(band[i].to, b, sizeof(b)), band[i].path, band[i].why);
	fs_findings(v, r, &f);
	for (unsigned int i = 0; i < f.n; i++)
		printf("  [info] %s: %s\n", f.id[i], f.text[i]);
}

struct json_object *extents_ranges_json(const struct awr_extent_report *r)
{
	return fld_json_array(range_fields, r->misaligned, sizeof(*r->misaligned),
			      r->nr_misaligned);
}

/* awr probe's fs section for PATH: a regular file (with its extents) or a directory. */
static int fs_probe_view(const char *path, struct awr_fs_view *v, struct awr_extent_report **r)
{
	int fd;

	*r = NULL;
	if (awr_fs_view_path(path, v) || (v->type != AWR_FS_XFS && v->type != AWR_FS_EXT4 && v->type != AWR_FS_OTHER))
		return -1;
	if (v->tmpfile)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (awr_extents_read(fd, fs_default_unit(v), r))
			*r = NULL;
		close(fd);
	}
	return 0;
}

struct json_object *fs_probe_json(const char *path)
{
	struct awr_extent_report *r;
	struct awr_fs_view v;
	struct json_object *o;

	if (fs_probe_view(path, &v, &r))
		return NULL;
	o = fs_view_json(&v, r);
	awr_extent_report_free(r);
	return o;
}

void fs_probe_print(const char *path)
{
	struct awr_extent_report *r;
	struct awr_fs_view v;

	if (fs_probe_view(path, &v, &r))
		return;
	fs_view_print(&v, r);
	awr_extent_report_free(r);
}
