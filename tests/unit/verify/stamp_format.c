// SPDX-License-Identifier: MIT
/* Description: the stamped-unit format: fill, and classify every class incl. edge cases. */
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "libatomicwr.h"
#include "../helpers.h"

#define U	16384
#define NSEC	(U / AWR_STAMP_SECTOR)

static uint8_t a[U], b[U];

static struct awr_unit_state classify(const void *buf, uint32_t size, uint64_t unit)
{
	struct awr_unit_state st;
	int ret = awr_stamp_classify(buf, size, unit, &st);

	T_EXPECT_EQ(ret, 0, "classify return");
	return st;
}

static void put_le64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }
static void put_le32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }

/* A unit built by hand from awr-stamp(5), not by awr_stamp_fill(). */
static void spec_unit(uint8_t *p, uint32_t size, uint64_t unit, uint64_t gen, uint32_t writer)
{
	memset(p, 0xa5, size);
	for (uint32_t i = 0; i < size / 512; i++) {
		uint8_t *s = p + i * 512;

		memcpy(s, "AWRSTMP1", 8);
		put_le64(s + 8, unit);
		put_le64(s + 16, gen);
		put_le32(s + 24, i);
		put_le32(s + 28, writer);
		put_le32(s + 32, size);
		put_le32(s + 36, 0);
	}
	put_le64(p + size - 8, XXH3_64bits(p, size - 8));
}

static void test_intact_and_layout(void)
{
	struct awr_unit_state st;
	uint64_t v;

	T_EXPECT_EQ(awr_stamp_fill(a, U, 7, 42, 3), 0, "fill");
	st = classify(a, U, 7);
	T_EXPECT_EQ(st.cls, AWR_UNIT_INTACT, "fresh unit is intact");
	T_EXPECT_EQ(st.generation, 42, "generation");
	T_EXPECT_EQ(st.writer, 3, "writer");
	T_EXPECT(!memcmp(a + 5 * 512, "AWRSTMP1", 8), "magic at the start of sector 5");
	memcpy(&v, a + 5 * 512 + 16, 8);
	T_EXPECT_EQ(le64toh(v), 42, "generation at byte 16 of a sector");
	memcpy(&v, a + U - 8, 8);
	T_EXPECT(le64toh(v) == XXH3_64bits(a, U - 8), "checksum is XXH3_64bits of the first U-8 "
						      "bytes");
	/* deterministic: the same stamp gives the same bytes */
	awr_stamp_fill(b, U, 7, 42, 3);
	T_EXPECT(!memcmp(a, b, U), "fill is a function of its arguments");

	spec_unit(b, U, 9, 1000, 77);
	st = classify(b, U, 9);
	T_EXPECT_EQ(st.cls, AWR_UNIT_INTACT, "a unit built from the spec is intact");
	T_EXPECT_EQ(st.generation, 1000, "spec unit generation");
	T_EXPECT_EQ(st.writer, 77, "spec unit writer");
}

static void test_never_written(void)
{
	struct awr_unit_state st;

	memset(a, 0, U);
	st = classify(a, U, 0);
	T_EXPECT_EQ(st.cls, AWR_UNIT_NEVER_WRITTEN, "zeros");
	T_EXPECT(st.all_zero, "zeros are all zero");
	for (int i = 0; i < U; i++)
		a[i] = (uint8_t)(i * 31 + 7);
	st = classify(a, U, 0);
	T_EXPECT_EQ(st.cls, AWR_UNIT_NEVER_WRITTEN, "foreign data without magic");
	T_EXPECT(!st.all_zero, "foreign data is not all zero");
}

static void test_torn(void)
{
	struct awr_unit_state st;

	/* the last sector from a newer generation */
	awr_stamp_fill(a, U, 4, 10, 0);
	awr_stamp_fill(b, U, 4, 11, 1);
	memcpy(a + U - 512, b + U - 512, 512);
	st = classify(a, U, 4);
	T_EXPECT_EQ(st.cls, AWR_UNIT_TORN, "mixed generation in the last sector");
	T_EXPECT_EQ(st.bad_sector, NSEC - 1, "torn at the last sector");
	T_EXPECT_EQ(st.generation, 10, "sector 0 generation");
	T_EXPECT_EQ(st.other_generation, 11, "other generation");
	T_EXPECT_EQ(st.newest_generation, 11, "newest generation");

	/* half old, half new */
	awr_stamp_fill(a, U, 4, 10, 0);
	memcpy(a + U / 2, b + U / 2, U / 2);
	st = classify(a, U, 4);
	T_EXPECT_EQ(st.cls, AWR_UNIT_TORN, "half and half");
	T_EXPECT_EQ(st.bad_sector, NSEC / 2, "torn in the middle");

	/* new data over a never-written unit, only the first half landed */
	memset(a, 0, U);
	memcpy(a, b, U / 2);
	st = classify(a, U, 4);
	T_EXPECT_EQ(st.cls, AWR_UNIT_TORN, "half written over zeros");
	T_EXPECT_EQ(st.other_generation, 0, "the other half was never written");

	/* zeros first, then the new data: sector 0 unstamped */
	memset(a, 0, U);
	memcpy(a + 512, b + 512, U - 512);
	st = classify(a, U, 4);
	T_EXPECT_EQ(st.cls, AWR_UNIT_TORN, "only sector 0 missing");
	T_EXPECT_EQ(st.generation, 0, "sector 0 unstamped");
	T_EXPECT_EQ(st.bad_sector, 1, "first differing sector");
}

