// SPDX-License-Identifier: MIT
/*
 * Output of a device view (NVMe identify / SCSI VPD and derived limits), text and JSON, from
 * one table per struct: a row's key and value in JSON, its label and value on a text line.
 */
#include <inttypes.h>
#include <stdio.h>

#include "awr.h"

/* A field the view assumed rather than read (awr decode of a partial paste). */
static bool assumed(const struct awr_device *d, int f)
{
	return d && f >= 0 && ((awr_device_assumed(d) >> f) & 1);
}

/* What must have been read for a row's value to be shown (JSON null otherwise) */
enum have { H_ANY, H_CTRL, H_NS, H_LBAF, H_DN, H_VID, H_MODEL, H_NTWP, H_VPD, H_ATOMIC, H_PREAD };

typedef const char *(*dev_fmt)(const struct awr_device *d, uint64_t v, char *buf, size_t len);

/*
 * A row: the field (its label is the text label), the input field it is read from (-1 none),
 * what must have been read, the text line it stands on (0: JSON only) and how text spells it
 * (NULL: bytes in human units for FLD_SIZE, else the number).
 */
struct dev_field {
	struct field f;
	int input;
	enum have have;
	unsigned char line;
	dev_fmt fmt;
};
#define DEV_END { .f.key = NULL }

static bool have(const struct awr_device *d, enum have h)
{
	const struct awr_nvme_id *n = h >= H_CTRL && h <= H_NTWP ? awr_device_nvme(d) : NULL;
	const struct awr_scsi_id *s = h == H_VPD || h == H_ATOMIC ? awr_device_scsi(d) : NULL;

	switch (h) {
	case H_CTRL: return n->have_ctrl;
	case H_NS: return n->have_ns;
	case H_LBAF: return n->have_ns && !(assumed(d, AWR_IF_FLBAS) && assumed(d, AWR_IF_LBAF));
	case H_DN: return n->have_dn;
	case H_VPD: return s->have_vpd;
	case H_ATOMIC: return s->vpd_has_atomic;
	case H_VID: return n->vendor_have & AWR_NVME_HAVE_VID;
	case H_MODEL: return n->vendor_have & AWR_NVME_HAVE_MODEL;
	case H_NTWP: return n->vendor_have & AWR_NVME_HAVE_NTWP;
	case H_PREAD: return awr_device_provider(d)->read;
	default: return true;
	}
}

/* JSON: each row's value, or null where its part was not read or the input only assumed it */
static void dev_json_add(struct json_object *o, const struct dev_field *t,
			 const struct awr_device *d, const void *s)
{
	for (; t->f.key; t++)
		json_object_object_add(o, t->f.key, have(d, t->have) && !assumed(d, t->input) ?
				       fld_json_value(&t->f, s) : NULL);
}

static struct json_object *dev_json(const struct dev_field *t, const struct awr_device *d,
				    const void *s)
{
	struct json_object *o = json_object_new_object();

	dev_json_add(o, t, d, s);
	return o;
}

/* Text: "  LEAD           LABEL VALUE UNIT, ..." of the rows on @line, then @tail */
static void dev_line(const char *lead, const struct dev_field *t, int line,
		     const struct awr_device *d, const void *s, const char *tail)
{
	const char *sep = "";
	char v[64];

	printf("  %-14s ", lead);
	for (; t->f.key; t++) {
		if (t->line != line)
			continue;
		if (t->fmt)
			t->fmt(d, fld_u64(&t->f, s), v, sizeof(v));
		else if (t->f.type == FLD_SIZE)
			fld_text(&t->f, s, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "%" PRIu64, fld_u64(&t->f, s));
		printf("%s%s %s%s%s%s", sep, t->f.label, assumed(d, t->input) ? "assumed " : "", v,
		       t->f.unit ? " " : "", t->f.unit ? t->f.unit : "");
		sep = ", ";
	}
	printf("%s\n", tail);
}

