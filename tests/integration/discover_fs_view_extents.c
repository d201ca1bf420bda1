// SPDX-License-Identifier: MIT
/*
 * Description: on scratch XFS, the filesystem view agrees with xfs_info
 * (block size, AG size, reflink) and sysfs (no hardware atomics on a loop
 * device); a directory's view is its O_TMPFILE's and carries the directory's
 * inherited extent size hint as xfs_io shows it; awr_extents_read() matches
 * xfs_io's FIEMAP listing extent by extent; an atomic write's mapping before
 * and after says software, as xfs_io's FIEMAP does independently. With
 * "largeio" (mounted largeio,allocsize=64k): unit 0 is the view's default unit,
 * not the 64 KiB st_blksize.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"

struct xfiemap {
	unsigned int n;
	uint64_t logical[512], physical[512], length[512];
};

/* xfs_io -c 'fiemap -v' FILE: "  0: [0..4095]:  26552..30647  4096 0x1" in 512-byte units. */
static int xfs_io_fiemap(const char *file, struct xfiemap *m)
{
	char cmd[8192], line[512];
	unsigned long long l0, l1, p0, p1, total;
	FILE *f;

	m->n = 0;
	snprintf(cmd, sizeof(cmd), "xfs_io -r -c 'fiemap -v' '%s'", file);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && m->n < 512) {
		unsigned int idx;

		if (strstr(line, "hole"))
			continue;
		if (sscanf(line, " %u: [%llu..%llu]: %llu..%llu %llu", &idx, &l0, &l1, &p0, &p1,
			   &total) == 6) {
			m->logical[m->n] = l0 * 512;
			m->physical[m->n] = p0 * 512;
			m->length[m->n] = (l1 - l0 + 1) * 512;
			m->n++;
		}
	}
	return pclose(f) ? -1 : 0;
}

/* xfs_info MNT: "bsize=4096", "agsize=65536 blks", "reflink=1". */
static int xfs_info_field(const char *mnt, const char *key, unsigned long long *v)
{
	char cmd[4200], buf[8192];
	size_t n;
	const char *p;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "xfs_info '%s'", mnt);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	pclose(f);
	p = strstr(buf, key);
	return p && sscanf(p + strlen(key), "%llu", v) == 1 ? 0 : -1;
}

static unsigned long long sysfs_loop_unit_max(const char *mnt)
{
	char p[256];
	unsigned long long v = 0;
	struct stat st;
	FILE *f;

	if (stat(mnt, &st))
		return ~0ULL;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/queue/atomic_write_unit_max_bytes",
		 major(st.st_dev), minor(st.st_dev));
	f = fopen(p, "r");
	if (!f)
		return 0;	/* before 6.11: no atomic attributes at all */
	if (fscanf(f, "%llu", &v) != 1)
		v = ~0ULL;
	fclose(f);
	return v;
}

static void check_view(const char *mnt)
{
	unsigned long long bsize, agsize, reflink;
	struct awr_fs_view v;
	char cmd[8192];

	T_EXPECT_EQ(awr_fs_view_path(mnt, &v), 0, "view of the mount point");
	T_EXPECT(v.tmpfile, "a directory is viewed through an O_TMPFILE");
	T_EXPECT_EQ(v.type, AWR_FS_XFS, "type");
	T_EXPECT(!strcmp(v.type_name, "xfs"), "type name %s", v.type_name);
	T_EXPECT(!xfs_info_field(mnt, "bsize=", &bsize), "xfs_info bsize");
	T_EXPECT(!xfs_info_field(mnt, "agsize=", &agsize), "xfs_info agsize");
	T_EXPECT(!xfs_info_field(mnt, "reflink=", &reflink), "xfs_info reflink");
	T_EXPECT_EQ(v.block_size, bsize, "block size == xfs_info bsize");
	T_EXPECT_EQ(v.ag_size, agsize * bsize, "AG size == xfs_info agsize * bsize");
	T_EXPECT_EQ(v.reflink, reflink, "reflink == xfs_info reflink");
	T_EXPECT_EQ(v.hw_atomic, sysfs_loop_unit_max(mnt) != 0, "hardware atomics as sysfs says");
	T_EXPECT_EQ(v.hardware_max, 0, "no hardware path on a loop device");
	T_EXPECT_EQ(v.extsize_hint, 0, "no hint on a fresh filesystem");
	if (v.atomic && v.reflink && v.unit_max > v.block_size)
		T_EXPECT_EQ(v.software_max, v.unit_max, "software max == statx unit_max");
	printf("view: %s bs %u ag %" PRIu64 " reflink %d sw %" PRIu64 " hw %" PRIu64 "\n",
	       v.type_name, v.block_size, v.ag_size, v.reflink, v.software_max, v.hardware_max);

	/* an inherited hint: set on a directory, a new file there gets it (as xfs_io shows for a
	 * real one) */
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/hinted' && xfs_io -c 'extsize 64k' '%s/hinted' && "
		 "touch '%s/hinted/real' && xfs_io -c extsize '%s/hinted/real' | grep -q "
		 "'^\\[65536\\]'",
		 mnt, mnt, mnt, mnt);
	T_EXPECT(!system(cmd), "xfs_io shows the inherited hint 65536 on a new file");
	snprintf(cmd, sizeof(cmd), "%s/hinted", mnt);
	T_EXPECT_EQ(awr_fs_view_path(cmd, &v), 0, "view of the hinted directory");
	T_EXPECT_EQ(v.extsize_hint, 65536, "the directory's new files get the 64 KiB hint");
}

