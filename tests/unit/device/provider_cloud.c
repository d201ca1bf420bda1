// SPDX-License-Identifier: MIT
/* Description: cloud providers' statements from fixtures built to AWS's published layout (no such
 * disk is reachable here): NTWPU/NTWPG/NTWPB read only on Amazon's controller, what each covers,
 * the kernel's derivation untouched; NSFEAT bit 6; transcripts split at nvme format. */
#include "device_fixtures.h"
#include "device/device.h"

static uint8_t ctrl_buf[8192], ns_buf[8192];

static struct awr_device *view(const char *ctrl, const char *ns)
{
	struct awr_nvme_id id;
	struct awr_device *d = NULL;
	size_t n;

	memset(&id, 0, sizeof(id));
	if (ctrl) {
		n = fixture_bytes(ctrl, ctrl_buf, sizeof(ctrl_buf));
		T_EXPECT_EQ(awr_nvme_decode_ctrl(ctrl_buf, n, &id), 0, ctrl);
	}
	n = fixture_bytes(ns, ns_buf, sizeof(ns_buf));
	T_EXPECT_EQ(awr_nvme_decode_ns(ns_buf, n, &id), 0, ns);
	if (awr_device_from_nvme(&id, NULL, &d)) {
		printf("FAIL: awr_device_from_nvme(%s, %s)\n", ctrl ? ctrl : "-", ns);
		exit(T_EXIT_FAIL);
	}
	return d;
}

static bool covers(const struct awr_device *d, uint32_t page)
{
	char why[256];

	return awr__provider_covers(d, page, why, sizeof(why));
}

/* EBS, 512-byte blocks, NTWPU 31 (16 KiB), NTWPG 7 (4 KiB), no boundary */
static void test_ebs_present(void)
{
	struct awr_device *d = view("cloud/aws-ebs-id-ctrl.hex", "cloud/aws-ns-ntwp16k.hex");
	struct awr_device *o = view("cloud/other-vendor-id-ctrl.hex", "cloud/aws-ns-ntwp16k.hex");
	const struct awr_provider_atomic *p = awr_device_provider(d);
	const struct awr_nvme_id *id = awr_device_nvme(d);

	T_EXPECT_EQ(id->vid, 0x1d0f, "vid");
	T_EXPECT_EQ(id->model, AWR_NVME_MODEL_AWS_EBS, "model");
	T_EXPECT_EQ(id->ntwpu, 31, "ntwpu");
	T_EXPECT_EQ(id->ntwpg, 7, "ntwpg");
	T_EXPECT_EQ(id->ntwpb, 0, "ntwpb");
	T_EXPECT(p && p->read && !strcmp(p->provider, "AWS"), "an AWS statement, read");
	if (p) {
		T_EXPECT_EQ(p->unit, 16384, "unit");
		T_EXPECT_EQ(p->granularity, 4096, "granularity");
		T_EXPECT_EQ(p->boundary, 0, "boundary");
		T_EXPECT(strstr(p->known_by, "0x1d0f") &&
				 strstr(p->known_by, "Elastic Block Store"),
			 "known by the PCI vendor and the model");
	}
	T_EXPECT(covers(d, 16384) && covers(d, 8192) && covers(d, 4096), "16, 8, 4 KiB pages "
									 "covered");
	T_EXPECT(!covers(d, 32768), "a 32 KiB page exceeds NTWPU");
	T_EXPECT(!covers(d, 2048), "a 2 KiB page is below NTWPG");
	T_EXPECT(has_finding(d, "aws_torn_write_prevention"), "finding");
	/* the kernel reads none of it: the same derivation as on another vendor's controller */
	EXPECT_LIMITS(awr_device_derived(d), 512, 512, 512, 0, "ebs kernel view");
	EXPECT_LIMITS(awr_device_derived(o), 512, 512, 512, 0, "other vendor kernel view");
	awr_device_free(d);
	awr_device_free(o);
}

