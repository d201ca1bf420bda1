// SPDX-License-Identifier: MIT
/* Description: libFuzzer harness for the SCSI sense parser (fixed and descriptor format) that turns
 * CHECK CONDITION data into a sentence. */
#include "fuzz_common.h"
#include "device/device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[192], small[16];
	uint8_t *copy;

	if (size > 252)
		return 0;	/* SPC: sense data is at most 252 bytes */
	copy = fuzz_copy(data, size);
	awr__scsi_sense_sentence(copy, (int)size, msg, sizeof(msg));
	if (strnlen(msg, sizeof(msg)) == sizeof(msg))
		abort();	/* not a string */
	awr__scsi_sense_sentence(copy, (int)size, small, sizeof(small));
	free(copy);
	return 0;
}
