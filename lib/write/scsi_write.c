// SPDX-License-Identifier: MIT
/*
 * SCSI WRITE ATOMIC(16) (opcode 9Ch) through SG_IO, checked against the
 * Block Limits VPD first; sense data of a refused command becomes a sentence.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scsi/sg_cmds_basic.h>

#include "device/device.h"

#define OP_WRITE_ATOMIC16	0x9c
#define CDB_FUA			0x08

struct awr_scsi {
	int fd;
	struct awr_device *dev;
	uint32_t bs;
};

int awr_scsi_open(const char *path, unsigned int flags, struct awr_scsi **out)
{
	struct awr_devnode n;
	struct awr_scsi *h;
	char err[256];
	int ret;

	(void)flags;
	if (!out)
		return -EINVAL;
	ret = awr__pt_node(path, &n);
	if (ret)
		return ret;
	if (n.kind != AWR_NODE_SCSI)
		return -ENODEV;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = -1;
	ret = awr__device_read(&n, &h->dev, err, sizeof(err));
	if (!ret && !h->dev->scsi.logical_block_size)
		ret = -ENODEV;
	if (!ret) {
		h->bs = h->dev->scsi.logical_block_size;
		h->fd = sg_cmds_open_device(n.node, false, 0);
		ret = h->fd < 0 ? h->fd : 0;
	}
	if (ret) {
		awr_scsi_close(h);
		return ret;
	}
	*out = h;
	return 0;
}

void awr_scsi_close(struct awr_scsi *h)
{
	if (!h)
		return;
	if (h->fd >= 0)
		sg_cmds_close_device(h->fd);
	awr_device_free(h->dev);
	free(h);
}

const struct awr_device *awr_scsi_device(const struct awr_scsi *h)
{
	return h->dev;
}

int awr_scsi_check(const struct awr_scsi *h, size_t len, uint64_t offset, uint32_t boundary,
		   struct awr_verdict *v)
{
	if (!h)
		return -EINVAL;
	return awr__scsi_pt_check(&h->dev->scsi, len, offset, boundary, v);
}

/* Which CDB field a field pointer names, for the sentence. */
static const char *cdb_field(const char *msg)
{
	const char *p = strstr(msg, "CDB byte ");
	int byte = p ? atoi(p + 9) : -1;

	if (byte >= 2 && byte <= 9)
		return ": the LOGICAL BLOCK ADDRESS (checked against the atomic alignment)";
	if (byte == 10 || byte == 11)
		return ": the ATOMIC BOUNDARY";
	if (byte == 12 || byte == 13)
		return ": the TRANSFER LENGTH (checked against the granularity and maximum)";
	return "";
}

ssize_t awr_scsi_write(struct awr_scsi *h, const void *buf, size_t len, uint64_t offset,
		       uint32_t boundary, unsigned int flags, struct awr_verdict *v)
{
	uint8_t cdb[16] = { OP_WRITE_ATOMIC16 };
	uint64_t lba;
	char msg[160] = "";
	int ret;

	if (!h || !buf || boundary > 0xffff)
		return -EINVAL;
	ret = (flags & AWR_PT_NOCHECK) ? awr__scsi_pt_shape(&h->dev->scsi, len, offset, v) :
					  awr_scsi_check(h, len, offset, boundary, v);
	if (ret)
		return ret;
	lba = offset / h->bs;
	boundary = awr__scsi_boundary(&h->dev->scsi, len / h->bs, boundary);
	cdb[1] = (flags & AWR_PT_FUA) ? CDB_FUA : 0;
	for (int i = 0; i < 8; i++)
		cdb[2 + i] = (uint8_t)(lba >> (56 - 8 * i));
	cdb[10] = (uint8_t)(boundary >> 8);
	cdb[11] = (uint8_t)boundary;
	cdb[12] = (uint8_t)((len / h->bs) >> 8);
	cdb[13] = (uint8_t)(len / h->bs);
	ret = awr__scsi_cdb(h->fd, cdb, sizeof(cdb), (void *)buf, (int)len, true, NULL, msg, sizeof(msg));
	if (ret == -EIO)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_ERROR, "the device refused WRITE ATOMIC(16) of %zu blocks at LBA %" PRIu64 ": %s%s",
				       len / h->bs, lba, msg, cdb_field(msg));
	return ret ? ret : (ssize_t)len;
}
