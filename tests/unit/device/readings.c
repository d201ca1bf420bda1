// SPDX-License-Identifier: MIT
/*
 * Description: awr_readings_*() and awr_*_id_load() called directly: a transcript with nvme format
 * in it read as two readings of one controller (the changes, their meaning on 6.18 and 7.0, the
 * reading picked, the device view); files and pages refused with sentences that name the file;
 * the negative controls: an absent reading, a damaged transcript, two controllers' output.
 */
#include <stdint.h>

#include "device_fixtures.h"

static char path[512];

static const char *fx(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	return path;
}

static unsigned int count_lines(const char *s, size_t n)
{
	unsigned int nr = 0;

	while (n--)
		nr += *s++ == '\n';
	return nr;
}

/* The first change of @f, or NULL. */
static const struct awr_reading_change *change_of(const struct awr_readings *r,
						  enum awr_input_field f)
{
	const struct awr_reading_change *c;

	for (unsigned int i = 0; (c = awr_readings_change(r, i)); i++)
		if (c->field == f)
			return c;
	return NULL;
}

static void format_transcript(void)
{
	const char *files[] = { fx("cloud/format-transcript.txt"), NULL };
	const struct awr_reading_change *c;
	struct awr_readings *r = NULL;
	struct awr_device *d = NULL;

	T_EXPECT(!awr_readings_open(files, &r), "open: %s", awr_last_error());
	if (!r)
		return;
	T_EXPECT_EQ(awr_readings_count(r), 2, "readings split at nvme format");
	T_EXPECT_EQ(awr_readings_used(r), 0, "nothing picked yet");
	T_EXPECT_EQ(awr_readings_pick(r, 3), -ERANGE, "reading 3 of 2 (an absent reading)");
	T_EXPECT(strstr(awr_last_error(), "holds 2 readings"), "%s", awr_last_error());
	T_EXPECT(!awr_readings_pick(r, 0), "pick the last: %s", awr_last_error());
	T_EXPECT_EQ(awr_readings_used(r), 2, "0 picks the last");
	c = change_of(r, AWR_IF_AWUPF);
	T_EXPECT(c && c->before == 63 && c->after == 7 && c->reading == 2, "AWUPF 63 -> 7");
	c = change_of(r, AWR_IF_LBAF);
	T_EXPECT(c && c->before == 512 && c->after == 4096, "the LBA format 512 -> 4096");
	T_EXPECT(!awr_readings_change(r, awr_readings_nr_changes(r)), "no change past the last");
	T_EXPECT(strstr(awr_readings_meaning(r, AWR_KERNEL(6, 18, 0)), "keeps AWUPF 63: 262144 "
			"bytes on 4096-byte blocks"), "6.18: %s", awr_readings_meaning(r, 0));
	T_EXPECT(strstr(awr_readings_meaning(r, AWR_KERNEL(7, 0, 0)), "kernel 7.0 ignores AWUPF"),
		 "7.0: %s", awr_readings_meaning(r, AWR_KERNEL(7, 0, 0)));
	T_EXPECT(!awr_readings_device(r, NULL, 0, 0, &d), "device: %s", awr_last_error());
	T_EXPECT(d && awr_device_nvme(d)->awupf == 7 && awr_device_nvme(d)->lba_size == 4096,
		 "the view is of reading 2");
	awr_device_free(d);
	d = NULL;
	T_EXPECT(!awr_readings_pick(r, 1), "pick reading 1");
	T_EXPECT_EQ(awr_readings_input(r, 0)->nvme.awupf, 63, "reading 1's AWUPF");
	T_EXPECT_EQ(awr_readings_input(r, 2)->nvme.awupf, 7, "reading 2 as read");
	T_EXPECT(!awr_readings_input(r, 3), "no reading 3");
	T_EXPECT(awr_readings_input(r, 0)->formats == AWR_INPUT_NVME_TEXT, "nvme-cli text");
	T_EXPECT(!strcmp(awr_input_format_name(AWR_INPUT_NVME_TEXT), "nvme-cli") &&
		 !awr_input_format_name(1U << 7) && !awr_input_format_name(3), "format names");
	awr_readings_free(r);
}

