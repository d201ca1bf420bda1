// SPDX-License-Identifier: MIT
/*
 * Device I/O for the NVMe view: Identify Controller/Namespace and feature 0Ah through libnvme,
 * loaded on the first identify (optlib.h): a process that never identifies an NVMe device does
 * not load it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libnvme.h>

#include "device.h"
#include "optlib.h"

static struct {
	typeof(nvme_identify) *identify;
	typeof(nvme_get_nsid) *get_nsid;
	typeof(nvme_get_features_write_atomic) *get_features_write_atomic;
} nv;

static const char *nv_resolve(void *h)
{
	AWR_OPTLIB_SYM(h, nv.identify, nvme_identify);
	AWR_OPTLIB_SYM(h, nv.get_nsid, nvme_get_nsid);
	AWR_OPTLIB_SYM(h, nv.get_features_write_atomic, nvme_get_features_write_atomic);
	return NULL;
}

static struct awr_optlib libnvme =
	AWR_OPTLIB_INIT("libnvme.so.1", "libnvme1", "NVMe Identify", nv_resolve);

/* libnvme's nvme_identify_cns_nsid() (an inline of its header), through the loaded table */
static int identify(int fd, enum nvme_identify_cns cns, __u32 nsid, void *data)
{
	struct nvme_identify_args args = {
		.data = data,
		.args_size = sizeof(args),
		.fd = fd,
		.timeout = NVME_DEFAULT_IOCTL_TIMEOUT,
		.cns = cns,
		.csi = NVME_CSI_NVM,
		.nsid = nsid,
		.cntid = NVME_CNTLID_NONE,
		.cns_specific_id = NVME_CNSSPECID_NONE,
		.uuidx = NVME_UUID_NONE,
	};

	return nv.identify(&args);
}

/* libnvme returns an NVMe status (> 0) or -1 with errno. */
static int nvme_err(int ret, int saved_errno, const char *what, char *err, size_t errlen)
{
	if (ret > 0) {
		snprintf(err, errlen, "%s failed with NVMe status 0x%x", what, ret);
		return -EIO;
	}
	snprintf(err, errlen, "%s failed: %s", what, strerror(saved_errno));
	return saved_errno ? -saved_errno : -EIO;
}

static int read_ns(int fd, struct awr_nvme_id *id, char *err, size_t errlen)
{
	struct nvme_id_ns ns;
	__u32 nsid = 0, res = 0;
	int ret;

	_Static_assert(sizeof(ns) == AWR_NVME_ID_SIZE, "identify namespace is 4096 bytes");
	ret = nv.get_nsid(fd, &nsid);
	if (ret)
		return nvme_err(ret, errno, "getting the namespace id", err, errlen);
	id->nsid = nsid;
	ret = identify(fd, NVME_IDENTIFY_CNS_NS, nsid, &ns);
	if (ret)
		return nvme_err(ret, errno, "Identify Namespace", err, errlen);
	ret = awr_nvme_decode_ns(&ns, sizeof(ns), id);
	if (ret) {
		snprintf(err, errlen, "Identify Namespace %u: LBA format %u (FLBAS 0x%02x, NLBAF "
				      "%u, LBADS %u) is invalid",
			 nsid, id->lbaf_index, id->flbas, id->nlbaf, id->lbads);
		return ret;
	}
	if (!nv.get_features_write_atomic(fd, NVME_GET_FEATURES_SEL_CURRENT, &res)) {
		id->have_dn = true;
		id->dn = res & 1;
	}
	return 0;
}

int awr__nvme_read(int fd, bool want_ns, struct awr_nvme_id *id, char *err, size_t errlen)
{
	struct nvme_id_ctrl ctrl;
	int ret;

	_Static_assert(sizeof(ctrl) == AWR_NVME_ID_SIZE, "identify controller is 4096 bytes");
	ret = awr__optlib_load(&libnvme, err, errlen);
	if (ret)
		return ret;
	ret = identify(fd, NVME_IDENTIFY_CNS_CTRL, NVME_NSID_NONE, &ctrl);
	if (ret)
		return nvme_err(ret, errno, "Identify Controller", err, errlen);
	ret = awr_nvme_decode_ctrl(&ctrl, sizeof(ctrl), id);
	if (ret || !want_ns)
		return ret;
	return read_ns(fd, id, err, errlen);
}

int awr__nvme_identify_ns(int fd, uint32_t nsid, void *ns, size_t len)
{
	int ret;

	if (len != AWR_NVME_ID_SIZE)
		return -EINVAL;
	ret = awr__optlib_load(&libnvme, NULL, 0);
	if (ret)
		return ret;
	ret = identify(fd, NVME_IDENTIFY_CNS_NS, nsid, ns);
	return ret > 0 ? -EIO : ret ? -errno : 0;
}
