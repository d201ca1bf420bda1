// SPDX-License-Identifier: MIT
/*
 * Device I/O for the SCSI view: INQUIRY VPD B0h, READ CAPACITY(16) and
 * REPORT SUPPORTED OPERATION CODES for WRITE ATOMIC(16), via libsgutils2.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_lib.h>

#include "device.h"

#define OP_WRITE_ATOMIC16	0x9c

static int sg_err(int ret, int saved_errno, const char *what, char *err, size_t errlen)
{
	char cat[96];

	if (ret < 0) {
		snprintf(err, errlen, "%s failed: %s", what,
			 strerror(saved_errno ? saved_errno : EIO));
		return saved_errno ? -saved_errno : -EIO;
	}
	snprintf(err, errlen, "%s failed: %s", what,
		 sg_get_category_sense_str(ret, sizeof(cat), cat, 0));
	return -EIO;
}

static int read_vpd(int fd, struct awr_scsi_id *id, char *err, size_t errlen)
{
	uint8_t vpd[252] = { 0 };
	int resid = 0, ret;

	ret = sg_ll_inquiry_v2(fd, true, 0xb0, vpd, sizeof(vpd), 0, &resid, false, 0);
	if (ret)
		return sg_err(ret, errno, "INQUIRY of the Block Limits VPD page (B0h)", err,
			      errlen);
	if (resid < 0 || resid > (int)sizeof(vpd))
		resid = 0;
	ret = awr_scsi_decode_bl_vpd(vpd, sizeof(vpd) - (size_t)resid, id);
	if (ret)
		snprintf(err, errlen, "the Block Limits VPD page is malformed (%d bytes, page "
				      "0x%02x)",
			 (int)sizeof(vpd) - resid, vpd[1]);
	return ret;
}

/* WRITE ATOMIC(16) support, asked with REPORT SUPPORTED OPERATION CODES (one command). */
static void read_rsoc(int fd, struct awr_scsi_id *id)
{
	uint8_t cdb[12] = { 0xa3, 0x0c, 0x01, OP_WRITE_ATOMIC16, 0, 0, 0, 0, 0, 32, 0, 0 };
	uint8_t resp[32] = { 0 };
	char msg[128];
	int resid = 0;

	if (!awr__scsi_cdb(fd, cdb, sizeof(cdb), resp, sizeof(resp), false, &resid, msg,
			   sizeof(msg)) &&
	    resid <= (int)sizeof(resp) - 2)
		awr__scsi_decode_rsoc(resp, sizeof(resp) - (size_t)(resid > 0 ? resid : 0), id);
}

/*
 * Vendor, product and revision from the standard INQUIRY data (bytes 8-15, 16-31, 32-35) and the
 * serial from the Unit Serial Number VPD page (80h: PAGE LENGTH at bytes 2-3, the serial from 4).
 */
static void read_ident(int fd, struct awr_scsi_id *id)
{
	uint8_t inq[96] = { 0 }, sn[252] = { 0 };
	int resid = 0;
	size_t n;

	if (!sg_ll_inquiry_v2(fd, false, 0, inq, sizeof(inq), 0, &resid, false, 0) &&
	    resid >= 0 && resid <= (int)sizeof(inq) - 36) {
		awr__ident_copy(id->vendor, sizeof(id->vendor), (const char *)inq + 8, 8);
		awr__ident_copy(id->product, sizeof(id->product), (const char *)inq + 16, 16);
		awr__ident_copy(id->revision, sizeof(id->revision), (const char *)inq + 32, 4);
	}
	resid = 0;
	if (sg_ll_inquiry_v2(fd, true, 0x80, sn, sizeof(sn), 0, &resid, false, 0) ||
	    sn[1] != 0x80 || resid < 0 || resid > (int)sizeof(sn) - 4)
		return;
	n = (size_t)sn[2] << 8 | sn[3];
	if (n > sizeof(sn) - 4 - (size_t)resid)
		n = sizeof(sn) - 4 - (size_t)resid;
	awr__ident_copy(id->serial, sizeof(id->serial), (const char *)sn + 4, n);
}

int awr__scsi_read(int fd, struct awr_scsi_id *id, char *err, size_t errlen)
{
	uint8_t rc[32] = { 0 };
	int ret = read_vpd(fd, id, err, errlen);

	if (ret)
		return ret;
	if (!sg_ll_readcap_16(fd, false, 0, rc, sizeof(rc), false, 0))
		awr__scsi_decode_readcap16(rc, sizeof(rc), id);
	read_rsoc(fd, id);
	read_ident(fd, id);
	return 0;
}
