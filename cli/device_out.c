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

/* JSON keys of the input fields, for "assumed": [...] */
static const char *const field_keys[AWR_IF__COUNT] = {
	[AWR_IF_MDTS] = "mdts", [AWR_IF_AWUN] = "awun", [AWR_IF_AWUPF] = "awupf",
	[AWR_IF_ACWU] = "acwu",
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

#define P(m, t, k, ...) FLD(struct awr_provider_atomic, m, t, k, __VA_ARGS__)
static const struct field provider_fields[] = {
	P(provider, FLD_CHARS, "provider"),
	P(known_by, FLD_CHARS, "known_by"),
	P(source, FLD_CHARS, "source"),
	P(readable, FLD_BOOL, "readable"),
	P(read, FLD_BOOL, "read"),
	FLD_END
};

static const struct field provider_read[] = {
	P(unit, FLD_SIZE, "unit"),
	P(granularity, FLD_SIZE, "granularity"),
	P(boundary, FLD_SIZE, "boundary"),
	FLD_END
};
#undef P

/* A cloud provider's statement, beside the kernel's derivation: "provider": {...} or null. */
static struct json_object *provider_json(const struct awr_device *d)
{
	const struct awr_provider_atomic *p = awr_device_provider(d);
	struct json_object *o;

	if (!p)
		return NULL;
	o = fld_json(provider_fields, p);
	if (p->read)
		fld_json_add(o, provider_read, p);
	else
		for (const struct field *f = provider_read; f->key; f++)
			json_object_object_add(o, f->key, NULL);
	return o;
}

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

static struct json_object *assumed_json(const struct awr_device *d)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < AWR_IF__COUNT; i++)
		if (assumed(d, i) && field_keys[i])
			json_object_array_add(a, json_object_new_string(field_keys[i]));
	return a;
}

/* Text: "15 (64 KiB)" as read, "assumed 0" where the input did not hold the field. */
static const char *mark(const struct awr_device *d, enum awr_input_field f, const char *txt,
			char *buf,
			size_t len)
{
	snprintf(buf, len, "%s%s", assumed(d, f) ? "assumed " : "", txt);
	return buf;
}

#define L(m, t, k) FLD(struct awr_device_limits, m, t, k)
/* the five every limits object starts with (out_limits_json()'s), then the driver's own */
static const struct field unit_fields[] = {
	L(supported, FLD_BOOL, "supported"),
	L(unit_min, FLD_SIZE, "unit_min"),
	L(unit_max, FLD_SIZE, "unit_max"),
	L(max_bytes, FLD_SIZE, "max_bytes"),
	L(boundary, FLD_SIZE, "boundary"),
	FLD_END
};

static const struct field hw_fields[] = {
	L(capped, FLD_BOOL, "block_caps_applied"),
	L(hw_max, FLD_SIZE, "hw_max"),
	L(hw_unit_min, FLD_SIZE, "hw_unit_min"),
	L(hw_unit_max, FLD_SIZE, "hw_unit_max"),
	L(hw_boundary, FLD_SIZE, "hw_boundary"),
	FLD_END
};
#undef L

/*
 * NVMe: what kernels that use AWUPF (6.18) derive in @with; when the answer rests on AWUPF (no
 * NAWUPF, NABO 0), what kernels that ignore it (7.0, "nvme: stop using AWUPF") derive in
 * @without, and true.
 */
static bool awupf_answers(const struct awr_device *d, struct awr_device_limits *with,
			  struct awr_device_limits *without)
{
	const struct awr_nvme_id *n = awr_device_nvme(d);

	awr_device_derive_at(d, AWR_KERNEL(6, 18, 0), with);
	if (!n->have_ns || ((n->nsfeat & 2) && n->nawupf) || n->nabo)
		return false;
	awr_device_derive_at(d, AWR_KERNEL(7, 0, 0), without);
	return true;
}

