// SPDX-License-Identifier: MIT
/*
 * nvme-cli's Identify output as users paste it: `nvme id-ctrl` / `nvme id-ns`
 * in normal form ("awupf     : 15", "lbaf  4 : ms:0   lbads:12 rp:0 (in use)";
 * versions before 2.0 print "ds:" for "lbads:"), -H form ("LBA Format  4 :
 * Metadata Size: 0   bytes - Data Size: 4096 bytes - ... (in use)", bit-field
 * lines "[1:1] : 0x1 ...") and -o json ("awupf":15, "lbafs":[{"ms":0,"ds":12,
 * "rp":0}, ...]). Formats read in nvme-cli's nvme-print-stdout.c
 * (stdout_id_ctrl, stdout_id_ns) and nvme-print-json.c (json_nvme_id_ctrl,
 * json_nvme_id_ns), 1.x to 2.13. Only the atomic-write fields are taken;
 * every read stays inside [s, s + len).
 */
#include <errno.h>
#include <string.h>

#include "input.h"

static const struct {
	const char *key;
	enum awr_input_field field;
} nvme_keys[] = {
	{ "mdts", AWR_IF_MDTS }, { "awun", AWR_IF_AWUN }, { "awupf", AWR_IF_AWUPF },
	{ "acwu", AWR_IF_ACWU }, { "nsze", AWR_IF_NSZE }, { "nsfeat", AWR_IF_NSFEAT },
	{ "nlbaf", AWR_IF_NLBAF }, { "flbas", AWR_IF_FLBAS }, { "nawun", AWR_IF_NAWUN },
	{ "nawupf", AWR_IF_NAWUPF }, { "nacwu", AWR_IF_NACWU }, { "nabsn", AWR_IF_NABSN },
	{ "nabo", AWR_IF_NABO }, { "nabspf", AWR_IF_NABSPF }, { "noiob", AWR_IF_NOIOB },
	{ "vid", AWR_IF_VID },
};

static int key_field(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof(nvme_keys) / sizeof(nvme_keys[0]); i++)
		if (strlen(nvme_keys[i].key) == n && !memcmp(nvme_keys[i].key, k, n))
			return (int)nvme_keys[i].field;
	return -1;
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does [p, end) contain @word? Returns the position after it, or NULL. */
static const char *find(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	for (; p + n <= end; p++)
		if (!memcmp(p, word, n))
			return p + n;
	return NULL;
}

static bool starts(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return false;
	*p += n;
	return true;
}

/* "lbaf  4 : ms:0   lbads:12 rp:0 (in use)" and "LBA Format  4 : ... Data Size: 4096 bytes ..." */
static int lbaf_line(const char *p, const char *end, struct awr_input *in, bool *human)
{
	uint64_t idx, v;
	const char *q;
	bool h;

	if (starts(&p, end, "lbaf"))
		h = false;
	else if (starts(&p, end, "LBA Format"))
		h = true;
	else
		return 0;
	awr__text_blank(&p, end);
	if (!awr__text_number(&p, end, &idx))
		return 0;
	awr__text_blank(&p, end);
	if (p >= end || *p != ':')
		return 0;
	if (h) {
		q = find(p, end, "Data Size:");
		*human = true;
	} else {
		q = find(p, end, "lbads:");
		if (!q)
			q = find(p, end, "ds:");
	}
	if (!q)
		return 0;
	awr__text_blank(&q, end);
	if (!awr__text_number(&q, end, &v))
		return -EINVAL;
	if (!h) {
		if (v < 9 || v > 31)
			return -EINVAL;
		v = 1ULL << v;
	}
	return awr__input_lbaf(in, idx, v, find(q, end, "(in use)") != NULL) ?: 1;
}

