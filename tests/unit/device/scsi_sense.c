// SPDX-License-Identifier: MIT
/* Description: SCSI sense data (fixed and descriptor format, SPC) becomes one readable sentence
 * with the CDB byte it points at. */
#include "helpers.h"
#include "device/device.h"

static void expect(const char *what, const uint8_t *sense, int len, const char *want)
{
	char msg[192] = "";

	awr__scsi_sense_sentence(sense, len, msg, sizeof(msg));
	T_EXPECT(!strcmp(msg, want), "%s: got \"%s\", expected \"%s\"", what, msg, want);
}

int main(void)
{
	/* fixed format: ILLEGAL REQUEST, 24h/00h, SKSV + C/D, field pointer 2 (the LBA) */
	uint8_t fixed[18] = {0x70, 0, 0x05, 0,	  0,	0, 0,	 10,   0,
			     0,	   0, 0,    0x24, 0x00, 0, 0xc0, 0x00, 0x02};
	/* descriptor format: 20h/00h, no sense-key specific descriptor */
	uint8_t desc[8] = { 0x72, 0x05, 0x20, 0x00, 0, 0, 0, 0 };
	/* descriptor format with a sense-key specific descriptor: field pointer 12 */
	uint8_t desc_sks[16] = {0x72, 0x05, 0x24, 0x00, 0,    0,    0,	  8,
				0x02, 0x06, 0,	  0,	0xc0, 0x00, 0x0c, 0};
	uint8_t garbage[4] = { 0x12, 0x34, 0x56, 0x78 };

	expect("fixed", fixed, sizeof(fixed),
	       "Illegal Request: Invalid field in cdb (ASC/ASCQ 24h/00h), CDB byte 2");
	expect("fixed, short: no field pointer", fixed, 14,
	       "Illegal Request: Invalid field in cdb (ASC/ASCQ 24h/00h)");
	expect("descriptor", desc, sizeof(desc),
	       "Illegal Request: Invalid command operation code (ASC/ASCQ 20h/00h)");
	expect("descriptor with field pointer", desc_sks, sizeof(desc_sks),
	       "Illegal Request: Invalid field in cdb (ASC/ASCQ 24h/00h), CDB byte 12");
	expect("garbage", garbage, sizeof(garbage), "CHECK CONDITION without readable sense data");
	expect("empty", garbage, 0, "CHECK CONDITION without readable sense data");
	return t_done("scsi_sense");
}
