// SPDX-License-Identifier: MIT
/*
 * SCSI WRITE ATOMIC(16) (opcode 9Ch) through SG_IO, checked against the
 * Block Limits VPD first; sense data of a refused command becomes a sentence.
 *
 * Queued (awr_scsi_open_queue()): the sg driver's asynchronous interface on the
 * disk's /dev/sgN (drivers/scsi/sg.c sg_write() / sg_read(), sg version 3):
 * write() of a struct sg_io_hdr hands the command to the device and returns,
 * read() returns a completed one (its pack_id names our slot); the driver keeps
 * at most SG_MAX_QUEUE (16) commands of one open file in flight, so that is the
 * deepest queue. SG_IO on a block device (/dev/sdX) waits for each command.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scsi/sg.h>
#include <scsi/sg_cmds_basic.h>

#include "device/device.h"
#include "write/queue_stats.h"
#include "decide/decide.h"

#define OP_WRITE_ATOMIC16	0x9c
#define CDB_FUA			0x08
#define QUEUED_TIMEOUT_MS	60000

struct scsi_slot {
	uint64_t tag;
	uint32_t len;
	uint64_t lba;
	uint8_t cdb[16];
	uint8_t sense[64];
};

struct awr_scsi {
	int fd;
	struct awr_device *dev;
	uint32_t bs;
	int qfd;			/* /dev/sgN for the asynchronous interface, -1 unqueued */
	unsigned int depth, outstanding, nr_free;
	unsigned int free_slots[AWR_SCSI_QUEUE_MAX];
	struct scsi_slot slots[AWR_SCSI_QUEUE_MAX];
	struct awr_ring_stats stats;
	char last_error[160];		/* the sense sentence of the last failed queued command */
};

int awr_scsi_open(const char *path, unsigned int flags, struct awr_scsi **out)
{
	if (flags)
		return -EINVAL;
	return awr_scsi_open_queue(path, 0, 0, out);
}

