// SPDX-License-Identifier: MIT
/*
 * NVMe Identify Controller / Namespace decoding from the raw little-endian
 * pages (NVMe Base Specification, Identify CNS 01h and 00h). Every read is
 * within the length checked on entry.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "nvme_format.h"

#define CTRL_VID	0
#define CTRL_SN		4
#define CTRL_SN_LEN	20
#define CTRL_MN		24
#define CTRL_MN_LEN	40
#define CTRL_FR		64
#define CTRL_FR_LEN	8
#define CTRL_MDTS	77
#define CTRL_AWUN	526
#define CTRL_AWUPF	528
#define CTRL_ACWU	532
#define CTRL_MIN_LEN	(CTRL_ACWU + 2)

#define NS_NSFEAT	24
#define NS_NLBAF	25
#define NS_FLBAS	26
#define NS_DPS		29
#define NS_NAWUN	34
#define NS_NAWUPF	36
#define NS_NACWU	38
#define NS_NABSN	40
#define NS_NABO		42
#define NS_NABSPF	44
#define NS_NOIOB	46
#define NS_LBAF		128
#define NS_NR_LBAF	64
/* Amazon's torn write prevention: vendor-specific data (bytes 4095:384) offsets 256..263 */
#define NS_VS		384
#define NS_NTWPU	(NS_VS + 256)
#define NS_NTWPG	(NS_VS + 258)
#define NS_NTWPB	(NS_VS + 260)

/*
 * The controllers whose provider states a torn write guarantee, by their model (Identify
 * Controller MN): provider.c reads what each states.
 */
static const struct {
	const char *prefix;
	uint8_t kind;
} models[] = {
	{ "Amazon Elastic Block Store", AWR_NVME_MODEL_AWS_EBS },
	{ "Amazon EC2 NVMe Instance Storage", AWR_NVME_MODEL_AWS_INSTANCE },
	{ "MSFT NVMe Accelerator", AWR_NVME_MODEL_AZURE },
	{ "Microsoft NVMe Direct Disk", AWR_NVME_MODEL_AZURE },
	{ "nvme_card", AWR_NVME_MODEL_GCP },
};

/* an identity string (model, serial, firmware) of a decoded page, blanks and quotes trimmed,
 * unprintable bytes as '?': the NVMe and SCSI decoders and the text readers share it */
void awr__ident_copy(char *dst, size_t cap, const char *src, size_t n)
{
	while (n && (*src == ' ' || *src == '"'))
		src++, n--;
	while (n && (src[n - 1] == ' ' || src[n - 1] == '\0' || src[n - 1] == '"' ||
		     src[n - 1] == ',' || src[n - 1] == '\r'))
		n--;
	if (cap)
		snprintf(dst, cap, "%.*s", (int)(n < cap ? n : cap - 1), src);
	for (char *p = dst; *p; p++)
		*p = (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e ? '?' : *p;
}

uint8_t awr__nvme_model_kind(const char *mn, size_t len)
{
	while (len && (*mn == ' ' || *mn == '\t')) {
		mn++;
		len--;
	}
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		size_t n = strlen(models[i].prefix);

		if (len >= n && !memcmp(mn, models[i].prefix, n))
			return models[i].kind;
	}
	return AWR_NVME_MODEL_OTHER;
}

int awr_nvme_decode_ctrl(const void *buf, size_t len, struct awr_nvme_id *id)
{
	const uint8_t *b = buf;

	if (!buf || !id)
		return -EINVAL;
	if (len < CTRL_MIN_LEN)
		return -EMSGSIZE;
	id->mdts = b[CTRL_MDTS];
	id->awun = awr__le16(b + CTRL_AWUN);
	id->awupf = awr__le16(b + CTRL_AWUPF);
	id->acwu = awr__le16(b + CTRL_ACWU);
	id->vid = awr__le16(b + CTRL_VID);
	id->model = awr__nvme_model_kind((const char *)b + CTRL_MN, CTRL_MN_LEN);
	awr__ident_copy(id->mn, sizeof(id->mn), (const char *)b + CTRL_MN, CTRL_MN_LEN);
	awr__ident_copy(id->sn, sizeof(id->sn), (const char *)b + CTRL_SN, CTRL_SN_LEN);
	awr__ident_copy(id->fr, sizeof(id->fr), (const char *)b + CTRL_FR, CTRL_FR_LEN);
	id->vendor_have |= AWR_NVME_HAVE_VID | AWR_NVME_HAVE_MODEL;
	id->have_ctrl = true;
	return 0;
}

