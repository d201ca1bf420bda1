// SPDX-License-Identifier: MIT
/*
 * Description: libFuzzer harness for the tool-output readers of `awr decode`: nvme-cli text
 * (normal and -H) and JSON (lib/device/text_nvme.c), sg_vpd / sg_readcap text (text_scsi.c) and the
 * input record joining them (input.c: awr_input_add, awr_input_device).
 *
 * The input is up to four pieces separated by NUL bytes (the files of one `awr decode` call, e.g.
 * id-ctrl and id-ns); each piece is handed over in a buffer of exactly its size so that
 * AddressSanitizer sees a read past its end. Each reader also reads the whole input on its own.
 */
#include <errno.h>

#include "fuzz_common.h"
#include "device/input.h"

static void one_reader(int (*reader)(const char *, size_t, struct awr_input *), const uint8_t *data,
		       size_t size)
{
	struct awr_input in;
	char *copy = (char *)fuzz_copy(data, size);

	awr_input_init(&in);
	reader(copy, size, &in);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct awr_device *d;
	struct awr_input in;
	char missing[512];

	one_reader(awr__nvme_text, data, size);
	one_reader(awr__nvme_json, data, size);
	one_reader(awr__scsi_text, data, size);

	awr_input_init(&in);
	for (int piece = 0; piece < 4 && p <= end; piece++) {
		const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
		size_t n = (size_t)((nul ? nul : end) - p);
		uint8_t *copy = fuzz_copy(p, n);
		int ret = awr_input_add(copy, n, &in);

		free(copy);
		if (ret < 0 && ret != -ENOMSG)
			break;
		if (!nul)
			break;
		p = nul + 1;
	}
	if (!awr_input_device(&in, size & 1 ? &fuzz_caps : NULL, &d, missing, sizeof(missing))) {
		if (strnlen(missing, sizeof(missing)) == sizeof(missing))
			abort();
		awr_device_free(d);
	}
	return 0;
}
