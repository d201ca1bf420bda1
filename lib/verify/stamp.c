// SPDX-License-Identifier: MIT
/*
 * The stamped-unit format (man/awr-stamp.5): every 512-byte sector of a unit
 * carries a stamp, the unit carries an XXH3 checksum; a unit read back after
 * a crash is never written, intact, torn, corrupt or misplaced.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "platform/hash.h"

#include "private.h"

#define STAMP_HDR	40	/* bytes of stamp at the start of each sector */
#define STAMP_CSUM	8	/* checksum bytes at the end of the unit */

struct stamp {
	uint64_t magic;
	uint64_t unit;
	uint64_t generation;
	uint32_t sector;
	uint32_t writer;
	uint32_t unit_size;
};

static void stamp_get(const uint8_t *p, struct stamp *s)
{
	s->magic = awr__get_le64(p);
	s->unit = awr__get_le64(p + 8);
	s->generation = awr__get_le64(p + 16);
	s->sector = awr__get_le32(p + 24);
	s->writer = awr__get_le32(p + 28);
	s->unit_size = awr__get_le32(p + 32);
}

static void stamp_put(uint8_t *p, const struct stamp *s)
{
	awr__put_le64(p, s->magic);
	awr__put_le64(p + 8, s->unit);
	awr__put_le64(p + 16, s->generation);
	awr__put_le32(p + 24, s->sector);
	awr__put_le32(p + 28, s->writer);
	awr__put_le32(p + 32, s->unit_size);
	awr__put_le32(p + 36, 0);
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The filler of one sector: a function of its stamp only. */
static void filler(uint8_t *p, size_t len, const struct stamp *s)
{
	uint64_t x = s->unit * 0x100000001b3ULL ^ s->generation ^ ((uint64_t)s->sector << 48);

	for (size_t i = 0; i + 8 <= len; i += 8)
		awr__put_le64(p + i, splitmix64(&x));
}

static bool bad_size(uint32_t unit_size)
{
	return !unit_size || unit_size % AWR_STAMP_SECTOR;
}

int awr_stamp_unit_check(uint64_t unit)
{
	if (!unit || unit % AWR_STAMP_SECTOR || unit > AWR_STAMP_UNIT_MAX)
		return awr__fail(-EINVAL, "--unit %" PRIu64 " must be a multiple of %d up to "
				 "1 GiB, such as 16k", unit, AWR_STAMP_SECTOR);
	return 0;
}

static size_t filler_len(uint32_t i, uint32_t nsec)
{
	return AWR_STAMP_SECTOR - STAMP_HDR - (i == nsec - 1 ? STAMP_CSUM : 0);
}

static uint64_t unit_csum(const uint8_t *p, uint32_t unit_size)
{
	return XXH3_64bits(p, unit_size - STAMP_CSUM);
}

int awr_stamp_fill(void *buf, uint32_t unit_size, uint64_t unit, uint64_t generation,
		   uint32_t writer)
{
	struct stamp s = { AWR_STAMP_MAGIC, unit, generation, 0, writer, unit_size };
	uint32_t nsec = unit_size / AWR_STAMP_SECTOR;
	uint8_t *p = buf;

	if (!buf || bad_size(unit_size) || !generation)
		return -EINVAL;
	for (s.sector = 0; s.sector < nsec; s.sector++) {
		uint8_t *sec = p + (size_t)s.sector * AWR_STAMP_SECTOR;

		stamp_put(sec, &s);
		filler(sec + STAMP_HDR, filler_len(s.sector, nsec), &s);
	}
	awr__put_le64(p + unit_size - STAMP_CSUM, unit_csum(p, unit_size));
	return 0;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	return !p[0] && !memcmp(p, p + 1, len - 1);
}

/* First sector whose filler or stamp differs from what the stamp predicts. */
static uint32_t first_bad_sector(const uint8_t *p, uint32_t unit_size, const struct stamp *s0)
{
	uint8_t want[AWR_STAMP_SECTOR];
	uint32_t nsec = unit_size / AWR_STAMP_SECTOR;
	struct stamp s = *s0;

	for (s.sector = 0; s.sector < nsec; s.sector++) {
		const uint8_t *sec = p + (size_t)s.sector * AWR_STAMP_SECTOR;
		size_t len = STAMP_HDR + filler_len(s.sector, nsec);

		stamp_put(want, &s);
		filler(want + STAMP_HDR, len - STAMP_HDR, &s);
		if (memcmp(sec, want, len))
			return s.sector;
	}
	return nsec - 1;	/* only the checksum itself differs */
}

static void note_bad(struct awr_unit_state *o, bool *seen, uint32_t i)
{
	if (!*seen)
		o->bad_sector = i;
	*seen = true;
}

int awr_stamp_classify(const void *buf, uint32_t unit_size, uint64_t unit,
		       struct awr_unit_state *out)
{
	bool misplaced = false, torn = false, writer = false;
	uint32_t nsec = unit_size / AWR_STAMP_SECTOR, stamped = 0;
	const uint8_t *p = buf;
	struct stamp s0, s;

	if (!buf || !out || bad_size(unit_size))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	stamp_get(p, &s0);
	if (s0.magic != AWR_STAMP_MAGIC)
		s0.generation = 0;
	out->generation = s0.generation;
	out->writer = s0.magic == AWR_STAMP_MAGIC ? s0.writer : 0;
	for (uint32_t i = 0; i < nsec; i++) {
		stamp_get(p + (size_t)i * AWR_STAMP_SECTOR, &s);
		if (s.magic != AWR_STAMP_MAGIC) {
			s.generation = 0;
		} else {
			stamped++;
			if (!misplaced &&
			    (s.unit != unit || s.sector != i || s.unit_size != unit_size)) {
				out->found_unit = s.unit;
				out->found_sector = s.sector;
				out->found_unit_size = s.unit_size;
				note_bad(out, &misplaced, i);
			}
		}
		if (s.generation > out->newest_generation)
			out->newest_generation = s.generation;
		if (!torn && s.generation != s0.generation) {
			out->other_generation = s.generation;
			if (!misplaced)
				note_bad(out, &torn, i);
			torn = true;
		} else if (!writer && s.generation && s.writer != s0.writer) {
			if (!misplaced && !torn)
				note_bad(out, &writer, i);
			writer = true;
		}
	}
	if (!stamped) {
		out->cls = AWR_UNIT_NEVER_WRITTEN;
		out->all_zero = all_zero(p, unit_size);
	} else if (misplaced) {
		out->cls = AWR_UNIT_MISPLACED;
	} else if (torn) {
		out->cls = AWR_UNIT_TORN;
	} else if (writer) {
		out->cls = AWR_UNIT_CORRUPT;
	} else if (awr__get_le64(p + unit_size - STAMP_CSUM) != unit_csum(p, unit_size)) {
		out->cls = AWR_UNIT_CORRUPT;
		out->bad_sector = first_bad_sector(p, unit_size, &s0);
	} else {
		out->cls = AWR_UNIT_INTACT;
	}
	return 0;
}

const char *awr_unit_class_name(enum awr_unit_class cls)
{
	static const char *const names[AWR_UNIT__COUNT] = {
		[AWR_UNIT_NEVER_WRITTEN] = "never_written",
		[AWR_UNIT_INTACT] = "intact",
		[AWR_UNIT_TORN] = "torn",
		[AWR_UNIT_CORRUPT] = "corrupt",
		[AWR_UNIT_MISPLACED] = "misplaced",
	};

	if ((unsigned int)cls >= AWR_UNIT__COUNT)
		return "unknown";
	return names[cls];
}
