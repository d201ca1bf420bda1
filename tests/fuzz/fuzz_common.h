/* SPDX-License-Identifier: MIT */
/* Shared by the libFuzzer harnesses: exactly sized copies (ASan sees over-reads) and one decode-all
 * pass. */
#ifndef AWR_FUZZ_COMMON_H
#define AWR_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libatomicwr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct awr_queue_caps fuzz_caps = { .max_segments = 128, .max_hw_bytes = 512 * 1024,
						 .page_size = 4096 };

static inline uint8_t *fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);

	if (!p)
		abort();
	memcpy(p, data, size);
	return p;
}

static inline void fuzz_decode_all(const uint8_t *buf, size_t len)
{
	struct awr_nvme_id nid = { 0 };
	struct awr_scsi_id sid = { .write_atomic16 = -1, .logical_block_size = 4096 };
	struct awr_device *d;
	uint8_t *copy = fuzz_copy(buf, len);

	awr_nvme_decode_ctrl(copy, len, &nid);
	awr_nvme_decode_ns(copy, len, &nid);
	if (!awr_device_from_nvme(&nid, &fuzz_caps, &d))
		awr_device_free(d);
	if (!awr_scsi_decode_bl_vpd(copy, len, &sid) && !awr_device_from_scsi(&sid, NULL, &d))
		awr_device_free(d);
	free(copy);
}

#endif /* AWR_FUZZ_COMMON_H */