/* A 0's based block count as "15 (64 KiB)" when the block size is known. */
static const char *blocks0(uint64_t v, uint32_t lbs, char *buf, size_t len)
{
	char sz[32];

	if (lbs)
		snprintf(buf, len, "%" PRIu64 " (%s)", v, out_size((v + 1) * lbs, sz, sizeof(sz)));
	else
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* the controller's counts, in the namespace's blocks when it was read */
static const char *ctrl_blocks(const struct awr_device *d, uint64_t v, char *buf, size_t len)
{
	const struct awr_nvme_id *n = awr_device_nvme(d);

	return blocks0(v, n->have_ns ? n->lba_size : 0, buf, len);
}

/* the namespace's counts, in blocks where NSFEAT bit 1 makes them valid */
static const char *ns_blocks(const struct awr_device *d, uint64_t v, char *buf, size_t len)
{
	const struct awr_nvme_id *n = awr_device_nvme(d);

	return blocks0(v, n->have_ns && (n->nsfeat & 2) ? n->lba_size : 0, buf, len);
}

static const char *hex2(const struct awr_device *d, uint64_t v, char *buf, size_t len)
{
	(void)d;
	snprintf(buf, len, "0x%02" PRIx64, v);
	return buf;
}

static const char *nsfeat_text(const struct awr_device *d, uint64_t v, char *buf, size_t len)
{
	(void)d;
	snprintf(buf, len, "0x%02" PRIx64 " (atomic fields %s%s)", v,
		 v & 2 ? "valid" : "not valid", v & 0x40 ? ", MAM" : "");
	return buf;
}

#define P(m, t, k, h) { FLD(struct awr_provider_atomic, m, t, k), -1, h, 0, NULL }
static const struct dev_field provider_fields[] = {
	P(provider, FLD_CHARS, "provider", H_ANY),
	P(known_by, FLD_CHARS, "known_by", H_ANY),
	P(source, FLD_CHARS, "source", H_ANY),
	P(readable, FLD_BOOL, "readable", H_ANY),
	P(read, FLD_BOOL, "read", H_ANY),
	P(unit, FLD_SIZE, "unit", H_PREAD),
	P(granularity, FLD_SIZE, "granularity", H_PREAD),
	P(boundary, FLD_SIZE, "boundary", H_PREAD),
	DEV_END
};
#undef P

static void provider_print(const struct awr_device *d)
{
	const struct awr_provider_atomic *p = awr_device_provider(d);
	char a[32], b[32], c[32];

	if (!p)
		return;
	if (p->read)
		printf("  %-14s %s states untorn writes of a multiple of %s up to %s, aligned, "
		       "boundary %s (device-implicit on its word; Linux does not read it)\n",
		       "provider", p->provider,
		       out_size(p->granularity, a, sizeof(a)), out_size(p->unit, b, sizeof(b)),
		       p->boundary ? out_size(p->boundary, c, sizeof(c)) : "none");
	else
		printf("  %-14s %s\n", "provider", p->provider);
	printf("  %-14s known by %s\n  %-14s %s\n", "", p->known_by, "", p->source);
}


/* the five every limits object starts with (out_limits_json()'s), then the driver's own */
#define L(m, k, line) { FLD(struct awr_device_limits, m, FLD_SIZE, k, .label = k), -1, H_ANY, \
			line, NULL }
static const struct dev_field unit_fields[] = {
	{ FLD(struct awr_device_limits, supported, FLD_BOOL, "supported"), -1, H_ANY, 0, NULL },
	L(unit_min, "unit_min", 1),
	L(unit_max, "unit_max", 1),
	L(max_bytes, "max_bytes", 1),
	L(boundary, "boundary", 1),
	DEV_END
};