static void test_corrupt(void)
{
	struct awr_unit_state st;

	awr_stamp_fill(a, U, 2, 5, 0);
	a[5 * 512 + 100] ^= 0x10;	/* one bit in the filler of sector 5 */
	st = classify(a, U, 2);
	T_EXPECT_EQ(st.cls, AWR_UNIT_CORRUPT, "single bit flip in the filler");
	T_EXPECT_EQ(st.bad_sector, 5, "the flipped sector");
	T_EXPECT_EQ(st.generation, 5, "corrupt unit keeps its generation");

	awr_stamp_fill(a, U, 2, 5, 0);
	a[U - 1] ^= 0x01;		/* one bit of the checksum */
	st = classify(a, U, 2);
	T_EXPECT_EQ(st.cls, AWR_UNIT_CORRUPT, "single bit flip in the checksum");
	T_EXPECT_EQ(st.bad_sector, NSEC - 1, "the checksum's sector");

	awr_stamp_fill(a, U, 2, 5, 0);
	a[3 * 512 + 28] ^= 0x01;	/* writer id of sector 3 */
	st = classify(a, U, 2);
	T_EXPECT_EQ(st.cls, AWR_UNIT_CORRUPT, "writer differs with the same generation");
	T_EXPECT_EQ(st.bad_sector, 3, "the sector with the other writer");

	awr_stamp_fill(a, U, 2, 5, 0);
	a[7 * 512 + 16] ^= 0x02;	/* generation of sector 7: stamps disagree */
	st = classify(a, U, 2);
	T_EXPECT_EQ(st.cls, AWR_UNIT_TORN, "a flipped generation bit makes the stamps disagree");
	T_EXPECT_EQ(st.bad_sector, 7, "the sector with the other generation");
}

static void test_misplaced(void)
{
	struct awr_unit_state st;

	awr_stamp_fill(a, U, 12, 8, 0);
	st = classify(a, U, 13);
	T_EXPECT_EQ(st.cls, AWR_UNIT_MISPLACED, "wrong unit index");
	T_EXPECT_EQ(st.found_unit, 12, "found unit");
	T_EXPECT_EQ(st.bad_sector, 0, "from sector 0");

	awr_stamp_fill(b, U, 99, 9, 0);
	memcpy(a + 3 * 512, b + 3 * 512, 512);
	st = classify(a, U, 12);
	T_EXPECT_EQ(st.cls, AWR_UNIT_MISPLACED, "one sector of another unit");
	T_EXPECT_EQ(st.bad_sector, 3, "its position");
	T_EXPECT_EQ(st.found_unit, 99, "its unit");

	awr_stamp_fill(a, U, 12, 8, 0);
	memcpy(b, a + 512, 512);
	memcpy(a + 512, a + 1024, 512);
	memcpy(a + 1024, b, 512);
	st = classify(a, U, 12);
	T_EXPECT_EQ(st.cls, AWR_UNIT_MISPLACED, "two sectors swapped");
	T_EXPECT_EQ(st.bad_sector, 1, "first swapped sector");
	T_EXPECT_EQ(st.found_sector, 2, "it carries sector 2");

	awr_stamp_fill(a, 2 * 8192, 0, 8, 0);
	st = classify(a, 8192, 0);
	T_EXPECT_EQ(st.cls, AWR_UNIT_MISPLACED, "written with another unit size");
	T_EXPECT_EQ(st.found_unit_size, 16384, "the size it was written with");
}

static void test_edges(void)
{
	struct awr_unit_state st;

	T_EXPECT_EQ(awr_stamp_fill(a, 512, 0, 1, 0), 0, "one-sector unit");
	st = classify(a, 512, 0);
	T_EXPECT_EQ(st.cls, AWR_UNIT_INTACT, "one-sector unit intact");
	a[200] ^= 0x80;
	st = classify(a, 512, 0);
	T_EXPECT_EQ(st.cls, AWR_UNIT_CORRUPT, "one-sector unit bit flip");
	T_EXPECT_EQ(awr_stamp_fill(a, U, 0, 0, 0), -EINVAL, "generation 0 is refused");
	T_EXPECT_EQ(awr_stamp_fill(a, 1000, 0, 1, 0), -EINVAL, "size not a multiple of 512");
	T_EXPECT_EQ(awr_stamp_fill(a, 0, 0, 1, 0), -EINVAL, "size 0");
	T_EXPECT_EQ(awr_stamp_classify(a, 0, 0, &st), -EINVAL, "classify size 0");
	T_EXPECT_EQ(awr_stamp_classify(NULL, 512, 0, &st), -EINVAL, "classify NULL");
	T_EXPECT(!strcmp(awr_unit_class_name(AWR_UNIT_TORN), "torn"), "name torn");
	T_EXPECT(!strcmp(awr_unit_class_name(AWR_UNIT_NEVER_WRITTEN), "never_written"),
		 "name never_written");
	T_EXPECT(!strcmp(awr_unit_class_name(AWR_UNIT__COUNT), "unknown"), "name out of range");
}

int main(void)
{
	test_intact_and_layout();
	test_never_written();
	test_torn();
	test_corrupt();
	test_misplaced();
	test_edges();
	return t_done("stamp_format");
}