/* awr_extents_read_path(): the same map by name, its default unit, and why it fails */
static void check_extents_path(const char *file, const char *dir)
{
	struct awr_extent_report *r = NULL;
	struct awr_fs_view v;
	uint64_t unit;

	T_EXPECT_EQ(awr_fs_view_path(file, &v), 0, "view of the file");
	unit = awr_fs_default_unit(&v);
	T_EXPECT_EQ(awr_extents_read_path(file, 0, &r), 0, "extents by path");
	T_EXPECT(r && r->unit == unit, "unit 0: the hardware path's maximum, else unit_min, else "
		 "the block");
	awr_extent_report_free(r);
	T_EXPECT_EQ(awr_extents_read_path(file, 65536, &r), 0, "extents by path, 64 KiB");
	T_EXPECT(r && r->unit == 65536 && r->nr_extents > 1, "the unit asked for");
	awr_extent_report_free(r);
	T_EXPECT_EQ(awr_extents_read_path(dir, 0, &r), -EINVAL, "a directory");
	T_EXPECT(strstr(awr_last_error(), "is not a regular file: extents are a file's") != NULL,
		 "awr_last_error() says why");
	T_EXPECT_EQ(awr_extents_read_path("/nonexistent/x", 0, &r), -ENOENT, "no such file");
	T_EXPECT(strstr(awr_last_error(), "cannot open /nonexistent/x: ") != NULL,
		 "awr_last_error() names the path");
}

