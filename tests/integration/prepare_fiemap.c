// SPDX-License-Identifier: MIT
/*
 * Description: awr_prepare() called directly on files of the scratch XFS, each
 * result compared with the kernel's own FIEMAP listing read here (not through
 * the library's extent reader) and the extent size hint with FS_IOC_FSGETXATTR:
 * on free space fragmented on purpose, a prepared file maps every byte asked on
 * extents whose file and device offsets and lengths are multiples of the unit,
 * and the aligned bytes it reports are those FIEMAP shows. The control: a file
 * grown without a hint in the same free space has misaligned extents by the same
 * reading (so the check can fail), and awr_prepare() refuses it (-EEXIST) and
 * leaves its extents as they were. The other refusals: a unit that is not a
 * power of two, one below the block, a size not a multiple of the unit, a file
 * on tmpfs.
 *
 *   prepare_fiemap   (run under with-scratch-xfs.sh)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"

#define UNIT	(64U << 10)
#define SIZE	(8U << 20)
#define MAX_EXT	4096

struct map {
	uint64_t mapped, aligned;	/* bytes mapped; of those on unit-aligned extents */
	unsigned int extents, misaligned;
	uint64_t sum;			/* of the extents' offsets and lengths: equal maps */
};

/* The kernel's FIEMAP listing, read here: every extent judged against @unit. */
static int fiemap(int fd, uint64_t unit, struct map *m)
{
	size_t len = sizeof(struct fiemap) + MAX_EXT * sizeof(struct fiemap_extent);
	struct fiemap *fm = calloc(1, len);

	memset(m, 0, sizeof(*m));
	if (!fm)
		return -ENOMEM;
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = MAX_EXT;
	if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
		free(fm);
		return -errno;
	}
	for (unsigned int i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];
		bool ok = !(e->fe_logical % unit) && !(e->fe_physical % unit) &&
			  !(e->fe_length % unit);

		m->mapped += e->fe_length;
		m->aligned += ok ? e->fe_length : 0;
		m->misaligned += !ok;
		m->sum += e->fe_logical * 3 + e->fe_physical * 5 + e->fe_length * 7;
	}
	m->extents = fm->fm_mapped_extents;
	free(fm);
	return 0;
}

static uint32_t extsize_hint(int fd)
{
	struct fsxattr fx = { 0 };

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx))
		return 0;
	return (fx.fsx_xflags & FS_XFLAG_EXTSIZE) ? fx.fsx_extsize : 0;
}

static int open_new(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		T_SKIP("cannot create %s: %s", path, strerror(errno));
	return fd;
}

