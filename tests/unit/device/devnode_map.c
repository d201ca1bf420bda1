// SPDX-License-Identifier: MIT
/*
 * Description: a path maps to the node that answers identify / VPD queries on sysfs fixture trees
 * (namespace, partition, ngXnY, nvmeX, sdX, sgN, others), and a failed device query is a probe
 * finding.
 */
#include "helpers.h"
#include "device/device.h"
#include "sysfs_fixture.h"

/* A tree shaped like the kernel's: /sys/block links, /sys/dev/{block,char}, classes. */
static void build_tree(void)
{
	fx_mkdir("devices/nvme0/nvme0n1/nvme0n1p1");
	fx_mkdir("devices/nvme0/nvme0n1/queue");
	fx_put("devices/nvme0/nvme0n1/nvme0n1p1/partition", "1\n");
	fx_put("devices/nvme0/nvme0n1/queue/max_segments", "128\n");
	fx_put("devices/nvme0/nvme0n1/queue/max_hw_sectors_kb", "512\n");
	fx_mkdir("devices/nvme0/ng0n1");
	fx_mkdir("devices/host0/sda/device/scsi_generic/sg0");
	fx_mkdir("devices/host0/sda/queue");
	fx_put("devices/host0/sda/dev", "8:0\n");
	fx_put("devices/host0/sda/queue/logical_block_size", "4096\n");
	fx_mkdir("devices/host0/sg0/device/block/sda");
	fx_mkdir("devices/virtual/vda");
	fx_mkdir("devices/host1/sdb/device/scsi_disk/1:0:0:0");
	fx_mkdir("devices/virtual/mem/null");
	fx_mkdir("class/nvme-generic");
	fx_mkdir("class/nvme");
	fx_mkdir("class/scsi_generic");
	fx_mkdir("class/mem");
	fx_mkdir("block");
	fx_mkdir("dev/block");
	fx_mkdir("dev/char");
	fx_ln("../devices/nvme0/nvme0n1", "block/nvme0n1");
	fx_ln("../devices/host0/sda", "block/sda");
	fx_ln("../devices/virtual/vda", "block/vda");
	fx_ln("../devices/host1/sdb", "block/sdb");
	fx_ln("../../devices/nvme0/nvme0n1", "dev/block/259:0");
	fx_ln("../../devices/nvme0/nvme0n1/nvme0n1p1", "dev/block/259:1");
	fx_ln("../../devices/virtual/vda", "dev/block/252:250");
	fx_ln("../../devices/host0/sda", "dev/block/8:0");
	fx_ln("../../devices/nvme0/ng0n1", "dev/char/242:0");
	fx_ln("../../devices/nvme0", "dev/char/241:0");
	fx_ln("../../devices/host0/sg0", "dev/char/21:0");
	fx_ln("../../devices/virtual/mem/null", "dev/char/1:3");
	fx_ln("../../../class/nvme-generic", "devices/nvme0/ng0n1/subsystem");
	fx_ln("../../class/nvme", "devices/nvme0/subsystem");
	fx_ln("../../../class/scsi_generic", "devices/host0/sg0/subsystem");
	fx_ln("../../../../class/mem", "devices/virtual/mem/null/subsystem");
}

static void expect_node(const char *what, int ret, const struct awr_devnode *n,
			enum awr_devnode_kind kind, const char *node, const char *disk,
			const char *generic)
{
	T_EXPECT_EQ(ret, 0, what);
	T_EXPECT_EQ(n->kind, kind, what);
	T_EXPECT(!strcmp(n->node, node), "%s: node %s, expected %s", what, n->node, node);
	T_EXPECT(!strcmp(n->disk, disk), "%s: disk %s, expected %s", what, n->disk, disk);
	T_EXPECT(!strcmp(n->generic, generic), "%s: generic %s, expected %s", what, n->generic,
		 generic);
}

