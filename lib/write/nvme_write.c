// SPDX-License-Identifier: MIT
/*
 * The queue's NVMe passthrough engine: NVMe Writes through io_uring uring_cmd
 * on /dev/ngXnY. An NVMe Write has no "atomic" bit: it is untorn across power
 * failure only when it is within (N)AWUPF blocks and crosses no NABSPF
 * boundary (counted from NABO), and the device does not refuse a larger one.
 * So the library does.
 *
 * At open the identify data and the LBA format in use are read; a format with
 * metadata or protection information refuses every write (the command would
 * carry data only). The ring (IORING_SETUP_SQE128 | CQE32, in liburing since
 * 2.2) holds the queue's depth of commands (ring.c hands them over and waits).
 *
 * The kernel side (drivers/nvme/host/ioctl.c, Linux 5.19 to 6.18):
 * nvme_uring_cmd_checks() refuses a ring without SQE128 and CQE32
 * (-EOPNOTSUPP); nvme_uring_cmd_end_io() completes the CQE with the NVMe
 * status (> 0) or a negative errno, 0 when the command succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libnvme.h>
#include <liburing.h>

#include "device/device.h"
#include "decide/decide.h"
#include "device/nvme_format.h"
#include "write/queue.h"

#define NVME_CMD_WRITE	0x01
#define NVME_RW_FUA	(1U << 30)

struct nvme {
	struct io_uring ring;		/* first: the ops of ring.c */
	int fd;
	struct awr_device *dev;
	uint32_t bs;
	struct awr__nvme_format fmt;	/* the LBA format in use: metadata, PI */
	bool fmt_refused;		/* metadata or PI: every write refused */
};

static const unsigned int nvme_tries[] = { IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };

static int nvme_check(const struct awr_queue *q, const void *buf, size_t len, uint64_t off,
		      unsigned int flags, struct awr_verdict *v)
{
	const struct nvme *h = q->priv;
	const struct awr_nvme_id *id = &h->dev->nvme;

	(void)buf;
	if (flags & (AWR_WRITE_PLAIN | AWR_WRITE_FIXED))
		return -EINVAL;
	if (h->fmt_refused)
		return awr__nvme_pt_format(&h->fmt, v);
	if (flags & AWR_WRITE_NOCHECK) {
		if (awr__pt_check_blocks(len, off, h->bs, id->nsze, NULL))
			return awr__pt_check_blocks(len, off, h->bs, id->nsze, v);
	} else if (awr__nvme_pt_check(id, len, off, NULL)) {
		return awr__nvme_pt_check(id, len, off, v);
	}
	if (len / h->bs > 0x10000 || len > UINT32_MAX)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_LIMIT,
				       "%zu blocks exceed the 65536 one NVMe Write can carry",
				       len / h->bs);
	return 0;
}

/* One URING_CMD SQE with the NVMe Write of @len bytes at @off. */
static int nvme_prep(struct awr_queue *q, unsigned int slot, const void *buf, size_t len,
		     uint64_t off, unsigned int flags)
{
	struct nvme *h = q->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&h->ring);
	struct awr_nvme_uring_cmd *cmd;
	uint64_t slba = off / h->bs;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, h->fd, NULL, 0, 0);
	sqe->cmd_op = AWR_NVME_URING_CMD_IO;
	cmd = (struct awr_nvme_uring_cmd *)sqe->cmd;
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = NVME_CMD_WRITE;
	cmd->nsid = h->dev->nvme.nsid;
	cmd->addr = (uint64_t)(uintptr_t)buf;
	cmd->data_len = (uint32_t)len;
	cmd->cdw10 = (uint32_t)slba;
	cmd->cdw11 = (uint32_t)(slba >> 32);
	cmd->cdw12 = (uint32_t)(len / h->bs - 1) | ((flags & AWR_WRITE_DSYNC) ? NVME_RW_FUA : 0);
	io_uring_sqe_set_data64(sqe, slot);
	return 0;
}

