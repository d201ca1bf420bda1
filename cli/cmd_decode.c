// SPDX-License-Identifier: MIT
/* awr decode FILE... | --nvme-ctrl F --nvme-ns F | --scsi-vpd F [--lbs N --pbs N] [--kernel V]:
 * options and rendering; the library reads and decodes (awr_readings_open(), awr_*_id_load()). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

struct decode_args {
	char *ctrl, *ns, *vpd, *lbs, *pbs, *segs, *hw, *kernel, *chunk, *reading;
	const char **files;		/* FILE... operands, recognised */
	struct awr_readings *r;		/* what the FILEs hold */
	uint32_t kernel_v;		/* --kernel, 0 the running one */
};

/* The library's refusal, in its words (they name the file and what would be right). */
static int lib_error(const char *prefix)
{
	out_error("%s%s", prefix, awr_last_error());
	return -EINVAL;
}

static int parse_u32_size(const char *opt, const char *text, uint32_t *out, bool pow2)
{
	uint64_t v = 0;

	if (!text || parse_size_arg(opt, text, &v))
		return text ? -EINVAL : 0;
	if (v <= UINT32_MAX && (!pow2 || (v >= 512 && !(v & (v - 1))))) {
		*out = (uint32_t)v;
		return 0;
	}
	out_error("--%s %s must be %s", opt, text,
		  pow2 ? "a power of two from 512" : "below 4 GiB");
	return -EINVAL;
}

/* --OPT FILE, if given (not with FILE...): a page, named in errors as the option gave it */
static int load_page(const char *opt, const char *path, struct awr_nvme_id *nid,
		     struct awr_scsi_id *sid)
{
	char name[4200];

	if (!path)
		return 0;
	snprintf(name, sizeof(name), "--%s %s", opt, path);
	if (sid ? awr_scsi_id_load(path, name, sid) :
		  awr_nvme_id_load(path, name, !strcmp(opt, "nvme-ns"), nid))
		return lib_error("");
	return 0;
}

/* FILE...: the readings, and the one --reading picks */
static int read_files(struct decode_args *a)
{
	uint64_t n;
	unsigned int nr;

	if (awr_readings_open(a->files, &a->r))
		return lib_error("decode: ");
	n = nr = awr_readings_count(a->r);
	if (a->reading && (parse_size_arg("reading", a->reading, &n) || !n || n > nr)) {
		out_error("decode: --reading %s: the input holds %u reading%s (split at `nvme "
			  "format`): give 1..%u", a->reading, nr, nr == 1 ? "" : "s", nr);
		return -EINVAL;
	}
	return awr_readings_pick(a->r, (unsigned int)n) ? lib_error("decode: ") : 0;
}

FLD_ENUM_NAME(awr_input_field_name, enum awr_input_field)

static const struct field change_fields[] = {
	FLD(struct awr_reading_change, field, FLD_ENUM, "field", .name = awr_input_field_name_int),
	FLD(struct awr_reading_change, reading, FLD_UINT, "reading"),
	FLD(struct awr_reading_change, before, FLD_UINT, "before"),
	FLD(struct awr_reading_change, after, FLD_UINT, "after"),
	FLD_END
};

/* "input": formats, fields, missing, readings {count, used, changed [{field, ...}], meaning} */
static struct json_object *input_json(const struct decode_args *a)
{
	const char *name, *missing = awr_readings_missing(a->r);
	struct json_object *o = json_object_new_object(), *f = json_object_new_array();
	struct json_object *m = json_object_new_array(), *r = json_object_new_object();
	struct json_object *c = json_object_new_array();
	const char *meaning = awr_readings_meaning(a->r, a->kernel_v);

