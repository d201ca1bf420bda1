// SPDX-License-Identifier: MIT
/* Description: libFuzzer harness for awr_dump_parse, then every decoder on what it yields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[8192];
	ssize_t n = awr_dump_parse(data, size, out, sizeof(out));

	if (n > 0)
		fuzz_decode_all(out, (size_t)n);
	return 0;
}