/* Two controllers' output, with and without a format between them: refused, never merged. */
static void two_devices(void)
{
	const char *files[] = { fx("cloud/format-transcript-two-serials.txt"), NULL };
	static char text[65536];
	struct awr_readings *r = NULL;
	size_t n;
	int ret;

	T_EXPECT(!awr_readings_open(files, &r), "open: %s", awr_last_error());
	T_EXPECT_EQ(awr_readings_pick(r, 0), -EINVAL, "two serial numbers");
	T_EXPECT(strstr(awr_last_error(), "another serial number"), "%s", awr_last_error());
	awr_readings_free(r);

	/* a damaged transcript: the format line cut out, so AWUPF has two values in one reading */
	n = fixture_raw("cloud/format-transcript.txt", text, sizeof(text) - 1);
	text[n] = '\0';
	memcpy(strstr(text, "# nvme format"), "# nvme-formal", 13);
	memcpy(strstr(text, "Success formatting"), "Succeeded formally", 18);
	T_EXPECT(!awr_readings_open(NULL, &r), "an empty set");
	T_EXPECT_EQ(awr_readings_count(r), 0, "nothing read");
	ret = awr_readings_add(r, text, n, "pasted.txt");
	T_EXPECT_EQ(ret, -EINVAL, "a field with two values");
	T_EXPECT(strstr(awr_last_error(), "pasted.txt gives AWUN 7 at line 243, but 63 was read"),
		 "%s", awr_last_error());
	awr_readings_free(r);

	/* a second AWUPF in the reading after the format: named at its line in the whole text */
	n = fixture_raw("cloud/format-transcript.txt", text, sizeof(text) - 16);
	memcpy(text + n, "awupf : 9\n", 10);
	T_EXPECT(!awr_readings_open(NULL, &r), "an empty set");
	T_EXPECT_EQ(awr_readings_add(r, text, n + 10, "t.txt"), -EINVAL, "AWUPF 7, then 9");
	snprintf(path, sizeof(path), "t.txt gives AWUPF 9 at line %u, but 7 was read before",
		 count_lines(text, n) + 1);
	T_EXPECT(strstr(awr_last_error(), path), "%s: %s", path, awr_last_error());
	T_EXPECT_EQ(awr_readings_add(r, "hello\n", 6, NULL), -ENOMSG, "not tool output");
	T_EXPECT(strstr(awr_last_error(), "the input is not recognised"), "%s", awr_last_error());
	awr_readings_free(r);
}

/* SCSI fields that change between readings are given with their values. */
static void scsi_changes(void)
{
	static char text[16384];
	size_t n = fixture_raw("tools/sd-default-vpd-bl.txt", text, sizeof(text) / 2);
	struct awr_readings *r = NULL;
	const struct awr_reading_change *c;
	char *second;

	memcpy(text + n, "$ nvme format /dev/sda\n", 23);
	second = text + n + 23;
	memcpy(second, text, n);
	memcpy(strstr(second, "transfer length: 0x2000"), "transfer length: 0x1000", 23);
	T_EXPECT(!awr_readings_open(NULL, &r) && !awr_readings_add(r, text, 2 * n + 23, NULL),
		 "add: %s", awr_last_error());
	T_EXPECT(!awr_readings_pick(r, 0), "pick: %s", awr_last_error());
	c = change_of(r, AWR_IF_MATL);
	T_EXPECT(c && c->before == 0x2000 && c->after == 0x1000, "MATL 0x2000 -> 0x1000: %llu %llu",
		 c ? (unsigned long long)c->before : 0ULL, c ? (unsigned long long)c->after : 0ULL);
	T_EXPECT(!*awr_readings_meaning(r, 0), "no meaning for SCSI changes");
	awr_readings_free(r);
}

