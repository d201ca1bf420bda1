// SPDX-License-Identifier: MIT
/* One SCSI command through the sg_pt API (SG_IO), with sense data turned into a sentence. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>

#include "device.h"

#define SCSI_TIMEOUT_S	60

/* The sense-key specific field pointer (SPC: fixed byte 15-17, descriptor type 2). */
static int field_pointer(const uint8_t *sense, int len, bool *in_cdb)
{
	const uint8_t *sks = NULL;

	if ((sense[0] & 0x7f) == 0x70 || (sense[0] & 0x7f) == 0x71) {
		if (len >= 18)
			sks = sense + 15;
	} else {
		const uint8_t *desc = sg_scsi_sense_desc_find(sense, len, 2);

		if (desc && desc[1] >= 6)
			sks = desc + 4;
	}
	if (!sks || !(sks[0] & 0x80))
		return -1;
	*in_cdb = sks[0] & 0x40;
	return sks[1] << 8 | sks[2];
}

void awr__scsi_sense_sentence(const uint8_t *sense, int len, char *msg, size_t msglen)
{
	struct sg_scsi_sense_hdr h;
	char key[64], asc[128];
	bool in_cdb = false;
	const char *text;
	int fp;

	if (!sg_scsi_normalize_sense(sense, len, &h)) {
		snprintf(msg, msglen, "CHECK CONDITION without readable sense data");
		return;
	}
	sg_get_sense_key_str(h.sense_key, sizeof(key), key);
	sg_get_asc_ascq_str(h.asc, h.ascq, sizeof(asc), asc);
	text = strncmp(asc, "Additional sense: ", 18) ? asc : asc + 18;
	fp = field_pointer(sense, len, &in_cdb);
	if (fp >= 0 && in_cdb)
		snprintf(msg, msglen, "%s: %s (ASC/ASCQ %02Xh/%02Xh), CDB byte %d",
			 key, text, h.asc, h.ascq, fp);
	else
		snprintf(msg, msglen, "%s: %s (ASC/ASCQ %02Xh/%02Xh)", key, text, h.asc, h.ascq);
}

static int pt_result(struct sg_pt_base *pt, int ret, const uint8_t *sense, char *msg, size_t msglen)
{
	if (ret < 0) {
		snprintf(msg, msglen, "SG_IO failed: %s", strerror(-ret));
		return ret;
	}
	if (ret == SCSI_PT_DO_TIMEOUT) {
		snprintf(msg, msglen, "the command timed out after %d s", SCSI_TIMEOUT_S);
		return -ETIMEDOUT;
	}
	if (ret) {
		snprintf(msg, msglen, "the pass-through layer refused the command (code %d)", ret);
		return -EIO;
	}
	switch (get_scsi_pt_result_category(pt)) {
	case SCSI_PT_RESULT_GOOD:
		return 0;
	case SCSI_PT_RESULT_SENSE:
		awr__scsi_sense_sentence(sense, get_scsi_pt_sense_len(pt), msg, msglen);
		return -EIO;
	case SCSI_PT_RESULT_STATUS:
		snprintf(msg, msglen, "SCSI status 0x%02x", get_scsi_pt_status_response(pt));
		return -EIO;
	case SCSI_PT_RESULT_OS_ERR:
		snprintf(msg, msglen, "SG_IO failed: %s", strerror(get_scsi_pt_os_err(pt)));
		return get_scsi_pt_os_err(pt) ? -get_scsi_pt_os_err(pt) : -EIO;
	default:
		snprintf(msg, msglen, "transport error");
		return -EIO;
	}
}

int awr__scsi_cdb(int fd, const uint8_t *cdb, int cdb_len, void *buf, int len, bool data_out,
		  int *resid, char *msg, size_t msglen)
{
	struct sg_pt_base *pt = construct_scsi_pt_obj_with_fd(fd, 0);
	uint8_t sense[64] = { 0 };
	int ret;

	if (!pt)
		return -ENOMEM;
	set_scsi_pt_cdb(pt, cdb, cdb_len);
	set_scsi_pt_sense(pt, sense, sizeof(sense));
	if (len && data_out)
		set_scsi_pt_data_out(pt, buf, len);
	else if (len)
		set_scsi_pt_data_in(pt, buf, len);
	ret = pt_result(pt, do_scsi_pt(pt, -1, SCSI_TIMEOUT_S, 0), sense, msg, msglen);
	if (resid)
		*resid = ret ? 0 : get_scsi_pt_resid(pt);
	destruct_scsi_pt_obj(pt);
	return ret;
}
