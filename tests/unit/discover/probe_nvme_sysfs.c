// SPDX-License-Identifier: MIT
/*
 * Description: awr probe compares the limits it derives from NVMe identify data with the disk's
 * sysfs, on a sysfs fixture tree: the 6.12/6.18 reading (AWUPF used) raises nothing, the 7.0+
 * reading (AWUPF ignored) is named as such, anything else is a mismatch; with AWUPF 0 both
 * interpretations agree and nothing is claimed.
 *
 * The identify data come from tests/fixtures through a test double of awr__device_read() (this
 * file's definition is linked instead of lib/device/device_io.c's, which would open /dev/nvme0n1):
 * the rest of the probe - sysfs lookup, node mapping, caps, derivation, comparison - is the
 * library's.
 */
#include "device/device_fixtures.h"
#include "device/device.h"
#include "sysfs_fixture.h"

static const char *ctrl_fixture, *ns_fixture;
static unsigned int device_reads;

/* The device query, answered from fixtures instead of ioctls; the rest as lib/device/device_io.c
 * does. */
int awr__device_read(const struct awr_devnode *n, struct awr_device **out, char *err, size_t errlen)
{
	static uint8_t buf[8192];
	struct awr_device *d = awr__device_new(AWR_DEVICE_NVME);
	size_t len;

	(void)err;
	(void)errlen;
	if (!d)
		return -ENOMEM;
	device_reads++;
	T_EXPECT(n->kind == AWR_NODE_NVME_NS, "the probe asks a namespace node (%d)", n->kind);
	awr__strjoin(d->name, sizeof(d->name), "", "nvme0n1");
	awr__strjoin(d->disk, sizeof(d->disk), "", n->disk);
	len = fixture_bytes(ctrl_fixture, buf, sizeof(buf));
	T_EXPECT_EQ(awr_nvme_decode_ctrl(buf, len, &d->nvme), 0, ctrl_fixture);
	len = fixture_bytes(ns_fixture, buf, sizeof(buf));
	T_EXPECT_EQ(awr_nvme_decode_ns(buf, len, &d->nvme), 0, ns_fixture);
	awr__caps_from_sysfs(n->disk, &d->caps);
	awr__device_derive(d);
	*out = d;
	return 0;
}

#define DISK "devices/pci0000:00/nvme/nvme0/nvme0n1"

/* nvme0n1 as the QEMU guest's kernel shows it; the file made in the tree lives on it. */
static void build_tree(char *file, size_t len)
{
	fx_mkdir(DISK "/queue");
	fx_mkdir("block");
	fx_mkdir("dev/block");
	fx_nvme_caps(DISK);
	fx_queue_attr(DISK, "physical_block_size", 4096);
	fx_put(DISK "/size", "2097152\n");
	fx_ln("../" DISK, "block/nvme0n1");
	fx_file_on("datafile", "../../" DISK, file, len);
}

static const char *probe_finding(const struct awr_probe *p, const char *id)
{
	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++)
		if (!strcmp(awr_probe_finding(p, i)->id, id))
			return awr_probe_finding(p, i)->message;
	return NULL;
}

enum expect { AGREES, IGNORES_AWUPF, MISMATCH };

static void check(const char *what, const char *file, const char *ctrl, const char *ns,
		  uint32_t umin, uint32_t umax, uint32_t maxb, enum expect want, const char *msg)
{
	struct awr_probe *p = NULL;
	const char *ign, *mis;
	unsigned int reads = device_reads;

	ctrl_fixture = ctrl;
	ns_fixture = ns;
	fx_atomic_limits(DISK, umin, umax, maxb, 0);
	T_EXPECT_EQ(awr_probe_path(file, 0, &p), 0, what);
	if (!p)
		return;
	T_EXPECT(device_reads == reads + 1, "%s: the device was queried once", what);
	T_EXPECT(awr_probe_device(p) != NULL, "%s: a device view", what);
	T_EXPECT(!probe_finding(p, "device_query_failed"), "%s: no query failure", what);
	ign = probe_finding(p, "nvme_kernel_ignores_awupf");
	mis = probe_finding(p, "device_sysfs_mismatch");
	T_EXPECT(!ign == (want != IGNORES_AWUPF), "%s: nvme_kernel_ignores_awupf %s (%s)", what,
		 ign ? "raised" : "not raised", ign ? ign : "");
	T_EXPECT(!mis == (want != MISMATCH), "%s: device_sysfs_mismatch %s (%s)", what,
		 mis ? "raised" : "not raised", mis ? mis : "");
	if (msg) {
		const char *m = want == IGNORES_AWUPF ? ign : mis;

		T_EXPECT(m && strstr(m, msg), "%s: message '%s' lacks '%s'", what, m ? m : "", msg);
	}
	awr_probe_free(p);
}

int main(int argc, char **argv)
{
	const char *awupf15 = "ctrl-qemu-awun31-awupf15.hex", *awupf0 = "ctrl-awupf0.hex";
	const char *ns = "ns-qemu-nsfeat34-4k.hex", *ns_nawupf0 = "ns-nsabp-set-nawupf0.hex";
	char file[PATH_MAX + 16];

	fixture_dir_from_args(argc, argv);
	fx_make_root("probe-nvme");
	atexit(fx_remove_at_exit);
	awr_set_sysfs_root(fx_root);
	build_tree(file, sizeof(file));

	/* AWUPF 15, no namespace fields: 6.12 and 6.18 give 64 KiB, 7.0+ one block */
	check("AWUPF 15, sysfs of 6.12", file, awupf15, ns, 4096, 65536, 65536, AGREES, NULL);
	check("AWUPF 15, sysfs of 7.3", file, awupf15, ns, 4096, 4096, 4096, IGNORES_AWUPF,
	      "matches the limits without AWUPF (4096..4096 bytes)");
	check("AWUPF 15, sysfs explained by neither", file, awupf15, ns, 4096, 32768, 32768,
	      MISMATCH, "gives unit_min 4096, unit_max 65536, max_bytes 65536");
	/* NSFEAT bit 1 set with NAWUPF 0: the kernel falls back to AWUPF */
	check("NSABP, NAWUPF 0, AWUPF 15, sysfs of 6.12", file, awupf15, ns_nawupf0, 4096, 65536,
	      65536, AGREES, NULL);
	/* AWUPF 0: both interpretations are one block; no kernel is said to ignore AWUPF */
	check("AWUPF 0, one block", file, awupf0, ns, 4096, 4096, 4096, AGREES, NULL);
	return t_done("probe_nvme_sysfs");
}