static const struct dev_field hw_fields[] = {
	{ FLD(struct awr_device_limits, capped, FLD_BOOL, "block_caps_applied"), -1, H_ANY, 0,
	  NULL },
	L(hw_max, "hw_max", 0),
	L(hw_unit_min, "hw_unit_min", 0),
	L(hw_unit_max, "hw_unit_max", 0),
	L(hw_boundary, "hw_boundary", 0),
	DEV_END
};
#undef L

static struct json_object *limits_json(const struct awr_device_limits *l)
{
	struct json_object *o = dev_json(unit_fields, NULL, l);

	dev_json_add(o, hw_fields, NULL, l);
	return o;
}

/* Limits a kernel derives, said so: "kernel": "7.3.4", "this_kernel": true. */
static struct json_object *kernel_limits_json(const struct awr_device_limits *l, uint32_t k)
{
	struct json_object *o = limits_json(l);
	uint32_t run = awr_kernel_running();
	char v[16];

	json_object_object_add(o, "kernel",
			       json_object_new_string(awr_kernel_format(k, v, sizeof(v))));
	json_object_object_add(o, "this_kernel", json_object_new_boolean(run && k == run));
	return o;
}

static struct json_object *derived_json(const struct awr_device *d)
{
	return kernel_limits_json(awr_device_derived(d), awr_device_kernel(d));
}

/* Each other release range whose answer differs: [{"kernels": "6.11-6.19", "unit_min": ...}]. */
static struct json_object *ranges_json(const struct awr_device *d)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < awr_device_nr_kernel_ranges(d); i++) {
		const char *label = "";
		const struct awr_device_limits *l = awr_device_kernel_range(d, i, &label);
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "kernels", json_object_new_string(label));
		dev_json_add(o, unit_fields, NULL, l);
		json_object_array_add(a, o);
	}
	return a;
}

#define N(m, k, in, h, l, ...) { FLD(struct awr_nvme_id, m, FLD_UINT, k, __VA_ARGS__), in, h, l, \
				 NULL }
#define NF(m, k, in, h, l, fmt, ...) { FLD(struct awr_nvme_id, m, FLD_UINT, k, __VA_ARGS__), in, \
				       h, l, fmt }
static const struct dev_field nvme_fields[] = {
	NF(awun, "awun", AWR_IF_AWUN, H_CTRL, 1, ctrl_blocks, .label = "AWUN"),
	NF(awupf, "awupf", AWR_IF_AWUPF, H_CTRL, 1, ctrl_blocks, .label = "AWUPF"),
	NF(acwu, "acwu", AWR_IF_ACWU, H_CTRL, 1, ctrl_blocks, .label = "ACWU",
	   .unit = "(0's based blocks)"),
	N(mdts, "mdts", AWR_IF_MDTS, H_CTRL, 1, .label = "MDTS"),
	N(nsid, "nsid", -1, H_NS, 0, .flags = FLD_NULL_ZERO),
	NF(nsfeat, "nsfeat", AWR_IF_NSFEAT, H_NS, 2, nsfeat_text, .label = "NSFEAT"),
	N(nlbaf, "nlbaf", AWR_IF_NLBAF, H_NS, 0),
	N(flbas, "flbas", AWR_IF_FLBAS, H_NS, 0),
	N(lbaf_index, "lba_format", -1, H_LBAF, 0),
	NF(nawun, "nawun", AWR_IF_NAWUN, H_NS, 2, ns_blocks, .label = "NAWUN"),
	NF(nawupf, "nawupf", AWR_IF_NAWUPF, H_NS, 2, ns_blocks, .label = "NAWUPF"),
	N(nacwu, "nacwu", AWR_IF_NACWU, H_NS, 2, .label = "NACWU"),
	N(nabsn, "nabsn", AWR_IF_NABSN, H_NS, 3, .label = "NABSN"),
	N(nabo, "nabo", AWR_IF_NABO, H_NS, 3, .label = "NABO"),
	N(nabspf, "nabspf", AWR_IF_NABSPF, H_NS, 3, .label = "NABSPF"),
	N(noiob, "noiob", AWR_IF_NOIOB, H_NS, 3, .label = "NOIOB"),
	N(lba_size, "lba_size", AWR_IF_LBAF, H_NS, 0),
	N(lba_ms, "metadata_size", AWR_IF_LBAF, H_NS, 0),
	DEV_END
};