static struct json_object *limits_json(const struct awr_device_limits *l)
{
	struct json_object *o = fld_json(unit_fields, l);

	fld_json_add(o, hw_fields, l);
	return o;
}

/* What the view's kernel derives, said so: "kernel": "7.3.4", "this_kernel": true. */
static struct json_object *kernel_limits_json(const struct awr_device *d)
{
	struct json_object *o = limits_json(awr_device_derived(d));
	uint32_t k = awr_device_kernel(d), run = awr_kernel_running();
	char v[16];

	json_object_object_add(o, "kernel",
			       json_object_new_string(awr_kernel_format(k, v, sizeof(v))));
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
		fld_json_add(o, unit_fields, l);
		json_object_array_add(a, o);
	}
	return a;
}

/* What must have been read for a field of the device's data to be shown */
enum have { H_ANY, H_CTRL, H_NS, H_VPD, H_ATOMIC, H_VID, H_MODEL, H_NTWP };

/* A field of the device's data: its row, the input field it is read from (-1 none), its part */
struct dev_field {
	struct field f;
	int input;
	enum have have;
};

static bool have(const struct awr_device *d, enum have h)
{
	bool nvme = awr_device_type(d) == AWR_DEVICE_NVME;
	const struct awr_nvme_id *n = nvme ? awr_device_nvme(d) : NULL;
	const struct awr_scsi_id *s = nvme ? NULL : awr_device_scsi(d);

	switch (h) {
	case H_CTRL: return n->have_ctrl;
	case H_NS: return n->have_ns;
	case H_VPD: return s->have_vpd;
	case H_ATOMIC: return s->vpd_has_atomic;
	case H_VID: return n->vendor_have & AWR_NVME_HAVE_VID;
	case H_MODEL: return n->vendor_have & AWR_NVME_HAVE_MODEL;
	case H_NTWP: return n->vendor_have & AWR_NVME_HAVE_NTWP;
	default: return true;
	}
}

/* Each row's value, or null where its part was not read or the input only assumed it */
static void dev_json_add(struct json_object *o, const struct dev_field *t,
			 const struct awr_device *d,
			 const void *s)
{
	for (; t->f.key; t++)
		json_object_object_add(o, t->f.key, have(d, t->have) &&
				       (t->input < 0 || !assumed(d, t->input)) ?
				       fld_json_value(&t->f, s) : NULL);
}

#define N(m, k, in, h, ...) { FLD(struct awr_nvme_id, m, FLD_UINT, k, __VA_ARGS__), in, h }
static const struct dev_field nvme_ids[] = {
	N(awun, "awun", AWR_IF_AWUN, H_CTRL),
	N(awupf, "awupf", AWR_IF_AWUPF, H_CTRL),
	N(acwu, "acwu", AWR_IF_ACWU, H_CTRL),
	N(mdts, "mdts", AWR_IF_MDTS, H_CTRL),
	N(nsid, "nsid", -1, H_NS, .flags = FLD_NULL_ZERO),
	N(nsfeat, "nsfeat", AWR_IF_NSFEAT, H_NS),
	N(nlbaf, "nlbaf", AWR_IF_NLBAF, H_NS),
	N(flbas, "flbas", AWR_IF_FLBAS, H_NS),
	{ .f.key = NULL }
};

static const struct dev_field nvme_ns[] = {
	N(nawun, "nawun", AWR_IF_NAWUN, H_NS),
	N(nawupf, "nawupf", AWR_IF_NAWUPF, H_NS),
	N(nacwu, "nacwu", AWR_IF_NACWU, H_NS),
	N(nabsn, "nabsn", AWR_IF_NABSN, H_NS),
	N(nabo, "nabo", AWR_IF_NABO, H_NS),
	N(nabspf, "nabspf", AWR_IF_NABSPF, H_NS),
	N(noiob, "noiob", AWR_IF_NOIOB, H_NS),
	N(lba_size, "lba_size", AWR_IF_LBAF, H_NS),
	N(lba_ms, "metadata_size", AWR_IF_LBAF, H_NS),
	{ .f.key = NULL }
};

