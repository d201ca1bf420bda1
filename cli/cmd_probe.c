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

#define CELL(cond, v) ((cond) ? &(uint64_t){ (v) } : NULL)

/* The device column: derived limits when the device's data gave them. */
struct dev_cells {
	bool have;
	uint64_t unit_min, unit_max, max_bytes, boundary, lbs, pbs;
	char title[80];
};

static void dev_cells(const struct awr_device *d, struct dev_cells *c)
{
	const struct awr_device_limits *l = d ? awr_device_derived(d) : NULL;

	memset(c, 0, sizeof(*c));
	snprintf(c->title, sizeof(c->title), "device(%s)", d ? awr_device_name(d) : "none");
	if (!d)
		return;
	if (awr_device_type(d) == AWR_DEVICE_NVME) {
		c->have = awr_device_nvme(d)->have_ns;
		c->lbs = awr_device_nvme(d)->lba_size;
	} else {
		c->have = awr_device_scsi(d)->logical_block_size != 0;
		c->lbs = awr_device_scsi(d)->logical_block_size;
		c->pbs = awr_device_scsi(d)->physical_block_size;
	}
	c->unit_min = l->unit_min;
	c->unit_max = l->unit_max;
	c->max_bytes = l->max_bytes;
	c->boundary = l->boundary;
}

static void probe_print(const struct awr_probe *p)
{
	const struct awr_statx_view *s = awr_probe_statx(p);
	const struct awr_sysfs_view *y = awr_probe_sysfs(p);
	const struct awr_limits *e = awr_probe_effective(p);
	const struct awr_device *d = awr_probe_device(p);
	bool sa = s && s->atomic_reported;
	char col[80], a[32], b[32];
	struct dev_cells dc;

	dev_cells(d, &dc);
	printf("%s: %s", awr_probe_path_name(p), kind_words(p));
	if (y)
		printf(" on %s%s%s", y->disk, y->partition[0] ? ", partition " : "", y->partition);
	if (awr_probe_new_file(p))
		printf("; the answer is for a new file made in it");
	printf("\n\n");
	snprintf(col, sizeof(col), "sysfs(%s)", y ? y->disk : "-");
	printf("  %-20s %-14s %-14s %-14s %-14s\n", "", "statx", col, dc.title, "effective");
	row("unit_min", CELL(sa, s->unit_min), CELL(y, y->unit_min), CELL(dc.have, dc.unit_min),
	    &(uint64_t){ e->unit_min });
	row("unit_max", CELL(sa, s->unit_max), CELL(y, y->unit_max), CELL(dc.have, dc.unit_max),
	    &(uint64_t){ e->unit_max });
	row("max_bytes", NULL, CELL(y, y->max_bytes), CELL(dc.have, dc.max_bytes),
	    &(uint64_t){ e->max_bytes });
	row("boundary", NULL, CELL(y, y->boundary), CELL(dc.have, dc.boundary),
	    &(uint64_t){ e->boundary });
	row("segments_max", CELL(sa, s->segments_max), NULL, NULL, &(uint64_t){ e->segments_max });
	row("unit_max_opt", CELL(sa, s->unit_max_opt), NULL, NULL, &(uint64_t){ e->unit_max_opt });
	row("logical_block_size", NULL, CELL(y, y->logical_block_size), CELL(dc.lbs, dc.lbs), NULL);
	row("physical_block_size", NULL, CELL(y, y->physical_block_size), CELL(dc.pbs, dc.pbs),
	    NULL);
	row("dio_mem_align", CELL(s && s->dio_reported, s->dio_mem_align), NULL, NULL,
	    &(uint64_t){ e->mem_align });
	row("dio_offset_align", CELL(s && s->dio_reported, s->dio_offset_align), NULL, NULL,
	    &(uint64_t){ e->offset_align });
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

/* --require SIZE and its outcome */
struct requirement {
	uint64_t size;
	bool met;
	const char *reason;	/* why not, NULL when met */
};

static const struct field require_fields[] = {
	FLD(struct requirement, size, FLD_SIZE, "size"),
	FLD(struct requirement, met, FLD_BOOL, "met"),
	FLD(struct requirement, reason, FLD_STR, "reason", .flags = FLD_NULL_ZERO),
	FLD_END
};

/* --require SIZE: met, or why not in one sentence (reason) */
static bool check_require(const struct awr_limits *e, uint64_t size, char *reason, size_t len)
{
	char a[32], b[32], c[32];

	out_size(size, c, sizeof(c));
	if (!e->supported)
		snprintf(reason, len,
			 "required size %s is not atomic here: no atomic write support", c);
	else if (size < e->unit_min || size > e->unit_max || (size & (size - 1)))
		snprintf(reason, len, "required size %s is not atomic here: atomic writes are "
				      "powers of two from %s to %s",
			 c, out_size(e->unit_min, a, sizeof(a)),
			 out_size(e->unit_max, b, sizeof(b)));
	else
		return true;
	return false;
}

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
	struct cmd_ctx c;
	struct awr_probe *p;
	uint64_t req = 0;
	char reason[160];
	bool met;
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
	met = !require || check_require(awr_probe_effective(p), req, reason, sizeof(reason));
	if (out_mode == OUT_JSON) {
		struct json_object *o = probe_json(p);

		struct requirement r = { req, met, met ? NULL : reason };

		if (require)	/* the requirement and its outcome, for a collector */
			json_object_object_add(o, "require", fld_json(require_fields, &r));
		out_print_json(o);
	} else {
		probe_print(p);
	}
	ret = AWR_EXIT_OK;
	if (!met) {
		out_error("%s", reason);
		out_outcome("requirement_not_met");
		ret = AWR_EXIT_FAIL;
	}
	awr_probe_free(p);
	cmd_done(&c);
	return ret;
}
