// SPDX-License-Identifier: MIT
/*
 * Description: the database verdict on a volume whose provider states torn write prevention that
 * Linux does not read (AWS's NTWPU/NTWPG/NTWPB): device-implicit on the provider's word only when
 * a plain 4 KiB InnoDB page write reaches it whole, aligned and within unit, granularity and
 * boundary; each check (unit, granularity, boundary, Amazon's controller, the bytes present, the
 * partition start, max_sectors_kb) changes the verdict.
 *
 * No AWS volume is reachable here: the device's identify data are the fixtures of
 * tests/fixtures/cloud (built to AWS's published layout), answered by a test double of
 * awr__device_read() (this file's definition is linked instead of lib/device/device_io.c's), on a
 * sysfs fixture tree that maps the real ext4 file's st_dev to an NVMe disk with the kernel's
 * one-block limits (AWUPF 0, 512-byte blocks). The rest - statx, FIEMAP of the real file, the
 * sysfs lookup, the probe, the verdict - is the library's.
 */
#include "device/device_fixtures.h"
#include "device/device.h"
#include "sysfs_fixture.h"

#include <sys/vfs.h>

#define DISK	"devices/pci0000:00/nvme/nvme0/nvme0n1"
#define EXT4_SUPER_MAGIC	0xEF53

static const char *ctrl_fixture, *ns_fixture;