static const char *model_name(int m)
{
	static const char *const keys[] = { "other", "aws_ebs", "aws_instance_storage", "azure",
					    "gcp" };

	return m >= 0 && (size_t)m < sizeof(keys) / sizeof(keys[0]) ? keys[m] : "other";
}

static const struct dev_field nvme_vendor[] = {
	N(vid, "vid", -1, H_VID),
	{ FLD(struct awr_nvme_id, model, FLD_ENUM, "model", .name = model_name), -1, H_MODEL },
	N(ntwpu, "ntwpu", -1, H_NTWP),
	N(ntwpg, "ntwpg", -1, H_NTWP),
	N(ntwpb, "ntwpb", -1, H_NTWP),
	{ .f.key = NULL }
};
#undef N

static struct json_object *nvme_json(const struct awr_device *d)
{
	const struct awr_nvme_id *n = awr_device_nvme(d);
	struct awr_device_limits with, without;
	bool alt = awupf_answers(d, &with, &without);
	struct json_object *o = json_object_new_object();
	bool s = n->have_ns;

	json_object_object_add(o, "device", json_object_new_string(awr_device_name(d)));
	dev_json_add(o, nvme_ids, d, n);
	json_object_object_add(o, "lba_format", u64_if(s && !(assumed(d, AWR_IF_FLBAS) &&
								assumed(d, AWR_IF_LBAF)),
								n->lbaf_index));
	dev_json_add(o, nvme_ns, d, n);
	json_object_object_add(o, "assumed", assumed_json(d));
	json_object_object_add(o, "dn", n->have_dn ? json_object_new_boolean(n->dn) : NULL);
	json_object_object_add(o, "chunk_bytes", u64_if(s, awr_device_chunk_bytes(d)));
	json_object_object_add(o, "derived", s ? kernel_limits_json(d) : NULL);
	json_object_object_add(o, "derived_by_kernel", s ? ranges_json(d) : NULL);
	json_object_object_add(o, "derived_with_awupf", s ? limits_json(&with) : NULL);
	json_object_object_add(o, "derived_without_awupf", alt ? limits_json(&without) : NULL);
	json_object_object_add(o, "nsfeat_mam",
			       s ? json_object_new_boolean(n->nsfeat & 0x40) : NULL);
	dev_json_add(o, nvme_vendor, d, n);
	json_object_object_add(o, "provider", provider_json(d));
	return o;
}

#define S(m, k, in, h, ...) { FLD(struct awr_scsi_id, m, FLD_UINT, k, __VA_ARGS__), in, h }
static const struct dev_field scsi_vpd[] = {
	S(vpd_page_length, "vpd_page_length", AWR_IF_VPD_BL, H_VPD),
	S(max_transfer_length, "max_transfer_length", AWR_IF_MAX_XFER, H_VPD),
	S(max_atomic_transfer_length, "max_atomic_transfer_length", AWR_IF_MATL, H_ATOMIC),
	S(atomic_alignment, "atomic_alignment", AWR_IF_ATOMIC_ALIGN, H_ATOMIC),
	S(atomic_granularity, "atomic_granularity", AWR_IF_ATOMIC_GRAN, H_ATOMIC),
	S(max_atomic_transfer_length_with_boundary, "max_atomic_transfer_length_with_boundary",
	  AWR_IF_MATL_BNDRY, H_ATOMIC),
	S(max_atomic_boundary_size, "max_atomic_boundary_size", AWR_IF_MAX_BNDRY, H_ATOMIC),
	{ FLD(struct awr_scsi_id, write_atomic16, FLD_BOOL, "write_atomic16_supported",
	      .flags = FLD_NULL_NEG), -1, H_ANY },
	S(logical_block_size, "logical_block_size", AWR_IF_LBS, H_ANY, .flags = FLD_NULL_ZERO),
	S(physical_block_size, "physical_block_size", AWR_IF_PBS, H_ANY, .flags = FLD_NULL_ZERO),
	{ .f.key = NULL }
};
#undef S

