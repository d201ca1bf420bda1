// SPDX-License-Identifier: MIT
/* Description: libFuzzer harness for the NVMe identify decoders and the NVMe derivation. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct awr_nvme_id id = { 0 };
	struct awr_device *d;
	uint8_t *copy = fuzz_copy(data, size);

	/* the first half as the controller, all of it as the namespace */
	awr_nvme_decode_ctrl(copy, size / 2, &id);
	awr_nvme_decode_ns(copy, size, &id);
	if (!awr_device_from_nvme(&id, size & 1 ? &fuzz_caps : NULL, &d))
		awr_device_free(d);
	free(copy);
	return 0;
}
