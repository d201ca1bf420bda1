// SPDX-License-Identifier: MIT
/* Path joins and the small string helpers: copies cut to fit, formatted paths, trims. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
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
