// SPDX-License-Identifier: MIT
/*
 * awr decode --nvme-ctrl F --nvme-ns F | --scsi-vpd F [--lbs N --pbs N]:
 * the device analysis of saved identify / VPD dumps (binary or hex text).
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
	char *ctrl, *ns, *vpd, *lbs, *pbs, *segs, *hw;
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

static void report(const struct awr_device *d)
{
	struct json_object *o;

	if (out_mode == OUT_NORMAL) {
		device_print(d);
		print_findings(d);
		return;
	}
	o = json_object_new_object();
	device_add_json(o, d);
	json_object_object_add(o, "findings", device_findings_json(d));
	out_print_json(o);
}

static int check_combination(const struct decode_args *a)
{
	if (a->vpd && (a->ctrl || a->ns)) {
		out_error("decode: --scsi-vpd excludes --nvme-ctrl and --nvme-ns: decode one device at a time");
		return -EINVAL;
	}
	if (!a->vpd && !a->ctrl && !a->ns) {
		out_error("decode: give --nvme-ctrl FILE and/or --nvme-ns FILE, or --scsi-vpd FILE");
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
	struct decode_args a = { 0 };
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
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	struct awr_device *d = NULL;
	struct cmd_ctx c;
	int rc = AWR_EXIT_USAGE;

	if (cmd_parse(&c, argc, argv, table, NULL, false))
		return AWR_EXIT_USAGE;
	if (c.operand) {
		out_error("decode: unexpected argument '%s': dumps are given with --nvme-ctrl, --nvme-ns or --scsi-vpd",
			  c.operand);
		goto out;
	}
	if (check_combination(&a) || build_view(&a, &d))
		goto out;
	report(d);
	rc = AWR_EXIT_OK;
out:
	awr_device_free(d);
	cmd_done(&c);
	return rc;
}
