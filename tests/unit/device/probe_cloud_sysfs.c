// SPDX-License-Identifier: MIT
/*
 * Description: awr probe of a file on an NVMe disk whose identify cannot be read (not root, or the
 * query fails): an Amazon volume, known by sysfs alone (the controller's model, the PCI function's
 * vendor 0x1d0f), gets a finding that its torn write prevention is not read; another vendor's
 * disk does not. A sysfs fixture tree shaped like the kernel's (no AWS volume is reachable here);
 * the failed query is the library's own (/dev/nvme0n1 must not exist).
 */
#include "helpers.h"
#include "device/device.h"
#include "sysfs_fixture.h"

static void build_tree(const char *vendor, const char *model, char *file, size_t len)
{
	fx_make_root("probe-cloud");
	fx_mkdir("devices/pci0000:00/0000:00:1f.0");
	fx_put("devices/pci0000:00/0000:00:1f.0/vendor", "%s\n", vendor);
	fx_mkdir("devices/nvme0/nvme0n1/queue");
	fx_put("devices/nvme0/model", "%s\n", model);
	fx_put("devices/nvme0/nvme0n1/queue/logical_block_size", "512\n");
	fx_put("devices/nvme0/nvme0n1/queue/max_segments", "128\n");
	fx_put("devices/nvme0/nvme0n1/queue/max_hw_sectors_kb", "256\n");
	fx_mkdir("class/nvme");
	fx_ln("../../class/nvme", "devices/nvme0/subsystem");
	fx_ln("../pci0000:00/0000:00:1f.0", "devices/nvme0/device");
	fx_ln("..", "devices/nvme0/nvme0n1/device");
	fx_ln("../devices/nvme0/nvme0n1", "block/nvme0n1");
	fx_file_on("file", "../../devices/nvme0/nvme0n1", file, len);
	awr_set_sysfs_root(fx_root);
}

static const char *finding(const struct awr_probe *p, const char *id)
{
	for (unsigned int i = 0; p && i < awr_probe_nr_findings(p); i++)
		if (!strcmp(awr_probe_finding(p, i)->id, id))
			return awr_probe_finding(p, i)->message;
	return NULL;
}

static void probe(const char *what, const char *vendor, const char *model, bool amazon)
{
	char file[PATH_MAX + 16];
	struct awr_probe *p = NULL;
	const char *m;

	build_tree(vendor, model, file, sizeof(file));
	T_EXPECT_EQ(awr_probe_path(file, 0, &p), 0, what);
	T_EXPECT(finding(p, "device_query_failed"), "%s: the identify failed", what);
	m = finding(p, "aws_torn_write_prevention_unread");
	T_EXPECT(!m == !amazon, "%s: the Amazon finding %s", what, m ? m : "(none)");
	if (m && amazon)
		T_EXPECT(strstr(m, "0x1d0f"), "%s: says how it is known: %s", what, m);
	awr_probe_free(p);
	fx_remove();
}

int main(void)
{
	if (access("/dev/nvme0n1", F_OK) == 0)
		T_SKIP("this machine has a real /dev/nvme0n1 (the identify of the fixture's disk "
		       "would reach it)");
	probe("EBS", "0x1d0f", "Amazon Elastic Block Store", true);
	probe("instance store", "0x1d0f", "Amazon EC2 NVMe Instance Storage", true);
	probe("another vendor", "0x144d", "SAMSUNG MZQL2960HCJR-00A07", false);
	probe("an Amazon model under another vendor", "0x144d", "Amazon Elastic Block Store",
	      false);
	return t_done("probe_cloud_sysfs");
}
