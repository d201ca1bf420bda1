// SPDX-License-Identifier: MIT
/* Output of a device view (NVMe identify / SCSI VPD and derived limits), text and JSON. */
#include <inttypes.h>
#include <stdio.h>

#include "awr.h"

static struct json_object *u64_if(bool have, uint64_t v)
{
	return have ? out_u64(v) : NULL;
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
	json_object_object_add(o, "awun", u64_if(c, n->awun));
	json_object_object_add(o, "awupf", u64_if(c, n->awupf));
	json_object_object_add(o, "acwu", u64_if(c, n->acwu));
	json_object_object_add(o, "mdts", u64_if(c, n->mdts));
	json_object_object_add(o, "nsid", u64_if(s && n->nsid, n->nsid));
	json_object_object_add(o, "nsfeat", u64_if(s, n->nsfeat));
	json_object_object_add(o, "nlbaf", u64_if(s, n->nlbaf));
	json_object_object_add(o, "flbas", u64_if(s, n->flbas));
	json_object_object_add(o, "lba_format", u64_if(s, n->lbaf_index));
	json_object_object_add(o, "nawun", u64_if(s, n->nawun));
	json_object_object_add(o, "nawupf", u64_if(s, n->nawupf));
	json_object_object_add(o, "nacwu", u64_if(s, n->nacwu));
	json_object_object_add(o, "nabsn", u64_if(s, n->nabsn));
	json_object_object_add(o, "nabo", u64_if(s, n->nabo));
	json_object_object_add(o, "nabspf", u64_if(s, n->nabspf));
	json_object_object_add(o, "noiob", u64_if(s, n->noiob));
	json_object_object_add(o, "lba_size", u64_if(s, n->lba_size));
	json_object_object_add(o, "metadata_size", u64_if(s, n->lba_ms));
	json_object_object_add(o, "dn", n->have_dn ? json_object_new_boolean(n->dn) : NULL);
	json_object_object_add(o, "chunk_bytes", u64_if(s, awr_device_chunk_bytes(d)));
	json_object_object_add(o, "derived", s ? kernel_limits_json(d) : NULL);
	json_object_object_add(o, "derived_by_kernel", s ? ranges_json(d) : NULL);
	json_object_object_add(o, "derived_with_awupf", s ? limits_json(awr_device_derived(d)) : NULL);
	json_object_object_add(o, "derived_without_awupf", alt ? limits_json(alt) : NULL);
	return o;
}

static struct json_object *scsi_json(const struct awr_device *d)
{
	const struct awr_scsi_id *s = awr_device_scsi(d);
	struct json_object *o = json_object_new_object();
	bool v = s->have_vpd, a = s->vpd_has_atomic;

	json_object_object_add(o, "device", json_object_new_string(awr_device_name(d)));
	json_object_object_add(o, "vpd_page_length", u64_if(v, s->vpd_page_length));
	json_object_object_add(o, "max_transfer_length", u64_if(v, s->max_transfer_length));
	json_object_object_add(o, "max_atomic_transfer_length", u64_if(a, s->max_atomic_transfer_length));
	json_object_object_add(o, "atomic_alignment", u64_if(a, s->atomic_alignment));
	json_object_object_add(o, "atomic_granularity", u64_if(a, s->atomic_granularity));
	json_object_object_add(o, "max_atomic_transfer_length_with_boundary",
			       u64_if(a, s->max_atomic_transfer_length_with_boundary));
	json_object_object_add(o, "max_atomic_boundary_size", u64_if(a, s->max_atomic_boundary_size));
	json_object_object_add(o, "write_atomic16_supported",
			       s->write_atomic16 < 0 ? NULL : json_object_new_boolean(s->write_atomic16));
	json_object_object_add(o, "logical_block_size", u64_if(s->logical_block_size, s->logical_block_size));
	json_object_object_add(o, "physical_block_size", u64_if(s->physical_block_size, s->physical_block_size));
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
	char a[48], b[48], c[48];

	if (n->have_ctrl)
		printf("  %-14s AWUN %s, AWUPF %s, ACWU %s (0's based blocks), MDTS %u\n", "controller",
		       blocks0(n->awun, lbs, a, sizeof(a)), blocks0(n->awupf, lbs, b, sizeof(b)),
		       blocks0(n->acwu, lbs, c, sizeof(c)), n->mdts);
	if (n->have_dn)
		printf("  %-14s DN %u\n", "feature 0Ah", n->dn);
	if (!n->have_ns)
		return;
	printf("  %-14s NSFEAT 0x%02x (atomic fields %s), NAWUN %s, NAWUPF %s, NACWU %u\n", "namespace",
	       n->nsfeat, (n->nsfeat & 2) ? "valid" : "not valid",
	       blocks0(n->nawun, (n->nsfeat & 2) ? lbs : 0, a, sizeof(a)),
	       blocks0(n->nawupf, (n->nsfeat & 2) ? lbs : 0, b, sizeof(b)), n->nacwu);
	printf("  %-14s NABSN %u, NABO %u, NABSPF %u, NOIOB %u\n", "", n->nabsn, n->nabo, n->nabspf, n->noiob);
	printf("  %-14s LBA format %u of %u: %" PRIu32 " bytes, %u metadata\n", "", n->lbaf_index,
	       n->nlbaf + 1U, n->lba_size, n->lba_ms);
	by_kernel(d);
	if (alt) {
		print_limits("with AWUPF", awr_device_derived(d));
		print_limits("without AWUPF", alt);
	}
}

static void scsi_print(const struct awr_device *d)
{
	const struct awr_scsi_id *s = awr_device_scsi(d);

	if (s->have_vpd)
		printf("  %-14s page length 0x%02x, max atomic transfer %" PRIu32 ", alignment %" PRIu32 ", granularity %" PRIu32 ", with boundary %" PRIu32 ", max boundary %" PRIu32 " (blocks)\n",
		       "block limits", s->vpd_page_length, s->max_atomic_transfer_length,
		       s->atomic_alignment, s->atomic_granularity,
		       s->max_atomic_transfer_length_with_boundary, s->max_atomic_boundary_size);
	printf("  %-14s logical %" PRIu32 ", physical %" PRIu32 " bytes", "block size",
	       s->logical_block_size, s->physical_block_size);
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
