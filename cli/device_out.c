// SPDX-License-Identifier: MIT
/* Output of a device view (NVMe identify / SCSI VPD and derived limits), text and JSON. */
#include <inttypes.h>
#include <stdio.h>

#include "awr.h"

static struct json_object *u64_if(bool have, uint64_t v)
{
	return have ? out_u64(v) : NULL;
}

/* A field the view assumed rather than read (awr decode of a partial paste). */
static bool assumed(const struct awr_device *d, enum awr_input_field f)
{
	return (awr_device_assumed(d) >> f) & 1;
}

/* A read field's value in JSON; an assumed one is null (and listed under "assumed"). */
static struct json_object *u64_read(const struct awr_device *d, enum awr_input_field f, bool have, uint64_t v)
{
	return u64_if(have && !assumed(d, f), v);
}

/* JSON keys of the input fields, for "assumed": [...] */
static const char *const field_keys[AWR_IF__COUNT] = {
	[AWR_IF_MDTS] = "mdts", [AWR_IF_AWUN] = "awun", [AWR_IF_AWUPF] = "awupf", [AWR_IF_ACWU] = "acwu",
	[AWR_IF_NSZE] = "nsze", [AWR_IF_NSFEAT] = "nsfeat", [AWR_IF_NLBAF] = "nlbaf",
	[AWR_IF_FLBAS] = "flbas", [AWR_IF_NAWUN] = "nawun", [AWR_IF_NAWUPF] = "nawupf",
	[AWR_IF_NACWU] = "nacwu", [AWR_IF_NABSN] = "nabsn", [AWR_IF_NABO] = "nabo",
	[AWR_IF_NABSPF] = "nabspf", [AWR_IF_NOIOB] = "noiob", [AWR_IF_LBAF] = "lba_size",
	[AWR_IF_VPD_BL] = "vpd_page_length", [AWR_IF_MAX_XFER] = "max_transfer_length",
	[AWR_IF_MATL] = "max_atomic_transfer_length", [AWR_IF_ATOMIC_ALIGN] = "atomic_alignment",
	[AWR_IF_ATOMIC_GRAN] = "atomic_granularity",
	[AWR_IF_MATL_BNDRY] = "max_atomic_transfer_length_with_boundary",
	[AWR_IF_MAX_BNDRY] = "max_atomic_boundary_size", [AWR_IF_LBS] = "logical_block_size",
	[AWR_IF_PBS] = "physical_block_size", [AWR_IF_VID] = "vid", [AWR_IF_MODEL] = "model",
	[AWR_IF_NTWPU] = "ntwpu", [AWR_IF_NTWPG] = "ntwpg", [AWR_IF_NTWPB] = "ntwpb",
};

static const char *model_key(const struct awr_nvme_id *n)
{
	static const char *const keys[] = { "other", "aws_ebs", "aws_instance_storage", "azure", "gcp" };

	return n->model < sizeof(keys) / sizeof(keys[0]) ? keys[n->model] : "other";
}

/* A cloud provider's statement, beside the kernel's derivation: "provider": {...} or null. */
static struct json_object *provider_json(const struct awr_device *d)
{
	const struct awr_provider_atomic *p = awr_device_provider(d);
	struct json_object *o;

	if (!p)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "provider", json_object_new_string(p->provider));
	json_object_object_add(o, "known_by", json_object_new_string(p->known_by));
	json_object_object_add(o, "source", json_object_new_string(p->source));
	json_object_object_add(o, "readable", json_object_new_boolean(p->readable));
	json_object_object_add(o, "read", json_object_new_boolean(p->read));
	json_object_object_add(o, "unit", u64_if(p->read, p->unit));
	json_object_object_add(o, "granularity", u64_if(p->read, p->granularity));
	json_object_object_add(o, "boundary", u64_if(p->read, p->boundary));
	return o;
}

