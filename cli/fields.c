// SPDX-License-Identifier: MIT
/* The back ends of the field tables (fields.h): JSON, human text and Prometheus. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

static const void *at(const struct field *f, const void *s)
{
	return (const char *)s + f->off;
}

uint64_t fld_u64(const struct field *f, const void *s)
{
	const void *p = at(f, s);

	switch (f->size) {
	case 1: return *(const uint8_t *)p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

int64_t fld_i64(const struct field *f, const void *s)
{
	const void *p = at(f, s);

	switch (f->size) {
	case 1: return *(const int8_t *)p;
	case 2: return *(const int16_t *)p;
	case 4: return *(const int32_t *)p;
	default: return *(const int64_t *)p;
	}
}

static const char *str_of(const struct field *f, const void *s)
{
	const char *v = f->type == FLD_CHARS ? at(f, s) : *(const char *const *)at(f, s);

	return v ? v : "";
}

/* a bool, or an integer read as one (FLD_NOT: its being 0; .is: its being .is) */
static bool bool_of(const struct field *f, const void *s)
{
	if (f->is)
		return fld_i64(f, s) == f->is;
	return (f->flags & FLD_NOT) ? !fld_u64(f, s) : fld_u64(f, s) != 0;
}

/* FLD_OBJECT, FLD_ARRAY: where the struct (the first element) lies, NULL for a NULL pointer */
static const void *sub_of(const struct field *f, const void *s)
{
	return (f->flags & FLD_PTR) ? *(const void *const *)at(f, s) : at(f, s);
}

static double double_of(const struct field *f, const void *s)
{
	if (f->type == FLD_NSEC)
		return (double)fld_u64(f, s) / 1e9;
	return *(const double *)at(f, s);
}

int fld_is_null(const struct field *f, const void *s)
{
	if (f->when && !bool_of(f->when, s))
		return 1;
	if (f->type == FLD_ARRAY)	/* a NULL pointer with a count of 0: [] */
		return 0;
	if (f->type == FLD_OBJECT)
		return !sub_of(f, s) ||
		       ((f->flags & FLD_NULL_HEAD) && fld_is_null(f->sub, sub_of(f, s)));
	if ((f->flags & FLD_NULL_NEG) && fld_i64(f, s) < 0)
		return 1;
	if (!(f->flags & FLD_NULL_ZERO))
		return 0;
	if (f->type == FLD_CHARS || f->type == FLD_STR)
		return !*str_of(f, s);
	return !fld_u64(f, s);
}

/* FLD_ARRAY: each element an object of .sub, or with FLD_TUPLE an array of its values */
static struct json_object *array_of(const struct field *f, const void *s)
{
	struct field n = { .size = f->count_size, .off = f->count };
	const char *rows = sub_of(f, s);
	uint64_t nr = fld_u64(&n, s);
	struct json_object *a, *e;

	if (!(f->flags & FLD_TUPLE))
		return fld_json_array(f->sub, rows, f->stride, nr);
	a = json_object_new_array();
	for (uint64_t i = 0; i < nr; i++) {
		e = json_object_new_array();
		for (const struct field *t = f->sub; t->key; t++)
			json_object_array_add(e, fld_json_value(t, rows + i * f->stride));
		json_object_array_add(a, e);
	}
	return a;
}

struct json_object *fld_json_value(const struct field *f, const void *s)
{
	if (fld_is_null(f, s))
		return NULL;
	switch (f->type) {
	case FLD_OBJECT:
		return fld_json(f->sub, sub_of(f, s));
	case FLD_ARRAY:
		return array_of(f, s);
	case FLD_INT:
		return json_object_new_int64(fld_i64(f, s));
	case FLD_BOOL:
		return json_object_new_boolean(bool_of(f, s));
	case FLD_CHARS:
	case FLD_STR:
		return json_object_new_string(str_of(f, s));
	case FLD_ENUM:
		return json_object_new_string(f->name((int)fld_i64(f, s)));
	case FLD_DOUBLE:
	case FLD_NSEC:
		return out_double(double_of(f, s), f->decimals);
	default:
		return json_object_new_uint64(fld_u64(f, s));
	}
}

const char *fld_text(const struct field *f, const void *s, char *buf, size_t len)
{
	if (fld_is_null(f, s))
		snprintf(buf, len, "-");
	else if (f->type == FLD_SIZE)
		out_size(fld_u64(f, s), buf, len);
	else if (f->type == FLD_INT)
		snprintf(buf, len, "%" PRId64, fld_i64(f, s));
	else if (f->type == FLD_BOOL)
		snprintf(buf, len, "%s", bool_of(f, s) ? "yes" : "no");
	else if (f->type == FLD_CHARS || f->type == FLD_STR)
		snprintf(buf, len, "%s", str_of(f, s));
	else if (f->type == FLD_ENUM)
		snprintf(buf, len, "%s", f->name((int)fld_i64(f, s)));
	else if (f->type == FLD_DOUBLE || f->type == FLD_NSEC)
		snprintf(buf, len, "%.*f", f->decimals, double_of(f, s));
	else
		snprintf(buf, len, "%" PRIu64, fld_u64(f, s));
	return buf;
}

void fld_json_add(struct json_object *o, const struct field *t, const void *s)
{
	for (; t->key; t++)
		if (!(t->flags & FLD_OMIT) || !fld_is_null(t, s))
			json_object_object_add(o, t->key, fld_json_value(t, s));
}

struct json_object *fld_json(const struct field *t, const void *s)
{
	struct json_object *o = json_object_new_object();

	fld_json_add(o, t, s);
	return o;
}

struct json_object *fld_json_array(const struct field *t, const void *rows, size_t stride, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, fld_json(t, (const char *)rows + i * stride));
	return a;
}

void fld_print(const struct field *t, const void *s, int lw, int vw)
{
	char v[64];

	for (; t->key; t++)
		printf("  %-*s %*s%s%s%s%s\n", lw, t->label ? t->label : t->key, vw,
		       fld_text(t, s, v, sizeof(v)), t->unit ? " " : "", t->unit ? t->unit : "",
		       t->help ? "  " : "", t->help ? t->help : "");
}

/* FLD_ONEHOT: a sample for each value, labelled @l and .lkey="NAME" (@l has room at @n) */
static void prom_onehot(const struct field *t, const void *row, const char **l, size_t n)
{
	char v[64];

	fld_text(t, row, v, sizeof(v));
	for (int i = 0; i < t->values; i++) {
		l[n] = t->lkey, l[n + 1] = t->name(i), l[n + 2] = NULL;
		prom_sample(t->key, l, !strcmp(v, t->name(i)));
	}
}

void fld_prom(const struct field *t, const struct field *lab, const void *rows, size_t stride,
	      size_t n)
{
	const char *l[16];
	size_t k;

	for (; t->key; t++) {
		prom_gauge(t->key, t->help);
		for (size_t i = 0; i < n; i++) {
			const void *row = (const char *)rows + i * stride;

			if (fld_is_null(t, row))
				continue;
			for (k = 0; lab[k / 2].key; k += 2)
				l[k] = lab[k / 2].key, l[k + 1] = str_of(&lab[k / 2], row);
			l[k] = NULL;
			if (t->flags & FLD_ONEHOT)
				prom_onehot(t, row, l, k);
			else
				prom_sample(t->key, l, t->type == FLD_INT ?
					    (double)fld_i64(t, row) : t->type == FLD_BOOL ?
					    (double)bool_of(t, row) : (double)fld_u64(t, row));
		}
	}
}
