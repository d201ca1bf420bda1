// SPDX-License-Identifier: MIT
/*
 * Saved dumps: binary as written by `nvme id-ns -b` / `sg_vpd -r`, or hex
 * text (plain pairs, nvme-cli/xxd "0000:" offsets, hexdump -C with "*",
 * sg_vpd -H). Every write into the output is bounds-checked.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "device/input.h"

struct hexbuf {
	uint8_t *out;
	size_t cap;
	size_t len;
	size_t line_start;	/* length when the previous data line began */
	size_t line_len;	/* bytes that line gave */
	bool repeat;		/* a "*" line: repeat the previous line up to the next offset */
};

static bool is_text(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return false;
	return len > 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

static bool is_hex_token(const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hexval((unsigned char)t[i]) < 0)
			return false;
	return n > 0;
}

static int put_byte(struct hexbuf *h, uint8_t b)
{
	if (h->len >= h->cap)
		return -EOVERFLOW;
	h->out[h->len++] = b;
	return 0;
}

static int put_hex(struct hexbuf *h, const char *t, size_t n)
{
	int ret = 0;

	if (n % 2)
		return -EINVAL;
	for (size_t i = 0; i < n && !ret; i += 2)
		ret = put_byte(h, (uint8_t)(hexval((unsigned char)t[i]) << 4 |
					    hexval((unsigned char)t[i + 1])));
	return ret;
}

/* Next whitespace-separated token of [*pos, end); returns its length, 0 at the end. */
static size_t next_token(const char **pos, const char *end, const char **tok)
{
	const char *p = *pos;
	size_t n = 0;

	while (p < end && isspace((unsigned char)*p))
		p++;
	*tok = p;
	while (p + n < end && !isspace((unsigned char)p[n]))
		n++;
	*pos = p + n;
	return n;
}

/*
 * An offset column: "0000:", a long hex number, or a short one followed by
 * two spaces (sg_vpd -H). Returns true and the value when the line has one.
 */
static bool line_offset(const char *line, const char *end, size_t *off, const char **rest)
{
	const char *p = line, *tok;
	size_t n = next_token(&p, end, &tok);
	bool colon = n > 1 && tok[n - 1] == ':';
	size_t digits = colon ? n - 1 : n;
	unsigned long long v = 0;

	if (!digits || digits > 12 || !is_hex_token(tok, digits))
		return false;
	if (!colon && digits < 4 && !(p + 1 < end && p[0] == ' ' && p[1] == ' '))
		return false;
	for (size_t i = 0; i < digits; i++)
		v = v << 4 | (unsigned int)hexval((unsigned char)tok[i]);
	*off = (size_t)v;
	*rest = p;
	return true;
}

static int fill_repeat(struct hexbuf *h, size_t off)
{
	size_t start = h->line_start, n = h->line_len;

	if (!n)
		return -EINVAL;
	while (h->len < off)
		if (put_byte(h, h->out[start + (h->len - start) % n]))
			return -EOVERFLOW;
	return 0;
}

/* Apply a line's offset: truncate an ASCII column misread as hex, expand "*". */
static int sync_offset(struct hexbuf *h, size_t off)
{
	if (h->repeat) {
		h->repeat = false;
		if (off < h->len)
			return -EINVAL;
		return fill_repeat(h, off);
	}
	/* only trailing tokens of the previous line (an ASCII column) may be dropped */
	if (off > h->len || (off < h->len && off <= h->line_start))
		return -EINVAL;
	h->len = off;
	return 0;
}

