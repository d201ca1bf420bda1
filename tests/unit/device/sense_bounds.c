// SPDX-License-Identifier: MIT
/*
 * Description: the sense parser reads only the bytes it was given: a sense-key
 * specific descriptor that starts near the end of the data (the crafted 64-byte
 * sense that read 7 bytes past the buffer), descriptors cut by the buffer or by
 * the ADDITIONAL SENSE LENGTH, and every length of fixed and descriptor data are
 * parsed from heap copies of exactly their size, so AddressSanitizer (the test
 * command's sanitizer pass) reports any read beyond them.
 */
#include "helpers.h"
#include "device/device.h"

/* The sentence for exactly @len bytes of @sense, from a heap copy of that size. */
static void sentence(const uint8_t *sense, int len, char *msg, size_t msglen)
{
	uint8_t *copy = malloc(len > 0 ? (size_t)len : 1);

	if (!copy)
		exit(T_EXIT_FAIL);
	if (len > 0)
		memcpy(copy, sense, (size_t)len);
	msg[0] = '\0';
	awr__scsi_sense_sentence(copy, len, msg, msglen);
	free(copy);
}

static void expect(const char *what, const uint8_t *sense, int len, const char *want)
{
	char msg[192];

	sentence(sense, len, msg, sizeof(msg));
	T_EXPECT(!strcmp(msg, want), "%s: got \"%s\", expected \"%s\"", what, msg, want);
}

int main(void)
{
	uint8_t b[64] = { 0x72, 0x05, 0x24, 0x00, 0, 0, 0, 56 };
	char msg[192];

	/*
	 * The crafted sense: descriptor format, 56 additional bytes (64 in all), a
	 * vendor descriptor (type 80h) over bytes 8..61, then a sense-key specific
	 * descriptor (type 02h) at byte 62 that claims 6 more bytes: its field
	 * pointer would be bytes 66..68, beyond the 64.
	 */
	b[8] = 0x80;
	b[9] = 52;
	b[62] = 0x02;
	b[63] = 0x06;
	expect("crafted 64-byte sense, descriptor at byte 62", b, 64,
	       "Illegal Request: Invalid field in cdb (ASC/ASCQ 24h/00h)");
	/* the same descriptor one byte later: its length byte would be byte 64 */
	b[9] = 53;
	b[62] = 0;
	b[63] = 0x02;
	expect("crafted 64-byte sense, descriptor at byte 63", b, 64,
	       "Illegal Request: Invalid field in cdb (ASC/ASCQ 24h/00h)");

	/* a whole sense-key specific descriptor at the end is read: CDB byte 0x1234 */
	b[9] = 46;
	b[56] = 0x02;
	b[57] = 0x06;
	b[60] = 0xc0;
	b[61] = 0x12;
	b[62] = 0x34;
	b[63] = 0;
	expect("whole descriptor ending at byte 63", b, 64,
	       "Illegal Request: Invalid field in cdb (ASC/ASCQ 24h/00h), CDB byte 4660");
	/* ... but not when the ADDITIONAL SENSE LENGTH ends before it */
	b[7] = 54;
	expect("descriptor beyond the additional sense length", b, 64,
	       "Illegal Request: Invalid field in cdb (ASC/ASCQ 24h/00h)");
	b[7] = 56;

	/* a type-02h descriptor at every offset, in data of every length: nothing read past it */
	for (int len = 0; len <= 64; len++) {
		for (int at = 8; at < 64; at++) {
			uint8_t s[64] = { 0x72, 0x05, 0x24, 0x00, 0, 0, 0, 56 };

			if (at > 8) {
				s[8] = 0x80;		/* filler descriptor up to @at */
				s[9] = (uint8_t)(at - 10 >= 0 ? at - 10 : 0);
			}
			if (at == 9)
				continue;		/* no room for a filler */
			s[at] = 0x02;
			if (at + 1 < 64)
				s[at + 1] = 0x06;
			for (int k = at + 2; k < 64; k++)
				s[k] = 0xff;		/* SKSV, C/D set wherever read */
			sentence(s, len, msg, sizeof(msg));
			T_EXPECT(len >= 4 || !strcmp(msg, "CHECK CONDITION without readable sense "
							  "data"),
				 "%d bytes: \"%s\"", len, msg);
			T_EXPECT(!strstr(msg, "CDB byte") || at + 8 <= len,
				 "descriptor at %d, %d bytes: a field pointer read from outside: "
				 "\"%s\"", at, len, msg);
		}
	}
	/* fixed format of every length: the field pointer needs bytes 15..17 */
	for (int len = 0; len <= 18; len++) {
		const uint8_t fixed[18] = {0x70, 0, 0x05, 0,	0,    0, 0,    10,   0,
					   0,	 0, 0,	  0x24, 0x00, 0, 0xc0, 0x00, 0x02};

		sentence(fixed, len, msg, sizeof(msg));
		T_EXPECT(!strstr(msg, "CDB byte") || len == 18, "fixed, %d bytes: \"%s\"", len,
			 msg);
	}
	/* a message buffer of one byte stays a string */
	sentence(b, 64, msg, 1);
	T_EXPECT(msg[0] == '\0', "one-byte message buffer");
	return t_done("sense_bounds");
}
