// SPDX-License-Identifier: MIT
/* awr list: every block device of the machine with its atomic limits, one line each. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awr.h"

/* "AWUPF 15", "NAWUPF 7", "MATL 8192", or "-" */
static const char *device_field(const struct awr_blockdev *b, char *buf, size_t len)
{
	if (b->nawupf >= 0)
		snprintf(buf, len, "NAWUPF %d", b->nawupf);
	else if (b->awupf >= 0)
		snprintf(buf, len, "AWUPF %d", b->awupf);
	else if (b->scsi_matl >= 0)
		snprintf(buf, len, "MATL %" PRId64, b->scsi_matl);
	else
		snprintf(buf, len, "-");
	if (b->provider[0])	/* a cloud provider's own statement (AWS's NTWPU), beside it */
		snprintf(buf + strlen(buf), len - strlen(buf), ",%s:%" PRIu32 "K", b->provider,
			 b->provider_unit / 1024);
	return buf;
}

/*
 * The normal output's columns: the header and every row through one format, so that a header
 * cannot stand one column off its values.
 */
#define LIST_ROW "%-10s %-9s %-18.18s %-16.16s %-8.8s %5s %8s %8s %8s %8s %-11s %-6s %-12s " \
		 "%-8s "

/* The last column: "NAME:MOUNTPOINT(FSTYPE)" of each mount, then the holders; "-" none */
static void print_claims(const struct awr_blockdev *b)
{
	for (unsigned int i = 0; i < b->nr_mounts; i++)
		printf("%s%s:%s(%s)", i ? " " : "", b->mounts[i].device, b->mounts[i].target,
		       b->mounts[i].fstype);
	printf("%s%s\n", b->nr_mounts && *b->holders ? " " : "",
	       b->nr_mounts || *b->holders ? b->holders : "-");
}

static const char *dash(const char *s)
{
	return *s ? s : "-";
}

static void print_line(const struct awr_blockdev *b)
{
	char s[4][24], dev[32], parts[24], lbs[16], verdict[16];

	if (b->nr_parts)
		snprintf(parts, sizeof(parts), "%u/%u", b->nr_parts_aligned, b->nr_parts);
	else
		snprintf(parts, sizeof(parts), "-");
	snprintf(lbs, sizeof(lbs), "%" PRIu32, b->sysfs.logical_block_size);
	printf(LIST_ROW, b->name, b->transport, dash(b->model), dash(b->serial),
	       dash(b->firmware), lbs,
	       out_size(b->sysfs.unit_min, s[0], sizeof(s[0])),
	       out_size(b->sysfs.unit_max, s[1], sizeof(s[1])),
	       out_size(b->sysfs.max_bytes, s[2], sizeof(s[2])),
	       out_size(b->sysfs.boundary, s[3], sizeof(s[3])),
	       device_field(b, dev, sizeof(dev)), parts,
	       verdict_text(awr_blockdev_verdict(b), verdict, sizeof(verdict)),
	       out_write_cache_cell(&b->sysfs));
	print_claims(b);
}

static struct json_object *words_json(const char *s)
{
	struct json_object *a = json_object_new_array();
	char buf[1024], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		json_object_array_add(a, json_object_new_string(w));
	return a;
}

/* A disk as the list shows it: the library's struct, and what awr list derives from it */
struct list_row {
	struct awr_blockdev b;
	unsigned int misaligned;	/* partitions whose start is off the atomic alignment */
	const char *verdict;		/* awr_blockdev_verdict() */
};

static const char *const list_verdicts[] = { "atomic", "misaligned", "single_block", "none",
					     "unknown" };
#define NR_VERDICTS ((int)(sizeof(list_verdicts) / sizeof(list_verdicts[0])))

static const char *verdict_name(int v)
{
	return list_verdicts[v];
}

static const struct field mount_fields[] = {
	FLD(struct awr_blockdev_mount, device, FLD_CHARS, "device"),
	FLD(struct awr_blockdev_mount, target, FLD_CHARS, "mountpoint"),
	FLD(struct awr_blockdev_mount, fstype, FLD_CHARS, "fstype"),
	FLD_END
};

static const struct field part_fields[] = {
	FLD(struct awr_sysfs_view, partition, FLD_CHARS, "name"),
	FLD(struct awr_sysfs_view, part_start, FLD_SIZE, "start"),
	FLD(struct awr_sysfs_view, part_aligned, FLD_BOOL, "aligned"),
	FLD_END
};

/* the device's own figures: an object each, null when the first is not known */
static const struct field nvme_fields[] = {
	FLD(struct awr_blockdev, awupf, FLD_INT, "awupf", .flags = FLD_NULL_NEG),
	FLD(struct awr_blockdev, nawupf, FLD_INT, "nawupf", .flags = FLD_NULL_NEG),
	FLD_END
};

static const struct field scsi_fields[] = {
	FLD(struct awr_blockdev, scsi_matl, FLD_INT, "max_atomic_transfer_length",
	    .flags = FLD_NULL_NEG),
	FLD_END
};

