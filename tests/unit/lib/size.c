// SPDX-License-Identifier: MIT
/* Description: human size parsing and formatting: units, garbage, negatives and overflow. */
#include <stdint.h>

#include "helpers.h"
#include "libatomicwr.h"

static const struct {
	const char *in;
	int ret;
	uint64_t val;
} cases[] = {
	{ "4096", 0, 4096 },
	{ "0", 0, 0 },
	{ "16k", 0, 16384 },
	{ "16K", 0, 16384 },
	{ "16KiB", 0, 16384 },
	{ "16kib", 0, 16384 },
	{ "16KB", 0, 16384 },
	{ "1M", 0, 1048576 },
	{ "1MiB", 0, 1048576 },
	{ "2g", 0, 2147483648ULL },
	{ "1T", 0, 1ULL << 40 },
	{ "1E", 0, 1ULL << 60 },
	{ "512B", 0, 512 },
	{ " 8k", 0, 8192 },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "16E", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 },
	{ "-1", -EINVAL, 0 },
	{ "-4k", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "k", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
	{ "16x", -EINVAL, 0 },
	{ "16kk", -EINVAL, 0 },
	{ "16 k", -EINVAL, 0 },
	{ "1.5M", -EINVAL, 0 },
	{ "0x1000", -EINVAL, 0 },
	{ "16KiBs", -EINVAL, 0 },
};

static const struct {
	uint64_t in;
	const char *out;
} fmt[] = {
	{ 0, "0" }, { 512, "512 B" }, { 4096, "4 KiB" }, { 16384, "16 KiB" }, { 1048576, "1 MiB" },
	{ 4097, "4097 B" }, { 1536 * 1024, "1536 KiB" }, { 1ULL << 40, "1 TiB" },
};

int main(void)
{
	char buf[32];
	uint64_t v;
	int ret;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 0;
		ret = awr_parse_size(cases[i].in, &v);
		T_EXPECT(ret == cases[i].ret, "'%s': returned %d, expected %d", cases[i].in, ret,
			 cases[i].ret);
		if (!ret)
			T_EXPECT(v == cases[i].val, "'%s': %llu, expected %llu", cases[i].in,
				 (unsigned long long)v, (unsigned long long)cases[i].val);
	}
	T_EXPECT_EQ(awr_parse_size(NULL, &v), -EINVAL, "NULL string");
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		awr_format_size(fmt[i].in, buf, sizeof(buf));
		T_EXPECT(!strcmp(buf, fmt[i].out), "%llu formats as '%s', expected '%s'",
			 (unsigned long long)fmt[i].in, buf, fmt[i].out);
	}
	return t_done("size");
}