	for (unsigned int b = 1; (name = awr_input_format_name(b)); b <<= 1)
		if (awr_readings_input(a->r, 0)->formats & b)
			json_object_array_add(f, json_object_new_string(name));
	for (int i = 0; i < AWR_IF__COUNT; i++)
		if (awr_readings_input(a->r, 0)->have & (1ULL << i))
			json_object_array_add(m, json_object_new_string(awr_input_field_name(i)));
	for (unsigned int i = 0; i < awr_readings_nr_changes(a->r); i++)
		json_object_array_add(c, fld_json(change_fields, awr_readings_change(a->r, i)));
	json_object_object_add(r, "count", out_u64(awr_readings_count(a->r)));
	json_object_object_add(r, "used", out_u64(awr_readings_used(a->r)));
	json_object_object_add(r, "changed", c);
	json_object_object_add(r, "meaning", *meaning ? json_object_new_string(meaning) : NULL);
	json_object_object_add(o, "formats", f);
	json_object_object_add(o, "fields", m);
	json_object_object_add(o, "missing", *missing ? json_object_new_string(missing) : NULL);
	json_object_object_add(o, "readings", r);
	return o;
}

static void input_print(const struct decode_args *a)
{
	unsigned int nr = awr_readings_count(a->r), used = awr_readings_used(a->r);
	const struct awr_reading_change *c;
	const char *name, *missing = awr_readings_missing(a->r);
	const char *meaning = awr_readings_meaning(a->r, a->kernel_v);

	printf("input:");
	for (unsigned int b = 1; (name = awr_input_format_name(b)); b <<= 1)
		if (awr_readings_input(a->r, 0)->formats & b)
			printf(" [%s]", name);
	printf("\n%s%s%s", *missing ? "missing: " : "", missing, *missing ? "\n" : "");
	if (nr > 1)
		printf("readings: %u of one controller, split at `nvme format`; this answer uses "
		       "reading %u%s\n%s", nr, used, used == nr ? " (the last; --reading N picks "
		       "another)" : "", awr_readings_nr_changes(a->r) ? "" :
		       "changed: nothing between the readings\n");
	for (unsigned int i = 0; nr > 1 && (c = awr_readings_change(a->r, i)); i++)
		printf("changed: %s %" PRIu64 " -> %" PRIu64 " (reading %u)\n",
		       awr_input_field_name(c->field), c->before, c->after, c->reading);
	if (nr > 1 && *meaning)
		printf("meaning: %s\n", meaning);
	printf("\n");
}

static int build_view(struct decode_args *a, struct awr_device **d)
{
	struct awr_queue_caps caps = { 0 };
	struct awr_nvme_id nid = { 0 };
	struct awr_scsi_id sid = { .write_atomic16 = -1 };

	if (parse_u32_size("max-segments", a->segs, &caps.max_segments, false) ||
	    (a->hw && parse_size_arg("max-hw-bytes", a->hw, &caps.max_hw_bytes)) ||
	    (a->chunk && parse_size_arg("chunk-bytes", a->chunk, &caps.chunk_bytes)))
		return -EINVAL;
	if ((a->files && read_files(a)) || load_page("nvme-ctrl", a->ctrl, &nid, NULL) ||
	    load_page("nvme-ns", a->ns, &nid, NULL) || load_page("scsi-vpd", a->vpd, NULL, &sid) ||
	    parse_u32_size("lbs", a->lbs, &sid.logical_block_size, true) ||
	    parse_u32_size("pbs", a->pbs, &sid.physical_block_size, true))
		return -EINVAL;
	if (a->files)
		return awr_readings_device(a->r, &caps, sid.logical_block_size,
					   sid.physical_block_size, d) ? lib_error("decode: ") : 0;
	return a->vpd ? awr_device_from_scsi(&sid, &caps, d) : awr_device_from_nvme(&nid, &caps, d);
}

static void report(const struct decode_args *a, const struct awr_device *d)
{
	struct json_object *o = out_mode == OUT_NORMAL ? NULL : json_object_new_object();

	if (!o) {
		if (a->files)
			input_print(a);
		device_identity_print(d);
		device_print(d);
		printf("%s", awr_device_nr_findings(d) ? "\nfindings:\n" : "");
		for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
			out_finding_print(awr_device_finding(d, i));
		return;
	}
	device_identity_json(o, d);
	device_add_json(o, d);
	json_object_object_add(o, "findings", device_findings_json(d));
	if (a->files)
		json_object_object_add(o, "input", input_json(a));
	out_print_json(o);
}