static const struct field provider_fields[] = {
	FLD(struct awr_blockdev, provider, FLD_CHARS, "provider", .flags = FLD_NULL_ZERO),
	FLD(struct awr_blockdev, provider_unit, FLD_SIZE, "unit"),
	FLD(struct awr_blockdev, provider_granularity, FLD_SIZE, "granularity"),
	FLD(struct awr_blockdev, provider_boundary, FLD_SIZE, "boundary"),
	FLD_END
};

#define B(m, t, k, ...) FLD(struct list_row, b.m, t, k, __VA_ARGS__)
static const struct field disk_fields[] = {
	B(name, FLD_CHARS, "name"),
	B(model, FLD_CHARS, "model", .flags = FLD_NULL_ZERO),
	B(serial, FLD_CHARS, "serial", .flags = FLD_NULL_ZERO),
	B(firmware, FLD_CHARS, "firmware", .flags = FLD_NULL_ZERO),
	B(transport, FLD_CHARS, "transport"),
	B(is_virtual, FLD_BOOL, "virtual"),
	B(sysfs.logical_block_size, FLD_SIZE, "logical_block_size"),
	B(sysfs.unit_min, FLD_SIZE, "unit_min"),
	B(sysfs.unit_max, FLD_SIZE, "unit_max"),
	B(sysfs.max_bytes, FLD_SIZE, "max_bytes"),
	B(sysfs.boundary, FLD_SIZE, "boundary"),
	FLD_END
};

/* after the write cache: the device's figures and partitions, then holders */
static const struct field device_fields[] = {
	FLD(struct list_row, b, FLD_OBJECT, "nvme", .sub = nvme_fields, .flags = FLD_NULL_HEAD),
	FLD(struct list_row, b, FLD_OBJECT, "scsi", .sub = scsi_fields, .flags = FLD_NULL_HEAD),
	FLD(struct list_row, b, FLD_OBJECT, "provider", .sub = provider_fields,
	    .flags = FLD_NULL_HEAD),
	FLD_ARR(struct list_row, b.parts, b.nr_parts, "partitions", part_fields,
		.flags = FLD_PTR),
	FLD_END
};

static const struct field claim_fields[] = {
	FLD_ARR(struct list_row, b.mounts, b.nr_mounts, "mounts", mount_fields,
		.flags = FLD_PTR),
	FLD(struct list_row, verdict, FLD_STR, "verdict"),
	FLD_END
};

static struct json_object *device_json(const struct list_row *row)
{
	struct json_object *o = fld_json(disk_fields, row);

	out_add_write_cache(o, &row->b.sysfs);
	fld_json_add(o, device_fields, row);
	json_object_object_add(o, "holders", words_json(row->b.holders));
	fld_json_add(o, claim_fields, row);
	return o;
}

/* -o prometheus: one gauge per device and limit, for node_exporter's textfile collector */
#define P(m, k, h) B(m, FLD_UINT, k, .help = h)
static const struct field prom_limits[] = {
	P(sysfs.unit_min, "awr_atomic_unit_min_bytes", "the smallest atomic write the kernel takes "
	  "on the disk (sysfs atomic_write_unit_min_bytes; 0: none)"),
	P(sysfs.unit_max, "awr_atomic_unit_max_bytes",
	  "the largest atomic write the kernel takes on the disk (sysfs "
	  "atomic_write_unit_max_bytes; 0: no atomic writes)"),
	P(sysfs.max_bytes, "awr_atomic_max_bytes",
	  "the device's atomic write maximum as the kernel derives it (sysfs "
	  "atomic_write_max_bytes)"),
	P(sysfs.boundary, "awr_atomic_boundary_bytes", "no atomic write may cross a multiple of it "
	  "(sysfs atomic_write_boundary_bytes; 0: none)"),
	P(sysfs.logical_block_size, "awr_logical_block_size_bytes", "the disk's logical block size "
	  "(sysfs logical_block_size)"),
	FLD_END
};
#undef P

#define P(m, k, h) B(m, FLD_INT, k, .flags = FLD_NULL_NEG, .help = h)
static const struct field prom_device[] = {
	P(awupf, "awr_nvme_awupf", "NVMe AWUPF of the controller, 0's based (blocks - 1) as "
	  "Identify Controller reports it"),
	P(nawupf, "awr_nvme_nawupf", "NVMe NAWUPF of the namespace, 0's based, where NSFEAT bit 1 "
	  "makes it valid"),
	P(scsi_matl, "awr_scsi_max_atomic_transfer_length_blocks", "SCSI MAXIMUM ATOMIC TRANSFER "
	  "LENGTH (Block Limits VPD)"),
	FLD_END
};
#undef P

