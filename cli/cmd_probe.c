// SPDX-License-Identifier: MIT
/* awr probe PATH: every discovery source side by side, effective limits, findings. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

/* The text header's words for awr_probe_kind() (JSON keeps the kind's word). */
static const char *kind_words(const struct awr_probe *p)
{
	const char *k = awr_probe_kind(p);

	return !strcmp(k, "block") ? "block device" : !strcmp(k, "char") ? "character device" : k;
}

#define X(m, t, k) FLD(struct awr_statx_view, m, t, k)
static const struct field statx_fields[] = {
	X(atomic_reported, FLD_BOOL, "atomic_reported"),
	X(unit_min, FLD_SIZE, "unit_min"),
	X(unit_max, FLD_SIZE, "unit_max"),
	X(segments_max, FLD_UINT, "segments_max"),
	X(unit_max_opt, FLD_SIZE, "unit_max_opt"),
	X(dio_mem_align, FLD_SIZE, "dio_mem_align"),
	X(dio_offset_align, FLD_SIZE, "dio_offset_align"),
	FLD_END
};
#undef X

#define Y(m, t, k, ...) FLD(struct awr_sysfs_view, m, t, k, __VA_ARGS__)
static const struct field sysfs_fields[] = {
	Y(disk, FLD_CHARS, "disk"),
	Y(partition, FLD_CHARS, "partition", .flags = FLD_NULL_ZERO),
	Y(unit_min, FLD_SIZE, "unit_min"),
	Y(unit_max, FLD_SIZE, "unit_max"),
	Y(max_bytes, FLD_SIZE, "max_bytes"),
	Y(boundary, FLD_SIZE, "boundary"),
	Y(logical_block_size, FLD_SIZE, "logical_block_size"),
	Y(physical_block_size, FLD_SIZE, "physical_block_size"),
	Y(max_hw_bytes, FLD_SIZE, "max_hw_bytes"),
	Y(max_segments, FLD_UINT, "max_segments"),
	FLD_END
};

static const struct field partition_fields[] = {
	Y(part_start, FLD_SIZE, "partition_start"),
	Y(part_aligned, FLD_BOOL, "partition_aligned"),
	FLD_END
};
#undef Y

static struct json_object *sysfs_json(const struct awr_sysfs_view *y)
{
	struct json_object *o;

	if (!y)
		return NULL;
	o = fld_json(sysfs_fields, y);
	out_add_write_cache(o, y);
	if (y->partition[0])
		fld_json_add(o, partition_fields, y);
	return o;
}

static struct json_object *probe_json(const struct awr_probe *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(awr_probe_path_name(p)));
	json_object_object_add(o, "type", json_object_new_string(awr_probe_kind(p)));
	json_object_object_add(o, "new_file", json_object_new_boolean(awr_probe_new_file(p)));
	out_add_versions(o);
	json_object_object_add(o, "effective", out_limits_json(awr_probe_effective(p)));
	json_object_object_add(o, "statx", awr_probe_statx(p) ?
			       fld_json(statx_fields, awr_probe_statx(p)) : NULL);
	json_object_object_add(o, "sysfs", sysfs_json(awr_probe_sysfs(p)));
	device_add_json(o, awr_probe_device(p));
	json_object_object_add(o, "stack", stack_json(awr_probe_stack(p)));
	json_object_object_add(o, "findings", out_probe_findings_json(p));
	json_object_object_add(o, "fs", fs_probe_json(awr_probe_path_name(p)));	/* cli/fs_out.c */
	return o;
}

/* One row of the side-by-side table (statx, sysfs, device, effective); NULL prints "-". */
static void row(const char *label, const uint64_t *a, const uint64_t *b, const uint64_t *d,
		const uint64_t *c)
{
	const uint64_t *cells[4] = { a, b, d, c };
	bool count = !strcmp(label, "segments_max");
	char buf[32];

	printf("  %-20s", label);
	for (int i = 0; i < 4; i++) {
		if (cells[i] && count)
			snprintf(buf, sizeof(buf), "%" PRIu64, *cells[i]);
		printf(" %-14s",
		       !cells[i] ? "-" : count ? buf : out_size(*cells[i], buf, sizeof(buf)));
	}
	putchar('\n');
}

/* The cells of a row: statx's (when @c), sysfs', the device's, the effective limit */
#define CELL(cond, v) ((cond) ? &(uint64_t){ (v) } : NULL)
#define X(c, m) CELL(c, s->m)
#define Y(m) CELL(y, y->m)
#define D(m) CELL(l, l->m)
#define E(m) (&(uint64_t){ e->m })

/* The device column: its derived limits when its data gave them (else NULL), its block sizes */
static const struct awr_device_limits *dev_column(const struct awr_device *d, uint64_t *lbs,
						  uint64_t *pbs)
{
	bool nvme = d && awr_device_type(d) == AWR_DEVICE_NVME;
	const struct awr_nvme_id *n = nvme ? awr_device_nvme(d) : NULL;
	const struct awr_scsi_id *s = d && !nvme ? awr_device_scsi(d) : NULL;

	*lbs = n ? n->lba_size : s ? s->logical_block_size : 0;
	*pbs = s ? s->physical_block_size : 0;
	return (n && n->have_ns) || (s && s->logical_block_size) ? awr_device_derived(d) : NULL;
}