/* Data tokens of one line; an ASCII column (|..|, "..", or a token of another width) ends it. */
static int line_data(struct hexbuf *h, const char *p, const char *end, bool with_offset)
{
	size_t width = 0, n, before = h->len;
	const char *tok;
	int ret;

	while ((n = next_token(&p, end, &tok))) {
		if (!with_offset && n > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
			tok += 2;
			n -= 2;
		}
		if (!with_offset) {
			ret = is_hex_token(tok, n) ? put_hex(h, tok, n) : -EINVAL;
			if (ret)
				return ret;
			continue;
		}
		if (!is_hex_token(tok, n) || n % 2 || n > 8 || (width && n != width))
			break;
		width = n;
		ret = put_hex(h, tok, n);
		if (ret)
			return ret;
	}
	h->line_start = before;
	h->line_len = h->len - before;
	return 0;
}

/* The next non-blank line of [*pos, end): [*line, *stop), *first its first non-blank. */
static bool next_line(const char **pos, const char *end, const char **line, const char **stop,
		      const char **first)
{
	const char *nl;

	while (*pos < end) {
		*line = *pos;
		nl = memchr(*line, '\n', (size_t)(end - *line));
		*stop = nl ? nl : end;
		*pos = nl ? nl + 1 : end;
		*first = *line;
		while (*first < *stop && isspace((unsigned char)**first))
			(*first)++;
		if (*first < *stop)
			return true;
	}
	return false;
}

static int parse_line(struct hexbuf *h, const char *line, const char *stop, bool offsets)
{
	const char *rest = line;
	size_t off;
	int ret;

	if (!offsets)
		return line_data(h, line, stop, false);
	if (!line_offset(line, stop, &off, &rest))
		return -EINVAL;
	ret = sync_offset(h, off);
	return ret ? ret : line_data(h, rest, stop, true);
}

static int parse_lines(struct hexbuf *h, const char *s, const char *end, bool offsets)
{
	const char *pos = s, *line, *stop, *first;
	int ret;

	while (next_line(&pos, end, &line, &stop, &first)) {
		if (*first == '*' && offsets) {
			h->repeat = true;
			continue;
		}
		ret = parse_line(h, line, stop, offsets);
		if (ret)
			return ret;
	}
	return h->repeat ? -EINVAL : 0;
}

/* Offset mode when every non-empty line starts with an offset column, the first at 0. */
static bool has_offsets(const char *s, const char *end)
{
	const char *pos = s, *line, *stop, *first, *rest;
	size_t off;
	bool any = false;

	while (next_line(&pos, end, &line, &stop, &first)) {
		if (*first == '*')
			continue;
		if (!line_offset(line, stop, &off, &rest) || (!any && off))
			return false;
		any = true;
	}
	return any;
}

ssize_t awr_dump_parse(const void *data, size_t len, void *out, size_t cap)
{
	struct hexbuf h = { .out = out, .cap = cap };
	const char *s = data;
	int ret;

	if (!data || !out)
		return -EINVAL;
	if (!is_text(data, len)) {
		if (len > cap)
			return -EOVERFLOW;
		memcpy(out, data, len);
		return (ssize_t)len;
	}
	ret = parse_lines(&h, s, s + len, has_offsets(s, s + len));
	return ret ? ret : (ssize_t)h.len;
}

/*
 * Which page a dump holds, never told: a Block Limits VPD page is short
 * (header + page length, 64 bytes with the atomic fields) with page code
 * B0h in byte 1; an Identify Controller page has its serial number and model
 * (bytes 4..63) in printable ASCII, space padded; an Identify Namespace page
 * has NSZE/NCAP/NUSE there, which are never all printable for a namespace of
 * fewer than 2^56 blocks.
 */
enum awr__dump_kind awr__dump_kind(const uint8_t *b, size_t len)
{
	bool ascii = len >= 64;

	if (len >= 4 && len < 534 && b[1] == 0xb0)
		return AWR_DUMP_SCSI_BL;
	for (size_t i = 4; ascii && i < 64; i++)
		ascii = b[i] >= 0x20 && b[i] < 0x7f;
	if (len >= 534 && ascii)
		return AWR_DUMP_NVME_CTRL;
	if (len >= AWR_NVME_ID_SIZE)
		return AWR_DUMP_NVME_NS;
	return AWR_DUMP_UNKNOWN;
}
