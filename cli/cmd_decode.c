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

struct decode_args {
	char *ctrl, *ns, *vpd, *lbs, *pbs, *segs, *hw, *kernel, *chunk;
	const char **files;	/* FILE... operands, recognised */
	char missing[512];	/* what the FILEs lack, and the assumption made */
	struct awr_input in;
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
		out_error("--%s %s is larger than %u bytes: not an identify or VPD dump", opt, path, DUMP_MAX);
		free(raw);
		return -EFBIG;
	}
	r = awr_dump_parse(raw, (size_t)n, out, cap);
	free(raw);
	if (r == -EOVERFLOW)
		out_error("--%s %s holds more than %zu bytes: not a single identify page or VPD page", opt, path, cap);
	else if (r < 0)
		out_error("--%s %s is neither binary nor hex text: use the raw dump (nvme id-ns -b, sg_vpd -r) or hex pairs with optional offsets", opt, path);
	return r;
}

static int decode_nvme_page(const char *opt, const char *path, struct awr_nvme_id *id, bool ns)
{
	static uint8_t buf[8192];
	ssize_t n = load_dump(opt, path, buf, sizeof(buf));
	int ret;

	if (n < 0)
		return (int)n;
	ret = ns ? awr_nvme_decode_ns(buf, (size_t)n, id) : awr_nvme_decode_ctrl(buf, (size_t)n, id);
	if (ret == -EMSGSIZE)
		out_error("--%s %s holds %zd bytes: an Identify %s page has 4096", opt, path, n,
			  ns ? "Namespace" : "Controller");
	else if (ret)
		out_error("--%s %s: LBA format %u in use (FLBAS 0x%02x) is invalid: beyond NLBAF %u or LBADS %u outside 9..31",
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
		out_error("--scsi-vpd %s holds %zd bytes, fewer than its page header or the atomic fields its page length promises: the dump is truncated",
			  path, n);
	else if (ret)
		out_error("--scsi-vpd %s is not a Block Limits VPD page: byte 1 is 0x%02x, B0h expected",
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
		out_error("--%s %s must be %s", opt, text, pow2 ? "a power of two from 512" : "below 4 GiB");
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
		out_error("decode: %s %s", path, r < 0 ? strerror(errno) : "is larger than 1 MiB: not tool output or a dump");
		return -EINVAL;
	}
	return n;
}

static int add_file(struct awr_input *in, const char *path)
{
	char *raw = malloc(DUMP_MAX + 1);
	ssize_t n = raw ? read_file(path, raw) : -ENOMEM;
	int ret = n < 0 ? (int)n : awr_input_add(raw, (size_t)n, in);

	free(raw);
	if (!strcmp(path, "-"))
		path = "standard input";
	if (ret == -ENOMSG)
		out_error("decode: %s is not recognised: give nvme-cli id-ctrl/id-ns output (normal, -H or -o json), sg_vpd -p bl or sg_readcap text, or a binary or hex Identify/Block Limits page (nvme id-ns -b, sg_vpd -p bl -r)", path);
	else if (ret == -EMSGSIZE)
		out_error("decode: %s holds a page too short for its kind (Identify Namespace needs 4096 bytes)", path);
	else if (ret < 0 && n >= 0 && in->conflict) {
		uint64_t a = in->conflict_first[0] | (uint64_t)in->conflict_first[1] << 32;
		uint64_t b = in->conflict_second[0] | (uint64_t)in->conflict_second[1] << 32;
		char where[48] = "";

		if (in->conflict_line)
			snprintf(where, sizeof(where), " at line %u", in->conflict_line);
		out_error("decode: %s gives %s %" PRIu64 "%s, but %" PRIu64 " was read before (earlier in it or in an earlier file): the input holds two devices' output; paste one device's at a time",
			  path, awr_input_field_name(in->conflict - 1), b, where, a);
	} else if (ret < 0 && n >= 0)
		out_error("decode: %s has a malformed value (a number out of its field's range)", path);
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

static int files_view(struct decode_args *a, const struct awr_queue_caps *caps, struct awr_device **d)
{
	int ret;

	awr_input_init(&a->in);
	for (const char **f = a->files; *f; f++)
		if (add_file(&a->in, *f))
			return -EINVAL;
	if (files_sizes(a))
		return -EINVAL;
	ret = awr_input_device(&a->in, caps, d, a->missing, sizeof(a->missing));
	if (ret == -ENODATA)
		out_error("decode: the files hold no atomic write field (AWUPF, NAWUPF, the Block Limits atomic fields)");
	else if (ret == -EINVAL)
		out_error("decode: the files mix an NVMe device and a SCSI device: decode one device at a time");
	return ret;
}

static const char *const format_names[] = {
	"nvme-cli", "nvme-cli -H", "nvme-cli -o json", "sg_vpd -p bl", "sg_readcap", "dump", "elided",
};

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
	json_object_object_add(o, "missing", a->missing[0] ? json_object_new_string(a->missing) : NULL);
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
	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++) {
		const struct awr_finding *f = awr_device_finding(d, i);

		printf("  [%s] %s: %s\n", out_severity_name(f->severity), f->id, f->message);
	}
}

