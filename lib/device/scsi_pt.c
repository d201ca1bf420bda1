// SPDX-License-Identifier: MIT
/* One SCSI command through the sg_pt API (SG_IO), with sense data turned into a sentence. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>

#include "device.h"

#define SCSI_TIMEOUT_S	60

/*
 * Sense data as SPC lays it out, read only within @len and within the
 * ADDITIONAL SENSE LENGTH it gives (byte 7): fixed format (70h/71h) and
 * descriptor format (72h/73h).
 */
struct sense {
	uint8_t key, asc, ascq;
	bool have_fp;		/* a valid sense-key specific field pointer */
	bool in_cdb;		/* it points into the CDB (C/D bit) */
	uint16_t fp;
};

/* The sense-key specific bytes (3): SKSV, C/D, then the field pointer. */
static void sense_key_specific(const uint8_t *sks, struct sense *out)
{
	if (!(sks[0] & 0x80))
		return;
	out->have_fp = true;
	out->in_cdb = sks[0] & 0x40;
	out->fp = (uint16_t)(sks[1] << 8 | sks[2]);
}

/* Descriptors from byte 8 to @end: the sense-key specific one (type 02h) when it is whole. */
static void sense_descriptors(const uint8_t *b, size_t end, struct sense *out)
{
	for (size_t k = 8; k + 2 <= end; ) {
		size_t dlen = 2 + (size_t)b[k + 1];

		if (dlen > end - k)
			return;		/* cut short: not read */
		if (b[k] == 0x02 && dlen >= 7)
			sense_key_specific(b + k + 4, out);
		k += dlen;
	}
}

/* Return: false when @b is not sense data. */
static bool sense_parse(const uint8_t *b, int len, struct sense *out)
{
	size_t n = len > 0 ? (size_t)len : 0, end;
	uint8_t rc;

	memset(out, 0, sizeof(*out));
	if (!b || n < 1)
		return false;
	rc = b[0] & 0x7f;
	if (rc < 0x70 || rc > 0x73)
		return false;
	end = n >= 8 ? 8 + (size_t)b[7] : n;	/* what the data says it holds ... */
	if (end > n)
		end = n;			/* ... within what arrived */
	if (rc <= 0x71) {			/* fixed */
		if (end < 3)
			return false;
		out->key = b[2] & 0x0f;
		out->asc = end > 12 ? b[12] : 0;
		out->ascq = end > 13 ? b[13] : 0;
		if (end >= 18)
			sense_key_specific(b + 15, out);
		return true;
	}
	if (end < 4)				/* descriptor */
		return false;
	out->key = b[1] & 0x0f;
	out->asc = b[2];
	out->ascq = b[3];
	sense_descriptors(b, end, out);
	return true;
}

void awr__scsi_sense_sentence(const uint8_t *sense, int len, char *msg, size_t msglen)
{
	char key[64], asc[128];
	struct sense h;
	const char *text;

	if (!sense_parse(sense, len, &h)) {
		snprintf(msg, msglen, "CHECK CONDITION without readable sense data");
		return;
	}
	sg_get_sense_key_str(h.key, sizeof(key), key);
	sg_get_asc_ascq_str(h.asc, h.ascq, sizeof(asc), asc);
	text = strncmp(asc, "Additional sense: ", 18) ? asc : asc + 18;
	if (h.have_fp && h.in_cdb)
		snprintf(msg, msglen, "%s: %s (ASC/ASCQ %02Xh/%02Xh), CDB byte %d",
			 key, text, h.asc, h.ascq, h.fp);
	else
		snprintf(msg, msglen, "%s: %s (ASC/ASCQ %02Xh/%02Xh)", key, text, h.asc, h.ascq);
}

static int pt_result(struct sg_pt_base *pt, int ret, const uint8_t *sense, int sense_cap,
		     char *msg, size_t msglen)
{
	int sense_len;

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
		sense_len = get_scsi_pt_sense_len(pt);
		awr__scsi_sense_sentence(sense, sense_len < sense_cap ? sense_len : sense_cap, msg,
					 msglen);
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
	ret = pt_result(pt, do_scsi_pt(pt, -1, SCSI_TIMEOUT_S, 0), sense, (int)sizeof(sense), msg,
			msglen);
	if (resid)
		*resid = ret ? 0 : get_scsi_pt_resid(pt);
	destruct_scsi_pt_obj(pt);
	return ret;
}
