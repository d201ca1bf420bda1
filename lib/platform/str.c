// SPDX-License-Identifier: MIT
/*
 * Path joins and the small string helpers: copies cut to fit, formatted paths, trims, and
 * sizes and durations for people.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"

void awr__strjoin(char *dst, size_t len, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	if (na > len - 1)
		na = len - 1;
	if (nb > len - 1 - na)
		nb = len - 1 - na;
	memcpy(dst, a, na);
	memcpy(dst + na, b, nb);
	dst[na + nb] = '\0';
}

void awr__strcopy(char *dst, size_t len, const char *src)
{
	awr__strjoin(dst, len, "", src);
}

int awr__pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void awr__rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

char *awr__unmangle(char *s)
{
	char *in = s, *out = s;

	for (; *in; in++) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
		    in[3] >= '0' && in[3] <= '7') {
			*out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
			in += 3;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
	return s;
}

/* three significant digits: "1.25", "12.5", "125" (@v below 1000) */
static int sig3(char *buf, size_t len, double v, const char *unit)
{
	int prec = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

	return snprintf(buf, len, "%.*f %s", prec, v, unit);
}

char *awr__human_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int i = 0;
	double v = (double)bytes;

	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	if (!i)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else if (!(bytes & ((1ULL << (10 * i)) - 1)))
		snprintf(buf, len, "%" PRIu64 " %s", bytes >> (10 * i), unit[i]);
	else if (v >= 999.5)	/* would print "1024 KiB" */
		sig3(buf, len, v / 1024, unit[i + 1 < 7 ? i + 1 : i]);
	else
		sig3(buf, len, v, unit[i]);
	return buf;
}

char *awr__human_usec(double usec, char *buf, size_t len)
{
	if (!(usec > 0))
		snprintf(buf, len, "0 us");
	else if (usec < 999.5)
		sig3(buf, len, usec, "us");
	else if (usec < 999.5e3)
		sig3(buf, len, usec / 1e3, "ms");
	else if (usec < 59.95e6)
		sig3(buf, len, usec / 1e6, "s");
	else {
		uint64_t sec = (uint64_t)(usec / 1e6 + 0.5);

		snprintf(buf, len, "%" PRIu64 " min %" PRIu64 " s", sec / 60, sec % 60);
	}
	return buf;
}

const char *awr__errno_name(int err)
{
	const char *n = err ? strerrorname_np(err < 0 ? -err : err) : "0";

	return n ? n : "errno";
}

char *awr__write_cache_text(int write_back, int fua, char *buf, size_t len)
{
	const char *wc = write_back > 0 ? "write back" : "write through";

	if (write_back < 0)
		snprintf(buf, len, "unknown (no queue/write_cache)");
	else if (fua < 0)
		snprintf(buf, len, "%s", wc);
	else
		snprintf(buf, len, "%s, FUA %d", wc, fua > 0);
	return buf;
}

size_t awr__utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	size_t n = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;

	if (n > 1 && (s[1] < lo || s[1] > hi))
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

char *awr__utf8_spelled(const char *s)
{
	size_t n, len = 0, bad = 0;
	char *out, *o;

	for (const char *p = s; *p; p += n ? n : 1, len += n ? n : 1)
		bad += !(n = awr__utf8_len((const unsigned char *)p));
	if (!bad || !(out = malloc(len + 3 * bad + 1)))
		return NULL;
	for (o = out; *s; s += n ? n : 1) {
		n = awr__utf8_len((const unsigned char *)s);
		if (n)
			o = (char *)memcpy(o, s, n) + n;
		else
			o += sprintf(o, "\\x%02x", (unsigned char)*s);
	}
	*o = '\0';
	return out;
}