/* "mn        : Amazon Elastic Block Store", "sn        : vol0123...", "fr        : 1.0" */
static int string_line(const char *k, size_t n, const char *p, const char *end,
		       struct awr_input *in)
{
	if (n != 2 || (memcmp(k, "mn", 2) && memcmp(k, "sn", 2) && memcmp(k, "fr", 2)))
		return 0;
	awr__text_blank(&p, end);
	if (p >= end || *p != ':')
		return 0;
	p++;
	awr__text_blank(&p, end);
	if (k[0] == 's') {
		awr__input_sn(in, p, (size_t)(end - p));
		return 1;
	}
	awr__input_ident(in, k[0], p, (size_t)(end - p));
	if (k[0] == 'f')
		return 1;
	return awr__input_set(in, AWR_IF_MODEL, awr__nvme_model_kind(p, (size_t)(end - p))) ?: 1;
}

/* "awupf     : 15": a known key, blanks, ':', a number. */
static int key_line(const char *p, const char *end, struct awr_input *in)
{
	const char *k = p;
	uint64_t v;
	int f;

	while (p < end && is_key_char(*p))
		p++;
	f = string_line(k, (size_t)(p - k), p, end, in);
	if (f)
		return f;
	f = key_field(k, (size_t)(p - k));
	if (f < 0)
		return 0;
	awr__text_blank(&p, end);
	if (p >= end || *p != ':')
		return 0;
	p++;
	awr__text_blank(&p, end);
	if (!awr__text_number(&p, end, &v))
		return -EINVAL;
	return awr__input_set(in, (enum awr_input_field)f, v) ?: 1;
}

