// SPDX-License-Identifier: MIT
/*
 * NVMe passthrough writes through io_uring uring_cmd on /dev/ngXnY. An NVMe
 * Write has no "atomic" bit: it is untorn across power failure only when it
 * is within (N)AWUPF blocks and crosses no NABSPF boundary (counted from
 * NABO), and the device does not refuse a larger one. So the library does.
 *
 * awr_nvme_queue_write() and awr_nvme_reap() keep up to the handle's depth
 * (awr_nvme_open_queue(), at most AWR_NVME_QUEUE_MAX) commands in flight on its
 * ring of that size (IORING_SETUP_SQE128 | CQE32, in liburing since 2.2): as
 * awr_ring_reap() does, each reap hands the commands queued since the last call
 * to the kernel in the same io_uring_enter() that waits, and counts the commands
 * in the kernel at that moment against the depth. With AWR_RING_SUBMIT_EACH each
 * command is submitted as it is queued, as the RWF_ATOMIC engine's ring does.
 *
 * The kernel side (drivers/nvme/host/ioctl.c, Linux 5.19 to 6.18):
 * nvme_uring_cmd_checks() refuses a ring without SQE128 and CQE32
 * (-EOPNOTSUPP); nvme_uring_cmd_end_io() completes the CQE with the NVMe
 * status (> 0) or a negative errno, 0 when the command succeeded.
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
#include "write/queue_stats.h"
#include "write/uring_wait.h"
#include "decide/decide.h"

#define NVME_CMD_WRITE	0x01
#define NVME_RW_FUA	(1U << 30)
#define REAP_BATCH	64U

struct nvme_slot {
	uint64_t tag;
	uint32_t len;
};

struct awr_nvme {
	int fd;
	struct io_uring ring;
	struct awr_device *dev;
	uint32_t bs;
	struct awr__nvme_format fmt;	/* the LBA format in use: metadata, PI */
	unsigned int depth;		/* commands in flight at most (the ring's size) */
	bool submit_each;		/* AWR_RING_SUBMIT_EACH at a depth above 1 */
	unsigned int outstanding;	/* queued and not reaped */
	unsigned int nr_free;
	unsigned int free_slots[AWR_NVME_QUEUE_MAX];
	struct nvme_slot slots[AWR_NVME_QUEUE_MAX];	/* by the SQE's user_data */
	struct awr_ring_stats stats;
};

static int nvme_setup(struct awr_nvme *h, const struct awr_devnode *n)
{
	struct io_uring_params p = { 0 };
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
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(h->depth, &h->ring, &p);
	h->stats.wait_flags = ret ? 0 : awr__uring_wait_flags(&p, p.flags);
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
	ret = awr__nvme_identify_ns(h->fd, h->dev->nvme.nsid, &ns, sizeof(ns));
	if (ret)
		return ret;
	return awr__nvme_decode_format(&ns, sizeof(ns), &h->fmt);
}

int awr_nvme_open(const char *path, unsigned int flags, struct awr_nvme **out)
{
	return awr_nvme_open_queue(path, AWR_NVME_QUEUE_MAX, flags, out);
}

int awr_nvme_open_queue(const char *path, unsigned int depth, unsigned int flags,
			struct awr_nvme **out)
{
	struct awr_devnode n;
	struct awr_nvme *h;
	int ret;

	if (!out || !depth || depth > AWR_NVME_QUEUE_MAX || (flags & ~AWR_RING_SUBMIT_EACH))
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
	h->depth = depth;
	h->submit_each = (flags & AWR_RING_SUBMIT_EACH) && depth > 1;
	for (unsigned int i = 0; i < depth; i++)
		h->free_slots[h->nr_free++] = depth - 1 - i;
	awr__queue_stats_init(&h->stats);
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

/* The NVMe status of a failed command as a sentence (NVMe base spec, Completion Queue Entry DW3). */
static int device_error(struct awr_verdict *v, int status)
{
	return awr__pt_verdict(v, AWR_RULE_DEVICE_ERROR,
			       "the device failed the NVMe Write: status 0x%x (status code type %d, status code 0x%02x)",
			       status, (status >> 8) & 7, status & 0xff);
}

/* Check the write and fill its NVMe Write command. */
static int build_write(struct awr_nvme *h, const void *buf, size_t len, uint64_t offset,
		       unsigned int flags, struct awr_verdict *v, struct awr_nvme_uring_cmd *cmd)
{
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
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = NVME_CMD_WRITE;
	cmd->nsid = h->dev->nvme.nsid;
	cmd->addr = (uint64_t)(uintptr_t)buf;
	cmd->data_len = (uint32_t)len;
	cmd->cdw10 = (uint32_t)slba;
	cmd->cdw11 = (uint32_t)(slba >> 32);
	cmd->cdw12 = (uint32_t)(len / h->bs - 1) | ((flags & AWR_PT_FUA) ? NVME_RW_FUA : 0);
	return 0;
}

static int nvme_enter(struct awr_nvme *h, unsigned int need);

/* One URING_CMD SQE for @cmd; NULL when the ring is full. */
static struct io_uring_sqe *prep_cmd(struct awr_nvme *h, const struct awr_nvme_uring_cmd *cmd,
				     uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&h->ring);