int awr__device_read(const struct awr_devnode *n, struct awr_device **out, char *err, size_t errlen)
{
	static uint8_t buf[8192];
	struct awr_device *d = awr__device_new(AWR_DEVICE_NVME);
	size_t len;

	(void)err;
	(void)errlen;
	if (!d)
		return -ENOMEM;
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

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* DATADIR/ibdata1: 16 pages of 4 KiB, page 0 an FSP header with MariaDB's full_crc32 4 KiB flags */
static void make_datadir(char *dir, size_t len)
{
	static uint8_t data[16 * 4096];
	char path[PATH_MAX + 16];
	int fd;

	fx_mkdir("data");
	fx_path(dir, len, "data");
	memset(data, 0, sizeof(data));
	data[25] = 8;				/* FIL_PAGE_TYPE_FSP_HDR */
	put_be32(data + 54, (1U << 4) | 3);	/* FSP_SPACE_FLAGS: FCRC32 marker, page ssize 3 */
	for (size_t i = 4096; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	snprintf(path, sizeof(path), "%s/ibdata1", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, sizeof(data)) != (ssize_t)sizeof(data) || fsync(fd)) {
		printf("FAIL: cannot write %s: %s\n", path, strerror(errno));
		exit(T_EXIT_FAIL);
	}
	close(fd);
}

/* nvme0n1 as the kernel shows an EBS volume (AWUPF 0, 512-byte blocks): one-block atomic limits */
static void build_tree(const char *on, unsigned int max_sectors_kb)
{
	char file[PATH_MAX + 16];

	fx_make_root("db-provider");
	fx_mkdir(DISK "/queue");
	fx_queue_attr(DISK, "logical_block_size", 512);
	fx_queue_attr(DISK, "physical_block_size", 512);
	fx_queue_attr(DISK, "max_segments", 128);
	fx_queue_attr(DISK, "max_hw_sectors_kb", 256);
	fx_queue_attr(DISK, "max_sectors_kb", max_sectors_kb);
	fx_queue_attr(DISK, "chunk_sectors", 0);
	fx_atomic_limits(DISK, 512, 512, 512, 0);
	fx_put(DISK "/size", "2097152\n");
	fx_mkdir(DISK "/nvme0n1p1");
	fx_put(DISK "/nvme0n1p1/partition", "1\n");
	fx_put(DISK "/nvme0n1p1/start", "1\n");	/* 512 bytes: no page is aligned on the disk */
	fx_put(DISK "/nvme0n1p1/size", "2097150\n");
	fx_ln("../" DISK, "block/nvme0n1");
	fx_file_on("anchor", on, file, sizeof(file));
	awr_set_sysfs_root(fx_root);
}

static enum awr_db_verdict verdict(const char *what, const char *ctrl, const char *ns,
				   const char *on, unsigned int max_sectors_kb,
				   const char *want_text)
{
	struct awr_db_report *r = NULL;
	enum awr_db_verdict v = AWR_DB_UNKNOWN;
	char dir[PATH_MAX];
	bool found = !want_text, provider_condition = false;
	int ret;

	ctrl_fixture = ctrl;
	ns_fixture = ns;
	build_tree(on, max_sectors_kb);
	make_datadir(dir, sizeof(dir));
	ret = awr_db_qualify(dir, AWR_DB_INNODB, 0, &r);
	T_EXPECT_EQ(ret, 0, what);
	if (!ret && r && r->nr_files) {
		v = r->files[0].verdict;
		printf("  %-36s %s (page %u)\n", what, awr_db_verdict_name(v),
		       r->files[0].page_size);
		for (unsigned int i = 0; i < r->files[0].nr_reasons; i++) {
			printf("    %s\n", r->files[0].reasons[i]);
			found |= want_text && strstr(r->files[0].reasons[i], want_text);
		}
		T_EXPECT_EQ(r->files[0].page_size, 4096, "the 4 KiB page read from ibdata1");
		T_EXPECT(v != AWR_DB_DEVICE_IMPLICIT || r->files[0].by_provider, "%s: by_provider",
			 what);
		for (unsigned int i = 0; v == AWR_DB_DEVICE_IMPLICIT && i < r->nr_conditions; i++)
			provider_condition |= !!strstr(r->conditions[i], "on its cloud provider's "
									 "word");
		T_EXPECT(provider_condition == (v == AWR_DB_DEVICE_IMPLICIT),
			 "%s: the condition names the provider's word", what);
	}
	T_EXPECT(found, "%s: a reason says '%s'", what, want_text ? want_text : "");
	awr_db_report_free(r);
	fx_remove();
	return v;
}

#define CL(x)	"cloud/" x
#define ON_DISK	"../../" DISK
#define ON_PART	"../../" DISK "/nvme0n1p1"

int main(int argc, char **argv)
{
	struct statfs fs;

	fixture_dir_from_args(argc, argv);
	fx_make_root("db-provider-fs");
	if (statfs(fx_root, &fs) || fs.f_type != EXT4_SUPER_MAGIC || fs.f_bsize != 4096) {
		fx_remove();
		T_SKIP("the temporary directory is not on ext4 with 4 KiB blocks (the verdict "
		       "judges ext4's "
		       "and XFS's placement; XFS makes a 4 KiB page's growth a reason of its own)");
	}
	fx_remove();
	T_EXPECT_EQ(verdict("AWS, NTWPU 16 KiB, NTWPG 4 KiB", CL("aws-ebs-id-ctrl.hex"),
			    CL("aws-ns-ntwp16k.hex"), ON_DISK, 128, "device-implicit on its word"),
		    AWR_DB_DEVICE_IMPLICIT, "AWS covers");
	T_EXPECT_EQ(verdict("another vendor, the same bytes", CL("other-vendor-id-ctrl.hex"),
			    CL("aws-ns-ntwp16k.hex"), ON_DISK, 128, "writes 512..512 bytes "
								    "atomically"),
		    AWR_DB_NOT_SAFE, "another vendor's controller: the kernel's one block");
	T_EXPECT_EQ(verdict("AWS, nothing reported", CL("aws-ebs-id-ctrl.hex"),
			    CL("aws-ns-ntwp-absent.hex"), ON_DISK, 128, NULL),
		    AWR_DB_NOT_SAFE, "NTWP fields 0");
	T_EXPECT_EQ(verdict("AWS, NTWPU 2 KiB", CL("aws-ebs-id-ctrl.hex"), CL("aws-ns-ntwp2k.hex"),
			    ON_DISK, 128, "exceeds AWS's unit NTWPU"),
		    AWR_DB_NOT_SAFE, "unit below the page");
	T_EXPECT_EQ(verdict("AWS, NTWPG 16 KiB", CL("aws-ebs-id-ctrl.hex"),
			    CL("aws-ns-ntwpg16k.hex"), ON_DISK, 128, "granularity NTWPG"),
		    AWR_DB_NOT_SAFE, "granularity above the page");
	T_EXPECT_EQ(verdict("AWS, NTWPB 5 KiB", CL("aws-ebs-id-ctrl.hex"),
			    CL("aws-ns-ntwp-boundary5k.hex"), ON_DISK, 128, "boundary NTWPB"),
		    AWR_DB_NOT_SAFE,
		    "boundary not a "
		    "multiple of the page");
	T_EXPECT_EQ(verdict("AWS, NTWPB 64 KiB", CL("aws-ebs-id-ctrl.hex"),
			    CL("aws-ns-ntwp-boundary64k.hex"), ON_DISK, 128,
			    "device-implicit on its word"),
		    AWR_DB_DEVICE_IMPLICIT, "64 KiB boundary");
	T_EXPECT_EQ(verdict("AWS, partition at 512 bytes", CL("aws-ebs-id-ctrl.hex"),
			    CL("aws-ns-ntwp16k.hex"), ON_PART, 128, "misaligned"),
		    AWR_DB_NOT_SAFE, "partition start");
	T_EXPECT_EQ(verdict("AWS, max_sectors_kb 2", CL("aws-ebs-id-ctrl.hex"),
			    CL("aws-ns-ntwp16k.hex"), ON_DISK, 2, "is split"),
		    AWR_DB_NOT_SAFE, "max_sectors_kb splits the page");
	return t_done("db_provider");
}
