// SPDX-License-Identifier: MIT
/*
 * SCSI decoding (SBC-4/5): Block Limits VPD page B0h honouring its PAGE
 * LENGTH, READ CAPACITY(16) parameter data, and the one-command form of
 * REPORT SUPPORTED OPERATION CODES. Big-endian fields, bounds-checked.
 */
#include <errno.h>
#include <string.h>

#include "device.h"

#define VPD_BL_PAGE		0xb0
#define VPD_MAX_XFER		8
#define VPD_MAX_ATOMIC		44
#define VPD_ATOMIC_ALIGN	48
#define VPD_ATOMIC_GRAN		52
#define VPD_MAX_ATOMIC_BNDRY	56
#define VPD_MAX_BNDRY		60

/* A big-endian u32 at @off when the page (header included) holds it; else 0. */
static uint32_t field(const uint8_t *b, size_t avail, size_t off)
{
	return off + 4 <= avail ? awr__be32(b + off) : 0;
}

int awr_scsi_decode_bl_vpd(const void *buf, size_t len, struct awr_scsi_id *id)
{
	const uint8_t *b = buf;
	size_t avail;

	if (!buf || !id)
		return -EINVAL;
	if (len < 4)
		return -EMSGSIZE;
	if (b[1] != VPD_BL_PAGE)
		return -EINVAL;
	id->vpd_page_length = (uint16_t)(b[2] << 8 | b[3]);
	avail = 4 + (size_t)id->vpd_page_length;
	if (avail > len) {
		/* a dump cut inside the atomic fields it claims to have is truncated */
		if (id->vpd_page_length >= AWR_SCSI_VPD_BL_ATOMIC_LEN &&
		    len < 4 + AWR_SCSI_VPD_BL_ATOMIC_LEN)
			return -EMSGSIZE;
		avail = len;
	}
	id->max_transfer_length = field(b, avail, VPD_MAX_XFER);
	id->vpd_has_atomic = id->vpd_page_length >= AWR_SCSI_VPD_BL_ATOMIC_LEN;
	id->max_atomic_transfer_length = field(b, avail, VPD_MAX_ATOMIC);
	id->atomic_alignment = field(b, avail, VPD_ATOMIC_ALIGN);
	id->atomic_granularity = field(b, avail, VPD_ATOMIC_GRAN);
	id->max_atomic_transfer_length_with_boundary = field(b, avail, VPD_MAX_ATOMIC_BNDRY);
	id->max_atomic_boundary_size = field(b, avail, VPD_MAX_BNDRY);
	if (!id->vpd_has_atomic) {
		id->max_atomic_transfer_length = 0;
		id->atomic_alignment = 0;
		id->atomic_granularity = 0;
		id->max_atomic_transfer_length_with_boundary = 0;
		id->max_atomic_boundary_size = 0;
	}
	id->have_vpd = true;
	return 0;
}

int awr__scsi_decode_readcap16(const uint8_t *buf, size_t len, struct awr_scsi_id *id)
{
	uint32_t lbs;
	unsigned int exp;

	if (len < 14)
		return -EMSGSIZE;
	lbs = awr__be32(buf + 8);
	exp = buf[13] & 0x0f;
	if (!awr_is_pow2(lbs) || lbs < 512 || exp > 16)
		return -EINVAL;
	id->nr_blocks = awr__be64(buf) + 1;
	id->logical_block_size = lbs;
	id->physical_block_size = (uint32_t)((uint64_t)lbs << exp > UINT32_MAX ? 0 : lbs << exp);
	id->prot_en = buf[12] & 1;
	id->p_type = (buf[12] >> 1) & 7;
	id->have_capacity = true;
	return 0;
}

int awr__scsi_decode_rsoc(const uint8_t *buf, size_t len, struct awr_scsi_id *id)
{
	if (len < 2)
		return -EMSGSIZE;
	switch (buf[1] & 7) {
	case 3:	/* supported per standard */
	case 5:	/* supported, vendor specific */
		id->write_atomic16 = 1;
		break;
	case 1:	/* not supported */
		id->write_atomic16 = 0;
		break;
	default:
		id->write_atomic16 = -1;
	}
	return 0;
}