/* Free space in small pieces: 12 KiB files, every other one removed. */
static void fragment(const char *dir)
{
	static char buf[12288];
	char path[512];

	for (int i = 0; i < 600; i++) {
		snprintf(path, sizeof(path), "%s/frag%d", dir, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
			T_SKIP("fragmenting the free space: %s", strerror(errno));
		close(fd);
	}
	sync();
	for (int i = 0; i < 600; i += 2) {
		snprintf(path, sizeof(path), "%s/frag%d", dir, i);
		unlink(path);
	}
}

static void prepared(const char *dir)
{
	struct awr_prepare_result res;
	struct map m;
	int fd = open_new(dir, "prepared"), ret;

	ret = awr_prepare(fd, SIZE, UNIT, 0, &res);
	if (ret && (res.refusal == AWR_PREPARE_FS || res.refusal == AWR_PREPARE_UNIT_FS))
		T_SKIP("no atomic writes of %u bytes on XFS here (Linux 6.16+): %s", UNIT,
		       res.message);
	T_EXPECT(!ret && res.refusal == AWR_PREPARE_OK, "awr_prepare: %s (%s)", strerror(-ret),
		 res.message);
	T_EXPECT(!fiemap(fd, UNIT, &m), "FIEMAP: %s", strerror(errno));
	T_EXPECT_EQ(res.extsize_hint, UNIT, "the hint awr_prepare() reports");
	T_EXPECT_EQ(extsize_hint(fd), UNIT, "the hint FS_IOC_FSGETXATTR reads");
	T_EXPECT_EQ(m.mapped, SIZE, "FIEMAP: bytes mapped");
	T_EXPECT_EQ(m.misaligned, 0, "FIEMAP: extents off the unit");
	T_EXPECT_EQ(res.total_bytes, m.mapped, "total_bytes against FIEMAP");
	T_EXPECT_EQ(res.aligned_bytes, m.aligned, "aligned_bytes against FIEMAP");
	printf("ok: prepared %u bytes: %u extents, %" PRIu64 " bytes aligned by FIEMAP (%s)\n",
	       SIZE, m.extents, m.aligned, res.message);
	close(fd);
}

/* The control: a file grown by small appends there, misaligned by the same reading. */
static void grown(const char *dir)
{
	static char buf[4096];
	struct awr_prepare_result res;
	struct map before, after;
	int fd = open_new(dir, "grown"), ret;

	for (int i = 0; i < 256; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
			T_SKIP("growing the control file: %s", strerror(errno));
	T_EXPECT(!fiemap(fd, UNIT, &before), "FIEMAP: %s", strerror(errno));
	T_EXPECT(before.misaligned > 0, "the control: %u extents, none misaligned: the reading "
		 "would pass anything", before.extents);
	ret = awr_prepare(fd, SIZE, UNIT, 0, &res);
	T_EXPECT(ret == -EEXIST && res.refusal == AWR_PREPARE_HAS_DATA,
		 "a file holding data: %s (%s)", strerror(-ret), res.message);
	T_EXPECT(!fiemap(fd, UNIT, &after), "FIEMAP: %s", strerror(errno));
	T_EXPECT(after.sum == before.sum && after.extents == before.extents,
		 "the refused file's extents changed: %u extents, then %u", before.extents,
		 after.extents);
	T_EXPECT_EQ(extsize_hint(fd), 0, "a hint set on the refused file");
	printf("ok: the control: %u of %u extents misaligned by FIEMAP; refused: %s\n",
	       before.misaligned, before.extents, res.message);
	close(fd);
}

static void refuse(int fd, uint64_t size, uint64_t unit, int want, enum awr_prepare_refusal why,
		   const char *what)
{
	struct awr_prepare_result res;
	struct stat st;
	int ret = awr_prepare(fd, size, unit, 0, &res);

	T_EXPECT(ret == want && res.refusal == why, "%s: %s, refusal %d (%s)", what,
		 strerror(-ret), res.refusal, res.message);
	T_EXPECT(!fstat(fd, &st) && !st.st_blocks && !st.st_size, "%s: blocks allocated", what);
	printf("ok: %s refused: %s\n", what, res.message);
}

static void refusals(const char *dir)
{
	char shm[512];
	int fd = open_new(dir, "refused");

	refuse(fd, SIZE, 48U << 10, -EINVAL, AWR_PREPARE_NOT_POW2, "a unit of 48 KiB");
	refuse(fd, SIZE, 1024, -EINVAL, AWR_PREPARE_UNIT_SMALL, "a unit of 1 KiB");
	refuse(fd, SIZE + 4096, UNIT, -EINVAL, AWR_PREPARE_SIZE, "a size off the unit");
	refuse(fd, 0, UNIT, -EINVAL, AWR_PREPARE_SIZE, "a size of 0");
	close(fd);
	snprintf(shm, sizeof(shm), "%s/shm", dir);
	if (mkdir(shm, 0700) || mount("tmpfs", shm, "tmpfs", 0, "size=16m")) {
		T_EXPECT(0, "tmpfs at %s: %s", shm, strerror(errno));
		return;
	}
	fd = open_new(shm, "refused");
	refuse(fd, SIZE, UNIT, -EOPNOTSUPP, AWR_PREPARE_FS, "a file on tmpfs");
	close(fd);
	umount2(shm, MNT_DETACH);
}

int main(void)
{
	const char *dir = getenv("AWR_SCRATCH_DIR");

	if (!dir)
		T_SKIP("run under with-scratch-xfs.sh (AWR_SCRATCH_DIR)");
	fragment(dir);
	prepared(dir);
	grown(dir);
	refusals(dir);
	return t_done("prepare_fiemap");
}