static void check_extents(const char *mnt)
{
	char file[4200], other[4200];
	static unsigned char buf[1 << 16] __attribute__((aligned(4096)));
	struct awr_extent_report *r;
	struct xfiemap x;
	uint64_t aligned = 0, total = 0;
	int fd, fd2;

	snprintf(file, sizeof(file), "%s/ext", mnt);
	snprintf(other, sizeof(other), "%s/interleave", mnt);
	fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0600);
	fd2 = open(other, O_CREAT | O_RDWR | O_TRUNC, 0600);
	T_EXPECT(fd >= 0 && fd2 >= 0, "create files");
	memset(buf, 0x5a, sizeof(buf));
	/* interleaved 12 KiB appends with fsync: several extents, most not 64 KiB aligned */
	for (int i = 0; i < 24; i++) {
		T_EXPECT(pwrite(fd, buf, 12288, (off_t)i * 12288) == 12288, "write");
		T_EXPECT(fsync(fd) == 0, "fsync");
		T_EXPECT(pwrite(fd2, buf, 4096, (off_t)i * 4096) == 4096, "write other");
		T_EXPECT(fsync(fd2) == 0, "fsync other");
	}
	T_EXPECT_EQ(awr_extents_read(fd, 65536, &r), 0, "extents");
	T_EXPECT(!xfs_io_fiemap(file, &x), "xfs_io fiemap");
	T_EXPECT_EQ(r->nr_extents, x.n, "extent count == xfs_io's");
	for (unsigned int i = 0; i < r->nr_extents && i < x.n; i++) {
		const struct awr_extent *e = &r->extents[i];

		T_EXPECT_EQ(e->logical, x.logical[i], "logical");
		T_EXPECT_EQ(e->physical, x.physical[i], "physical");
		T_EXPECT_EQ(e->length, x.length[i], "length");
		total += x.length[i];
		T_EXPECT_EQ(e->aligned, !(x.logical[i] % 65536) && !(x.physical[i] % 65536),
			    "aligned");
		/* whole 64 KiB units inside the extent with matching phase */
		if ((x.physical[i] % 65536) == (x.logical[i] % 65536)) {
			uint64_t lo = (x.logical[i] + 65535) / 65536 * 65536;
			uint64_t hi = (x.logical[i] + x.length[i]) / 65536 * 65536;

			aligned += hi > lo ? hi - lo : 0;
		}
	}
	/* XFS may keep blocks past EOF (speculative preallocation): they are mapped too */
	T_EXPECT_EQ(r->total_bytes, total, "total bytes == xfs_io's");
	T_EXPECT(total >= 24 * 12288, "the written bytes are mapped");
	T_EXPECT_EQ(r->aligned_bytes, aligned, "aligned bytes as computed from xfs_io's listing");
	T_EXPECT(r->nr_misaligned >= 1, "misaligned ranges named");
	printf("extents: %u, aligned %" PRIu64 " of %" PRIu64 ", %u misaligned ranges\n",
	       r->nr_extents, r->aligned_bytes, r->total_bytes, r->nr_misaligned);
	awr_extent_report_free(r);
	T_EXPECT_EQ(awr_extents_read(fd, 3 * 4096, &r), -EINVAL, "unit not a power of two");
	close(fd);
	close(fd2);
	check_extents_path(file, mnt);
}

static void check_write_path(const char *mnt)
{
	char file[4200];
	static unsigned char buf[16384] __attribute__((aligned(4096)));
	struct awr_unit_map before, after;
	struct awr_file *f;
	struct awr_fs_view v;
	struct awr_extent_report *r;
	struct awr_verdict vd;
	struct xfiemap x0, x1;
	int fd;

	snprintf(file, sizeof(file), "%s/pathfile", mnt);
	fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0600);
	memset(buf, 0x11, sizeof(buf));
	for (int i = 0; i < 16; i++)
		T_EXPECT(pwrite(fd, buf, sizeof(buf), (off_t)i * 16384) == 16384, "fill");
	T_EXPECT(fsync(fd) == 0, "fsync");
	close(fd);
	T_EXPECT_EQ(awr_file_open(file, 0, &f), 0, "open O_DIRECT");
	T_EXPECT_EQ(awr_fs_view_fd(awr_file_fd(f), &v), 0, "view");
	if (!v.atomic)
		T_SKIP("no atomic writes on XFS files here (kernel before 6.13)");
	T_EXPECT_EQ(awr_extents_read(awr_file_fd(f), 16384, &r), 0, "extents");
	T_EXPECT(awr_route_predict(&v, r, 32768, 16384) == AWR_ROUTE_SOFTWARE,
		 "predicted software");
	awr_extent_report_free(r);
	T_EXPECT(!xfs_io_fiemap(file, &x0), "xfs_io fiemap before");
	T_EXPECT_EQ(awr_unit_map_read(awr_file_fd(f), 32768, 16384, &before), 0, "map before");
	T_EXPECT(before.mapped, "mapped before");
	memset(buf, 0x22, sizeof(buf));
	T_EXPECT(awr_pwrite(f, buf, 16384, 32768, AWR_WRITE_DSYNC, &vd) == 16384,
		 "atomic write: %s", vd.message);
	T_EXPECT_EQ(awr_unit_map_read(awr_file_fd(f), 32768, 16384, &after), 0, "map after");
	T_EXPECT(!xfs_io_fiemap(file, &x1), "xfs_io fiemap after");
	T_EXPECT_EQ(awr_route_compare(&before, &after), AWR_ROUTE_SOFTWARE, "observed software");
	/* independently: xfs_io's extent holding byte 32768 moved */
	{
		uint64_t p0 = 0, p1 = 0;

		for (unsigned int i = 0; i < x0.n; i++)
			if (x0.logical[i] <= 32768 && 32768 < x0.logical[i] + x0.length[i])
				p0 = x0.physical[i] + 32768 - x0.logical[i];
		for (unsigned int i = 0; i < x1.n; i++)
			if (x1.logical[i] <= 32768 && 32768 < x1.logical[i] + x1.length[i])
				p1 = x1.physical[i] + 32768 - x1.logical[i];
		T_EXPECT(p0 && p1 && p0 != p1,
			 "xfs_io: byte 32768 moved from %" PRIu64 " to %" PRIu64, p0, p1);
		T_EXPECT_EQ(before.part[0].physical, p0, "before == xfs_io");
		T_EXPECT_EQ(after.part[0].physical, p1, "after == xfs_io");
	}
	/* negative control: a plain (non-atomic) overwrite on the same file stays in place */
	T_EXPECT_EQ(awr_unit_map_read(awr_file_fd(f), 65536, 16384, &before), 0,
		    "map before plain");
	T_EXPECT(pwrite(awr_file_fd(f), buf, 16384, 65536) == 16384, "plain write");
	T_EXPECT(fdatasync(awr_file_fd(f)) == 0, "fdatasync");
	T_EXPECT_EQ(awr_unit_map_read(awr_file_fd(f), 65536, 16384, &after), 0, "map after plain");
	T_EXPECT_EQ(awr_route_compare(&before, &after), AWR_ROUTE_HARDWARE, "a plain overwrite "
									    "stays in place");
	awr_file_close(f);
}

