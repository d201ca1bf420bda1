// SPDX-License-Identifier: MIT
/* Device I/O for the NVMe view: Identify Controller/Namespace and feature 0Ah through libnvme. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libnvme.h>

#include "device.h"

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
	ret = nvme_get_nsid(fd, &nsid);
	if (ret)
		return nvme_err(ret, errno, "getting the namespace id", err, errlen);
	id->nsid = nsid;
	ret = nvme_identify_ns(fd, nsid, &ns);
	if (ret)
		return nvme_err(ret, errno, "Identify Namespace", err, errlen);
	ret = awr_nvme_decode_ns(&ns, sizeof(ns), id);
	if (ret) {
		snprintf(err, errlen, "Identify Namespace %u: LBA format %u (FLBAS 0x%02x, NLBAF %u, LBADS %u) is invalid",
			 nsid, id->lbaf_index, id->flbas, id->nlbaf, id->lbads);
		return ret;
	}
	if (!nvme_get_features_write_atomic(fd, NVME_GET_FEATURES_SEL_CURRENT, &res)) {
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
	ret = nvme_identify_ctrl(fd, &ctrl);
	if (ret)
		return nvme_err(ret, errno, "Identify Controller", err, errlen);
	ret = awr_nvme_decode_ctrl(&ctrl, sizeof(ctrl), id);
	if (ret || !want_ns)
		return ret;
	return read_ns(fd, id, err, errlen);
}
