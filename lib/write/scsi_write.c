// SPDX-License-Identifier: MIT
/*
 * The queue's SCSI engine: WRITE ATOMIC(16) (opcode 9Ch), checked against the
 * Block Limits VPD read at open; sense data of a failed command becomes a
 * sentence (awr_last_error()).
 *
 * With a depth: the sg driver's asynchronous interface on the disk's /dev/sgN
 * (drivers/scsi/sg.c sg_write() / sg_read(), sg version 3): write() of a
 * struct sg_io_hdr hands the command to the device and returns, read() returns
 * a completed one (its pack_id names the slot); the driver keeps at most
 * SG_MAX_QUEUE (16) commands of one open file in flight, so that is the
 * deepest queue. Depth 0: SG_IO, which waits for each command (also on a
 * block device /dev/sdX without the sg module); the next reap returns it.
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

#include "decide/decide.h"
#include "device/device.h"
#include "write/queue.h"

#define OP_WRITE_ATOMIC16	0x9c
#define CDB_FUA			0x08
#define QUEUED_TIMEOUT_MS	60000

struct scsi_slot {
	uint64_t lba;
	uint8_t cdb[16];
	uint8_t sense[64];
};

struct scsi {
	int fd;
	struct awr_device *dev;
	uint32_t bs;
	int qfd;			/* /dev/sgN for the asynchronous interface, -1 unqueued */
	struct scsi_slot *slots;	/* by the queue's slot */
};

