/* SPDX-License-Identifier: MIT */
/*
 * The LBA format a namespace uses, as the NVMe passthrough engine needs it:
 * metadata and protection information change what a Write carries.
 */
#ifndef AWR_NVME_FORMAT_H
#define AWR_NVME_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libatomicwr.h"

struct awr__nvme_format {
	uint8_t index;		/* LBA format in use (FLBAS bits 3:0 and 6:5) */
	uint8_t lbads;		/* log2 of its data block size */
	uint16_t ms;		/* LBAF[index].MS: metadata bytes per block */
	bool extended; /* FLBAS bit 4: metadata at the end of each block's data (extended LBA) */
	uint8_t pi_type;	/* DPS bits 2:0: protection information type, 0 none */
	bool pi_first;		/* DPS bit 3: PI in the first bytes of the metadata */
	uint8_t dps;		/* DPS as reported */
};

/* nvme_decode.c: from a raw Identify Namespace page; -EMSGSIZE short, -EINVAL no such format. */
int awr__nvme_decode_format(const void *buf, size_t len, struct awr__nvme_format *f);

#endif /* AWR_NVME_FORMAT_H */
