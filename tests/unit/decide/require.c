// SPDX-License-Identifier: MIT
/*
 * Description: awr_limits_require() (require.c) called directly, as awr probe --require uses it:
 * a power of two within the unit range met (no reason); a size past the range, below it, or not
 * a power of two refused with -EINVAL, a target without atomic writes with -EOPNOTSUPP, each
 * with its sentence (sizes in human units) in the result and in awr_last_error().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libatomicwr.h"
#include "helpers.h"

static const struct awr_limits lim = { .supported = true, .unit_min = 4096,
				       .unit_max = 16384, .segments_max = 1 };

/* @size refused with @err and @sentence */
static void refused(const struct awr_limits *l, uint64_t size, int err, const char *sentence)
{
	struct awr_requirement r;
	int ret = awr_limits_require(l, size, &r);

	T_EXPECT(ret == err && !r.met && r.size == size, "%llu: %d, met %d",
		 (unsigned long long)size, ret, r.met);
	T_EXPECT(!strcmp(r.reason, sentence) && !strcmp(awr_last_error(), sentence),
		 "\"%s\", awr_last_error() \"%s\"", r.reason, awr_last_error());
}

int main(void)
{
	const struct awr_limits none = { 0 };
	struct awr_requirement r;

	T_EXPECT(!awr_limits_require(&lim, 8192, &r) && r.met && r.size == 8192 && !r.reason[0],
		 "8 KiB within 4 KiB..16 KiB: met %d, \"%s\"", r.met, r.reason);
	T_EXPECT(!awr_limits_require(&lim, 16384, &r) && r.met, "16 KiB, the unit_max");
	refused(&lim, 65536, -EINVAL, "required size 64 KiB is not atomic here: atomic writes "
		"are powers of two from 4 KiB to 16 KiB");
	refused(&lim, 2048, -EINVAL, "required size 2 KiB is not atomic here: atomic writes are "
		"powers of two from 4 KiB to 16 KiB");
	refused(&lim, 12288, -EINVAL, "required size 12 KiB is not atomic here: atomic writes are "
		"powers of two from 4 KiB to 16 KiB");
	refused(&lim, 0, -EINVAL, "required size 0 is not atomic here: atomic writes are powers "
		"of two from 4 KiB to 16 KiB");
	refused(&none, 4096, -EOPNOTSUPP, "required size 4 KiB is not atomic here: no atomic "
		"write support");
	T_EXPECT_EQ(awr_limits_require(NULL, 4096, &r), -EINVAL, "no limits");
	return t_done("require");
}