static const struct dev_field nvme_dn[] = {
	{ FLD(struct awr_nvme_id, dn, FLD_BOOL, "dn", .label = "DN"), -1, H_DN, 1, NULL },
	DEV_END
};

static const struct dev_field nvme_vendor[] = {
	N(vid, "vid", -1, H_VID, 0),
	{ FLD(struct awr_nvme_id, model, FLD_ENUM, "model", .name = awr_nvme_model_name), -1,
	  H_MODEL, 0, NULL },
	N(ntwpu, "ntwpu", -1, H_NTWP, 0),
	N(ntwpg, "ntwpg", -1, H_NTWP, 0),
	N(ntwpb, "ntwpb", -1, H_NTWP, 0),
	DEV_END
};
#undef N
#undef NF

#define S(m, k, in, h, l, ...) { FLD(struct awr_scsi_id, m, FLD_UINT, k, __VA_ARGS__), in, h, l, \
				 NULL }
static const struct dev_field scsi_fields[] = {
	{ FLD(struct awr_scsi_id, vpd_page_length, FLD_UINT, "vpd_page_length",
	      .label = "page length"), AWR_IF_VPD_BL, H_VPD, 1, hex2 },
	S(max_transfer_length, "max_transfer_length", AWR_IF_MAX_XFER, H_VPD, 0),
	S(max_atomic_transfer_length, "max_atomic_transfer_length", AWR_IF_MATL, H_ATOMIC, 1,
	  .label = "max atomic transfer"),
	S(atomic_alignment, "atomic_alignment", AWR_IF_ATOMIC_ALIGN, H_ATOMIC, 1,
	  .label = "alignment"),
	S(atomic_granularity, "atomic_granularity", AWR_IF_ATOMIC_GRAN, H_ATOMIC, 1,
	  .label = "granularity"),
	S(max_atomic_transfer_length_with_boundary, "max_atomic_transfer_length_with_boundary",
	  AWR_IF_MATL_BNDRY, H_ATOMIC, 1, .label = "with boundary"),
	S(max_atomic_boundary_size, "max_atomic_boundary_size", AWR_IF_MAX_BNDRY, H_ATOMIC, 1,
	  .label = "max boundary", .unit = "(blocks)"),
	{ FLD(struct awr_scsi_id, write_atomic16, FLD_BOOL, "write_atomic16_supported",
	      .flags = FLD_NULL_NEG), -1, H_ANY, 0, NULL },
	S(logical_block_size, "logical_block_size", AWR_IF_LBS, H_ANY, 2, .label = "logical",
	  .flags = FLD_NULL_ZERO),
	S(physical_block_size, "physical_block_size", AWR_IF_PBS, H_ANY, 2, .label = "physical",
	  .unit = "bytes", .flags = FLD_NULL_ZERO),
	DEV_END
};
#undef S

/*
 * An input field's JSON key: its row's (the first, as lba_size before metadata_size), nsze's
 * (no row: only its absence is told); the vendor fields are never assumed
 */
static const char *input_key(int input)
{
	static const struct dev_field *const tables[] = { nvme_fields, scsi_fields };

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (const struct dev_field *t = tables[i]; t->f.key; t++)
			if (t->input == input)
				return t->f.key;
	return input == AWR_IF_NSZE ? "nsze" : NULL;
}

/* "assumed": [...], the keys in the order of the input fields */
static struct json_object *assumed_json(const struct awr_device *d)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < AWR_IF__COUNT; i++)
		if (assumed(d, i) && input_key(i))
			json_object_array_add(a, json_object_new_string(input_key(i)));
	return a;
}