/* The write cache and FUA of each disk whose sysfs shows them (untorn is not durable), ... */
static const struct field prom_disk[] = {
	B(sysfs.write_cache, FLD_BOOL, "awr_write_cache_volatile", .flags = FLD_NULL_ZERO,
	  .is = AWR_WRITE_CACHE_WRITE_BACK, .help = "1: the disk has a volatile write cache "
	  "(sysfs queue/write_cache \"write back\"): acknowledged writes, atomic or not, need a "
	  "flush to survive a power cut"),
	B(sysfs.fua, FLD_BOOL, "awr_fua", .flags = FLD_NULL_ZERO, .is = AWR_FUA_YES,
	  .help = "1: the disk takes FUA writes itself (sysfs queue/fua); 0: each FUA write "
	  "becomes the write and a cache flush"),
	/* ... its partitions off the alignment, and its verdict */
	FLD(struct list_row, misaligned, FLD_UINT, "awr_partitions_misaligned",
	    .help = "partitions of the disk whose start is not a multiple of its atomic unit and "
	    "boundary"),
	FLD(struct list_row, verdict, FLD_STR, "awr_atomic_verdict", .flags = FLD_ONEHOT,
	    .name = verdict_name, .values = NR_VERDICTS, .lkey = "verdict",
	    .help = "awr list's verdict of the disk: 1 for the verdict it has, 0 for the others"),
	FLD_END
};

/* the labels of the samples: the disk, its model, its transport */
static const struct field lab_limits[] = {
	B(name, FLD_CHARS, "device"), B(model, FLD_CHARS, "model"),
	B(transport, FLD_CHARS, "transport"), FLD_END
};
#undef B

static void print_prometheus(const struct list_row *rows, unsigned int nr)
{
	fld_prom(prom_limits, lab_limits, rows, sizeof(*rows), nr);
	fld_prom(prom_device, (const struct field[]){ lab_limits[0], lab_limits[1], FLD_END },
		 rows, sizeof(*rows), nr);
	fld_prom(prom_disk, (const struct field[]){ lab_limits[0], FLD_END }, rows, sizeof(*rows),
		 nr);
	prom_info();
}

/*
 * The devices shown, in @shown (a shallow copy of @list's, with what is derived from each):
 * virtual ones (no driver below them) only with @all; returns how many.
 */
static unsigned int shown_devices(const struct awr_blockdev *list, unsigned int nr, bool all,
				  struct list_row *shown)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < nr; i++)
		if (all || !list[i].is_virtual)
			shown[n++] = (struct list_row){ list[i],
							list[i].nr_parts - list[i].nr_parts_aligned,
							awr_blockdev_verdict(&list[i]) };
	return n;
}

static void render(const struct list_row *rows, unsigned int nr)
{
	struct json_object *o, *a;

	if (out_mode == OUT_NORMAL) {
		printf(LIST_ROW "%s\n", "NAME", "TRANSPORT", "MODEL", "SERIAL", "FIRMWARE", "LBS",
		       "UNIT_MIN", "UNIT_MAX", "MAX", "BOUNDARY", "DEVICE", "PARTS", "VERDICT",
		       "CACHE", "MOUNTS/HOLDERS");
		for (unsigned int i = 0; i < nr; i++)
			print_line(&rows[i].b);
	} else if (out_mode == OUT_PROMETHEUS) {
		print_prometheus(rows, nr);
	} else {
		o = json_object_new_object();
		a = json_object_new_array();
		for (unsigned int i = 0; i < nr; i++)
			json_object_array_add(a, device_json(&rows[i]));
		out_add_versions(o);
		json_object_object_add(o, "devices", a);
		out_print_json(o);
	}
}

int cmd_list(int argc, const char **argv)
{
	static int all, real;
	struct poptOption table[] = {
		{ "all", 0, POPT_ARG_NONE, &all, 0,
		  "every device, virtual ones too (loop, zram, ram, nbd); the default but for -o "
		  "prometheus", NULL },
		{ "no-virtual", 0, POPT_ARG_NONE, &real, 0,
		  "leave out virtual devices (no driver below them: loop, zram, ram, nbd; dm and "
		  "md stay); the default for -o prometheus", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options_prom, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_blockdev *list = NULL;
	struct list_row *shown = NULL;
	unsigned int nr = 0;
	struct cmd_ctx c;
	int ret, rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, NULL, false))
		return AWR_EXIT_USAGE;
	if (c.operand) {
		out_error("list: unexpected argument '%s': awr list takes no path (awr probe PATH "
			  "shows one)", c.operand);
		goto out;
	}
	if (all && real) {
		out_error("list: --all and --no-virtual exclude each other");
		goto out;
	}
	ret = awr_blockdev_list(&list, &nr);
	shown = ret ? NULL : calloc(nr + 1, sizeof(*shown));
	if (ret || !shown) {
		out_error("list: cannot read the block devices in sysfs: %s",
			  strerror(ret ? -ret : ENOMEM));
		goto out;
	}
	render(shown, shown_devices(list, nr, all || (!real && out_mode != OUT_PROMETHEUS),
				    shown));
	rc = AWR_EXIT_OK;
out:
	free(shown);
	awr_blockdev_list_free(list, nr);
	cmd_done(&c);
	return rc;
}