static void provider_print(const struct awr_device *d)
{
	const struct awr_provider_atomic *p = awr_device_provider(d);
	char a[32], b[32], c[32];

	if (!p)
		return;
	if (p->read)
		printf("  %-14s %s states untorn writes of a multiple of %s up to %s, aligned, boundary %s "
		       "(device-implicit on its word; Linux does not read it)\n", "provider", p->provider,
		       out_size(p->granularity, a, sizeof(a)), out_size(p->unit, b, sizeof(b)),
		       p->boundary ? out_size(p->boundary, c, sizeof(c)) : "none");
	else
		printf("  %-14s %s\n", "provider", p->provider);
	printf("  %-14s known by %s\n  %-14s %s\n", "", p->known_by, "", p->source);
}

static struct json_object *assumed_json(const struct awr_device *d)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < AWR_IF__COUNT; i++)
		if (assumed(d, i) && field_keys[i])
			json_object_array_add(a, json_object_new_string(field_keys[i]));
	return a;
}

/* Text: "15 (64 KiB)" as read, "assumed 0" where the input did not hold the field. */
static const char *mark(const struct awr_device *d, enum awr_input_field f, const char *txt, char *buf,
			size_t len)
{
	snprintf(buf, len, "%s%s", assumed(d, f) ? "assumed " : "", txt);
	return buf;
}

static struct json_object *limits_json(const struct awr_device_limits *l)
{
	struct json_object *o = json_object_new_object();

	out_add_unit_limits(o, l->supported, l->unit_min, l->unit_max, l->max_bytes, l->boundary);
	json_object_object_add(o, "block_caps_applied", json_object_new_boolean(l->capped));
	json_object_object_add(o, "hw_max", out_u64(l->hw_max));
	json_object_object_add(o, "hw_unit_min", out_u64(l->hw_unit_min));
	json_object_object_add(o, "hw_unit_max", out_u64(l->hw_unit_max));
	json_object_object_add(o, "hw_boundary", out_u64(l->hw_boundary));
	return o;
}

/* What the view's kernel derives, said so: "kernel": "7.3.4", "this_kernel": true. */
static struct json_object *kernel_limits_json(const struct awr_device *d)
{
	struct json_object *o = limits_json(awr_device_derived_kernel(d));
	uint32_t k = awr_device_kernel(d), run = awr_kernel_running();
	char v[16];