/* The disk's sg node for the asynchronous interface: /dev/sgN, given or found through sysfs. */
static int open_sg(const struct awr_devnode *n)
{
	char node[80];
	int fd;

	if (!n->generic[0])
		return -ENODEV;		/* no sg node: the sg module is not loaded */
	awr__strjoin(node, sizeof(node), "/dev/", n->generic);
	fd = open(node, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int awr_scsi_open_queue(const char *path, unsigned int depth, unsigned int flags,
			struct awr_scsi **out)
{
	struct awr_devnode n;
	struct awr_scsi *h;
	char err[256];
	int ret;

	if (!out || flags || depth > AWR_SCSI_QUEUE_MAX)
		return -EINVAL;
	ret = awr__pt_node(path, &n);
	if (ret)
		return ret;
	if (n.kind != AWR_NODE_SCSI)
		return -ENODEV;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = h->qfd = -1;
	h->depth = depth;
	for (unsigned int i = 0; i < depth; i++)
		h->free_slots[h->nr_free++] = depth - 1 - i;
	awr__queue_stats_init(&h->stats);
	ret = awr__device_read(&n, &h->dev, err, sizeof(err));
	if (!ret && !h->dev->scsi.logical_block_size)
		ret = -ENODEV;
	if (!ret) {
		h->bs = h->dev->scsi.logical_block_size;
		h->fd = sg_cmds_open_device(n.node, false, 0);
		ret = h->fd < 0 ? h->fd : 0;
	}
	if (!ret && depth) {
		h->qfd = open_sg(&n);
		ret = h->qfd < 0 ? h->qfd : 0;
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
	if (h->qfd >= 0) {
		/* commands still in flight complete in the driver, which frees them (sg_release) */
		close(h->qfd);
	}
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

/* Check the write and fill its WRITE ATOMIC(16) CDB; the LBA in @lba. */
static int build_cdb(struct awr_scsi *h, const void *buf, size_t len, uint64_t offset, uint32_t boundary,
		     unsigned int flags, struct awr_verdict *v, uint8_t cdb[16], uint64_t *lba)
{
	int ret;

	if (!h || !buf || boundary > 0xffff)
		return -EINVAL;
	ret = (flags & AWR_PT_NOCHECK) ? awr__scsi_pt_shape(&h->dev->scsi, len, offset, v) :
					  awr_scsi_check(h, len, offset, boundary, v);
	if (ret)
		return ret;
	*lba = offset / h->bs;
	boundary = awr__scsi_boundary(&h->dev->scsi, len / h->bs, boundary);
	memset(cdb, 0, 16);
	cdb[0] = OP_WRITE_ATOMIC16;
	cdb[1] = (flags & AWR_PT_FUA) ? CDB_FUA : 0;
	for (int i = 0; i < 8; i++)
		cdb[2 + i] = (uint8_t)(*lba >> (56 - 8 * i));
	cdb[10] = (uint8_t)(boundary >> 8);
	cdb[11] = (uint8_t)boundary;
	cdb[12] = (uint8_t)((len / h->bs) >> 8);
	cdb[13] = (uint8_t)(len / h->bs);
	return 0;
}

ssize_t awr_scsi_write(struct awr_scsi *h, const void *buf, size_t len, uint64_t offset,
		       uint32_t boundary, unsigned int flags, struct awr_verdict *v)
{
	uint8_t cdb[16];
	uint64_t lba;
	char msg[160] = "";
	int ret = build_cdb(h, buf, len, offset, boundary, flags, v, cdb, &lba);

	if (ret)
		return ret;
	if (h->outstanding)
		return -EBUSY;
	ret = awr__scsi_cdb(h->fd, cdb, 16, (void *)buf, (int)len, true, NULL, msg, sizeof(msg));
	if (ret == -EIO)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_ERROR, "the device refused WRITE ATOMIC(16) of %zu blocks at LBA %" PRIu64 ": %s%s",
				       len / h->bs, lba, msg, cdb_field(msg));
	return ret ? ret : (ssize_t)len;
}

int awr_scsi_queue_write(struct awr_scsi *h, const void *buf, size_t len, uint64_t offset,
			 uint32_t boundary, uint64_t tag, unsigned int flags, struct awr_verdict *v)
{
	struct scsi_slot *s;
	struct sg_io_hdr hdr;
	unsigned int slot;
	uint64_t lba;
	uint8_t cdb[16];
	int ret = build_cdb(h, buf, len, offset, boundary, flags, v, cdb, &lba);

	if (ret)
		return ret;
	if (h->qfd < 0)
		return -EINVAL;		/* opened without a queue */
	if (!h->nr_free)
		return -EBUSY;
	slot = h->free_slots[h->nr_free - 1];
	s = &h->slots[slot];
	*s = (struct scsi_slot){ .tag = tag, .len = (uint32_t)len, .lba = lba };
	memcpy(s->cdb, cdb, sizeof(cdb));
	memset(&hdr, 0, sizeof(hdr));
	hdr.interface_id = 'S';
	hdr.dxfer_direction = SG_DXFER_TO_DEV;
	hdr.cmd_len = sizeof(s->cdb);
	hdr.cmdp = s->cdb;
	hdr.mx_sb_len = sizeof(s->sense);
	hdr.sbp = s->sense;
	hdr.dxfer_len = (unsigned int)len;
	hdr.dxferp = (void *)buf;
	hdr.timeout = QUEUED_TIMEOUT_MS;
	hdr.pack_id = (int)slot;
	h->stats.submit_calls++;
	if (write(h->qfd, &hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr))
		return errno == EDOM ? -EBUSY : -errno;	/* EDOM: the driver's queue is full */
	h->nr_free--;
	h->outstanding++;
	h->stats.submitted++;
	return 0;
}

/* One completed command read back from the driver into @out. */
static int take_one(struct awr_scsi *h, struct awr_completion *out)
{
	struct sg_io_hdr hdr;
	struct scsi_slot *s;
	char msg[128] = "";
	unsigned int slot;
	ssize_t r;

	memset(&hdr, 0, sizeof(hdr));
	hdr.interface_id = 'S';
	do
		r = read(h->qfd, &hdr, sizeof(hdr));
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(hdr))
		return r < 0 ? -errno : -EIO;
	slot = (unsigned int)hdr.pack_id;
	if (slot >= h->depth)
		return -EIO;
	s = &h->slots[slot];
	out->tag = s->tag;
	out->rule = AWR_RULE_OK;
	out->res = (int32_t)s->len;
	if ((hdr.info & SG_INFO_OK_MASK) != SG_INFO_OK) {
		out->res = -EIO;
		out->rule = AWR_RULE_DEVICE_ERROR;
		if (hdr.sb_len_wr)
			awr__scsi_sense_sentence(s->sense, hdr.sb_len_wr, msg, sizeof(msg));
		else
			snprintf(msg, sizeof(msg), "SCSI status 0x%02x, host 0x%x, driver 0x%x", hdr.status,
				 hdr.host_status, hdr.driver_status);
		snprintf(h->last_error, sizeof(h->last_error), "WRITE ATOMIC(16) at LBA %" PRIu64 ": %s%s",
			 s->lba, msg, cdb_field(msg));
	}
	h->free_slots[h->nr_free++] = slot;
	h->outstanding--;
	h->stats.completed++;
	return 0;
}

int awr_scsi_reap(struct awr_scsi *h, struct awr_completion *out, unsigned int max, unsigned int wait_nr)
{
	unsigned int n = 0;
	int ret = 0;

	if (!h || (!out && max) || h->qfd < 0)
		return -EINVAL;
	if (wait_nr > max)
		wait_nr = max;
	if (wait_nr > h->outstanding)
		wait_nr = h->outstanding;
	/* every queued command is in the driver: write() handed it over */
	awr__queue_note(&h->stats, h->outstanding, h->depth);
	while (n < max && h->outstanding) {
		struct pollfd p = { .fd = h->qfd, .events = POLLIN };

		if (n >= wait_nr) {
			ret = poll(&p, 1, 0);
			if (ret <= 0) {
				ret = ret < 0 && errno != EINTR ? -errno : 0;
				break;
			}
		}
		ret = take_one(h, &out[n]);
		if (ret)
			break;
		n++;
	}
	return ret && !n ? ret : (int)n;
}

void awr_scsi_stats(const struct awr_scsi *h, struct awr_ring_stats *out)
{
	if (!h || !out)
		return;
	awr__queue_stats_copy(&h->stats, out);
}

const char *awr_scsi_last_error(const struct awr_scsi *h)
{
	return h && h->last_error[0] ? h->last_error : NULL;
}
