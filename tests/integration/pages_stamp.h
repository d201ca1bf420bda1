/* SPDX-License-Identifier: MIT */
/*
 * The page tests' own page format, independent of the library's checksums:
 * bytes 0..7 "TSTPAGE1", 8 page number, 16 generation, 24 copy (0 = the copy
 * that must win, else an earlier copy of the same batch), then filler from
 * those fields, and the last 8 bytes FNV-1a 64 of everything before them.
 */
#ifndef AWR_PAGES_STAMP_H
#define AWR_PAGES_STAMP_H

#include <stdint.h>
#include <string.h>

#define TP_MAGIC 0x3145474150545354ULL	/* "TSTPAGE1" */

enum tp_class { TP_ZERO, TP_WHOLE, TP_TORN };

static inline uint64_t tp_fnv(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static inline void tp_fill(uint8_t *p, uint32_t size, uint64_t page_no, uint64_t gen, uint64_t copy)
{
	uint64_t x = page_no * 0x9e3779b97f4a7c15ULL ^ gen * 0xbf58476d1ce4e5b9ULL ^ copy;
	uint64_t h;

	memcpy(p, &(uint64_t){ TP_MAGIC }, 8);
	memcpy(p + 8, &page_no, 8);
	memcpy(p + 16, &gen, 8);
	memcpy(p + 24, &copy, 8);
	for (uint32_t i = 32; i < size - 8; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	h = tp_fnv(p, size - 8);
	memcpy(p + size - 8, &h, 8);
}

/* TP_WHOLE with *gen and *copy set, TP_ZERO for an all-zero page, else TP_TORN. */
static inline enum tp_class tp_check(const uint8_t *p, uint32_t size, uint64_t page_no,
				     uint64_t *gen, uint64_t *copy)
{
	uint64_t magic, no, h;
	uint32_t i;

	for (i = 0; i < size && !p[i]; i++)
		;
	if (i == size)
		return TP_ZERO;
	memcpy(&magic, p, 8);
	memcpy(&no, p + 8, 8);
	memcpy(gen, p + 16, 8);
	memcpy(copy, p + 24, 8);
	memcpy(&h, p + size - 8, 8);
	if (magic != TP_MAGIC || no != page_no || h != tp_fnv(p, size - 8))
		return TP_TORN;
	return TP_WHOLE;
}

#endif /* AWR_PAGES_STAMP_H */