static void test_instance_storage(void)
{
	struct awr_device *d = view("cloud/aws-instance-id-ctrl.hex", "cloud/aws-ns-ntwp8k.hex");
	const struct awr_provider_atomic *p = awr_device_provider(d);

	T_EXPECT(p && p->read && strstr(p->known_by, "Instance Storage"), "instance storage known");
	T_EXPECT(covers(d, 8192) && !covers(d, 16384), "NTWPU 15: 8 KiB covered, 16 KiB not");
	awr_device_free(d);
}

static void test_absent(void)
{
	struct awr_device *d = view("cloud/aws-ebs-id-ctrl.hex", "cloud/aws-ns-ntwp-absent.hex");
	const struct awr_provider_atomic *p = awr_device_provider(d);

	T_EXPECT(p && !p->read && p->readable, "Amazon's controller, nothing reported");
	T_EXPECT(!covers(d, 4096), "nothing covered");
	T_EXPECT(has_finding(d, "aws_torn_write_prevention_unread"), "finding says so");
	T_EXPECT(!has_finding(d, "aws_torn_write_prevention"), "no guarantee finding");
	awr_device_free(d);
}

static void test_boundary(void)
{
	struct awr_device *d =
		view("cloud/aws-ebs-id-ctrl.hex", "cloud/aws-ns-ntwp-boundary64k.hex");
	struct awr_device *b =
		view("cloud/aws-ebs-id-ctrl.hex", "cloud/aws-ns-ntwp-boundary12k.hex");
	struct awr_device *g = view("cloud/aws-ebs-id-ctrl.hex", "cloud/aws-ns-ntwpg16k.hex");

	T_EXPECT_EQ(awr_device_provider(d)->boundary, 65536, "NTWPB 127: 64 KiB");
	T_EXPECT(covers(d, 16384), "a 64 KiB boundary: aligned 16 KiB pages stay inside");
	T_EXPECT(!covers(b, 16384), "a 12 KiB boundary: an aligned 16 KiB page can cross it");
	T_EXPECT(covers(b, 4096), "a 12 KiB boundary: 4 KiB pages do not");
	T_EXPECT(!covers(g, 8192) && covers(g, 16384), "NTWPG 31: only 16 KiB multiples");
	awr_device_free(d);
	awr_device_free(b);
	awr_device_free(g);
}

static void test_not_amazon(void)
{
	struct awr_device *o = view("cloud/other-vendor-id-ctrl.hex", "cloud/aws-ns-ntwp16k.hex");
	struct awr_device *n = view(NULL, "cloud/aws-ns-ntwp16k.hex");

	T_EXPECT(awr_device_provider(o) == NULL, "another vendor's bytes: no statement");
	T_EXPECT(!covers(o, 4096), "nothing covered on another vendor's controller");
	T_EXPECT(has_finding(o, "nvme_vendor_bytes_not_amazon"), "finding: another vendor's bytes");
	T_EXPECT(awr_device_provider(n) == NULL &&
			 has_finding(n, "nvme_vendor_bytes_controller_unknown"),
		 "no controller data: not read");
	awr_device_free(o);
	awr_device_free(n);
}

/* A paste: the model read from text, no PCI vendor line, the namespace page as hex */
static void test_model_from_text(void)
{
	static const char mn[] = "mn        : Amazon Elastic Block Store              \n";
	static char text[65536];
	struct awr_input in;
	struct awr_device *d = NULL;
	char missing[512];
	size_t n = fixture_raw("cloud/aws-ns-ntwp16k.hex", text, sizeof(text));

	awr_input_init(&in);
	T_EXPECT_EQ(awr_input_add(mn, sizeof(mn) - 1, &in), 0, "mn line");
	T_EXPECT_EQ(awr_input_add(text, n, &in), 0, "namespace page");
	T_EXPECT_EQ(awr_input_device(&in, NULL, &d, missing, sizeof(missing)), 0, "view");
	T_EXPECT(d && awr_device_provider(d) && awr_device_provider(d)->read,
		 "Amazon by its model");
	T_EXPECT(!(awr_device_assumed(d) & (1ULL << AWR_IF_VID)), "the vendor is never assumed");
	awr_device_free(d);
}

/* Azure states its guarantee as NAWUPF, which the kernel reads; Google states one no field
 * carries */