static void report(const struct decode_args *a, const struct awr_device *d)
{
	struct json_object *o;

	if (out_mode == OUT_NORMAL) {
		if (a->files)
			input_print(a);
		device_print(d);
		print_findings(d);
		return;
	}
	o = json_object_new_object();
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
		out_error("--kernel %s is not a kernel release: give MAJOR.MINOR[.PATCH] as uname -r prints it, e.g. 7.0 or 6.12.57+deb13-amd64",
			  text);
		return -EINVAL;
	}
	return 0;
}

static int check_combination(const struct decode_args *a)
{
	if (a->files && (a->vpd || a->ctrl || a->ns)) {
		out_error("decode: give FILE... (recognised) or --nvme-ctrl/--nvme-ns/--scsi-vpd, not both");
		return -EINVAL;
	}
	if (a->files)
		return 0;
	if (a->vpd && (a->ctrl || a->ns)) {
		out_error("decode: --scsi-vpd excludes --nvme-ctrl and --nvme-ns: decode one device at a time");
		return -EINVAL;
	}
	if (!a->vpd && !a->ctrl && !a->ns) {
		out_error("decode: give FILE... (nvme-cli or sg3_utils output, or dumps), or --nvme-ctrl FILE and/or --nvme-ns FILE, or --scsi-vpd FILE");
		return -EINVAL;
	}
	if (!a->vpd && (a->lbs || a->pbs)) {
		out_error("decode: --lbs and --pbs apply to --scsi-vpd (the NVMe namespace gives its block size)");
		return -EINVAL;
	}
	return 0;
}

int cmd_decode(int argc, const char **argv)
{
	static struct decode_args a;
	struct poptOption table[] = {
		{ "nvme-ctrl", 0, POPT_ARG_STRING, &a.ctrl, 0, "Identify Controller dump (nvme id-ctrl -b)", "FILE" },
		{ "nvme-ns", 0, POPT_ARG_STRING, &a.ns, 0, "Identify Namespace dump (nvme id-ns -b)", "FILE" },
		{ "scsi-vpd", 0, POPT_ARG_STRING, &a.vpd, 0, "Block Limits VPD dump (sg_vpd -p bl -r)", "FILE" },
		{ "lbs", 0, POPT_ARG_STRING, &a.lbs, 0, "SCSI logical block size", "N" },
		{ "pbs", 0, POPT_ARG_STRING, &a.pbs, 0, "SCSI physical block size (default: the logical)", "N" },
		{ "max-segments", 0, POPT_ARG_STRING, &a.segs, 0,
		  "queue/max_segments, to apply the block layer's caps", "N" },
		{ "max-hw-bytes", 0, POPT_ARG_STRING, &a.hw, 0,
		  "queue/max_hw_sectors_kb in bytes, to apply the block layer's caps", "N" },
		{ "chunk-bytes", 0, POPT_ARG_STRING, &a.chunk, 0,
		  "queue/chunk_sectors in bytes (NVMe default: from NOIOB)", "N" },
		{ "kernel", 0, POPT_ARG_STRING, &a.kernel, 0,
		  "answer for this kernel release (default: the running one, every range shown)", "VERSION" },
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
	if (check_combination(&a) || parse_kernel(a.kernel, &kernel) || build_view(&a, &d))
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
