// SPDX-License-Identifier: MIT
/* Description: awr_dump_parse reads binary and every hex text layout, and refuses malformed text
 * with an error. */
#include <stdint.h>

#include "helpers.h"
#include "libatomicwr.h"

static uint8_t out[8192];

static ssize_t parse(const char *text)
{
	memset(out, 0xee, sizeof(out));
	return awr_dump_parse(text, strlen(text), out, sizeof(out));
}

static void expect_bytes(const char *what, const char *text, const uint8_t *want, size_t n)
{
	ssize_t got = parse(text);

	T_EXPECT_EQ(got, (long long)n, what);
	if (got == (ssize_t)n)
		T_EXPECT(!memcmp(out, want, n), "%s: bytes differ", what);
}

static void test_layouts(void)
{
	static const uint8_t vpd4[] = { 0x00, 0xb0, 0x00, 0x3c };
	uint8_t seq[20];

	for (int i = 0; i < 20; i++)
		seq[i] = (uint8_t)(0x30 + i);
	expect_bytes("plain", "00 b0 00 3c\n", vpd4, 4);
	expect_bytes("plain, no newline, upper case", "00 B0 00 3C", vpd4, 4);
	expect_bytes("0x prefixes", "0x00 0xb0 0x00 0x3c", vpd4, 4);
	expect_bytes("contiguous (xxd -p)", "00b0003c\n", vpd4, 4);
	expect_bytes("nvme-cli offsets", "0000: 00 b0 00 3c \"...<\"\n", vpd4, 4);
	expect_bytes("sg_vpd -H", " 00     00 b0 00 3c\n", vpd4, 4);
	expect_bytes("xxd with an ASCII column that looks like hex",
		     "00000000: 3031 3233 3435 3637 3839 3a3b 3c3d 3e3f  0123456789:;<=>?\n"
		     "00000010: 4041 4243                                @ABC\n", seq, 20);
	expect_bytes("xxd, ASCII of hex digits on a full line",
		     "00000000: 3031 3233 3435 3637 3839 6162 6364 6566  0123456789abcdef\n"
		     "00000010: 00b0 003c                                ...<\n",
		     (const uint8_t *)"0123456789abcdef\x00\xb0\x00\x3c", 20);
}

static void test_hexdump_repeat(void)
{
	const char *text =
		"00000000  01 02 03 04 05 06 07 08  09 0a 0b 0c 0d 0e 0f 10  |................|\n"
		"00000010  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n"
		"*\n"
		"00000040  ff 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n"
		"00000050\n";
	ssize_t n = parse(text);
	bool zeros = true;

	T_EXPECT_EQ(n, 0x50, "hexdump -C length");
	for (int i = 0x10; i < 0x40; i++)
		zeros &= out[i] == 0;
	T_EXPECT(zeros, "repeated zero lines expanded");
	T_EXPECT_EQ(out[0x40], 0xff, "byte after the repeat");
	T_EXPECT_EQ(out[0x0f], 0x10, "first line");
}

static void test_binary(void)
{
	uint8_t bin[64] = { 0x00, 0xb0, 0x00, 0x3c, 0x7f, 0xff };

	T_EXPECT_EQ(awr_dump_parse(bin, sizeof(bin), out, sizeof(out)), 64, "binary copied");
	T_EXPECT(!memcmp(bin, out, 64), "binary bytes");
	T_EXPECT_EQ(awr_dump_parse(bin, sizeof(bin), out, 63), -EOVERFLOW, "binary larger than the "
									   "buffer");
	T_EXPECT_EQ(awr_dump_parse(bin, 0, out, 1), 0, "empty input");
}

static void test_malformed(void)
{
	T_EXPECT_EQ(parse("00 b0 0"), -EINVAL, "odd digit count");
	T_EXPECT_EQ(parse("00 zz 00"), -EINVAL, "not hex");
	T_EXPECT_EQ(parse("hello world"), -EINVAL, "words");
	T_EXPECT_EQ(parse("0000: 00 01\n0010: 02 03\n"), -EINVAL, "offset gap");
	T_EXPECT_EQ(parse("0000: 00 01 02 03\n0000: 02 03\n0001: 04\n"), -EINVAL,
		    "offset going back past a line");
	T_EXPECT_EQ(parse("00000000  00 01  |..|\n*\n"), -EINVAL, "repeat without an end offset");
	T_EXPECT_EQ(parse("00000000  00 01  |..|\n*\n00000001\n"), -EINVAL, "repeat ending before "
									    "the data");
	T_EXPECT_EQ(awr_dump_parse("00 01 02 03", 11, out, 3), -EOVERFLOW, "text larger than the "
									   "buffer");
	T_EXPECT_EQ(parse("00000000  01 02  |..|\n*\n00100000\n"), -EOVERFLOW,
		    "repeat beyond the buffer");
	T_EXPECT_EQ(awr_dump_parse(NULL, 1, out, 1), -EINVAL, "NULL input");
}

int main(void)
{
	test_layouts();
	test_hexdump_repeat();
	test_binary();
	test_malformed();
	return t_done("dump_parse");
}