static struct json_object *nvme_json(const struct awr_device *d)
{
	const struct awr_provider_atomic *p = awr_device_provider(d);
	const struct awr_nvme_id *n = awr_device_nvme(d);
	struct awr_device_limits with, without;
	bool alt = awr_device_awupf_answers(d, &with, &without);
	struct json_object *o = json_object_new_object();
	bool s = n->have_ns;

	json_object_object_add(o, "device", json_object_new_string(awr_device_name(d)));
	dev_json_add(o, nvme_fields, d, n);
	json_object_object_add(o, "assumed", assumed_json(d));
	dev_json_add(o, nvme_dn, d, n);
	json_object_object_add(o, "chunk_bytes", s ? out_u64(awr_device_chunk_bytes(d)) : NULL);
	json_object_object_add(o, "derived", s ? derived_json(d) : NULL);
	json_object_object_add(o, "derived_by_kernel", s ? ranges_json(d) : NULL);
	json_object_object_add(o, "derived_with_awupf", s ? limits_json(&with) : NULL);
	json_object_object_add(o, "derived_without_awupf", alt ? limits_json(&without) : NULL);
	json_object_object_add(o, "nsfeat_mam",
			       s ? json_object_new_boolean(n->nsfeat & 0x40) : NULL);
	dev_json_add(o, nvme_vendor, d, n);
	/* a cloud provider's statement, beside the kernel's derivation */
	json_object_object_add(o, "provider", p ? dev_json(provider_fields, d, p) : NULL);
	return o;
}

static struct json_object *scsi_json(const struct awr_device *d)
{
	const struct awr_scsi_id *s = awr_device_scsi(d);
	struct json_object *o = json_object_new_object();
	bool lbs = s->logical_block_size;

	json_object_object_add(o, "device", json_object_new_string(awr_device_name(d)));
	dev_json_add(o, scsi_fields, d, s);
	json_object_object_add(o, "assumed", assumed_json(d));
	json_object_object_add(o, "protection_type", s->have_capacity ?
			       out_u64(s->prot_en ? s->p_type + 1U : 0) : NULL);
	json_object_object_add(o, "derived", lbs ? derived_json(d) : NULL);
	json_object_object_add(o, "derived_by_kernel", lbs ? ranges_json(d) : NULL);
	return o;
}

void device_add_json(struct json_object *o, const struct awr_device *d)
{
	bool nvme = d && awr_device_type(d) == AWR_DEVICE_NVME;
	bool scsi = d && awr_device_type(d) == AWR_DEVICE_SCSI;

	json_object_object_add(o, "nvme", nvme ? nvme_json(d) : NULL);
	json_object_object_add(o, "scsi", scsi ? scsi_json(d) : NULL);
}

static void print_limits(const char *label, const struct awr_device_limits *l)
{
	if (l->supported)
		dev_line(label, unit_fields, 1, NULL, l,
			 l->capped ? "" : " (block layer caps not applied)");
	else
		printf("  %-14s atomic writes off\n", label);
}

/*
 * The view's kernel, then only the release ranges whose answer differs (as derived_by_kernel in
 * JSON).
 */
static void by_kernel(const struct awr_device *d)
{
	uint32_t k = awr_device_kernel(d), run = awr_kernel_running();
	struct awr_device_limits l;
	unsigned int n = awr_device_nr_kernel_ranges(d);
	char v[16], w[16], label[64];

	printf("  derived (%s%s)\n", awr_kernel_format(k, v, sizeof(v)),
	       run && k == run ? ", this kernel" : "");
	print_limits("", awr_device_derived(d));
	if (!n) {
		printf("  by kernel      the same on every kernel with atomic writes\n");
		return;
	}
	printf("  by kernel      where the answer differs from %s's:\n", v);
	for (unsigned int i = 0; i < n; i++) {
		const char *r = "";
		const struct awr_device_limits *x = awr_device_kernel_range(d, i, &r);

		print_limits(r, x);
	}
	if (run && k != run && !awr_device_derive_at(d, run, &l)) {
		snprintf(label, sizeof(label), "here %s", awr_kernel_format(run, w, sizeof(w)));
		print_limits(label, &l);
	}
}

