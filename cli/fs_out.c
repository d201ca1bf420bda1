// SPDX-License-Identifier: MIT
/*
 * Output of the filesystem view and extent reports, shared by awr probe
 * (the fs section), awr extents and awr prepare: which sizes take which path
 * and why, as sentences and as JSON (fs.*).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awr.h"

#define FS_MAX_FINDINGS 8	/* the fs section shows at most 8 of awr_fs_findings() */

static const char *fs_type_label(const struct awr_fs_view *v)
{
	return v->type_name[0] ? v->type_name : "unknown";
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
	FLD(struct awr_fs_band, from, FLD_SIZE, "from"),
	FLD(struct awr_fs_band, to, FLD_SIZE, "to"),
	FLD(struct awr_fs_band, path, FLD_STR, "path"),
	FLD(struct awr_fs_band, why, FLD_STR, "why"),
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
	struct json_object *o = json_object_new_object(), *b;
	struct awr_finding f[FS_MAX_FINDINGS];
	struct awr_fs_band band[AWR_FS_MAX_BANDS];
	unsigned int n = awr_fs_paths(v, band);

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
	json_object_object_add(o, "paths", fld_json_array(band_fields, band, sizeof(*band), n));
	if (r) {
		b = fld_json(report_fields, r);
		json_object_object_add(b, "misaligned", extents_ranges_json(r));
		json_object_object_add(o, "extents", b);
	}
	n = awr_fs_findings(v, r, f, FS_MAX_FINDINGS);
	json_object_object_add(o, "findings", fld_json_array(out_finding_fields, f, sizeof(*f), n));
	return o;
}

void fs_view_print(const struct awr_fs_view *v, const struct awr_extent_report *r)
{
	struct awr_finding f[FS_MAX_FINDINGS];
	struct awr_fs_band band[AWR_FS_MAX_BANDS];
	unsigned int n = awr_fs_paths(v, band);
	char a[32], b[32], c[32];

	printf("\nfilesystem%s: %s, block %s", v->tmpfile ? " (a new file in this directory)" : "",
	       fs_type_label(v), out_size(v->block_size, a, sizeof(a)));
	if (v->type == AWR_FS_XFS)
		printf(", reflink %s, AG %s x %u%s, extent size hint %s, stripe unit %s",
		       v->reflink ? "on" : "off",
		       out_size(v->ag_size, b, sizeof(b)), v->ag_count,
		       v->realtime ? ", realtime" : "",
		       v->extsize_hint ? out_size(v->extsize_hint, c, sizeof(c)) : "none",
		       v->stripe_unit ? out_size(v->stripe_unit, a, sizeof(a)) : "none");
	if (v->type == AWR_FS_EXT4)
		printf(", bigalloc %s", !v->bigalloc_known ? "unknown" : v->bigalloc ?
		       out_size(v->cluster_size, b, sizeof(b)) : "off");
	printf("\n  device %s: %s\n", v->device[0] ? v->device : "-",
	       v->hw_atomic ? "hardware atomic writes" :
	       "no hardware atomic writes");
	if (v->hw_atomic)
		printf("    %s .. %s\n", out_size(v->hw_unit_min, a, sizeof(a)),
		       out_size(v->hw_unit_max, b, sizeof(b)));
	for (unsigned int i = 0; i < n; i++)
		printf("  %9s .. %-9s %-9s %s\n", out_size(band[i].from, a, sizeof(a)),
		       out_size(band[i].to, b, sizeof(b)), band[i].path, band[i].why);
	n = awr_fs_findings(v, r, f, FS_MAX_FINDINGS);
	for (unsigned int i = 0; i < n; i++)
		out_finding_print(&f[i]);
}

struct json_object *extents_ranges_json(const struct awr_extent_report *r)
{
	return fld_json_array(range_fields, r->misaligned, sizeof(*r->misaligned),
			      r->nr_misaligned);
}

/* awr probe's fs section for PATH (a file with its extents, or a directory), as JSON or text */
static struct json_object *fs_probe(const char *path, bool json)
{
	struct awr_extent_report *r = NULL;
	struct json_object *o = NULL;
	struct awr_fs_view v;
	char *file;

	if (awr_fs_view_path(path, &v) ||
	    (v.type != AWR_FS_XFS && v.type != AWR_FS_EXT4 && v.type != AWR_FS_OTHER))
		return NULL;
	/* the file a symbolic link names, as the probe follows it; no extents for a directory */
	file = v.tmpfile ? NULL : realpath(path, NULL);
	if (file)
		awr_extents_read_path(file, awr_fs_default_unit(&v), &r);
	free(file);
	if (json)
		o = fs_view_json(&v, r);
	else
		fs_view_print(&v, r);
	awr_extent_report_free(r);
	return o;
}

struct json_object *fs_probe_json(const char *path)
{
	return fs_probe(path, true);
}

void fs_probe_print(const char *path)
{
	fs_probe(path, false);
}
