// SPDX-License-Identifier: MIT
/* Human sizes in and out: "16k", "16KiB", "1M" -> bytes; bytes -> "16 KiB". */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "private.h"

static const char *const size_units = "KMGTPE";

static int suffix_shift(const char *s, unsigned int *shift)
{
	const char *u;

	*shift = 0;
	if (!*s || !strcasecmp(s, "b"))
		return 0;
	u = strchr(size_units, toupper((unsigned char)*s));
	if (!u)
		return -EINVAL;
	*shift = 10 * (unsigned int)(u - size_units + 1);
	s++;
	if (!*s || !strcasecmp(s, "ib") || !strcasecmp(s, "b"))
		return 0;
	return -EINVAL;
}

int awr_parse_size(const char *str, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int shift;
	const char *p = str;

	if (!str || !out)
		return -EINVAL;
	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (suffix_shift(p, &shift))
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

char *awr_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int i = 0;
	uint64_t v = bytes;

	if (!bytes) {
		snprintf(buf, len, "0");
		return buf;
	}
	while (!(v & 1023) && i < 6) {
		v >>= 10;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", v, names[i]);
	return buf;
}
