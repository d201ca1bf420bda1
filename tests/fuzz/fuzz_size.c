// SPDX-License-Identifier: MIT
/* Description: libFuzzer harness for size strings ("16k", "1MiB"): parse, format back, parse again
 * to the same value. */
#include <stdio.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[32], tiny[4], *s;
	uint64_t v, back;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';		/* a C string: the first NUL ends it, as in argv */
	if (!awr_parse_size(s, &v)) {
		char *sp;

		awr_format_size(v, out, sizeof(out));
		sp = strchr(out, ' '); /* "16 KiB": the parser takes the suffix without a blank ("16
					  k" is refused) */
		if (sp)
			memmove(sp, sp + 1, strlen(sp));
		if (awr_parse_size(out, &back) || back != v)
			abort();	/* what is printed must read back as the same size */
		awr_format_size(v, tiny, sizeof(tiny));
		if (strnlen(tiny, sizeof(tiny)) == sizeof(tiny))
			abort();	/* not a string */
	}
	free(s);
	return 0;
}
