// SPDX-License-Identifier: MIT
/*
 * NVMe passthrough writes through io_uring uring_cmd on /dev/ngXnY. An NVMe
 * Write has no "atomic" bit: it is untorn across power failure only when it
 * is within (N)AWUPF blocks and crosses no NABSPF boundary (counted from
 * NABO), and the device does not refuse a larger one. So the library does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libnvme.h>
#include <liburing.h>

#include "device/device.h"
#include "device/nvme_format.h"

#define NVME_CMD_WRITE	0x01
#define NVME_RW_FUA	(1U << 30)

struct awr_nvme {
	int fd;
	struct io_uring ring;
	struct awr_device *dev;
	uint32_t bs;
	struct awr__nvme_format fmt;	/* the LBA format in use: metadata, PI */
};

static int nvme_setup(struct awr_nvme *h, const struct awr_devnode *n)
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
	ret = io_uring_queue_init(4, &h->ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret) {
		close(h->fd);
		h->fd = -1;
		return ret == -EINVAL ? -EOPNOTSUPP : ret;
	}
	return 0;
}

/*
 * The in-use LBA format's metadata size, extended-LBA flag and protection
 * information (DPS), from Identify Namespace on the open node: the checks
 * refuse a format with metadata or PI before any write.
 */
static int read_format(struct awr_nvme *h)
{
	struct nvme_id_ns ns;
	int ret;

	_Static_assert(sizeof(ns) == AWR_NVME_ID_SIZE, "identify namespace is 4096 bytes");
	ret = nvme_identify_ns(h->fd, h->dev->nvme.nsid, &ns);
	if (ret)
		return ret > 0 ? -EIO : -errno;
	return awr__nvme_decode_format(&ns, sizeof(ns), &h->fmt);
}

int awr_nvme_open(const char *path, unsigned int flags, struct awr_nvme **out)
{
	struct awr_devnode n;
	struct awr_nvme *h;
	int ret;

	(void)flags;
	if (!out)
		return -EINVAL;
	ret = awr__pt_node(path, &n);
	if (ret)
		return ret;
	if (n.kind != AWR_NODE_NVME_NS || !n.generic[0])
		return -ENODEV;
	awr__strjoin(n.node, sizeof(n.node), "/dev/", n.generic);	/* the char device */
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = -1;
	ret = nvme_setup(h, &n);
	if (!ret)
		ret = read_format(h);
	if (ret) {
		awr_nvme_close(h);
		return ret;
	}
	*out = h;
	return 0;
}

void awr_nvme_close(struct awr_nvme *h)
{
	if (!h)
		return;
	if (h->fd >= 0) {
		io_uring_queue_exit(&h->ring);
		close(h->fd);
	}
	awr_device_free(h->dev);
	free(h);
}

const struct awr_device *awr_nvme_device(const struct awr_nvme *h)
{
	return h->dev;
}

static int check_blocks(const struct awr_nvme *h, size_t len, uint64_t offset, struct awr_verdict *v)
{
	return awr__pt_check_blocks(len, offset, h->bs, h->dev->nvme.nsze, v);
}

int awr_nvme_check(const struct awr_nvme *h, size_t len, uint64_t offset, struct awr_verdict *v)
{
	int ret;

	if (!h)
		return -EINVAL;
	ret = awr__nvme_pt_format(&h->fmt, v);
	return ret ? ret : awr__nvme_pt_check(&h->dev->nvme, len, offset, v);
}

static int submit(struct awr_nvme *h, const struct awr_nvme_uring_cmd *cmd, struct awr_verdict *v)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&h->ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, h->fd, NULL, 0, 0);
	sqe->cmd_op = AWR_NVME_URING_CMD_IO;
	memcpy(sqe->cmd, cmd, sizeof(*cmd));
	ret = io_uring_submit(&h->ring);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(&h->ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&h->ring, cqe);
	if (ret > 0)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_ERROR,
				       "the device failed the NVMe Write: status 0x%x (status code type %d, status code 0x%02x)",
				       ret, (ret >> 8) & 7, ret & 0xff);
	return ret;
}

ssize_t awr_nvme_write(struct awr_nvme *h, const void *buf, size_t len, uint64_t offset,
		       unsigned int flags, struct awr_verdict *v)
{
	struct awr_nvme_uring_cmd cmd = { 0 };
	uint64_t slba;
	int ret;

	if (!h || !buf)
		return -EINVAL;
	ret = awr__nvme_pt_format(&h->fmt, v);	/* also unchecked: the command's shape depends on it */
	if (!ret)
		ret = (flags & AWR_PT_NOCHECK) ? check_blocks(h, len, offset, v) : awr_nvme_check(h, len, offset, v);
	if (ret)
		return ret;
	if (len / h->bs > 0x10000 || len > UINT32_MAX)
		return awr__pt_verdict(v, AWR_RULE_DEVICE_LIMIT,
				       "%zu blocks exceed the 65536 one NVMe Write can carry", len / h->bs);
	slba = offset / h->bs;
	cmd.opcode = NVME_CMD_WRITE;
	cmd.nsid = h->dev->nvme.nsid;
	cmd.addr = (uint64_t)(uintptr_t)buf;
	cmd.data_len = (uint32_t)len;
	cmd.cdw10 = (uint32_t)slba;
	cmd.cdw11 = (uint32_t)(slba >> 32);
	cmd.cdw12 = (uint32_t)(len / h->bs - 1) | ((flags & AWR_PT_FUA) ? NVME_RW_FUA : 0);
	ret = submit(h, &cmd, v);
	return ret ? ret : (ssize_t)len;
}