/* A row of nvme-cli's hex dump (its d()): "0100: 03 00 ...  \"....\"", or "*" for repeated rows */
static bool vs_row(const struct awr__line *l)
{
	const char *p = l->p, *q;

	awr__text_blank(&p, l->end);
	if (l->end - p == 1 && *p == '*')
		return true;
	for (q = p; q < l->end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')); q++)
		;
	return q - p == 4 && q < l->end && *q == ':';
}

static uint16_t le16_at(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

/*
 * `nvme id-ns -v`: "vs[]:", a column header, then the vendor-specific data (Identify Namespace
 * bytes 4095:384) as hex rows; Amazon's NTWPU, NTWPG, NTWPB are its bytes 256:263.
 */
static int vs_block(const char **pos, const char *end, struct awr_input *in)
{
	const char *start = NULL, *stop = NULL, *save = *pos;
	uint8_t vs[4096];
	struct awr__line l;
	int header = 0, ret;
	ssize_t n;

	while (awr__text_line(pos, end, &l)) {
		if (!vs_row(&l)) {
			if (start || header++) {
				*pos = save;
				break;
			}
		} else {
			start = start ? start : l.p;
			stop = l.end;
		}
		in->line++;
		save = *pos;
	}
	if (!start)
		return 0;
	n = awr_dump_parse(start, (size_t)(stop - start), vs, sizeof(vs));
	if (n < 264)
		return n < 0 ? -EINVAL : 0;
	ret = awr__input_set(in, AWR_IF_NTWPU, le16_at(vs + 256));
	ret = ret ?: awr__input_set(in, AWR_IF_NTWPG, le16_at(vs + 258));
	ret = ret ?: awr__input_set(in, AWR_IF_NTWPB,
				    le16_at(vs + 260) | (uint32_t)le16_at(vs + 262) << 16);
	return ret ?: 3;
}

static void header_line(const char *p, const char *end, struct awr_input *in, int *n)
{
	uint64_t nsid;

	if (starts(&p, end, "NVME Identify Controller:")) {
		(*n)++;
	} else if (starts(&p, end, "NVME Identify Namespace")) {
		awr__text_blank(&p, end);
		if (awr__text_number(&p, end, &nsid) && nsid <= UINT32_MAX)
			in->nvme.nsid = (uint32_t)nsid;
		(*n)++;
	}
}

int awr__nvme_text(const char *s, size_t len, struct awr_input *in)
{
	const char *pos = s, *end = s + len, *p;
	struct awr__line l;
	bool human = false;
	int n = 0, r;

	in->line = 0;
	while (awr__text_line(&pos, end, &l)) {
		in->line++;
		p = l.p;
		awr__text_blank(&p, l.end);
		if (p < l.end && *p == '[' && p + 1 < l.end && p[1] >= '0' && p[1] <= '9')
			human = true;	/* a -H bit-field line: "[1:1] : 0x1 ..." */
		header_line(p, l.end, in, &n);
		if (l.end - p >= 5 && !memcmp(p, "vs[]", 4)) {
			r = vs_block(&pos, end, in);
			if (r < 0)
				return r;
			n += r;
			continue;
		}
		r = lbaf_line(p, l.end, in, &human);
		if (!r)
			r = key_line(p, l.end, in);
		if (r < 0)
			return r;
		n += r;
	}
	if (n)
		in->formats |= AWR_INPUT_NVME_TEXT | (human ? AWR_INPUT_NVME_HUMAN : 0);
	return n;
}

/* --- -o json ------------------------------------------------------------ */

/* A JSON string at *p (opening quote); its content [*k, *k + *n). */
static bool json_string(const char **p, const char *end, const char **k, size_t *n)
{
	const char *q = *p + 1;

	*k = q;
	while (q < end && *q != '"') {
		if (*q == '\\' && q + 1 < end)
			q++;
		q++;
	}
	if (q >= end)
		return false;
	*n = (size_t)(q - *k);
	*p = q + 1;
	return true;
}

/* After a key: blanks, ':', blanks. */
static bool json_colon(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r'))
		(*p)++;
	if (*p >= end || **p != ':')
		return false;
	(*p)++;
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r'))
		(*p)++;
	return true;
}

/* "lbafs":[{"ms":0,"ds":12,"rp":0}, ...]: the data size of each format in order. */
static int json_lbafs(const char **pp, const char *end, struct awr_input *in)
{
	const char *p = *pp, *k;
	uint64_t idx = 0, v;
	size_t n;
	int ret;

	if (p >= end || *p != '[')
		return -EINVAL;
	for (p++; p < end && *p != ']'; p++) {
		if (*p == '}') {
			idx++;
			continue;
		}
		if (*p != '"' || !json_string(&p, end, &k, &n))
			continue;
		if (n == 2 && !memcmp(k, "ds", 2) && json_colon(&p, end)) {
			if (!awr__text_number(&p, end, &v) || v < 9 || v > 31)
				return -EINVAL;
			ret = awr__input_lbaf(in, idx, 1ULL << v, false);
			if (ret)
				return ret;
		}
		p--;
	}
	*pp = p;
	return 1;
}

int awr__nvme_json(const char *s, size_t len, struct awr_input *in)
{
	const char *p = s, *end = s + len, *k;
	uint64_t v;
	size_t n;
	int f, r = 0, count = 0;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p >= end || *p != '{')
		return 0;
	while (p < end) {
		if (*p != '"' || !json_string(&p, end, &k, &n)) {
			p++;
			continue;
		}
		if (!json_colon(&p, end))
			continue;
		if (n == 5 && !memcmp(k, "lbafs", 5)) {
			r = json_lbafs(&p, end, in);
		} else if (n == 2 && (!memcmp(k, "mn", 2) || !memcmp(k, "sn", 2) ||
				      !memcmp(k, "fr", 2)) && p < end && *p == '"') {
			const char *sv;
			size_t vn;
			bool mn = k[0] == 'm';

			if (!json_string(&p, end, &sv, &vn))
				return -EINVAL;
			awr__input_ident(in, k[0], sv, vn);
			if (mn)
				r = awr__input_set(in, AWR_IF_MODEL,
						   awr__nvme_model_kind(sv, vn)) ?: 1;
			else if (k[0] == 's')
				awr__input_sn(in, sv, vn);
			r = mn ? r : 0;
		} else if ((f = key_field(k, n)) >= 0) {
			if (!awr__text_number(&p, end, &v))
				return -EINVAL;
			r = awr__input_set(in, (enum awr_input_field)f, v) ?: 1;
		} else {
			continue;
		}
		if (r < 0)
			return r;
		count += r;
	}
	if (count)
		in->formats |= AWR_INPUT_NVME_JSON;
	return count;
}