static struct json_object *scsi_json(const struct awr_device *d)
{
	const struct awr_scsi_id *s = awr_device_scsi(d);
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "device", json_object_new_string(awr_device_name(d)));
	dev_json_add(o, scsi_vpd, d, s);
	json_object_object_add(o, "assumed", assumed_json(d));
	json_object_object_add(o, "protection_type",
			       u64_if(s->have_capacity, s->prot_en ? s->p_type + 1U : 0));
	json_object_object_add(o, "derived", s->logical_block_size ? kernel_limits_json(d) : NULL);
	json_object_object_add(o, "derived_by_kernel",
			       s->logical_block_size ? ranges_json(d) : NULL);
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

	snprintf(label, sizeof(label), "derived (%s%s)", awr_kernel_format(k, v, sizeof(v)),
		 run && k == run ? ", this kernel" : "");
	printf("  %s\n", label);
	print_limits("", awr_device_derived(d));
	if (!n) {
		printf("  by kernel      the same on every kernel with atomic writes\n");
		return;
	}
	printf("  by kernel      where the answer differs from %s's:\n",
	       awr_kernel_format(k, v, sizeof(v)));
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
	struct awr_device_limits with, without;
	bool alt = awupf_answers(d, &with, &without);
	uint32_t lbs = n->have_ns ? n->lba_size : 0;
	bool nsv = n->nsfeat & 2;
	char a[48], b[48], c[48], e[48], t[48], m[4][64];

	if (n->have_ctrl) {
		snprintf(t, sizeof(t), "%u", n->mdts);
		printf("  %-14s AWUN %s, AWUPF %s, ACWU %s (0's based blocks), MDTS %s\n",
		       "controller",
		       mark(d, AWR_IF_AWUN, blocks0(n->awun, lbs, a, sizeof(a)), m[0],
			    sizeof(m[0])),
		       mark(d, AWR_IF_AWUPF, blocks0(n->awupf, lbs, b, sizeof(b)), m[1],
			    sizeof(m[1])),
		       mark(d, AWR_IF_ACWU, blocks0(n->acwu, lbs, c, sizeof(c)), m[2],
			    sizeof(m[2])),
		       mark(d, AWR_IF_MDTS, t, m[3], sizeof(m[3])));
	}
	if (n->have_dn)
		printf("  %-14s DN %u\n", "feature 0Ah", n->dn);
	if (!n->have_ns)
		return;
	snprintf(t, sizeof(t), "0x%02x (atomic fields %s%s)", n->nsfeat,
		 nsv ? "valid" : "not valid",
		 n->nsfeat & 0x40 ? ", MAM" : "");
	snprintf(e, sizeof(e), "%u", n->nacwu);
	printf("  %-14s NSFEAT %s, NAWUN %s, NAWUPF %s, NACWU %s\n", "namespace",
	       mark(d, AWR_IF_NSFEAT, t, m[0], sizeof(m[0])),
	       mark(d, AWR_IF_NAWUN, blocks0(n->nawun, nsv ? lbs : 0, a, sizeof(a)), m[1],
		    sizeof(m[1])),
	       mark(d, AWR_IF_NAWUPF, blocks0(n->nawupf, nsv ? lbs : 0, b, sizeof(b)), m[2],
		    sizeof(m[2])),
	       mark(d, AWR_IF_NACWU, e, m[3], sizeof(m[3])));
	snprintf(a, sizeof(a), "%u", n->nabsn);
	snprintf(b, sizeof(b), "%u", n->nabo);
	snprintf(c, sizeof(c), "%u", n->nabspf);
	snprintf(e, sizeof(e), "%u", n->noiob);
	printf("  %-14s NABSN %s, NABO %s, NABSPF %s, NOIOB %s\n", "",
	       mark(d, AWR_IF_NABSN, a, m[0], sizeof(m[0])),
	       mark(d, AWR_IF_NABO, b, m[1], sizeof(m[1])),
	       mark(d, AWR_IF_NABSPF, c, m[2], sizeof(m[2])),
	       mark(d, AWR_IF_NOIOB, e, m[3], sizeof(m[3])));
	if (assumed(d, AWR_IF_LBAF))
		printf("  %-14s LBA format not in the input: %" PRIu32 " bytes assumed\n", "",
		       n->lba_size);
	else if (assumed(d, AWR_IF_NLBAF))
		printf("  %-14s LBA format %u: %" PRIu32 " bytes, %u metadata\n", "", n->lbaf_index,
		       n->lba_size,
		       n->lba_ms);
	else
		printf("  %-14s LBA format %u of %u: %" PRIu32 " bytes, %u metadata\n", "",
		       n->lbaf_index,
		       n->nlbaf + 1U, n->lba_size, n->lba_ms);
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

	char v[7][32], m[7][64];

	if (s->have_vpd) {
		snprintf(v[0], sizeof(v[0]), "0x%02x", s->vpd_page_length);
		snprintf(v[1], sizeof(v[1]), "%" PRIu32, s->max_atomic_transfer_length);
		snprintf(v[2], sizeof(v[2]), "%" PRIu32, s->atomic_alignment);
		snprintf(v[3], sizeof(v[3]), "%" PRIu32, s->atomic_granularity);
		snprintf(v[4], sizeof(v[4]), "%" PRIu32,
			 s->max_atomic_transfer_length_with_boundary);
		snprintf(v[5], sizeof(v[5]), "%" PRIu32, s->max_atomic_boundary_size);
		printf("  %-14s page length %s, max atomic transfer %s, alignment %s, granularity "
		       "%s, with boundary %s, max boundary %s (blocks)\n",
		       "block limits", mark(d, AWR_IF_VPD_BL, v[0], m[0], sizeof(m[0])),
		       mark(d, AWR_IF_MATL, v[1], m[1], sizeof(m[1])),
		       mark(d, AWR_IF_ATOMIC_ALIGN, v[2], m[2], sizeof(m[2])),
		       mark(d, AWR_IF_ATOMIC_GRAN, v[3], m[3], sizeof(m[3])),
		       mark(d, AWR_IF_MATL_BNDRY, v[4], m[4], sizeof(m[4])),
		       mark(d, AWR_IF_MAX_BNDRY, v[5], m[5], sizeof(m[5])));
	}
	snprintf(v[0], sizeof(v[0]), "%" PRIu32, s->logical_block_size);
	snprintf(v[1], sizeof(v[1]), "%" PRIu32, s->physical_block_size);
	printf("  %-14s logical %s, physical %s bytes", "block size",
	       mark(d, AWR_IF_LBS, v[0], m[0], sizeof(m[0])),
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

static const char *const ident_keys[] = { "model", "serial", "firmware" };

static void identity(const struct awr_device *d, const char **v)
{
	v[0] = awr_device_model(d);
	v[1] = awr_device_serial(d);
	v[2] = awr_device_firmware(d);
}

/* "model", "serial", "firmware" (null when the input lacks them) and awr list's "verdict" */
void device_identity_json(struct json_object *o, const struct awr_device *d)
{
	const char *v[3];

	identity(d, v);
	for (int i = 0; i < 3; i++)
		json_object_object_add(o, ident_keys[i],
				       *v[i] ? json_object_new_string(v[i]) : NULL);
	json_object_object_add(o, "verdict", json_object_new_string(awr_device_verdict(d)));
}

/* "model: X, serial: Y, firmware: Z" ("not in the input" for each it lacks), then the verdict */
void device_identity_print(const struct awr_device *d)
{
	const char *v[3];
	char word[16];

	identity(d, v);
	printf("identity:");
	for (int i = 0; i < 3; i++)
		printf("%s %s %s", i ? "," : "", ident_keys[i], *v[i] ? v[i] : "not in the input");
	snprintf(word, sizeof(word), "%s", awr_device_verdict(d));
	for (char *p = word; *p; p++)
		*p = *p == '_' ? '-' : *p;
	printf("\nverdict: %s (awr list's word for the derived limits)\n\n", word);
}

struct json_object *device_findings_json(const struct awr_device *d)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
		json_object_array_add(a, out_finding_json(awr_device_finding(d, i)));
	return a;
}

