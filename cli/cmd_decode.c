// SPDX-License-Identifier: MIT
/*
 * awr decode FILE... | --nvme-ctrl F --nvme-ns F | --scsi-vpd F [--lbs N --pbs N] [--kernel V]:
 * the device analysis of what users have in hand: nvme-cli and sg3_utils
 * output, recognised (input.c in the library), or saved identify / VPD dumps,
 * for the running kernel or another release, with every release range beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "awr.h"

#define DUMP_MAX	(1U << 20)	/* a text dump of a 4 KiB page is ~16 KiB */

#define MAX_READINGS	8	/* readings of one device (nvme format between them) */

struct decode_args {
	char *ctrl, *ns, *vpd, *lbs, *pbs, *segs, *hw, *kernel, *chunk, *reading;
	const char **files;	/* FILE... operands, recognised */
	char missing[512];	/* what the FILEs lack, and the assumption made */
	struct awr_input in;	/* the reading the answer uses (with earlier ones below it) */
	struct awr_input readings[MAX_READINGS];
	unsigned int nr_readings;	/* more than 1: `nvme format` ran between them */
	unsigned int used;		/* the reading the answer uses, 1-based */
	uint32_t kernel_v;		/* --kernel, 0 the running one */
};

/* Read FILE and turn it into bytes: returns the length or -errno (message printed). */
static ssize_t load_dump(const char *opt, const char *path, uint8_t *out, size_t cap)
{
	char *raw = malloc(DUMP_MAX + 1);
	ssize_t n = 0, r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !raw) {
		out_error("cannot open --%s %s: %s", opt, path, strerror(fd < 0 ? errno : ENOMEM));
		free(raw);
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	while (n <= DUMP_MAX && (r = read(fd, raw + n, DUMP_MAX + 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	if (n > DUMP_MAX) {
		out_error("--%s %s is larger than %u bytes: not an identify or VPD dump", opt, path,
			  DUMP_MAX);
		free(raw);
		return -EFBIG;
	}
	r = awr_dump_parse(raw, (size_t)n, out, cap);
	free(raw);
	if (r == -EOVERFLOW)
		out_error("--%s %s holds more than %zu bytes: not a single identify page or VPD "
			  "page", opt, path, cap);
	else if (r < 0)
		out_error("--%s %s is neither binary nor hex text: use the raw dump (nvme id-ns "
			  "-b, sg_vpd -r) or hex pairs with optional offsets", opt, path);
	return r;
}

static int decode_nvme_page(const char *opt, const char *path, struct awr_nvme_id *id, bool ns)
{
	static uint8_t buf[8192];
	ssize_t n = load_dump(opt, path, buf, sizeof(buf));
	int ret;

	if (n < 0)
		return (int)n;
	ret = ns ? awr_nvme_decode_ns(buf, (size_t)n, id) :
		   awr_nvme_decode_ctrl(buf, (size_t)n, id);
	if (ret == -EMSGSIZE)
		out_error("--%s %s holds %zd bytes: an Identify %s page has 4096", opt, path, n,
			  ns ? "Namespace" : "Controller");
	else if (ret)
		out_error("--%s %s: LBA format %u in use (FLBAS 0x%02x) is invalid: beyond NLBAF "
			  "%u or LBADS %u outside 9..31",
			  opt, path, id->lbaf_index, id->flbas, id->nlbaf, id->lbads);
	return ret;
}

static int decode_vpd(const char *path, struct awr_scsi_id *id)
{
	static uint8_t buf[4096];
	ssize_t n = load_dump("scsi-vpd", path, buf, sizeof(buf));
	int ret;

	if (n < 0)
		return (int)n;
	ret = awr_scsi_decode_bl_vpd(buf, (size_t)n, id);
	if (ret == -EMSGSIZE)
		out_error("--scsi-vpd %s holds %zd bytes, fewer than its page header or the atomic "
			  "fields its page length promises: the dump is truncated",
			  path, n);
	else if (ret)
		out_error("--scsi-vpd %s is not a Block Limits VPD page: byte 1 is 0x%02x, B0h "
			  "expected",
			  path, n > 1 ? buf[1] : 0);
	return ret;
}

static int parse_u32_size(const char *opt, const char *text, uint32_t *out, bool pow2)
{
	uint64_t v = 0;

	if (!text)
		return 0;
	if (parse_size_arg(opt, text, &v))
		return -EINVAL;
	if (v > UINT32_MAX || (pow2 && (v < 512 || (v & (v - 1))))) {
		out_error("--%s %s must be %s", opt, text,
			  pow2 ? "a power of two from 512" : "below 4 GiB");
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* Read FILE whole (at most DUMP_MAX bytes); returns its length or -errno (message printed). */
static ssize_t read_file(const char *path, char *raw)
{
	ssize_t n = 0, r = 0;
	bool in = !strcmp(path, "-");	/* standard input: nvme id-ctrl /dev/nvme0 | awr decode - */
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		out_error("decode: cannot open %s: %s", path, strerror(errno));
		return -EINVAL;
	}
	while (n <= DUMP_MAX && (r = read(fd, raw + n, DUMP_MAX + 1 - (size_t)n)) > 0)
		n += r;
	if (!in)
		close(fd);
	if (r < 0 || n > DUMP_MAX) {
		out_error("decode: %s %s", path,
			  r < 0 ? strerror(errno) : "is larger than 1 MiB: not tool output or a "
						    "dump");
		return -EINVAL;
	}
	return n;
}

static void add_error(const struct awr_input *in, const char *path, int ret, unsigned int base)
{
	if (ret == -ENOMSG)
		out_error("decode: %s is not recognised: give nvme-cli id-ctrl/id-ns output "
			  "(normal, -H or -o json), sg_vpd -p bl or sg_readcap text, or a binary "
			  "or hex Identify/Block Limits page (nvme id-ns -b, sg_vpd -p bl -r)",
			  path);
	else if (ret == -EMSGSIZE)
		out_error("decode: %s holds a page too short for its kind (Identify Namespace "
			  "needs 4096 bytes)", path);
	else if (in->conflict) {
		uint64_t a = in->conflict_first[0] | (uint64_t)in->conflict_first[1] << 32;
		uint64_t b = in->conflict_second[0] | (uint64_t)in->conflict_second[1] << 32;
		char where[48] = "";

		if (in->conflict_line)
			snprintf(where, sizeof(where), " at line %u", in->conflict_line + base);
		out_error("decode: %s gives %s %" PRIu64 "%s, but %" PRIu64 " was read before "
			  "(earlier in it or in an earlier file): the input holds two devices' "
			  "output; paste one device's at a time (readings of one device before and "
			  "after `nvme format` are told apart by that command in the transcript)",
			  path, awr_input_field_name(in->conflict - 1), b, where, a);
	} else
		out_error("decode: %s has a malformed value (a number out of its field's range)",
			  path);
}

/* One reading after another: a piece ending with `nvme format` closes the current reading. */
static int add_file(struct decode_args *a, const char *path)
{
	char *raw = malloc(DUMP_MAX + 1);
	ssize_t n = raw ? read_file(path, raw) : -ENOMEM;
	size_t off = 0, chunk;
	unsigned int base = 0, recognised = 0;
	int ret = n < 0 ? (int)n : 0;

	if (!strcmp(path, "-"))
		path = "standard input";
	while (!ret && off < (size_t)n) {
		struct awr_input *in = &a->readings[a->nr_readings - 1];

		chunk = awr_input_split(raw + off, (size_t)n - off);
		ret = awr_input_add(raw + off, chunk, in);
		if (ret == -ENOMSG && chunk < (size_t)n)
			ret = 0;	/* a piece of a transcript without fields ("Success
					   formatting ...") */
		else if (!ret)
			recognised++;
		if (ret)
			add_error(in, path, ret, base);
		for (size_t i = off; i < off + chunk; i++)
			base += raw[i] == '\n';
		off += chunk;
		if (!ret && off < (size_t)n && in->have && a->nr_readings < MAX_READINGS)
			awr_input_init(&a->readings[a->nr_readings++]);
	}
	if (!ret && !recognised && n >= 0) {
		ret = -ENOMSG;
		add_error(&a->readings[0], path, ret, 0);
	}
	free(raw);
	return ret;
}

/* --lbs/--pbs with FILEs: block sizes the text lacks */
static int files_sizes(struct decode_args *a)
{
	uint32_t lbs = 0, pbs = 0;

	if (parse_u32_size("lbs", a->lbs, &lbs, true) || parse_u32_size("pbs", a->pbs, &pbs, true))
		return -EINVAL;
	if (lbs && !(a->in.have & (1ULL << AWR_IF_LBS))) {
		a->in.scsi.logical_block_size = lbs;
		a->in.have |= 1ULL << AWR_IF_LBS;
	}
	if (pbs && !(a->in.have & (1ULL << AWR_IF_PBS))) {
		a->in.scsi.physical_block_size = pbs;
		a->in.have |= 1ULL << AWR_IF_PBS;
	}
	return 0;
}

/* The reading the answer uses: reading 1 with each later one over it, up to --reading N. */
static int pick_reading(struct decode_args *a)
{
	uint64_t n = a->nr_readings;

	if (!a->readings[a->nr_readings - 1].have)
		a->nr_readings--;	/* a transcript ending with `nvme format` */
	n = a->nr_readings;
	if (a->reading && (parse_size_arg("reading", a->reading, &n) || !n || n > a->nr_readings)) {
		out_error("decode: --reading %s: the input holds %u reading%s (split at `nvme "
			  "format`): give 1..%u",
			  a->reading, a->nr_readings, a->nr_readings == 1 ? "" : "s",
			  a->nr_readings);
		return -EINVAL;
	}
	for (unsigned int i = 1; i < a->nr_readings; i++)
		if (a->readings[i].sn_hash && a->readings[0].sn_hash &&
		    a->readings[i].sn_hash != a->readings[0].sn_hash) {
			out_error("decode: reading %u (after `nvme format`) is of a controller "
				  "with another serial number than reading 1: the input holds two "
				  "devices' output; paste one device's at a time",
				  i + 1);
			return -EINVAL;
		}
	a->used = (unsigned int)n;
	a->in = a->readings[0];
	for (unsigned int i = 1; i < a->used; i++)
		awr_input_update(&a->in, &a->readings[i]);
	return 0;
}

static int files_view(struct decode_args *a, const struct awr_queue_caps *caps,
		      struct awr_device **d)
{
	int ret;

	awr_input_init(&a->readings[0]);
	a->nr_readings = 1;
	for (const char **f = a->files; *f; f++)
		if (add_file(a, *f))
			return -EINVAL;
	if (pick_reading(a))
		return -EINVAL;
	if (files_sizes(a))
		return -EINVAL;
	ret = awr_input_device(&a->in, caps, d, a->missing, sizeof(a->missing));
	if (ret == -ENODATA)
		out_error("decode: the files hold no atomic write field (AWUPF, NAWUPF, the Block "
			  "Limits atomic fields)");
	else if (ret == -EINVAL)
		out_error("decode: the files mix an NVMe device and a SCSI device: decode one "
			  "device at a time");
	return ret;
}

/* A field's value in a record (the fields a format can change, and the others read as numbers). */
static uint64_t field_value(const struct awr_input *in, int f)
{
	const struct awr_nvme_id *n = &in->nvme;
	const struct awr_scsi_id *c = &in->scsi;

	switch (f) {
	case AWR_IF_MDTS: return n->mdts;
	case AWR_IF_AWUN: return n->awun;
	case AWR_IF_AWUPF: return n->awupf;
	case AWR_IF_ACWU: return n->acwu;
	case AWR_IF_NSZE: return n->nsze;
	case AWR_IF_NSFEAT: return n->nsfeat;
	case AWR_IF_NLBAF: return n->nlbaf;
	case AWR_IF_FLBAS: return n->flbas;
	case AWR_IF_NAWUN: return n->nawun;
	case AWR_IF_NAWUPF: return n->nawupf;
	case AWR_IF_NACWU: return n->nacwu;
	case AWR_IF_NABSN: return n->nabsn;
	case AWR_IF_NABO: return n->nabo;
	case AWR_IF_NABSPF: return n->nabspf;
	case AWR_IF_NOIOB: return n->noiob;
	case AWR_IF_LBAF: return n->lba_size;
	case AWR_IF_VID: return n->vid;
	case AWR_IF_MODEL: return n->model;
	case AWR_IF_NTWPU: return n->ntwpu;
	case AWR_IF_NTWPG: return n->ntwpg;
	case AWR_IF_NTWPB: return n->ntwpb;
	case AWR_IF_LBS: return c->logical_block_size;
	case AWR_IF_PBS: return c->physical_block_size;
	default: return 0;
	}
}

struct change {
	int field;
	unsigned int reading;	/* 1-based: the reading whose value differs from the last */
	uint64_t before, after;
};

/* Every field whose value changed from one reading to the next; returns how many (at most @max). */
static unsigned int changes(const struct decode_args *a, struct change *c, unsigned int max)
{
	struct awr_input merged = a->readings[0], before;
	unsigned int nr = 0;
	uint64_t mask;

	for (unsigned int i = 1; i < a->nr_readings; i++) {
		before = merged;
		mask = awr_input_update(&merged, &a->readings[i]);
		for (int f = 0; f < AWR_IF__COUNT && nr < max; f++)
			if ((mask >> f) & 1)
				c[nr++] = (struct change){ f, i + 1, field_value(&before, f),
							   field_value(&merged, f) };
	}
	return nr;
}

/*
 * What a pre-7.0 kernel keeps after AWUPF changed: drivers/nvme/host/core.c reads AWUPF once per
 * subsystem (nvme_init_subsystem(): subsys->awupf, when the subsystem is first seen) and
 * nvme_configure_atomic_write() multiplies it by the namespace's current block size. 6.15.0-6.15.4
 * refused the namespace (8695f060a029), 6.15.5-6.15.7 the controller (f46d273449ba, "inconsistent
 * AWUPF, controller not added"); 1fc09f2961f5 (6.16-rc7, 6.15.8) reverted both to subsys->awupf.
 */
static void awupf_kept(const struct decode_args *a, const char *kv, char *buf, size_t len)
{
	const struct awr_nvme_id *first = &a->readings[0].nvme;
	const struct awr_nvme_id *last = &a->readings[a->nr_readings - 1].nvme;
	uint64_t kept = (first->awupf + 1ULL) * last->lba_size,
	now = (last->awupf + 1ULL) * last->lba_size;

	snprintf(buf, len, "AWUPF changed: kernel %s reads AWUPF once per NVMe subsystem, when it "
			   "is first seen (nvme_init_subsystem()), and multiplies it by the "
			   "current block size, so until the subsystem is made again (a reboot, or "
			   "all its controllers removed) it keeps AWUPF %u: %" PRIu64 " bytes on "
			   "%u-byte blocks, where the drive now states %" PRIu64 "%s (only where "
			   "the namespace has no NAWUPF). Only 6.15.0-6.15.7 refused such a "
			   "namespace or controller (\"inconsistent AWUPF, controller not added\", "
			   "f46d273449ba; reverted by 1fc09f2961f5). 7.0+ ignores AWUPF.", kv,
			   first->awupf, kept, last->lba_size, now,
		 kept > now ? ": sysfs claims more than the drive guarantees, trust the new "
		 "reading" : "");
}

/* What a change of AWUPF or of the LBA format means on each kernel (drivers/nvme/host/core.c). */
static void change_meaning(const struct decode_args *a, const struct change *c, unsigned int nr,
			   char *buf, size_t len)
{
	bool awupf = false, lbaf = false;
	uint32_t k = a->kernel_v ? a->kernel_v : awr_kernel_running();
	char v[16];
	size_t n;

	for (unsigned int i = 0; i < nr; i++) {
		awupf |= c[i].field == AWR_IF_AWUPF;
		lbaf |= c[i].field == AWR_IF_LBAF || c[i].field == AWR_IF_FLBAS;
	}
	*buf = '\0';
	if (lbaf)
		snprintf(buf, len, "the namespace was formatted with another block size: the "
				   "kernel takes the new format at the rescan after the format "
				   "(nvme_update_ns_info()), and its limits follow it. ");
	n = strlen(buf);
	if (awupf && awr_kernel_has(k, AWR_KRULE_NVME_NO_AWUPF))
		snprintf(buf + n, len - n, "AWUPF changed: kernel %s ignores AWUPF (7.0+, \"nvme: "
					   "stop using AWUPF\"), so the change alters nothing "
					   "there.", awr_kernel_format(k, v, sizeof(v)));
	else if (awupf)
		awupf_kept(a, awr_kernel_format(k, v, sizeof(v)), buf + n, len - n);
}

static const char *const format_names[] = {
	"nvme-cli", "nvme-cli -H", "nvme-cli -o json", "sg_vpd -p bl", "sg_readcap", "dump",
	"elided",
};

static const char *field_name(int f)
{
	return awr_input_field_name((enum awr_input_field)f);
}

static const struct field change_fields[] = {
	FLD(struct change, field, FLD_ENUM, "field", .name = field_name),
	FLD(struct change, reading, FLD_UINT, "reading"),
	FLD(struct change, before, FLD_UINT, "before"),
	FLD(struct change, after, FLD_UINT, "after"),
	FLD_END
};

/* "readings": {"count", "used", "changed": [{"field", "reading", "before", "after"}], "meaning"} */
static struct json_object *readings_json(const struct decode_args *a)
{
	struct json_object *o = json_object_new_object(), *arr;
	struct change c[32];
	unsigned int nr = changes(a, c, 32);
	char meaning[1024];

	arr = fld_json_array(change_fields, c, sizeof(*c), nr);
	change_meaning(a, c, nr, meaning, sizeof(meaning));
	json_object_object_add(o, "count", out_u64(a->nr_readings));
	json_object_object_add(o, "used", out_u64(a->used));
	json_object_object_add(o, "changed", arr);
	json_object_object_add(o, "meaning", meaning[0] ? json_object_new_string(meaning) : NULL);
	return o;
}

static void readings_print(const struct decode_args *a)
{
	struct change c[32];
	unsigned int nr = changes(a, c, 32);
	char meaning[1024];

	if (a->nr_readings < 2)
		return;
	printf("readings: %u of one controller, split at `nvme format`; this answer uses reading "
	       "%u%s\n",
	       a->nr_readings, a->used,
	       a->used == a->nr_readings ? " (the last; --reading N picks another)" : "");
	if (!nr)
		printf("changed: nothing between the readings\n");
	for (unsigned int i = 0; i < nr; i++)
		printf("changed: %s %" PRIu64 " -> %" PRIu64 " (reading %u)\n",
		       awr_input_field_name(c[i].field), c[i].before, c[i].after, c[i].reading);
	change_meaning(a, c, nr, meaning, sizeof(meaning));
	if (meaning[0])
		printf("meaning: %s\n", meaning);
}

static struct json_object *input_json(const struct decode_args *a)
{
	struct json_object *o = json_object_new_object(), *f = json_object_new_array();
	struct json_object *m = json_object_new_array();

	for (unsigned int i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (a->in.formats & (1U << i))
			json_object_array_add(f, json_object_new_string(format_names[i]));
	json_object_object_add(o, "formats", f);
	for (int i = 0; i < AWR_IF__COUNT; i++)
		if (a->in.have & (1ULL << i))
			json_object_array_add(m, json_object_new_string(awr_input_field_name(i)));
	json_object_object_add(o, "fields", m);
	json_object_object_add(o, "missing",
			       a->missing[0] ? json_object_new_string(a->missing) : NULL);
	json_object_object_add(o, "readings", readings_json(a));
	return o;
}

static void input_print(const struct decode_args *a)
{
	printf("input:");
	for (unsigned int i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (a->in.formats & (1U << i))
			printf(" [%s]", format_names[i]);
	printf("\n");
	if (a->missing[0])
		printf("missing: %s\n", a->missing);
	readings_print(a);
	printf("\n");
}

static int build_view(struct decode_args *a, struct awr_device **d)
{
	struct awr_queue_caps caps = { 0 };
	struct awr_nvme_id nid = { 0 };
	struct awr_scsi_id sid = { .write_atomic16 = -1 };
	uint64_t hw = 0;

	if (parse_u32_size("max-segments", a->segs, &caps.max_segments, false) ||
	    (a->hw && parse_size_arg("max-hw-bytes", a->hw, &hw)))
		return -EINVAL;
	caps.max_hw_bytes = hw;
	if (a->chunk && parse_size_arg("chunk-bytes", a->chunk, &caps.chunk_bytes))
		return -EINVAL;
	if (a->files)
		return files_view(a, &caps, d);
	if (a->vpd) {
		if (decode_vpd(a->vpd, &sid) ||
		    parse_u32_size("lbs", a->lbs, &sid.logical_block_size, true) ||
		    parse_u32_size("pbs", a->pbs, &sid.physical_block_size, true))
			return -EINVAL;
		return awr_device_from_scsi(&sid, &caps, d);
	}
	if ((a->ctrl && decode_nvme_page("nvme-ctrl", a->ctrl, &nid, false)) ||
	    (a->ns && decode_nvme_page("nvme-ns", a->ns, &nid, true)))
		return -EINVAL;
	return awr_device_from_nvme(&nid, &caps, d);
}

static void print_findings(const struct awr_device *d)
{
	if (awr_device_nr_findings(d))
		printf("\nfindings:\n");
	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
		out_finding_print(awr_device_finding(d, i));
}

static void report(const struct decode_args *a, const struct awr_device *d)
{
	struct json_object *o;

	if (out_mode == OUT_NORMAL) {
		if (a->files)
			input_print(a);
		device_identity_print(d);
		device_print(d);
		print_findings(d);
		return;
	}
	o = json_object_new_object();
	device_identity_json(o, d);
	device_add_json(o, d);
	json_object_object_add(o, "findings", device_findings_json(d));
	if (a->files)
		json_object_object_add(o, "input", input_json(a));
	out_print_json(o);
}

/* --kernel VERSION: a release as uname -r prints it ("7.0", "6.12.57+deb13-amd64"). */
static int parse_kernel(const char *text, uint32_t *out)
{
	if (!text)
		return 0;
	if (awr_kernel_parse(text, out)) {
		out_error("--kernel %s is not a kernel release: give MAJOR.MINOR[.PATCH] as uname "
			  "-r prints it, e.g. 7.0 or 6.12.57+deb13-amd64",
			  text);
		return -EINVAL;
	}
	return 0;
}

static int check_combination(const struct decode_args *a)
{
	if (a->files && (a->vpd || a->ctrl || a->ns)) {
		out_error("decode: give FILE... (recognised) or --nvme-ctrl/--nvme-ns/--scsi-vpd, "
			  "not both");
		return -EINVAL;
	}
	if (a->files)
		return 0;
	if (a->vpd && (a->ctrl || a->ns)) {
		out_error("decode: --scsi-vpd excludes --nvme-ctrl and --nvme-ns: decode one "
			  "device at a time");
		return -EINVAL;
	}
	if (!a->vpd && !a->ctrl && !a->ns) {
		out_error("decode: give FILE... (nvme-cli or sg3_utils output, or dumps), or "
			  "--nvme-ctrl FILE and/or --nvme-ns FILE, or --scsi-vpd FILE");
		return -EINVAL;
	}
	if (!a->vpd && (a->lbs || a->pbs)) {
		out_error("decode: --lbs and --pbs apply to --scsi-vpd (the NVMe namespace gives "
			  "its block size)");
		return -EINVAL;
	}
	return 0;
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
	uint32_t kernel = 0;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, "FILE...", false))
		return AWR_EXIT_USAGE;
	a.files = c.operands;
	if (check_combination(&a) || parse_kernel(a.kernel, &kernel))
		goto out;
	a.kernel_v = kernel;
	if (build_view(&a, &d))
		goto out;
	if (kernel && awr_device_set_kernel(d, kernel))
		goto out;
	report(&a, d);
	rc = AWR_EXIT_OK;
out:
	awr_device_free(d);
	cmd_done(&c);
	return rc;
}
