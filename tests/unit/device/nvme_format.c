// SPDX-License-Identifier: MIT
/*
 * Description: NVMe passthrough refuses an LBA format with metadata or
 * protection information (Identify Namespace FLBAS, LBAF[].MS, DPS), naming MS
 * and PI, with -EOPNOTSUPP before any write; a format without metadata passes.
 */
#include "device_fixtures.h"
#include "device/device.h"
#include "device/nvme_format.h"
#include "decide/decide.h"

static uint8_t buf[8192];

/* Decode @ns and judge it: @want 0 or -EOPNOTSUPP, the verdict naming @words. */
static void expect(const char *ns, int index, int ms, bool ext, int pi, int want, const char *words)
{
	struct awr_verdict v = { .rule = AWR_RULE__COUNT, .message = "" };
	struct awr__nvme_format f;
	struct awr_nvme_id id = { 0 };
	size_t n = fixture_bytes(ns, buf, sizeof(buf));
	int ret;

	T_EXPECT_EQ(awr_nvme_decode_ns(buf, n, &id), 0, ns);
	T_EXPECT_EQ(awr__nvme_decode_format(buf, n, &f), 0, ns);
	T_EXPECT(f.index == index && f.ms == ms && f.extended == ext && f.pi_type == pi,
		 "%s: format %u MS %u extended %d PI %u, expected %d %d %d %d", ns, f.index, f.ms,
		 f.extended, f.pi_type, index, ms, ext, pi);
	T_EXPECT_EQ(f.ms, id.lba_ms, "the same MS as the namespace decoder");
	ret = awr__nvme_pt_format(&f, &v);
	T_EXPECT_EQ(ret, want, ns);
	if (want) {
		T_EXPECT(v.rule == AWR_RULE_UNSUPPORTED && v.error == -EOPNOTSUPP, "%s: rule %s",
			 ns, awr_rule_name(v.rule));
		T_EXPECT(strstr(v.message, words) != NULL, "%s: \"%s\" does not say \"%s\"", ns,
			 v.message, words);
		T_EXPECT(strlen(v.message) < sizeof(v.message) - 1, "%s: message cut: \"%s\"", ns,
			 v.message);
		printf("%s: %s\n", ns, v.message);
	} else {
		T_EXPECT(v.rule == AWR_RULE__COUNT, "%s: no verdict for an accepted format", ns);
	}
}

int main(int argc, char **argv)
{
	struct awr__nvme_format f;

	fixture_dir_from_args(argc, argv);
	expect("ns-ms8-extended.hex", 5, 8, true, 0, -EOPNOTSUPP, "MS 8 (metadata bytes per block, "
								  "extended LBA), PI off");
	expect("ns-ms8-separate-pi1.hex", 5, 8, false, 1, -EOPNOTSUPP, "MS 8 (metadata bytes per "
								       "block, separate buffer), "
								       "PI type 1");
	expect("ns-ms16-extended-pi3-first.hex", 6, 16, true, 3, -EOPNOTSUPP,
	       "PI type 3 (DPS 0x0b)");
	expect("ns-ms0-4k-of-qemu-list.hex", 4, 0, false, 0, 0, NULL);
	expect("ns-qemu-nsfeat34-4k.hex", 4, 0, false, 0, 0, NULL);

	/* PI without metadata is inconsistent: refused all the same */
	f = (struct awr__nvme_format){ .index = 0, .pi_type = 2, .dps = 2 };
	T_EXPECT_EQ(awr__nvme_pt_format(&f, NULL), -EOPNOTSUPP, "PI type 2 with MS 0");
	/* short and invalid pages */
	T_EXPECT_EQ(awr__nvme_decode_format(buf, 4095, &f), -EMSGSIZE, "4095-byte page");
	fixture_bytes("ns-flbas-beyond-nlbaf.hex", buf, sizeof(buf));
	T_EXPECT_EQ(awr__nvme_decode_format(buf, 4096, &f), -EINVAL, "FLBAS beyond NLBAF");
	return t_done("nvme_format");
}
