// SPDX-License-Identifier: MIT
/*
 * Description: effective limits and findings derived from captured statx and
 * sysfs views: every disagreement explained, with the right id.
 */
#include <sys/stat.h>

#include "helpers.h"
#include "private.h"
#include "discover/discover.h"

static struct awr_probe *make(uint32_t mode, bool atomic, uint32_t umin, uint32_t umax,
			      uint32_t opt)
{
	struct awr_probe *p = calloc(1, sizeof(*p));

	p->have_statx = true;
	p->statx.mode = mode;
	p->statx.atomic_reported = atomic;
	p->statx.unit_min = umin;
	p->statx.unit_max = umax;
	p->statx.segments_max = atomic && umin ? 1 : 0;
	p->statx.unit_max_opt = opt;
	p->statx.dio_reported = true;
	p->statx.dio_mem_align = 4;
	p->statx.dio_offset_align = 512;
	return p;
}

static void with_sysfs(struct awr_probe *p, const char *disk, const char *part, uint32_t umin,
		       uint32_t umax, uint32_t maxb, uint32_t bnd, bool aligned)
{
	p->have_sysfs = true;
	snprintf(p->sysfs.disk, sizeof(p->sysfs.disk), "%s", disk);
	snprintf(p->sysfs.partition, sizeof(p->sysfs.partition), "%s", part);
	p->sysfs.has_atomic_attrs = true;
	p->sysfs.unit_min = umin;
	p->sysfs.unit_max = umax;
	p->sysfs.max_bytes = maxb;
	p->sysfs.boundary = bnd;
	p->sysfs.part_aligned = aligned;
	p->sysfs.part_start = aligned ? 1048576 : 1052160;
	p->sysfs.size = 1ULL << 30;
}

static const struct awr_finding *find(const struct awr_probe *p, const char *id)
{
	for (unsigned int i = 0; i < p->nr_findings; i++)
		if (!strcmp(p->findings[i].id, id))
			return &p->findings[i];
	return NULL;
}

#define EXPECT_FINDING(p, id, text) do {						\
	const struct awr_finding *_f = find((p), (id));					\
	T_EXPECT(_f, "finding %s missing", (id));					\
	if (_f)										\
		T_EXPECT(strstr(_f->message, (text)), "%s: '%s' lacks '%s'", (id),	\
			 _f->message, (text));						\
	if (_f)	/* the catalogue's what to do: for warn and error only */		\
		T_EXPECT((_f->severity != AWR_SEV_INFO) == (_f->what_to_do != NULL),	\
			 "%s: what to do '%s'", (id), _f->what_to_do);			\
} while (0)