#define G(m, t, k) FLD(struct awr_stack_leg, m, t, k)
static const struct field leg_fields[] = {
	G(name, FLD_CHARS, "name"),
	G(unit_min, FLD_SIZE, "unit_min"),
	G(unit_max, FLD_SIZE, "unit_max"),
	G(max_bytes, FLD_SIZE, "max_bytes"),
	G(boundary, FLD_SIZE, "boundary"),
	G(start, FLD_SIZE, "start"),
	FLD_END
};
#undef G

#define V(m, t, k) FLD(struct awr_stack_view, m, t, k)
static const struct field stack_fields[] = {
	V(type, FLD_CHARS, "type"),
	V(disk, FLD_CHARS, "disk"),
	V(chunk_bytes, FLD_SIZE, "chunk_bytes"),
	V(kernel_stacks, FLD_BOOL, "kernel_stacks"),
	FLD_END
};
#undef V

/* A stacked device: stack.{type, legs[], derived} (derived says which kernel, as nvme.derived). */
struct json_object *stack_json(const struct awr_stack_view *s)
{
	struct json_object *o, *d;
	uint32_t run = awr_kernel_running();
	char v[16];

	if (!s)
		return NULL;
	o = json_object_new_object();
	fld_json_add(o, stack_fields, s);
	json_object_object_add(o, "legs", fld_json_array(leg_fields, s->legs, sizeof(*s->legs),
							 s->nr_legs));
	d = limits_json(&s->derived);
	json_object_object_add(d, "kernel",
			       json_object_new_string(awr_kernel_format(s->kernel, v, sizeof(v))));
	json_object_object_add(d, "this_kernel", json_object_new_boolean(run && s->kernel == run));
	json_object_object_add(o, "derived", d);
	json_object_object_add(o, "why_off", s->why[0] ? json_object_new_string(s->why) : NULL);
	return o;
}

void stack_print(const struct awr_stack_view *s)
{
	char a[32], b[32], c[32], e[32], v[16];

	printf("stack (%s): %s over %u leg%s%s%s\n", s->disk, s->type, s->nr_legs,
	       s->nr_legs == 1 ? "" : "s",
	       s->chunk_bytes ? ", chunk " : "",
	       s->chunk_bytes ? out_size(s->chunk_bytes, a, sizeof(a)) : "");
	for (unsigned int i = 0; i < s->nr_legs; i++) {
		const struct awr_stack_leg *l = &s->legs[i];

		if (!l->unit_max)
			printf("  %-14s no atomic writes (start %" PRIu64 ")\n", l->name, l->start);
		else
			printf("  %-14s unit_min %s, unit_max %s, max_bytes %s, boundary %s (start "
			       "%" PRIu64 ")\n",
			       l->name, out_size(l->unit_min, a, sizeof(a)),
			       out_size(l->unit_max, b, sizeof(b)),
			       out_size(l->max_bytes, c, sizeof(c)),
			       out_size(l->boundary, e, sizeof(e)), l->start);
	}
	snprintf(a, sizeof(a), "stacked %s", awr_kernel_format(s->kernel, v, sizeof(v)));
	print_limits(a, &s->derived);
}
