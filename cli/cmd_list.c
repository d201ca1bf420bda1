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

static const struct field mount_fields[] = {
	FLD(struct awr_blockdev_mount, device, FLD_CHARS, "device"),
	FLD(struct awr_blockdev_mount, target, FLD_CHARS, "mountpoint"),
	FLD(struct awr_blockdev_mount, fstype, FLD_CHARS, "fstype"),
	FLD_END
};

#define B(m, t, k, ...) FLD(struct awr_blockdev, m, t, k, __VA_ARGS__)
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

static const struct field nvme_fields[] = {
	B(awupf, FLD_INT, "awupf"),
	B(nawupf, FLD_INT, "nawupf", .flags = FLD_NULL_NEG),
	FLD_END
};

static const struct field scsi_fields[] = {
	B(scsi_matl, FLD_INT, "max_atomic_transfer_length"),
	FLD_END
};

static const struct field provider_fields[] = {
	B(provider, FLD_CHARS, "provider"),
	B(provider_unit, FLD_SIZE, "unit"),
	B(provider_granularity, FLD_SIZE, "granularity"),
	B(provider_boundary, FLD_SIZE, "boundary"),
	FLD_END
};
#undef B

static const struct field part_fields[] = {
	FLD(struct awr_sysfs_view, partition, FLD_CHARS, "name"),
	FLD(struct awr_sysfs_view, part_start, FLD_SIZE, "start"),
	FLD(struct awr_sysfs_view, part_aligned, FLD_BOOL, "aligned"),
	FLD_END
};

static struct json_object *device_json(const struct awr_blockdev *b)
{
	struct json_object *o = fld_json(disk_fields, b);

	out_add_write_cache(o, &b->sysfs);
	json_object_object_add(o, "nvme", b->awupf >= 0 ? fld_json(nvme_fields, b) : NULL);
	json_object_object_add(o, "scsi", b->scsi_matl >= 0 ? fld_json(scsi_fields, b) : NULL);
	json_object_object_add(o, "provider", b->provider[0] ? fld_json(provider_fields, b) : NULL);
	json_object_object_add(o, "partitions", fld_json_array(part_fields, b->parts,
							       sizeof(*b->parts), b->nr_parts));
	json_object_object_add(o, "holders", words_json(b->holders));
	json_object_object_add(o, "mounts", fld_json_array(mount_fields, b->mounts,
							   sizeof(*b->mounts), b->nr_mounts));
	json_object_object_add(o, "verdict", json_object_new_string(awr_blockdev_verdict(b)));
	return o;
}

static const char *const list_verdicts[] = { "atomic", "misaligned", "single_block", "none",
					     "unknown" };

/* The write cache and FUA of each disk whose sysfs shows them (untorn is not durable) */
static void prom_cache(const struct awr_blockdev *list, unsigned int nr)
{
	prom_gauge("awr_write_cache_volatile", "1: the disk has a volatile write cache (sysfs "
		   "queue/write_cache \"write back\"): acknowledged writes, atomic or not, need a "
		   "flush to survive a power cut");
	for (unsigned int i = 0; i < nr; i++) {
		const char *const lab[] = { "device", list[i].name, NULL };

		if (list[i].sysfs.write_cache != AWR_WRITE_CACHE_UNKNOWN)
			prom_sample("awr_write_cache_volatile", lab,
				    list[i].sysfs.write_cache == AWR_WRITE_CACHE_WRITE_BACK);
	}
	prom_gauge("awr_fua", "1: the disk takes FUA writes itself (sysfs queue/fua); 0: each FUA "
		   "write becomes the write and a cache flush");
	for (unsigned int i = 0; i < nr; i++) {
		const char *const lab[] = { "device", list[i].name, NULL };

		if (list[i].sysfs.fua != AWR_FUA_UNKNOWN)
			prom_sample("awr_fua", lab, list[i].sysfs.fua == AWR_FUA_YES);
	}
}

/* -o prometheus: one gauge per device and limit, for node_exporter's textfile collector */
#define P(m, k, h) FLD(struct awr_blockdev, m, FLD_UINT, k, .help = h)
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

#define P(m, k, h) FLD(struct awr_blockdev, m, FLD_INT, k, .flags = FLD_NULL_NEG, .help = h)
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

static void labels_model(const void *row, const char **lab)
{
	const struct awr_blockdev *b = row;

	lab[0] = "device", lab[1] = b->name, lab[2] = "model", lab[3] = b->model;
	lab[4] = NULL;
}

static void labels_limits(const void *row, const char **lab)
{
	labels_model(row, lab);
	lab[4] = "transport", lab[5] = ((const struct awr_blockdev *)row)->transport;
	lab[6] = NULL;
}

static void print_prometheus(const struct awr_blockdev *list, unsigned int nr)
{
	const char *l[9];

	fld_prom(prom_limits, list, sizeof(*list), nr, labels_limits);
	fld_prom(prom_device, list, sizeof(*list), nr, labels_model);
	prom_cache(list, nr);
	prom_gauge("awr_partitions_misaligned", "partitions of the disk whose start is not a "
						"multiple of its atomic unit and boundary");
	for (unsigned int i = 0; i < nr; i++)
		prom_sample("awr_partitions_misaligned",
			    (const char *const[]){ "device", list[i].name, NULL },
			    list[i].nr_parts - list[i].nr_parts_aligned);
	prom_gauge("awr_atomic_verdict", "awr list's verdict of the disk: 1 for the verdict it "
					 "has, 0 for the others");
	for (unsigned int i = 0; i < nr; i++) {
		const char *v = awr_blockdev_verdict(&list[i]);

		for (size_t k = 0; k < sizeof(list_verdicts) / sizeof(list_verdicts[0]); k++) {
			l[0] = "device", l[1] = list[i].name;
			l[2] = "verdict", l[3] = list_verdicts[k], l[4] = NULL;
			prom_sample("awr_atomic_verdict", l, !strcmp(v, list_verdicts[k]));
		}
	}
	prom_info();
}

/*
 * The devices shown, in @shown (a shallow copy of @list's): virtual ones (no driver below them)
 * only with @all; returns how many.
 */
static unsigned int shown_devices(const struct awr_blockdev *list, unsigned int nr, bool all,
				  struct awr_blockdev *shown)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < nr; i++)
		if (all || !list[i].is_virtual)
			shown[n++] = list[i];
	return n;
}

static void render(const struct awr_blockdev *list, unsigned int nr)
{
	struct json_object *o, *a;

	if (out_mode == OUT_NORMAL) {
		printf(LIST_ROW "%s\n", "NAME", "TRANSPORT", "MODEL", "SERIAL", "FIRMWARE", "LBS",
		       "UNIT_MIN", "UNIT_MAX", "MAX", "BOUNDARY", "DEVICE", "PARTS", "VERDICT",
		       "CACHE", "MOUNTS/HOLDERS");
		for (unsigned int i = 0; i < nr; i++)
			print_line(&list[i]);
	} else if (out_mode == OUT_PROMETHEUS) {
		print_prometheus(list, nr);
	} else {
		o = json_object_new_object();
		a = json_object_new_array();
		for (unsigned int i = 0; i < nr; i++)
			json_object_array_add(a, device_json(&list[i]));
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
	struct awr_blockdev *list = NULL, *shown = NULL;
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