static void probe_print(const struct awr_probe *p)
{
	const struct awr_statx_view *s = awr_probe_statx(p);
	const struct awr_sysfs_view *y = awr_probe_sysfs(p);
	const struct awr_limits *e = awr_probe_effective(p);
	const struct awr_device *d = awr_probe_device(p);
	bool sa = s && s->atomic_reported;
	const struct awr_device_limits *l;
	char col[80], dcol[80], a[32], b[32];
	uint64_t lbs, pbs;

	l = dev_column(d, &lbs, &pbs);
	printf("%s: %s", awr_probe_path_name(p), kind_words(p));
	if (y)
		printf(" on %s%s%s", y->disk, y->partition[0] ? ", partition " : "", y->partition);
	if (awr_probe_new_file(p))
		printf("; the answer is for a new file made in it");
	printf("\n\n");
	snprintf(col, sizeof(col), "sysfs(%s)", y ? y->disk : "-");
	snprintf(dcol, sizeof(dcol), "device(%s)", d ? awr_device_name(d) : "none");
	printf("  %-20s %-14s %-14s %-14s %-14s\n", "", "statx", col, dcol, "effective");
	row("unit_min", X(sa, unit_min), Y(unit_min), D(unit_min), E(unit_min));
	row("unit_max", X(sa, unit_max), Y(unit_max), D(unit_max), E(unit_max));
	row("max_bytes", NULL, Y(max_bytes), D(max_bytes), E(max_bytes));
	row("boundary", NULL, Y(boundary), D(boundary), E(boundary));
	row("segments_max", X(sa, segments_max), NULL, NULL, E(segments_max));
	row("unit_max_opt", X(sa, unit_max_opt), NULL, NULL, E(unit_max_opt));
	row("logical_block_size", NULL, Y(logical_block_size), CELL(lbs, lbs), NULL);
	row("physical_block_size", NULL, Y(physical_block_size), CELL(pbs, pbs), NULL);
	row("dio_mem_align", X(s && s->dio_reported, dio_mem_align), NULL, NULL, E(mem_align));
	row("dio_offset_align", X(s && s->dio_reported, dio_offset_align), NULL, NULL,
	    E(offset_align));
	if (y)	/* the queue the writes go to: a partition's disk, a dm or md device's own */
		printf("  %-20s %s: %s\n", "write cache", y->disk,
		       out_write_cache_text(y, col, sizeof(col)));
	if (d) {
		putchar('\n');
		device_print(d);
	} else if (y) {
		printf("\n  device(none): no NVMe identify or SCSI VPD could be read for %s "
		       "(neither NVMe nor SCSI,\n  such as loop or virtio, or not readable by this "
		       "user): the sysfs column is what the kernel applies\n",
		       y->disk);
	}
	if (awr_probe_stack(p)) {
		putchar('\n');
		stack_print(awr_probe_stack(p));
	}
	if (e->supported)
		printf("\natomic writes: supported, %s .. %s\n",
		       out_size(e->unit_min, a, sizeof(a)),
		       out_size(e->unit_max, b, sizeof(b)));
	else
		printf("\natomic writes: not supported\n");
	if (awr_probe_nr_findings(p))
		printf("\nfindings:\n");
	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++)
		out_finding_print(awr_probe_finding(p, i));
	fs_probe_print(awr_probe_path_name(p));	/* cli/fs_out.c */
}
#undef X
#undef Y
#undef D
#undef E

/* --require SIZE and its outcome (awr_limits_require()) */
static const struct field require_fields[] = {
	FLD(struct awr_requirement, size, FLD_SIZE, "size"),
	FLD(struct awr_requirement, met, FLD_BOOL, "met"),
	FLD(struct awr_requirement, reason, FLD_CHARS, "reason", .flags = FLD_NULL_ZERO),
	FLD_END
};

int cmd_probe(int argc, const char **argv)
{
	char *require = NULL;
	struct poptOption table[] = {
		{ "require", 0, POPT_ARG_STRING, &require, 0,
		  "exit 1 unless a write of SIZE is atomic here", "SIZE" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_requirement r = { .met = true };
	struct cmd_ctx c;
	struct awr_probe *p;
	uint64_t req = 0;
	int ret;

	if (cmd_parse(&c, argc, argv, table, "PATH", true))
		return AWR_EXIT_USAGE;
	if (require && parse_size_arg("require", require, &req)) {
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	ret = awr_probe_path(c.operand, 0, &p);
	if (ret) {
		out_error("cannot probe %s: %s", c.operand, strerror(-ret));
		out_set_errno(-ret);
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	if (require)
		awr_limits_require(awr_probe_effective(p), req, &r);
	if (out_mode == OUT_JSON) {
		struct json_object *o = probe_json(p);

		if (require)	/* the requirement and its outcome, for a collector */
			json_object_object_add(o, "require", fld_json(require_fields, &r));
		out_print_json(o);
	} else {
		probe_print(p);
	}
	ret = AWR_EXIT_OK;
	if (!r.met) {
		out_error("%s", r.reason);
		out_outcome("requirement_not_met");
		ret = AWR_EXIT_FAIL;
	}
	awr_probe_free(p);
	cmd_done(&c);
	return ret;
}