/* The LBA format in use: its index of how many, its data and metadata sizes */
static void lba_format_print(const struct awr_device *d, const struct awr_nvme_id *n)
{
	printf("  %-14s ", "");
	if (assumed(d, AWR_IF_LBAF))
		printf("LBA format not in the input: %" PRIu32 " bytes assumed\n", n->lba_size);
	else if (assumed(d, AWR_IF_NLBAF))
		printf("LBA format %u: %" PRIu32 " bytes, %u metadata\n", n->lbaf_index,
		       n->lba_size, n->lba_ms);
	else
		printf("LBA format %u of %u: %" PRIu32 " bytes, %u metadata\n", n->lbaf_index,
		       n->nlbaf + 1U, n->lba_size, n->lba_ms);
}

static void nvme_print(const struct awr_device *d)
{
	const struct awr_nvme_id *n = awr_device_nvme(d);
	struct awr_device_limits with, without;
	bool alt = awr_device_awupf_answers(d, &with, &without);

	if (n->have_ctrl)
		dev_line("controller", nvme_fields, 1, d, n, "");
	if (n->have_dn)
		dev_line("feature 0Ah", nvme_dn, 1, d, n, "");
	if (!n->have_ns)
		return;
	dev_line("namespace", nvme_fields, 2, d, n, "");
	dev_line("", nvme_fields, 3, d, n, "");
	lba_format_print(d, n);
	by_kernel(d);
	if (alt) {
		print_limits("with AWUPF", &with);
		print_limits("without AWUPF", &without);
	}
	provider_print(d);
}

static void scsi_print(const struct awr_device *d)
{
	const struct awr_scsi_id *s = awr_device_scsi(d);
	unsigned int pt = s->prot_en ? s->p_type + 1U : 0;
	char prot[32] = "";

	if (s->have_vpd)
		dev_line("block limits", scsi_fields, 1, d, s, "");
	if (s->have_capacity)
		snprintf(prot, sizeof(prot), ", protection type %u", pt);
	dev_line("block size", scsi_fields, 2, d, s, prot);
	printf("  %-14s %s\n", "opcode 9Ch", s->write_atomic16 < 0 ? "support unknown" :
	       s->write_atomic16 ? "WRITE ATOMIC(16) listed as supported" :
	       "WRITE ATOMIC(16) not listed by REPORT SUPPORTED OPERATION CODES");
	if (s->logical_block_size)
		by_kernel(d);
}

void device_print(const struct awr_device *d)
{
	const char *name = awr_device_name(d);

	printf("device%s%s%s: %s\n", *name ? " (" : "", name, *name ? ")" : "",
	       awr_device_type(d) == AWR_DEVICE_NVME ? "NVMe" : "SCSI");
	if (awr_device_type(d) == AWR_DEVICE_NVME)
		nvme_print(d);
	else
		scsi_print(d);
}

/* What the device says of itself, and awr list's word for the limits derived from it */
struct identity {
	const char *model, *serial, *firmware, *verdict;
};

#define I(m) FLD(struct identity, m, FLD_STR, #m, .flags = FLD_NULL_ZERO)
static const struct field ident_fields[] = {
	I(model), I(serial), I(firmware), I(verdict), FLD_END
};
#undef I

static struct identity identity(const struct awr_device *d)
{
	return (struct identity){ awr_device_model(d), awr_device_serial(d), awr_device_firmware(d),
				  awr_device_verdict(d) };
}

/* "model", "serial", "firmware" (null when the input lacks them) and awr list's "verdict" */
void device_identity_json(struct json_object *o, const struct awr_device *d)
{
	struct identity id = identity(d);

	fld_json_add(o, ident_fields, &id);
}