static void test_azure_gcp(void)
{
	struct awr_device *a = view("cloud/azure-id-ctrl.hex", "ns-nawupf-16k.hex");
	struct awr_device *n = view("cloud/azure-id-ctrl.hex", "ns-qemu-nsfeat34-4k.hex");
	struct awr_device *g = view("cloud/gcp-id-ctrl.hex", "ns-qemu-nsfeat34-4k.hex");
	const struct awr_provider_atomic *pa = awr_device_provider(a), *pg = awr_device_provider(g);

	T_EXPECT(pa && !strcmp(pa->provider, "Azure") && pa->readable && !pa->read,
		 "Azure: through NAWUPF");
	T_EXPECT(strstr(finding_message(a, "azure_nvme_atomic"), "Linux reads them"),
		 "Azure: the kernel's");
	T_EXPECT(strstr(finding_message(n, "azure_nvme_atomic"), "no NAWUPF"),
		 "Azure without NAWUPF");
	EXPECT_LIMITS(awr_device_derived(a), 4096, 16384, 16384, 0, "azure kernel view");
	T_EXPECT(!covers(a, 16384), "nothing of its own covered: the kernel's limits decide");
	T_EXPECT(pg && !strcmp(pg->provider, "Google Cloud") && !pg->readable,
		 "Google: not readable");
	T_EXPECT(has_finding(g, "provider_guarantee_unreadable"), "Google: said so");
	awr_device_free(a);
	awr_device_free(n);
	awr_device_free(g);
}

static void test_mam(void)
{
	struct awr_device *m = view(NULL, "cloud/ns-nsfeat-mam.hex");
	struct awr_device *c = view(NULL, "cloud/ns-nsfeat-no-mam.hex");

	T_EXPECT(has_finding(m, "nvme_nsfeat_mam"), "NSFEAT bit 6 found");
	T_EXPECT(!has_finding(c, "nvme_nsfeat_mam"), "control: bit 6 clear");
	/* Linux ignores the bit: the same limits either way */
	EXPECT_LIMITS(awr_device_derived(m), 4096, 16384, 16384, 65536, "mam");
	EXPECT_LIMITS(awr_device_derived(c), 4096, 16384, 16384, 65536, "no mam");
	awr_device_free(m);
	awr_device_free(c);
}

static void test_split(void)
{
	static char text[65536];
	size_t n = fixture_raw("cloud/format-transcript.txt", text, sizeof(text));
	size_t first = awr_input_split(text, n), second;
	struct awr_input a, b;
	uint64_t changed;

	T_EXPECT(first < n && strstr(text, "# nvme format") + strlen("# nvme format /dev/nvme0n1 "
								     "--lbaf=4 --force\n") ==
		 text + first, "the first reading ends with the nvme format line");
	second = awr_input_split(text + first, n - first);
	T_EXPECT(!strncmp(text + first, "Success formatting namespace", 28) && second < n - first,
		 "nvme-cli's answer ends a reading too");
	T_EXPECT_EQ(awr_input_split("awupf : 1\n", 10), 10, "no format: one reading");
	awr_input_init(&a);
	awr_input_init(&b);
	T_EXPECT_EQ(awr_input_add(text, first, &a), 0, "reading 1");
	T_EXPECT_EQ(awr_input_add(text + first + second, n - first - second, &b), 0, "reading 2");
	T_EXPECT(a.sn_hash && a.sn_hash == b.sn_hash, "one serial number");
	changed = awr_input_update(&a, &b);
	T_EXPECT_EQ(changed,
		    (1ULL << AWR_IF_AWUN) | (1ULL << AWR_IF_AWUPF) | (1ULL << AWR_IF_FLBAS) |
			    (1ULL << AWR_IF_LBAF),
		    "AWUN, AWUPF, FLBAS and the LBA format changed");
	T_EXPECT(a.nvme.awupf == 7 && a.nvme.lba_size == 4096, "the later values stand");
}

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	test_ebs_present();
	test_instance_storage();
	test_absent();
	test_boundary();
	test_not_amazon();
	test_model_from_text();
	test_azure_gcp();
	test_mam();
	test_split();
	return t_done("provider_cloud");
}