/* FLBAS bits 3:0 are the low bits of the format index, bits 6:5 the high bits. */
static uint8_t lbaf_index(uint8_t flbas)
{
	return (uint8_t)((flbas & 0x0f) | ((flbas & 0x60) >> 1));
}

int awr_nvme_decode_ns(const void *buf, size_t len, struct awr_nvme_id *id)
{
	const uint8_t *b = buf, *f;

	if (!buf || !id)
		return -EINVAL;
	if (len < AWR_NVME_ID_SIZE)
		return -EMSGSIZE;
	id->nsze = (uint64_t)awr__le16(b + 6) << 48 | (uint64_t)awr__le16(b + 4) << 32 |
		   (uint64_t)awr__le16(b + 2) << 16 | awr__le16(b);
	id->nsfeat = b[NS_NSFEAT];
	id->nlbaf = b[NS_NLBAF];
	id->flbas = b[NS_FLBAS];
	id->nawun = awr__le16(b + NS_NAWUN);
	id->nawupf = awr__le16(b + NS_NAWUPF);
	id->nacwu = awr__le16(b + NS_NACWU);
	id->nabsn = awr__le16(b + NS_NABSN);
	id->nabo = awr__le16(b + NS_NABO);
	id->nabspf = awr__le16(b + NS_NABSPF);
	id->noiob = awr__le16(b + NS_NOIOB);
	id->ntwpu = awr__le16(b + NS_NTWPU);
	id->ntwpg = awr__le16(b + NS_NTWPG);
	id->ntwpb = (uint32_t)awr__le16(b + NS_NTWPB) | (uint32_t)awr__le16(b + NS_NTWPB + 2) << 16;
	id->vendor_have |= AWR_NVME_HAVE_NTWP;
	id->lbaf_index = lbaf_index(id->flbas);
	id->lba_size = 0;
	id->have_ns = false;
	if (id->lbaf_index > id->nlbaf || id->lbaf_index >= NS_NR_LBAF)
		return -EINVAL;
	f = b + NS_LBAF + 4 * id->lbaf_index;
	id->lba_ms = awr__le16(f);
	id->lbads = f[2];
	if (id->lbads < 9 || id->lbads > 31)
		return -EINVAL;
	id->lba_size = 1U << id->lbads;
	id->have_ns = true;
	return 0;
}

#define FLBAS_EXTENDED	(1U << 4)
#define DPS_PI_TYPE	0x07
#define DPS_PI_FIRST	(1U << 3)

int awr__nvme_decode_format(const void *buf, size_t len, struct awr__nvme_format *f)
{
	const uint8_t *b = buf, *lbaf;
	uint8_t flbas;

	if (!buf || !f)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	if (len < AWR_NVME_ID_SIZE)
		return -EMSGSIZE;
	flbas = b[NS_FLBAS];
	f->index = lbaf_index(flbas);
	if (f->index > b[NS_NLBAF] || f->index >= NS_NR_LBAF)
		return -EINVAL;
	lbaf = b + NS_LBAF + 4 * f->index;
	f->ms = awr__le16(lbaf);
	f->lbads = lbaf[2];
	f->extended = flbas & FLBAS_EXTENDED;
	f->dps = b[NS_DPS];
	f->pi_type = f->dps & DPS_PI_TYPE;
	f->pi_first = f->dps & DPS_PI_FIRST;
	return 0;
}