int main(void)
{
	struct awr_probe *p;

	/* XFS file on a loop device: software path only (the measured 6.18 case). */
	p = make(S_IFREG, true, 4096, 1048576, 0);
	with_sysfs(p, "loop0", "", 0, 0, 0, 0, true);
	awr__derive_effective(p);
	T_EXPECT(p->effective.supported, "file supported");
	T_EXPECT_EQ(p->effective.unit_min, 4096, "file unit_min from statx");
	T_EXPECT_EQ(p->effective.unit_max, 1048576, "file unit_max from statx");
	T_EXPECT_EQ(p->effective.mem_align, 4, "mem align from statx");
	EXPECT_FINDING(p, "software_path_only", "software (copy-on-write) path");
	free(p);

	/* XFS file on NVMe with a hardware path up to 64 KiB. */
	p = make(S_IFREG, true, 4096, 1048576, 65536);
	with_sysfs(p, "nvme0n1", "", 4096, 65536, 65536, 0, true);
	awr__derive_effective(p);
	EXPECT_FINDING(p, "hardware_path_limit", "up to 64 KiB may take the hardware path");
	T_EXPECT(!find(p, "software_path_only"), "no software-only finding");
	free(p);

	/* statx 0 on a file although the device supports atomics: filesystem lacks support. */
	p = make(S_IFREG, true, 0, 0, 0);
	with_sysfs(p, "nvme0n1", "", 4096, 65536, 65536, 0, true);
	awr__derive_effective(p);
	T_EXPECT(!p->effective.supported, "unsupported");
	EXPECT_FINDING(p, "fs_no_atomic", "although nvme0n1 supports 4096..65536");
	free(p);

	/* Misaligned partition: statx mask clear, sysfs non-zero. */
	p = make(S_IFBLK, false, 0, 0, 0);
	with_sysfs(p, "nvme0n1", "nvme0n1p2", 4096, 65536, 65536, 0, false);
	awr__derive_effective(p);
	T_EXPECT(!p->effective.supported, "misaligned partition unsupported");
	EXPECT_FINDING(p, "partition_misaligned", "starts at byte 1052160, not a multiple of 4096");
	free(p);

	/* Aligned partition: block limits from statx, max_bytes/boundary/size from sysfs. */
	p = make(S_IFBLK, true, 4096, 65536, 0);
	with_sysfs(p, "sdb", "sdb1", 4096, 65536, 131072, 131072, true);
	awr__derive_effective(p);
	T_EXPECT(p->effective.supported, "aligned partition supported");
	T_EXPECT_EQ(p->effective.max_bytes, 131072, "max_bytes from sysfs");
	T_EXPECT_EQ(p->effective.boundary, 131072, "boundary from sysfs");
	T_EXPECT_EQ(p->effective.dev_size, 1ULL << 30, "device size");
	EXPECT_FINDING(p, "max_bytes_above_unit_max",
		       "up to 128 KiB, but one write may be at most 64 KiB");
	EXPECT_FINDING(p, "boundary", "multiple of 128 KiB");
	T_EXPECT(!find(p, "statx_sysfs_mismatch"), "no mismatch");
	free(p);

	/* Block device whose statx and sysfs disagree. */
	p = make(S_IFBLK, true, 4096, 32768, 0);
	with_sysfs(p, "sda", "", 8192, 1048576, 33554432, 0, true);
	awr__derive_effective(p);
	EXPECT_FINDING(p, "statx_sysfs_mismatch", "statx says 4096..32768 bytes but sysfs of sda "
		       "says 8192..1048576");
	free(p);

	/* Block device without atomics (loop). */
	p = make(S_IFBLK, false, 0, 0, 0);
	with_sysfs(p, "loop0", "", 0, 0, 0, 0, true);
	awr__derive_effective(p);
	EXPECT_FINDING(p, "device_no_atomic", "loop0 reports no atomic write support");
	free(p);

	/* Block device with sysfs support but statx mask clear (e.g. a stacked device). */
	p = make(S_IFBLK, false, 0, 0, 0);
	with_sysfs(p, "dm-0", "", 4096, 65536, 65536, 0, true);
	awr__derive_effective(p);
	EXPECT_FINDING(p, "statx_sysfs_disagree", "sysfs says 4096..65536");
	free(p);

	/* A kernel whose sysfs lacks the attributes. */
	p = make(S_IFBLK, false, 0, 0, 0);
	with_sysfs(p, "sdz", "", 0, 0, 0, 0, true);
	p->sysfs.has_atomic_attrs = false;
	awr__derive_effective(p);
	EXPECT_FINDING(p, "kernel_too_old", "no queue/atomic_write_* attributes");
	free(p);

	/* A file on a filesystem with no block device behind it. */
	p = make(S_IFREG, false, 0, 0, 0);
	awr__derive_effective(p);
	EXPECT_FINDING(p, "no_block_device", "no block device");
	EXPECT_FINDING(p, "fs_no_atomic", "no atomic write path");
	free(p);

	/* A character device. */
	p = make(S_IFCHR, false, 0, 0, 0);
	awr__derive_effective(p);
	EXPECT_FINDING(p, "not_file_or_block", "RWF_ATOMIC does not apply");
	free(p);

	/* No DIO alignment reported. */
	p = make(S_IFREG, true, 4096, 1048576, 0);
	p->statx.dio_reported = false;
	awr__derive_effective(p);
	EXPECT_FINDING(p, "dio_alignment_unknown", "direct I/O alignment");
	free(p);

	/* ext4 with data=journal (read off the 7.3 guest): statx reports atomic writes and no
	 * direct I/O (STATX_DIOALIGN offset 0); ext4_dio_write_iter() buffers them: no atomic
	 * writes in effect. */
	p = make(S_IFREG, true, 4096, 16384, 0);
	with_sysfs(p, "nvme0n1", "", 4096, 16384, 16384, 0, true);
	p->statx.dio_mem_align = p->statx.dio_offset_align = 0;
	awr__derive_effective(p);
	T_EXPECT(!p->effective.supported, "data=journal: no atomic writes in effect");
	T_EXPECT_EQ(p->effective.unit_max, 0, "data=journal: no unit");
	EXPECT_FINDING(p, "no_direct_io", "through the page cache as plain writes");
	T_EXPECT(!find(p, "fs_no_atomic"),
		 "data=journal: statx did report atomics, no fs_no_atomic");
	free(p);

	/* A DAX file whose statx reports atomic writes (6.16's reflink XFS): none in effect. */
	p = make(S_IFREG, true, 4096, 65536, 0);
	with_sysfs(p, "pmem0", "", 0, 0, 0, 0, true);
	p->statx.attributes = STATX_ATTR_DAX;
	awr__derive_effective(p);
	T_EXPECT(!p->effective.supported, "DAX: no atomic writes in effect");
	EXPECT_FINDING(p, "dax", "dax_iomap_rw() ignores RWF_ATOMIC before 6.17");
	free(p);

	return t_done("findings");
}