	json_object_object_add(o, "kernel", json_object_new_string(awr_kernel_format(k, v, sizeof(v))));
	json_object_object_add(o, "this_kernel", json_object_new_boolean(run && k == run));
	return o;
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
		out_add_unit_limits(o, l->supported, l->unit_min, l->unit_max, l->max_bytes, l->boundary);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *nvme_json(const struct awr_device *d)
{
	const struct awr_nvme_id *n = awr_device_nvme(d);
	const struct awr_device_limits *alt = awr_device_derived_alt(d);
	struct json_object *o = json_object_new_object();
	bool c = n->have_ctrl, s = n->have_ns;

	json_object_object_add(o, "device", json_object_new_string(awr_device_name(d)));
	json_object_object_add(o, "awun", u64_read(d, AWR_IF_AWUN, c, n->awun));
	json_object_object_add(o, "awupf", u64_read(d, AWR_IF_AWUPF, c, n->awupf));
	json_object_object_add(o, "acwu", u64_read(d, AWR_IF_ACWU, c, n->acwu));
	json_object_object_add(o, "mdts", u64_read(d, AWR_IF_MDTS, c, n->mdts));
	json_object_object_add(o, "nsid", u64_if(s && n->nsid, n->nsid));
	json_object_object_add(o, "nsfeat", u64_read(d, AWR_IF_NSFEAT, s, n->nsfeat));
	json_object_object_add(o, "nlbaf", u64_read(d, AWR_IF_NLBAF, s, n->nlbaf));
	json_object_object_add(o, "flbas", u64_read(d, AWR_IF_FLBAS, s, n->flbas));
	json_object_object_add(o, "lba_format", u64_if(s && !(assumed(d, AWR_IF_FLBAS) && assumed(d, AWR_IF_LBAF)),
						      n->lbaf_index));
	json_object_object_add(o, "nawun", u64_read(d, AWR_IF_NAWUN, s, n->nawun));
	json_object_object_add(o, "nawupf", u64_read(d, AWR_IF_NAWUPF, s, n->nawupf));
	json_object_object_add(o, "nacwu", u64_read(d, AWR_IF_NACWU, s, n->nacwu));
	json_object_object_add(o, "nabsn", u64_read(d, AWR_IF_NABSN, s, n->nabsn));
	json_object_object_add(o, "nabo", u64_read(d, AWR_IF_NABO, s, n->nabo));
	json_object_object_add(o, "nabspf", u64_read(d, AWR_IF_NABSPF, s, n->nabspf));
	json_object_object_add(o, "noiob", u64_read(d, AWR_IF_NOIOB, s, n->noiob));
	json_object_object_add(o, "lba_size", u64_read(d, AWR_IF_LBAF, s, n->lba_size));
	json_object_object_add(o, "metadata_size", u64_read(d, AWR_IF_LBAF, s, n->lba_ms));
	json_object_object_add(o, "assumed", assumed_json(d));
	json_object_object_add(o, "dn", n->have_dn ? json_object_new_boolean(n->dn) : NULL);
	json_object_object_add(o, "chunk_bytes", u64_if(s, awr_device_chunk_bytes(d)));
	json_object_object_add(o, "derived", s ? kernel_limits_json(d) : NULL);
	json_object_object_add(o, "derived_by_kernel", s ? ranges_json(d) : NULL);
	json_object_object_add(o, "derived_with_awupf", s ? limits_json(awr_device_derived(d)) : NULL);
	json_object_object_add(o, "derived_without_awupf", alt ? limits_json(alt) : NULL);
	json_object_object_add(o, "nsfeat_mam", s ? json_object_new_boolean(n->nsfeat & 0x40) : NULL);
	json_object_object_add(o, "vid", u64_if(n->vendor_have & AWR_NVME_HAVE_VID, n->vid));
	json_object_object_add(o, "model", n->vendor_have & AWR_NVME_HAVE_MODEL ?
			       json_object_new_string(model_key(n)) : NULL);
	json_object_object_add(o, "ntwpu", u64_if(n->vendor_have & AWR_NVME_HAVE_NTWP, n->ntwpu));
	json_object_object_add(o, "ntwpg", u64_if(n->vendor_have & AWR_NVME_HAVE_NTWP, n->ntwpg));
	json_object_object_add(o, "ntwpb", u64_if(n->vendor_have & AWR_NVME_HAVE_NTWP, n->ntwpb));
	json_object_object_add(o, "provider", provider_json(d));
	return o;
}

static struct json_object *scsi_json(const struct awr_device *d)
{
	const struct awr_scsi_id *s = awr_device_scsi(d);
	struct json_object *o = json_object_new_object();
	bool v = s->have_vpd, a = s->vpd_has_atomic;

	json_object_object_add(o, "device", json_object_new_string(awr_device_name(d)));
	json_object_object_add(o, "vpd_page_length", u64_read(d, AWR_IF_VPD_BL, v, s->vpd_page_length));
	json_object_object_add(o, "max_transfer_length", u64_read(d, AWR_IF_MAX_XFER, v, s->max_transfer_length));
	json_object_object_add(o, "max_atomic_transfer_length",
			       u64_read(d, AWR_IF_MATL, a, s->max_atomic_transfer_length));
	json_object_object_add(o, "atomic_alignment", u64_read(d, AWR_IF_ATOMIC_ALIGN, a, s->atomic_alignment));
	json_object_object_add(o, "atomic_granularity", u64_read(d, AWR_IF_ATOMIC_GRAN, a, s->atomic_granularity));
	json_object_object_add(o, "max_atomic_transfer_length_with_boundary",
			       u64_read(d, AWR_IF_MATL_BNDRY, a, s->max_atomic_transfer_length_with_boundary));
	json_object_object_add(o, "max_atomic_boundary_size",
			       u64_read(d, AWR_IF_MAX_BNDRY, a, s->max_atomic_boundary_size));
	json_object_object_add(o, "write_atomic16_supported",
			       s->write_atomic16 < 0 ? NULL : json_object_new_boolean(s->write_atomic16));
	json_object_object_add(o, "logical_block_size",
			       u64_read(d, AWR_IF_LBS, s->logical_block_size, s->logical_block_size));
	json_object_object_add(o, "physical_block_size",
			       u64_read(d, AWR_IF_PBS, s->physical_block_size, s->physical_block_size));
	json_object_object_add(o, "assumed", assumed_json(d));
	json_object_object_add(o, "protection_type",
			       u64_if(s->have_capacity, s->prot_en ? s->p_type + 1U : 0));
	json_object_object_add(o, "derived", s->logical_block_size ? kernel_limits_json(d) : NULL);
	json_object_object_add(o, "derived_by_kernel", s->logical_block_size ? ranges_json(d) : NULL);
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
	char a[32], b[32], c[32], e[32];