/* The NVMe status of a failed command as a sentence (NVMe base spec, CQE DW3). */
static void device_error(int status)
{
	awr__fail(-EIO, "the device failed the NVMe Write: status 0x%x (status code type %d, "
		  "status code 0x%02x)", status, (status >> 8) & 7, status & 0xff);
}

/* A CQE's res: the NVMe status (> 0: -EIO, the device's error) or an errno; 0 is the length. */
static int nvme_take(struct awr_queue *q, struct awr_completion *out, unsigned int max,
		     unsigned int need)
{
	int n = awr__ring_take(q, out, max, need);

	for (int i = 0; i < n; i++) {
		int res = out[i].res;

		out[i].res = res < 0 ? res : res > 0 ? -EIO : (int32_t)q->slots[out[i].tag].len;
		out[i].rule = res > 0 ? AWR_RULE_DEVICE_ERROR : AWR_RULE_OK;
		if (res > 0)
			device_error(res);
	}
	return n;
}

static void nvme_close(struct awr_queue *q)
{
	struct nvme *h = q->priv;

	if (!h)
		return;
	if (h->fd >= 0) {
		io_uring_queue_exit(&h->ring);
		close(h->fd);
	}
	awr_device_free(h->dev);
	free(h);
}

static const struct awr_device *nvme_device(const struct awr_queue *q)
{
	return ((const struct nvme *)q->priv)->dev;
}

static const struct awr__queue_ops nvme_ops = {
	.check = nvme_check,
	.prep = nvme_prep,
	.enter = awr__ring_enter,
	.take = nvme_take,
	.ready = awr__ring_ready,
	.unsent = awr__ring_unsent,
	.device = nvme_device,
	.close = nvme_close,
};

static int nvme_setup(struct awr_queue *q, struct nvme *h, const struct awr_devnode *n)
{
	char err[256];
	int ret = awr__device_read(n, &h->dev, err, sizeof(err));

	if (ret)
		return ret;
	if (!h->dev->nvme.have_ns || !h->dev->nvme.have_ctrl)
		return -ENODEV;
	h->bs = h->dev->nvme.lba_size;
	h->fd = open(n->node, O_RDWR | O_CLOEXEC);
	if (h->fd < 0)
		return -errno;
	ret = awr__ring_setup(q, &h->ring, nvme_tries, 1);
	if (ret) {
		close(h->fd);
		h->fd = -1;
		return ret == -EINVAL ? -EOPNOTSUPP : ret;
	}
	return 0;
}

/*
 * The in-use LBA format's metadata size, extended-LBA flag and protection
 * information (DPS), from Identify Namespace on the open node: a format with
 * metadata or PI refuses every write.
 */
static int read_format(struct nvme *h)
{
	struct nvme_id_ns ns;
	int ret;

	_Static_assert(sizeof(ns) == AWR_NVME_ID_SIZE, "identify namespace is 4096 bytes");
	ret = awr__nvme_identify_ns(h->fd, h->dev->nvme.nsid, &ns, sizeof(ns));
	if (!ret)
		ret = awr__nvme_decode_format(&ns, sizeof(ns), &h->fmt);
	if (!ret)
		h->fmt_refused = awr__nvme_pt_format(&h->fmt, NULL) != 0;
	return ret;
}

int awr__nvme_open(struct awr_queue *q, const char *path)
{
	struct awr_devnode n;
	struct nvme *h;
	int ret = awr__pt_node(path, &n);

	if (ret)
		return ret;
	if (n.kind != AWR_NODE_NVME_NS || !n.generic[0])
		return awr__fail(-ENODEV, "%s is not an NVMe namespace (use /dev/ngXnY or "
				 "/dev/nvmeXnY)", path);
	awr__strjoin(n.node, sizeof(n.node), "/dev/", n.generic);	/* the char device */
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = -1;
	q->priv = h;
	q->ops = &nvme_ops;
	ret = nvme_setup(q, h, &n);
	return ret ? ret : read_format(h);
}
