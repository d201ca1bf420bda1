// SPDX-License-Identifier: MIT
/* Description: libFuzzer harness for the SCSI decoders (Block Limits VPD, READ CAPACITY(16), RSOC)
 * and the SCSI derivation. */
#include "fuzz_common.h"
#include "device/device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct awr_scsi_id id = { .write_atomic16 = -1 };
	struct awr_device *d;
	uint8_t *copy = fuzz_copy(data, size);

	/* the same bytes as READ CAPACITY(16) and REPORT SUPPORTED OPERATION CODES data */
	awr__scsi_decode_readcap16(copy, size, &id);
	awr__scsi_decode_rsoc(copy, size, &id);
	if (!awr_scsi_decode_bl_vpd(copy, size, &id)) {
		/* block sizes and PI from the last bytes, when there are some */
		id.logical_block_size = size > 70 ? 512U << (copy[size - 1] % 8) : 4096;
		id.physical_block_size =
			size > 70 ? id.logical_block_size << (copy[size - 2] % 4) : 0;
		id.have_capacity = size > 70;
		id.prot_en = size > 70 && (copy[size - 3] & 1);
		id.p_type = size > 70 ? (copy[size - 3] >> 1) & 7 : 0;
		if (!awr_device_from_scsi(&id, size & 1 ? &fuzz_caps : NULL, &d))
			awr_device_free(d);
	}
	free(copy);
	return 0;
}