/*
 * Mounted with largeio,allocsize=64k (argument "largeio"): XFS reports st_blksize 64 KiB
 * (xfs_stat_blksize(), fs/xfs/xfs_iops.c) while the view's default unit stays the 4 KiB
 * unit_min of a loop device: unit 0 is the view's, not st_blksize.
 */
static void check_default_unit(const char *mnt)
{
	static unsigned char buf[1 << 16] __attribute__((aligned(4096)));
	struct awr_extent_report *r = NULL;
	struct awr_fs_view v;
	char file[4200];
	struct stat st;
	int fd;

	snprintf(file, sizeof(file), "%s/largeio", mnt);
	fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0600);
	T_EXPECT(fd >= 0 && pwrite(fd, buf, sizeof(buf), 0) == sizeof(buf), "write 64 KiB");
	T_EXPECT(!fsync(fd) && !fstat(fd, &st), "fsync, fstat");
	if (st.st_blksize != 65536)
		T_SKIP("st_blksize %ld, not the 64 KiB of largeio,allocsize=64k",
		       (long)st.st_blksize);
	T_EXPECT_EQ(awr_fs_view_fd(fd, &v), 0, "view");
	T_EXPECT(awr_fs_default_unit(&v) && awr_fs_default_unit(&v) < 65536,
		 "the view's default unit (%" PRIu64 ") is below st_blksize",
		 awr_fs_default_unit(&v));
	T_EXPECT_EQ(awr_extents_read(fd, 0, &r), 0, "extents, unit 0");
	T_EXPECT(r && r->unit == awr_fs_default_unit(&v), "unit 0: the view's default unit");
	awr_extent_report_free(r);
	r = NULL;
	T_EXPECT_EQ(awr_extents_read_path(file, 0, &r), 0, "extents by path, unit 0");
	T_EXPECT(r && r->unit == awr_fs_default_unit(&v), "by path: the same unit");
	awr_extent_report_free(r);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *mnt = getenv("AWR_SCRATCH_DIR");

	if (!mnt)
		T_SKIP("AWR_SCRATCH_DIR not set: run under with-scratch-xfs.sh");
	if (argc > 1 && !strcmp(argv[1], "largeio")) {
		check_default_unit(mnt);
		return t_done("discover_fs_view_extents_largeio");
	}
	if (system("command -v xfs_io >/dev/null && command -v xfs_info >/dev/null"))
		T_SKIP("xfs_io/xfs_info not installed (xfsprogs)");
	check_view(mnt);
	check_extents(mnt);
	check_write_path(mnt);
	return t_done("discover_fs_view_extents");
}