static void files_refused(void)
{
	const char *none[] = { fx("no/such/file"), NULL };
	const char *dir[] = { fixture_dir, NULL };
	struct awr_readings *r = (struct awr_readings *)1;
	struct awr_nvme_id nid = { 0 };
	struct awr_scsi_id sid = { 0 };

	T_EXPECT_EQ(awr_readings_open(none, &r), -ENOENT, "no such file");
	T_EXPECT(!r && strstr(awr_last_error(), "cannot open ") &&
		 strstr(awr_last_error(), "no/such/file: No such file"), "%s", awr_last_error());
	T_EXPECT_EQ(awr_readings_open(dir, &r), -EISDIR, "a directory");
	T_EXPECT_EQ(awr_nvme_id_load(none[0], "--nvme-ctrl m", false, &nid), -ENOENT, "no page");
	T_EXPECT(!strcmp(awr_last_error(), "cannot open --nvme-ctrl m: No such file or directory"),
		 "the caller's name for the file: %s", awr_last_error());
	T_EXPECT(!awr_nvme_id_load(fx("ctrl-awupf63.hex"), NULL, false, &nid) &&
		 nid.awupf == 63 && nid.have_ctrl, "ctrl page: %s", awr_last_error());
	T_EXPECT(!awr_nvme_id_load(fx("ns-nawupf-16k.hex"), NULL, true, &nid) && nid.have_ns &&
		 nid.awupf == 63, "ns page over the ctrl page: %s", awr_last_error());
	T_EXPECT_EQ(awr_nvme_id_load(fx("ns-lbads-zero.hex"), "--nvme-ns x", true, &nid), -EINVAL,
		    "an invalid LBA format");
	T_EXPECT(!strncmp(awr_last_error(), "--nvme-ns x: LBA format ", 24), "%s",
		 awr_last_error());
	T_EXPECT_EQ(awr_nvme_id_load(fx("vpd-bl-short-page.hex"), "c", true, &nid), -EMSGSIZE,
		    "a VPD page is no namespace page");
	T_EXPECT(!strncmp(awr_last_error(), "c holds ", 8) &&
		 strstr(awr_last_error(), "an Identify Namespace page has 4096"), "%s",
		 awr_last_error());
	T_EXPECT_EQ(awr_scsi_id_load(fx("vpd-bl-truncated.hex"), NULL, &sid), -EMSGSIZE,
		    "a truncated VPD page");
	T_EXPECT(strstr(awr_last_error(), "vpd-bl-truncated.hex holds ") &&
		 strstr(awr_last_error(), "the dump is truncated"), "%s", awr_last_error());
	T_EXPECT_EQ(awr_scsi_id_load(fx("ctrl-awupf63.hex"), NULL, &sid), -EINVAL,
		    "an Identify page is no VPD page");
	T_EXPECT(strstr(awr_last_error(), "is not a Block Limits VPD page"), "%s",
		 awr_last_error());
	T_EXPECT(!awr_scsi_id_load(fx("vpd-bl-scsi-debug-default.hex"), NULL, &sid) &&
		 sid.vpd_has_atomic, "a VPD page: %s", awr_last_error());
}

/* The loader reads what the decoder decodes from the same bytes. */
static void load_is_decode(void)
{
	static uint8_t page[8192];
	size_t n = fixture_bytes("ns-qemu-nsfeat34-4k.hex", page, sizeof(page));
	struct awr_nvme_id a = { 0 }, b = { 0 };

	T_EXPECT(!awr_nvme_decode_ns(page, n, &a), "decode");
	T_EXPECT(!awr_nvme_id_load(fx("ns-qemu-nsfeat34-4k.hex"), NULL, true, &b), "load: %s",
		 awr_last_error());
	T_EXPECT(!memcmp(&a, &b, sizeof(a)), "the same fields");
}

int main(int argc, char **argv)
{
	fixture_dir_from_args(argc, argv);
	format_transcript();
	two_devices();
	scsi_changes();
	files_refused();
	load_is_decode();
	return t_done("readings");
}