/* "model: X, serial: Y, firmware: Z" ("not in the input" for each it lacks), then the verdict */
void device_identity_print(const struct awr_device *d)
{
	struct identity id = identity(d);
	char v[128];

	printf("identity:");
	for (const struct field *f = ident_fields; f < ident_fields + 3; f++)
		printf("%s %s %s", f == ident_fields ? "" : ",", f->key,
		       fld_is_null(f, &id) ? "not in the input" : fld_text(f, &id, v, sizeof(v)));
	printf("\nverdict: %s (awr list's word for the derived limits)\n\n",
	       verdict_text(id.verdict, v, sizeof(v)));
}

/* The verdict in text: words ("single-block"), where JSON has the key ("single_block"). */
const char *verdict_text(const char *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s", v);
	for (char *p = buf; *p; p++)
		*p = *p == '_' ? '-' : *p;
	return buf;
}

struct json_object *device_findings_json(const struct awr_device *d)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
		json_object_array_add(a, out_finding_json(awr_device_finding(d, i)));
	return a;
}

#define G(m, t, k, line) { FLD(struct awr_stack_leg, m, t, k, .label = k), -1, H_ANY, line, NULL }
static const struct dev_field leg_fields[] = {
	G(name, FLD_CHARS, "name", 0),
	G(unit_min, FLD_SIZE, "unit_min", 1),
	G(unit_max, FLD_SIZE, "unit_max", 1),
	G(max_bytes, FLD_SIZE, "max_bytes", 1),
	G(boundary, FLD_SIZE, "boundary", 1),
	G(start, FLD_SIZE, "start", 0),
	DEV_END
};
#undef G

#define V(m, t, k) { FLD(struct awr_stack_view, m, t, k), -1, H_ANY, 0, NULL }
static const struct dev_field stack_fields[] = {
	V(type, FLD_CHARS, "type"),
	V(disk, FLD_CHARS, "disk"),
	V(chunk_bytes, FLD_SIZE, "chunk_bytes"),
	V(kernel_stacks, FLD_BOOL, "kernel_stacks"),
	DEV_END
};
#undef V

/* A stacked device: stack.{type, legs[], derived} (derived says which kernel, as nvme.derived). */
struct json_object *stack_json(const struct awr_stack_view *s)
{
	struct json_object *o, *legs;

	if (!s)
		return NULL;
	o = dev_json(stack_fields, NULL, s);
	legs = json_object_new_array();
	for (unsigned int i = 0; i < s->nr_legs; i++)
		json_object_array_add(legs, dev_json(leg_fields, NULL, &s->legs[i]));
	json_object_object_add(o, "legs", legs);
	json_object_object_add(o, "derived", kernel_limits_json(&s->derived, s->kernel));
	json_object_object_add(o, "why_off", s->why[0] ? json_object_new_string(s->why) : NULL);
	return o;
}

void stack_print(const struct awr_stack_view *s)
{
	char a[32], v[16];

	printf("stack (%s): %s over %u leg%s%s%s\n", s->disk, s->type, s->nr_legs,
	       s->nr_legs == 1 ? "" : "s",
	       s->chunk_bytes ? ", chunk " : "",
	       s->chunk_bytes ? out_size(s->chunk_bytes, a, sizeof(a)) : "");
	for (unsigned int i = 0; i < s->nr_legs; i++) {
		const struct awr_stack_leg *l = &s->legs[i];

		snprintf(a, sizeof(a), " (start %" PRIu64 ")", l->start);
		if (l->unit_max)
			dev_line(l->name, leg_fields, 1, NULL, l, a);
		else
			printf("  %-14s no atomic writes%s\n", l->name, a);
	}
	snprintf(a, sizeof(a), "stacked %s", awr_kernel_format(s->kernel, v, sizeof(v)));
	print_limits(a, &s->derived);
}