static void test_mapping(void)
{
	struct awr_devnode n;
	struct awr_queue_caps caps;

	expect_node("namespace", awr__devnode_from_disk("nvme0n1", &n), &n,
		    AWR_NODE_NVME_NS, "/dev/nvme0n1", "nvme0n1", "ng0n1");
	expect_node("partition", awr__devnode_from_mode(S_IFBLK, 259, 1, NULL, &n), &n,
		    AWR_NODE_NVME_NS, "/dev/nvme0n1", "nvme0n1", "ng0n1");
	expect_node("generic char", awr__devnode_from_mode(S_IFCHR, 242, 0, "/dev/ng0n1", &n), &n,
		    AWR_NODE_NVME_NS, "/dev/ng0n1", "nvme0n1", "ng0n1");
	expect_node("controller", awr__devnode_from_mode(S_IFCHR, 241, 0, NULL, &n), &n,
		    AWR_NODE_NVME_CTRL, "/dev/nvme0", "", "nvme0");
	expect_node("scsi disk", awr__devnode_from_disk("sda", &n), &n,
		    AWR_NODE_SCSI, "/dev/sda", "sda", "sg0");
	expect_node("sg", awr__devnode_from_mode(S_IFCHR, 21, 0, "/dev/sg0", &n), &n,
		    AWR_NODE_SCSI, "/dev/sg0", "sda", "sg0");
	expect_node("sd without sg", awr__devnode_from_disk("sdb", &n), &n,
		    AWR_NODE_SCSI, "/dev/sdb", "sdb", "");
	T_EXPECT_EQ(awr__devnode_from_disk("vda", &n), -ENODEV, "virtio disk");
	T_EXPECT_EQ(awr__devnode_from_mode(S_IFBLK, 252, 250, NULL, &n), -ENODEV,
		    "virtio by number");
	T_EXPECT_EQ(awr__devnode_from_mode(S_IFCHR, 1, 3, "/dev/null", &n), -ENODEV, "/dev/null");
	T_EXPECT_EQ(awr__devnode_from_mode(S_IFCHR, 9, 9, NULL, &n), -ENODEV,
		    "unknown char device");
	T_EXPECT_EQ(awr__devnode_from_disk("sdz", &n), -ENOENT, "missing disk");
	T_EXPECT_EQ(awr__devnode_from_mode(S_IFREG, 0, 0, NULL, &n), -ENODEV, "regular file");
	T_EXPECT_EQ(awr__caps_from_sysfs("nvme0n1", &caps), 0, "caps");
	T_EXPECT_EQ(caps.max_segments, 128, "max_segments");
	T_EXPECT_EQ(caps.max_hw_bytes, 512 * 1024, "max_hw_bytes");
}

/* A file whose st_dev sysfs maps to nvme0n1: the probe tries the device, and its failure is a
 * finding. */
static void test_probe_finding(void)
{
	char file[PATH_MAX + 16];
	struct awr_probe *p = NULL;
	bool found = false;

	fx_file_on("file", "../../devices/nvme0/nvme0n1", file, sizeof(file));
	if (access("/dev/nvme0n1", F_OK) == 0)
		T_SKIP("this machine has a real /dev/nvme0n1");
	T_EXPECT_EQ(awr_probe_path(file, 0, &p), 0, "probe of a file");
	for (unsigned int i = 0; p && i < awr_probe_nr_findings(p); i++)
		found |= !strcmp(awr_probe_finding(p, i)->id, "device_query_failed");
	T_EXPECT(found, "the failed identify of /dev/nvme0n1 is a finding");
	T_EXPECT(p && !awr_probe_device(p), "no device view");
	awr_probe_free(p);
	T_EXPECT_EQ(awr_probe_path(file, AWR_PROBE_NO_DEVICE, &p), 0, "probe without devices");
	found = false;
	for (unsigned int i = 0; p && i < awr_probe_nr_findings(p); i++)
		found |= !strncmp(awr_probe_finding(p, i)->id, "device_", 7);
	T_EXPECT(!found, "AWR_PROBE_NO_DEVICE skips the device");
	awr_probe_free(p);
}

/* A char device that sysfs calls an sg node: its disk's sysfs view, and the failed query as a
 * finding. */
static void test_probe_char(void)
{
	struct awr_probe *p = NULL;
	const struct awr_sysfs_view *y;
	struct stat st;
	char rel[64];
	bool found = false;

	if (stat("/dev/zero", &st) || !S_ISCHR(st.st_mode))
		T_SKIP("no /dev/zero char device");
	snprintf(rel, sizeof(rel), "dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	fx_ln("../../devices/host0/sg0", rel);
	T_EXPECT_EQ(awr_probe_path("/dev/zero", 0, &p), 0, "probe of a char device");
	y = p ? awr_probe_sysfs(p) : NULL;
	T_EXPECT(y && !strcmp(y->disk, "sda"), "the sg node shows its disk's sysfs");
	T_EXPECT(y && y->logical_block_size == 4096, "sysfs of sda read");
	for (unsigned int i = 0; p && i < awr_probe_nr_findings(p); i++)
		found |= !strcmp(awr_probe_finding(p, i)->id, "device_query_failed");
	T_EXPECT(found, "INQUIRY on a node that is no SCSI device is a finding");
	awr_probe_free(p);
}

int main(void)
{
	fx_make_root("devnode");
	atexit(fx_remove_at_exit);
	awr_set_sysfs_root(fx_root);
	build_tree();
	test_mapping();
	test_probe_finding();
	test_probe_char();
	return t_done("devnode_map");
}