	if (!l->supported) {
		printf("  %-14s atomic writes off\n", label);
		return;
	}
	printf("  %-14s unit_min %s, unit_max %s, max_bytes %s, boundary %s%s\n", label,
	       out_size(l->unit_min, a, sizeof(a)), out_size(l->unit_max, b, sizeof(b)),
	       out_size(l->max_bytes, c, sizeof(c)), out_size(l->boundary, e, sizeof(e)),
	       l->capped ? "" : " (block layer caps not applied)");
}

static int derive_at(const struct awr_device *d, uint32_t kernel, struct awr_device_limits *l)
{
	if (awr_device_type(d) == AWR_DEVICE_NVME)
		return awr_nvme_derive_kernel(awr_device_nvme(d), kernel, awr_device_caps(d), l);
	return awr_scsi_derive_kernel(awr_device_scsi(d), kernel, awr_device_caps(d), l);
}

/* The view's kernel, then only the release ranges whose answer differs (as derived_by_kernel in JSON). */
static void by_kernel(const struct awr_device *d)
{
	uint32_t k = awr_device_kernel(d), run = awr_kernel_running();
	struct awr_device_limits l;
	unsigned int n = awr_device_nr_kernel_ranges(d);
	char v[16], w[16], label[64];

	snprintf(label, sizeof(label), "derived (%s%s)", awr_kernel_format(k, v, sizeof(v)),
		 run && k == run ? ", this kernel" : "");
	printf("  %s\n", label);
	print_limits("", awr_device_derived_kernel(d));
	if (!n) {
		printf("  by kernel      the same on every kernel with atomic writes\n");
		return;
	}
	printf("  by kernel      where the answer differs from %s's:\n", awr_kernel_format(k, v, sizeof(v)));
	for (unsigned int i = 0; i < n; i++) {
		const char *r = "";
		const struct awr_device_limits *x = awr_device_kernel_range(d, i, &r);

		print_limits(r, x);
	}
	if (run && k != run && !derive_at(d, run, &l)) {
		snprintf(label, sizeof(label), "here %s", awr_kernel_format(run, w, sizeof(w)));
		print_limits(label, &l);
	}
}

/* A 0's based block count as "15 (64 KiB)" when the block size is known. */
static const char *blocks0(uint16_t v, uint32_t lbs, char *buf, size_t len)
{
	char sz[32];

	if (lbs)
		snprintf(buf, len, "%u (%s)", v, out_size((v + 1ULL) * lbs, sz, sizeof(sz)));
	else
		snprintf(buf, len, "%u", v);
	return buf;
}

static void nvme_print(const struct awr_device *d)
{
	const struct awr_nvme_id *n = awr_device_nvme(d);
	const struct awr_device_limits *alt = awr_device_derived_alt(d);
	uint32_t lbs = n->have_ns ? n->lba_size : 0;
	bool nsv = n->nsfeat & 2;
	char a[48], b[48], c[48], e[48], t[48], m[4][64];

	if (n->have_ctrl) {
		snprintf(t, sizeof(t), "%u", n->mdts);
		printf("  %-14s AWUN %s, AWUPF %s, ACWU %s (0's based blocks), MDTS %s\n", "controller",
		       mark(d, AWR_IF_AWUN, blocks0(n->awun, lbs, a, sizeof(a)), m[0], sizeof(m[0])),
		       mark(d, AWR_IF_AWUPF, blocks0(n->awupf, lbs, b, sizeof(b)), m[1], sizeof(m[1])),
		       mark(d, AWR_IF_ACWU, blocks0(n->acwu, lbs, c, sizeof(c)), m[2], sizeof(m[2])),
		       mark(d, AWR_IF_MDTS, t, m[3], sizeof(m[3])));
	}
	if (n->have_dn)
		printf("  %-14s DN %u\n", "feature 0Ah", n->dn);
	if (!n->have_ns)
		return;
	snprintf(t, sizeof(t), "0x%02x (atomic fields %s%s)", n->nsfeat, nsv ? "valid" : "not valid",
		 n->nsfeat & 0x40 ? ", MAM" : "");
	snprintf(e, sizeof(e), "%u", n->nacwu);
	printf("  %-14s NSFEAT %s, NAWUN %s, NAWUPF %s, NACWU %s\n", "namespace",
	       mark(d, AWR_IF_NSFEAT, t, m[0], sizeof(m[0])),
	       mark(d, AWR_IF_NAWUN, blocks0(n->nawun, nsv ? lbs : 0, a, sizeof(a)), m[1], sizeof(m[1])),
	       mark(d, AWR_IF_NAWUPF, blocks0(n->nawupf, nsv ? lbs : 0, b, sizeof(b)), m[2], sizeof(m[2])),
	       mark(d, AWR_IF_NACWU, e, m[3], sizeof(m[3])));
	snprintf(a, sizeof(a), "%u", n->nabsn);
	snprintf(b, sizeof(b), "%u", n->nabo);
	snprintf(c, sizeof(c), "%u", n->nabspf);
	snprintf(e, sizeof(e), "%u", n->noiob);
	printf("  %-14s NABSN %s, NABO %s, NABSPF %s, NOIOB %s\n", "",
	       mark(d, AWR_IF_NABSN, a, m[0], sizeof(m[0])), mark(d, AWR_IF_NABO, b, m[1], sizeof(m[1])),
	       mark(d, AWR_IF_NABSPF, c, m[2], sizeof(m[2])), mark(d, AWR_IF_NOIOB, e, m[3], sizeof(m[3])));
	if (assumed(d, AWR_IF_LBAF))
		printf("  %-14s LBA format not in the input: %" PRIu32 " bytes assumed\n", "", n->lba_size);
	else if (assumed(d, AWR_IF_NLBAF))
		printf("  %-14s LBA format %u: %" PRIu32 " bytes, %u metadata\n", "", n->lbaf_index, n->lba_size,
		       n->lba_ms);
	else
		printf("  %-14s LBA format %u of %u: %" PRIu32 " bytes, %u metadata\n", "", n->lbaf_index,
		       n->nlbaf + 1U, n->lba_size, n->lba_ms);
	by_kernel(d);
	if (alt) {
		print_limits("with AWUPF", awr_device_derived(d));
		print_limits("without AWUPF", alt);
	}
	provider_print(d);
}

static void scsi_print(const struct awr_device *d)
{
	const struct awr_scsi_id *s = awr_device_scsi(d);

	char v[7][32], m[7][64];

	if (s->have_vpd) {
		snprintf(v[0], sizeof(v[0]), "0x%02x", s->vpd_page_length);
		snprintf(v[1], sizeof(v[1]), "%" PRIu32, s->max_atomic_transfer_length);
		snprintf(v[2], sizeof(v[2]), "%" PRIu32, s->atomic_alignment);
		snprintf(v[3], sizeof(v[3]), "%" PRIu32, s->atomic_granularity);
		snprintf(v[4], sizeof(v[4]), "%" PRIu32, s->max_atomic_transfer_length_with_boundary);
		snprintf(v[5], sizeof(v[5]), "%" PRIu32, s->max_atomic_boundary_size);
		printf("  %-14s page length %s, max atomic transfer %s, alignment %s, granularity %s, with boundary %s, max boundary %s (blocks)\n",
		       "block limits", mark(d, AWR_IF_VPD_BL, v[0], m[0], sizeof(m[0])),
		       mark(d, AWR_IF_MATL, v[1], m[1], sizeof(m[1])),
		       mark(d, AWR_IF_ATOMIC_ALIGN, v[2], m[2], sizeof(m[2])),
		       mark(d, AWR_IF_ATOMIC_GRAN, v[3], m[3], sizeof(m[3])),
		       mark(d, AWR_IF_MATL_BNDRY, v[4], m[4], sizeof(m[4])),
		       mark(d, AWR_IF_MAX_BNDRY, v[5], m[5], sizeof(m[5])));
	}
	snprintf(v[0], sizeof(v[0]), "%" PRIu32, s->logical_block_size);
	snprintf(v[1], sizeof(v[1]), "%" PRIu32, s->physical_block_size);
	printf("  %-14s logical %s, physical %s bytes", "block size", mark(d, AWR_IF_LBS, v[0], m[0], sizeof(m[0])),
	       mark(d, AWR_IF_PBS, v[1], m[1], sizeof(m[1])));
	if (s->have_capacity)
		printf(", protection type %u", s->prot_en ? s->p_type + 1U : 0);
	printf("\n  %-14s %s\n", "opcode 9Ch", s->write_atomic16 < 0 ? "support unknown" :
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

struct json_object *device_findings_json(const struct awr_device *d)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
		json_object_array_add(a, out_finding_json(awr_device_finding(d, i)));
	return a;
}

/* A stacked device: stack.{type, legs[], derived} (derived says which kernel, as nvme.derived). */
struct json_object *stack_json(const struct awr_stack_view *s)
{
	struct json_object *o, *legs, *d;
	uint32_t run = awr_kernel_running();
	char v[16];

	if (!s)
		return NULL;
	o = json_object_new_object();
	legs = json_object_new_array();
	json_object_object_add(o, "type", json_object_new_string(s->type));
	json_object_object_add(o, "disk", json_object_new_string(s->disk));
	json_object_object_add(o, "chunk_bytes", out_u64(s->chunk_bytes));
	json_object_object_add(o, "kernel_stacks", json_object_new_boolean(s->kernel_stacks));
	for (unsigned int i = 0; i < s->nr_legs; i++) {
		const struct awr_stack_leg *l = &s->legs[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "name", json_object_new_string(l->name));
		json_object_object_add(j, "unit_min", out_u64(l->unit_min));
		json_object_object_add(j, "unit_max", out_u64(l->unit_max));
		json_object_object_add(j, "max_bytes", out_u64(l->max_bytes));
		json_object_object_add(j, "boundary", out_u64(l->boundary));
		json_object_object_add(j, "start", out_u64(l->start));
		json_object_array_add(legs, j);
	}
	json_object_object_add(o, "legs", legs);
	d = limits_json(&s->derived);
	json_object_object_add(d, "kernel", json_object_new_string(awr_kernel_format(s->kernel, v, sizeof(v))));
	json_object_object_add(d, "this_kernel", json_object_new_boolean(run && s->kernel == run));
	json_object_object_add(o, "derived", d);
	json_object_object_add(o, "why_off", s->why[0] ? json_object_new_string(s->why) : NULL);
	return o;
}

void stack_print(const struct awr_stack_view *s)
{
	char a[32], b[32], c[32], e[32], v[16];

	printf("stack (%s): %s over %u leg%s%s%s\n", s->disk, s->type, s->nr_legs, s->nr_legs == 1 ? "" : "s",
	       s->chunk_bytes ? ", chunk " : "", s->chunk_bytes ? out_size(s->chunk_bytes, a, sizeof(a)) : "");
	for (unsigned int i = 0; i < s->nr_legs; i++) {
		const struct awr_stack_leg *l = &s->legs[i];

		if (!l->unit_max)
			printf("  %-14s no atomic writes (start %" PRIu64 ")\n", l->name, l->start);
		else
			printf("  %-14s unit_min %s, unit_max %s, max_bytes %s, boundary %s (start %" PRIu64 ")\n",
			       l->name, out_size(l->unit_min, a, sizeof(a)), out_size(l->unit_max, b, sizeof(b)),
			       out_size(l->max_bytes, c, sizeof(c)), out_size(l->boundary, e, sizeof(e)), l->start);
	}
	snprintf(a, sizeof(a), "stacked %s", awr_kernel_format(s->kernel, v, sizeof(v)));
	print_limits(a, &s->derived);
}