/* The disk's sg node for the asynchronous interface: /dev/sgN, given or found through sysfs. */
static int open_sg(const struct awr_devnode *n)
{
	char node[80];
	int fd;

	if (!n->generic[0])		/* no sg node: the sg module is not loaded */
		return awr__fail(-ENODEV, "%s has no sg node for a queue (use /dev/sgN or "
				 "/dev/sdX; the sg module must be loaded)", n->node);
	awr__strjoin(node, sizeof(node), "/dev/", n->generic);
	fd = open(node, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
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

static int scsi_check(const struct awr_queue *q, const void *buf, size_t len, uint64_t off,
		      unsigned int flags, struct awr_verdict *v)
{
	const struct awr_scsi_id *s = &((const struct scsi *)q->priv)->dev->scsi;

	(void)buf;
	if (flags & (AWR_WRITE_PLAIN | AWR_WRITE_FIXED))
		return -EINVAL;
	if (flags & AWR_WRITE_NOCHECK)
		return awr__scsi_pt_shape(s, len, off, NULL) ?
		       awr__scsi_pt_shape(s, len, off, v) : 0;
	return awr__scsi_pt_check(s, len, off, 0, NULL) ?
	       awr__scsi_pt_check(s, len, off, 0, v) : 0;
}

/* The WRITE ATOMIC(16) CDB of @len bytes at @off, ATOMIC BOUNDARY 0 (the whole write one unit). */
static void build_cdb(const struct scsi *h, struct scsi_slot *s, size_t len, uint64_t off,
		      unsigned int flags)
{
	uint32_t boundary = awr__scsi_boundary(&h->dev->scsi, len / h->bs, 0);

	s->lba = off / h->bs;
	memset(s->cdb, 0, sizeof(s->cdb));
	s->cdb[0] = OP_WRITE_ATOMIC16;
	s->cdb[1] = (flags & AWR_WRITE_DSYNC) ? CDB_FUA : 0;
	for (int i = 0; i < 8; i++)
		s->cdb[2 + i] = (uint8_t)(s->lba >> (56 - 8 * i));
	s->cdb[10] = (uint8_t)(boundary >> 8);
	s->cdb[11] = (uint8_t)boundary;
	s->cdb[12] = (uint8_t)((len / h->bs) >> 8);
	s->cdb[13] = (uint8_t)(len / h->bs);
}

/* Without a queue: SG_IO waits for the command, the next reap returns it. */
static void write_now(struct awr_queue *q, unsigned int slot, const void *buf, size_t len)
{
	struct scsi *h = q->priv;
	struct scsi_slot *s = &h->slots[slot];
	char msg[160] = "";
	int ret;

	q->stats.submit_calls++;
	ret = awr__scsi_cdb(h->fd, s->cdb, 16, (void *)buf, (int)len, true, NULL, msg,
			    sizeof(msg));
	q->stats.submitted++;
	q->stats.completed++;
	if (ret == -EIO) {
		awr__fail(-EIO, "the device refused WRITE ATOMIC(16) of %zu blocks at LBA %" PRIu64
			  ": %s%s", len / h->bs, s->lba, msg, cdb_field(msg));
		awr__queue_done(q, slot, -EIO, AWR_RULE_DEVICE_ERROR);
		return;
	}
	awr__queue_done(q, slot, ret ? ret : (int32_t)len, AWR_RULE_OK);
}

static int scsi_prep(struct awr_queue *q, unsigned int slot, const void *buf, size_t len,
		     uint64_t off, unsigned int flags)
{
	struct scsi *h = q->priv;
	struct scsi_slot *s = &h->slots[slot];
	struct sg_io_hdr hdr = {
		.interface_id = 'S', .dxfer_direction = SG_DXFER_TO_DEV,
		.cmd_len = sizeof(s->cdb), .cmdp = s->cdb,
		.mx_sb_len = sizeof(s->sense), .sbp = s->sense,
		.dxfer_len = (unsigned int)len, .dxferp = (void *)buf,
		.timeout = QUEUED_TIMEOUT_MS, .pack_id = (int)slot,
	};

	build_cdb(h, s, len, off, flags);
	if (h->qfd < 0) {
		write_now(q, slot, buf, len);
		return 0;
	}
	q->stats.submit_calls++;
	if (write(h->qfd, &hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr))
		return errno == EDOM ? -EBUSY : -errno;	/* EDOM: the driver's queue is full */
	q->stats.submitted++;
	return 0;
}

/* Every queued command is in the driver: write() handed it over. */
static int scsi_enter(struct awr_queue *q, unsigned int need)
{
	(void)q;
	(void)need;
	return 0;
}

static void failed(const struct scsi_slot *s, const struct sg_io_hdr *hdr)
{
	char msg[128] = "";

	if (hdr->sb_len_wr)
		awr__scsi_sense_sentence(s->sense, hdr->sb_len_wr, msg, sizeof(msg));
	else
		snprintf(msg, sizeof(msg), "SCSI status 0x%02x, host 0x%x, driver 0x%x",
			 hdr->status, hdr->host_status, hdr->driver_status);
	awr__fail(-EIO, "WRITE ATOMIC(16) at LBA %" PRIu64 ": %s%s", s->lba, msg, cdb_field(msg));
}

/* One completed command read back from the driver into @out. */
static int take_one(struct awr_queue *q, struct awr_completion *out)
{
	struct scsi *h = q->priv;
	struct sg_io_hdr hdr = { .interface_id = 'S' };
	unsigned int slot;
	ssize_t r;

	do
		r = read(h->qfd, &hdr, sizeof(hdr));
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(hdr))
		return r < 0 ? -errno : -EIO;
	slot = (unsigned int)hdr.pack_id;
	if (slot >= q->depth)
		return -EIO;
	out->tag = slot;
	out->rule = AWR_RULE_OK;
	out->res = (int32_t)q->slots[slot].len;
	if ((hdr.info & SG_INFO_OK_MASK) != SG_INFO_OK) {
		out->res = -EIO;
		out->rule = AWR_RULE_DEVICE_ERROR;
		failed(&h->slots[slot], &hdr);
	}
	q->stats.completed++;
	return 0;
}

/* Block for @need completions, then take those already done without waiting. */
static int scsi_take(struct awr_queue *q, struct awr_completion *out, unsigned int max,
		     unsigned int need)
{
	struct scsi *h = q->priv;
	unsigned int n = 0;
	int ret = 0;

	while (h->qfd >= 0 && n < max && n < q->outstanding) {
		struct pollfd p = { .fd = h->qfd, .events = POLLIN };

		if (n >= need) {
			ret = poll(&p, 1, 0);
			if (ret <= 0) {
				ret = ret < 0 && errno != EINTR ? -errno : 0;
				break;
			}
		}
		ret = take_one(q, &out[n]);
		if (ret)
			break;
		n++;
	}
	return ret && !n ? ret : (int)n;
}

static unsigned int scsi_none(const struct awr_queue *q)
{
	(void)q;
	return 0;
}

static const struct awr_device *scsi_device(const struct awr_queue *q)
{
	return ((const struct scsi *)q->priv)->dev;
}

static void scsi_close(struct awr_queue *q)
{
	struct scsi *h = q->priv;

	if (!h)
		return;
	if (h->fd >= 0)
		sg_cmds_close_device(h->fd);
	if (h->qfd >= 0)
		close(h->qfd);	/* commands in flight complete in the driver, which frees them */
	awr_device_free(h->dev);
	free(h->slots);
	free(h);
}

static const struct awr__queue_ops scsi_ops = {
	.check = scsi_check,
	.prep = scsi_prep,
	.enter = scsi_enter,
	.take = scsi_take,
	.ready = scsi_none,
	.unsent = scsi_none,
	.device = scsi_device,
	.close = scsi_close,
};

static int scsi_setup(struct scsi *h, const struct awr_devnode *n, unsigned int depth)
{
	char err[256];
	int ret = awr__device_read(n, &h->dev, err, sizeof(err));

	if (ret)
		return ret;
	if (!h->dev->scsi.logical_block_size)
		return -ENODEV;
	h->bs = h->dev->scsi.logical_block_size;
	h->fd = sg_cmds_open_device(n->node, false, 0);
	if (h->fd < 0)
		return h->fd;
	if (!depth)
		return 0;
	h->qfd = open_sg(n);
	return h->qfd < 0 ? h->qfd : 0;
}

int awr__scsi_open(struct awr_queue *q, const char *path, unsigned int depth)
{
	struct awr_devnode n;
	struct scsi *h;
	int ret = awr__pt_node(path, &n);

	if (ret)
		return ret;
	if (n.kind != AWR_NODE_SCSI)
		return awr__fail(-ENODEV, "%s is not a SCSI device (use /dev/sgN or /dev/sdX)",
				 path);
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = h->qfd = -1;
	q->priv = h;
	q->ops = &scsi_ops;
	h->slots = calloc(q->depth, sizeof(*h->slots));
	if (!h->slots)
		return -ENOMEM;
	return scsi_setup(h, &n, depth);
}