/* What the options allow together; --kernel VERSION as uname -r prints it */
static int check_options(struct decode_args *a)
{
	const char *why = NULL;

	if (a->files && (a->vpd || a->ctrl || a->ns))
		why = "give FILE... (recognised) or --nvme-ctrl/--nvme-ns/--scsi-vpd, not both";
	else if (!a->files && a->vpd && (a->ctrl || a->ns))
		why = "--scsi-vpd excludes --nvme-ctrl and --nvme-ns: decode one device at a time";
	else if (!a->files && !a->vpd && !a->ctrl && !a->ns)
		why = "give FILE... (nvme-cli or sg3_utils output, or dumps), or --nvme-ctrl FILE "
		      "and/or --nvme-ns FILE, or --scsi-vpd FILE";
	else if (!a->files && !a->vpd && (a->lbs || a->pbs))
		why = "--lbs and --pbs apply to --scsi-vpd (the NVMe namespace gives its block "
		      "size)";
	if (why)
		out_error("decode: %s", why);
	else if (a->kernel && awr_kernel_parse(a->kernel, &a->kernel_v))
		out_error("--kernel %s is not a kernel release: give MAJOR.MINOR[.PATCH] as uname "
			  "-r prints it, e.g. 7.0 or 6.12.57+deb13-amd64", a->kernel);
	else
		return 0;
	return -EINVAL;
}

int cmd_decode(int argc, const char **argv)
{
	static struct decode_args a;
	struct poptOption table[] = {
		{ "nvme-ctrl", 0, POPT_ARG_STRING, &a.ctrl, 0,
		  "Identify Controller dump (nvme id-ctrl -b)", "FILE" },
		{ "nvme-ns", 0, POPT_ARG_STRING, &a.ns, 0,
		  "Identify Namespace dump (nvme id-ns -b)", "FILE" },
		{ "scsi-vpd", 0, POPT_ARG_STRING, &a.vpd, 0,
		  "Block Limits VPD dump (sg_vpd -p bl -r)", "FILE" },
		{ "lbs", 0, POPT_ARG_STRING, &a.lbs, 0, "SCSI logical block size", "N" },
		{ "pbs", 0, POPT_ARG_STRING, &a.pbs, 0,
		  "SCSI physical block size (default: the logical)", "N" },
		{ "max-segments", 0, POPT_ARG_STRING, &a.segs, 0,
		  "queue/max_segments, to apply the block layer's caps", "N" },
		{ "max-hw-bytes", 0, POPT_ARG_STRING, &a.hw, 0,
		  "queue/max_hw_sectors_kb in bytes, to apply the block layer's caps", "N" },
		{ "chunk-bytes", 0, POPT_ARG_STRING, &a.chunk, 0,
		  "queue/chunk_sectors in bytes (NVMe default: from NOIOB)", "N" },
		{ "reading", 0, POPT_ARG_STRING, &a.reading, 0,
		  "of a transcript with `nvme format` in it: answer for reading N (default: the "
		  "last)", "N" },
		{ "kernel", 0, POPT_ARG_STRING, &a.kernel, 0,
		  "answer for this kernel release (default: the running one, every range shown)",
		  "VERSION" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_device *d = NULL;
	struct cmd_ctx c;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "FILE...", false))
		return AWR_EXIT_USAGE;
	a.files = c.operands;
	if (!check_options(&a) && !build_view(&a, &d) &&
	    !(a.kernel_v && awr_device_set_kernel(d, a.kernel_v))) {
		report(&a, d);
		rc = AWR_EXIT_OK;
	}
	awr_device_free(d);
	awr_readings_free(a.r);
	cmd_done(&c);
	return rc;
}
