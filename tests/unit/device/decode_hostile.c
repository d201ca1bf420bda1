// SPDX-License-Identifier: MIT
/*
 * Description: truncated, garbage and random input to the dump parser, decoders and derivations
 * gives errors, never a crash or an out-of-bounds read. Each input sits in an exactly sized heap
 * buffer, so a sanitizer build (-Db_sanitize=address,undefined) catches any read past it.
 */
#include <stdint.h>

#include "device_fixtures.h"
#include "device/device.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Every decoder on an exactly sized copy of @len bytes of @src. */
static void decode_all(const uint8_t *src, size_t len)
{
	uint8_t *b = malloc(len ? len : 1);
	struct awr_nvme_id nid = { 0 };
	struct awr_scsi_id sid = { 0 };
	struct awr_device *d = NULL;
	int rn, rc;

	memcpy(b, src, len);
	rc = awr_nvme_decode_ctrl(b, len, &nid);
	rn = awr_nvme_decode_ns(b, len, &nid);
	T_EXPECT(len >= 534 || rc == -EMSGSIZE, "short ctrl of %zu accepted", len);
	T_EXPECT(len >= 4096 || rn == -EMSGSIZE, "short ns of %zu accepted", len);
	if (!awr_device_from_nvme(&nid, NULL, &d))
		awr_device_free(d);
	awr_scsi_decode_bl_vpd(b, len, &sid);
	awr__scsi_decode_readcap16(b, len, &sid);
	awr__scsi_decode_rsoc(b, len, &sid);
	if (!awr_device_from_scsi(&sid, &(struct awr_queue_caps){ 3, 7 << 9, 4096 }, &d))
		awr_device_free(d);
	free(b);
}

static void truncations(const char *fixture)
{
	static uint8_t buf[8192];
	size_t n = fixture_bytes(fixture, buf, sizeof(buf));

	for (size_t len = 0; len <= n; len++)
		decode_all(buf, len);
}

static void random_pages(void)
{
	static uint8_t page[4096];

	for (int i = 0; i < 2000; i++) {
		for (size_t j = 0; j < sizeof(page); j += 8) {
			uint64_t r = next();

			memcpy(page + j, &r, 8);
		}
		if (i & 1)
			page[1] = 0xb0;	/* reach the VPD decoder's body */
		decode_all(page, (size_t)(next() % (sizeof(page) + 1)));
	}
}

/* Text made of the characters the hex parser cares about. */
static void random_text(void)
{
	static const char alphabet[] = "0123456789abcdefxX: \n\t|\"*.";
	uint8_t out[256];

	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)(next() % 300);
		char *t = malloc(len ? len : 1);
		ssize_t r;

		for (size_t j = 0; j < len; j++)
			t[j] = alphabet[next() % (sizeof(alphabet) - 1)];
		r = awr_dump_parse(t, len, out, sizeof(out));
		T_EXPECT(r <= (ssize_t)sizeof(out), "parse returned %zd", r);
		if (r > 0)
			decode_all(out, (size_t)r);
		free(t);
	}
}

/* Derivations on random field values: no division by zero, no overflow trap. */
static void random_ids(void)
{
	for (int i = 0; i < 20000; i++) {
		struct awr_nvme_id n = { .have_ctrl = true, .have_ns = true };
		struct awr_scsi_id s = { .have_vpd = true, .vpd_has_atomic = true };
		struct awr_queue_caps caps = { (uint32_t)next() % 4, next() % 4096, 4096 };
		struct awr_device *d;

		n.awupf = (uint16_t)next();
		n.awun = (uint16_t)next();
		n.nsfeat = (uint8_t)next();
		n.nawupf = (uint16_t)next();
		n.nabspf = (uint16_t)next();
		n.nabo = (uint16_t)(next() % 2 ? 0 : next());
		n.lba_size = 1U << (9 + next() % 23);
		s.max_atomic_transfer_length = (uint32_t)next();
		s.max_atomic_transfer_length_with_boundary = (uint32_t)next();
		s.max_atomic_boundary_size = (uint32_t)next();
		s.atomic_granularity = (uint32_t)(next() % 3 ? next() % 64 : next());
		s.atomic_alignment = (uint32_t)(next() % 3 ? next() % 64 : next());
		s.logical_block_size = 1U << (9 + next() % 8);
		s.physical_block_size = (uint32_t)(next() % 2 ? next() : 0);
		if (!awr_device_from_nvme(&n, i % 2 ? &caps : NULL, &d))
			awr_device_free(d);
		if (!awr_device_from_scsi(&s, i % 2 ? &caps : NULL, &d))
			awr_device_free(d);
	}
}

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	truncations("ctrl-qemu-awun31-awupf15.hex");
	truncations("ns-qemu-nsfeat34-4k.hex");
	truncations("vpd-bl-scsi-debug-default.hex");
	truncations("vpd-bl-short-page.hex");
	random_pages();
	random_text();
	random_ids();
	return t_done("decode_hostile");
}
