/* SPDX-License-Identifier: MIT */
/*
 * Field tables: one row per value a command shows, walked by the JSON, text
 * and Prometheus back ends (cli/fields.c), as nvme-cli's struct print_ops
 * walks one result for each of its output formats. A row names the JSON key,
 * the text label, the type, where the value lies in the result's struct and
 * the unit human text gives it; a table ends with a row whose key is NULL.
 */
#ifndef AWR_CLI_FIELDS_H
#define AWR_CLI_FIELDS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

enum fld_type {
	FLD_UINT,	/* an unsigned integer of 1, 2, 4 or 8 bytes */
	FLD_INT,	/* a signed integer of 1, 2, 4 or 8 bytes */
	FLD_BOOL,	/* a bool */
	FLD_SIZE,	/* bytes: exact in JSON and Prometheus, "16 KiB" in text */
	FLD_CHARS,	/* a char array of the struct */
	FLD_STR,	/* a const char * of the struct */
	FLD_ENUM,	/* an int (enum) the row's name() spells */
	FLD_DOUBLE,	/* a double, with the row's decimals */
	FLD_NSEC,	/* a uint64_t of nanoseconds shown as seconds, with the row's decimals */
	/* JSON: the row's .sub table over the member struct (FLD_PTR: the struct it points to) */
	FLD_OBJECT,
	/*
	 * JSON: an array, .sub over each of the count member's elements, .stride bytes apart
	 * from the member (FLD_PTR: from where it points); FLD_ARR() below
	 */
	FLD_ARRAY,
};

/*
 * Row flags: when the value is JSON null (and left out of Prometheus), how a bool reads, where a
 * sub-table's struct lies
 */
#define FLD_NULL_ZERO	(1U << 0)	/* a 0 or an empty string */
#define FLD_NULL_NEG	(1U << 1)	/* a signed value below 0 */
#define FLD_NOT		(1U << 2)	/* the bool (or an integer's being 0) is the opposite */
#define FLD_PTR		(1U << 3)	/* OBJECT, ARRAY: the member points to the struct */
#define FLD_NULL_HEAD	(1U << 4)	/* OBJECT: null when .sub's first row is */
#define FLD_TUPLE	(1U << 5)	/* ARRAY: an element is a JSON array of .sub's values */
#define FLD_OMIT	(1U << 6)	/* JSON: no key at all where the value is null */
/* Prometheus: a sample per value name() spells (0 .. .values - 1), .lkey="NAME", 1 for the row's */
#define FLD_ONEHOT	(1U << 7)

struct field {
	const char *key;	/* the JSON key; Prometheus: the metric name */
	const char *label;	/* the text label (NULL: the key) */
	enum fld_type type;
	unsigned int size;	/* sizeof the member */
	unsigned char decimals;	/* FLD_DOUBLE, FLD_NSEC */
	unsigned char flags;	/* FLD_* above */
	size_t off;		/* offsetof the member in the row's struct */
	const char *unit;	/* after the value in text ("pages"), or NULL */
	const char *(*name)(int v);	/* FLD_ENUM */
	const char *help;	/* text: the sentence after the value; Prometheus: HELP */
	int is;			/* FLD_BOOL of an integer, when not 0: true when it is @is */
	const struct field *sub;	/* FLD_OBJECT, FLD_ARRAY: the struct's table */
	size_t stride;		/* FLD_ARRAY: bytes from one element to the next */
	size_t count;		/* FLD_ARRAY: offsetof the count member */
	unsigned char count_size;	/* FLD_ARRAY: its sizeof */
	unsigned char values;	/* FLD_ONEHOT: how many values name() spells */
	const char *lkey;	/* FLD_ONEHOT: the label of the value's name */
	const struct field *when;	/* a bool row of the struct: null unless it is true */
};

/* A row for member M of struct S: FLD(S, M, FLD_UINT, "key", .help = "...") */
#define FLD(S, M, T, K, ...) { .key = (K), .type = (T), .size = sizeof(((S *)0)->M), \
			       .off = offsetof(S, M), __VA_ARGS__ }
#define FLD_END { .key = NULL }
/* An object of rows SUB over the row's own struct: FLD_GROUP("latency_us", latency_fields) */
#define FLD_GROUP(K, SUB, ...) { .key = (K), .type = FLD_OBJECT, .sub = (SUB), __VA_ARGS__ }
/*
 * An array member M (or a pointer to one, with FLD_PTR) of struct S whose count is member N,
 * each element a JSON object of table SUB: FLD_ARR(S, M, N, "key", sub_fields)
 */
#define FLD_ARR(S, M, N, K, SUB, ...) FLD(S, M, FLD_ARRAY, K, .sub = (SUB), \
	.stride = sizeof(((S *)0)->M[0]), .count = offsetof(S, N), \
	.count_size = sizeof(((S *)0)->N), __VA_ARGS__)

/*
 * static const char *FN_int(int v): the library's namer FN of enum type T as a row's .name (and
 * parse_word_arg()'s) takes it: FLD_ENUM_NAME(awr_rule_name, enum awr_rule) makes
 * awr_rule_name_int.
 */
#define FLD_ENUM_NAME(FN, T) \
	static const char *FN##_int(int v) { return FN((T)v); }

/* One value as JSON (NULL: JSON null), as an unsigned or signed number, or as human text. */
struct json_object *fld_json_value(const struct field *f, const void *s);
uint64_t fld_u64(const struct field *f, const void *s);
int64_t fld_i64(const struct field *f, const void *s);
const char *fld_text(const struct field *f, const void *s, char *buf, size_t len);
/* Whether the row's value is null (flags FLD_NULL_*). */
int fld_is_null(const struct field *f, const void *s);

/* JSON back end: every row of @t added to @o in table order; a new object of them. */
void fld_json_add(struct json_object *o, const struct field *t, const void *s);
struct json_object *fld_json(const struct field *t, const void *s);
/* The same for @n structs of @stride bytes from @rows: a JSON array of objects. */
struct json_object *fld_json_array(const struct field *t, const void *rows, size_t stride,
				   size_t n);

/* Text back end: "  LABEL VALUE UNIT  HELP" a row, labels @lw wide, values @vw wide. */
void fld_print(const struct field *t, const void *s, int lw, int vw);

/*
 * Prometheus back end: for each row of @t, HELP and TYPE once, then one sample for each of the
 * @n structs of @stride bytes from @rows whose value is not null, labelled KEY="VALUE" by each
 * row of @lab (strings of the same structs).
 */
void fld_prom(const struct field *t, const struct field *lab, const void *rows, size_t stride,
	      size_t n);

#endif /* AWR_CLI_FIELDS_H */
