// SPDX-License-Identifier: MIT
/*
 * A size a caller needs written untorn against a target's limits (awr probe
 * --require): the size alone, as the kernel's generic_atomic_write_valid()
 * (fs/read_write.c, 6.11+) takes it: a power of two within the unit range.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "private.h"
#include "platform/platform.h"

/* @bytes in human units, "0" for none */
static const char *size_text(uint64_t bytes, char *buf, size_t len)
{
	if (!bytes) {
		snprintf(buf, len, "0");
		return buf;
	}
	return awr__human_bytes(bytes, buf, len);
}

int awr_limits_require(const struct awr_limits *lim, uint64_t size,
		       struct awr_requirement *out)
{
	char a[16], b[16], c[16];
	int ret = 0;

	if (!lim || !out)
		return awr__fail(-EINVAL, "no limits or result");
	*out = (struct awr_requirement){ .size = size };
	size_text(size, c, sizeof(c));
	if (!lim->supported)
		ret = -EOPNOTSUPP;
	else if (!awr_is_pow2(size) || size < lim->unit_min || size > lim->unit_max)
		ret = -EINVAL;
	if (ret == -EOPNOTSUPP)
		snprintf(out->reason, sizeof(out->reason), "required size %s is not atomic here: "
			 "no atomic write support", c);
	else if (ret)
		snprintf(out->reason, sizeof(out->reason), "required size %s is not atomic here: "
			 "atomic writes are powers of two from %s to %s", c,
			 size_text(lim->unit_min, a, sizeof(a)),
			 size_text(lim->unit_max, b, sizeof(b)));
	out->met = !ret;
	return ret ? awr__fail(ret, "%s", out->reason) : 0;
}
