// SPDX-License-Identifier: MIT
/*
 * Description: libFuzzer harness for the tool-output readers of `awr decode`: nvme-cli text
 * (normal and -H) and JSON (lib/device/text_nvme.c), sg_vpd / sg_readcap text (text_scsi.c), the
 * input record joining them (input.c: awr_input_add, awr_input_device) and the readings of a
 * transcript split at `nvme format` (readings.c: awr_readings_add, pick, device, meaning).
 *
 * The input is up to four pieces separated by NUL bytes (the files of one `awr decode` call, e.g.
 * id-ctrl and id-ns); each piece is handed over in a buffer of exactly its size so that
 * AddressSanitizer sees a read past its end. Each reader also reads the whole input on its own, and
 * the whole input is one transcript of readings.
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

/* The whole input as a transcript: its readings, the first or the last picked, its device view. */
static void readings(const uint8_t *data, size_t size)
{
	uint8_t *copy = fuzz_copy(data, size);
	struct awr_readings *r = NULL;
	struct awr_device *d;

	if (!awr_readings_open(NULL, &r) && !awr_readings_add(r, copy, size, NULL) &&
	    !awr_readings_pick(r, size & 2 ? 1 : 0)) {
		awr_readings_meaning(r, AWR_KERNEL(6, 18, 0));
		if (!awr_readings_device(r, size & 1 ? &fuzz_caps : NULL, 4096, 0, &d))
			awr_device_free(d);
	}
	awr_readings_free(r);
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
	readings(data, size);

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