	if (!sqe)
		return NULL;
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, h->fd, NULL, 0, 0);
	sqe->cmd_op = AWR_NVME_URING_CMD_IO;
	memcpy(sqe->cmd, cmd, sizeof(*cmd));
	io_uring_sqe_set_data64(sqe, user_data);
	return sqe;
}

/* One command, waited for: the ring holds no queued ones (awr_nvme_write()). */
static int submit(struct awr_nvme *h, const struct awr_nvme_uring_cmd *cmd, struct awr_verdict *v)
{
	struct io_uring_cqe *cqe;
	int ret;

	if (h->outstanding)
		return -EBUSY;
	if (!prep_cmd(h, cmd, UINT64_MAX))
		return -EBUSY;
	ret = io_uring_submit(&h->ring);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(&h->ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&h->ring, cqe);
	return ret > 0 ? device_error(v, ret) : ret;
}

ssize_t awr_nvme_write(struct awr_nvme *h, const void *buf, size_t len, uint64_t offset,
		       unsigned int flags, struct awr_verdict *v)
{
	struct awr_nvme_uring_cmd cmd;
	int ret = build_write(h, buf, len, offset, flags, v, &cmd);

	if (!ret)
		ret = submit(h, &cmd, v);
	return ret ? ret : (ssize_t)len;
}

int awr_nvme_queue_write(struct awr_nvme *h, const void *buf, size_t len, uint64_t offset,
			 uint64_t tag, unsigned int flags, struct awr_verdict *v)
{
	struct awr_nvme_uring_cmd cmd;
	unsigned int slot;
	int ret = build_write(h, buf, len, offset, flags, v, &cmd);

	if (ret)
		return ret;
	if (!h->nr_free)
		return -EBUSY;
	slot = h->free_slots[h->nr_free - 1];
	if (!prep_cmd(h, &cmd, slot))
		return -EBUSY;
	h->nr_free--;
	h->slots[slot] = (struct nvme_slot){ .tag = tag, .len = (uint32_t)len };
	h->outstanding++;
	return h->submit_each ? nvme_enter(h, 0) : 0;
}

/* Commands in the kernel now (after a submit): counted at every reap that finds some. */
static void note_inflight(struct awr_nvme *h)
{
	awr__queue_note(&h->stats, h->outstanding - (h->ring.sq.sqe_tail - h->ring.sq.sqe_head),
			h->depth);
}

/* Submit what was queued and, when @need > 0, wait for that many completions: one io_uring_enter(). */
static int nvme_enter(struct awr_nvme *h, unsigned int need)
{
	unsigned int queued = h->ring.sq.sqe_tail - h->ring.sq.sqe_head;
	int ret;

	if (!queued && !need)
		return 0;
	ret = need ? awr__uring_submit_and_wait(&h->ring, need, h->stats.wait_flags) : io_uring_submit(&h->ring);
	h->stats.submit_calls++;
	h->stats.submitted += queued - (h->ring.sq.sqe_tail - h->ring.sq.sqe_head);
	return ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY ? ret : 0;
}

static unsigned int take_cqes(struct awr_nvme *h, struct awr_completion *out, unsigned int max)
{
	struct io_uring_cqe *cqes[REAP_BATCH];
	unsigned int n = io_uring_peek_batch_cqe(&h->ring, cqes, max < REAP_BATCH ? max : REAP_BATCH);

	for (unsigned int i = 0; i < n; i++) {
		unsigned int slot = (unsigned int)io_uring_cqe_get_data64(cqes[i]);
		int res = cqes[i]->res;

		out[i].tag = h->slots[slot].tag;
		out[i].res = res < 0 ? res : res > 0 ? -EIO : (int32_t)h->slots[slot].len;
		out[i].rule = res > 0 ? AWR_RULE_DEVICE_ERROR : AWR_RULE_OK;
		h->free_slots[h->nr_free++] = slot;
	}
	io_uring_cq_advance(&h->ring, n);
	h->outstanding -= n;
	h->stats.completed += n;
	return n;
}

int awr_nvme_reap(struct awr_nvme *h, struct awr_completion *out, unsigned int max,
		  unsigned int wait_nr)
{
	unsigned int n = 0, ready;
	int ret;

	if (!h || (!out && max))
		return -EINVAL;
	if (wait_nr > max)
		wait_nr = max;
	if (wait_nr > h->outstanding)
		wait_nr = h->outstanding;
	ready = io_uring_cq_ready(&h->ring);
	ret = nvme_enter(h, wait_nr > ready ? wait_nr - ready : 0);
	note_inflight(h);
	while (!ret) {
		n += take_cqes(h, out + n, max - n);
		if (n >= wait_nr || n >= max)
			break;
		ret = nvme_enter(h, wait_nr - n);
	}
	return ret && !n ? ret : (int)n;
}

void awr_nvme_stats(const struct awr_nvme *h, struct awr_ring_stats *out)
{
	if (!h || !out)
		return;
	awr__queue_stats_copy(&h->stats, out);
}
