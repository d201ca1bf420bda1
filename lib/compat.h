/* SPDX-License-Identifier: MIT */
/*
 * Kernel ABI that Debian 12's headers (glibc 2.36, linux-libc-dev 6.1) lack.
 * Values are the merged ones (Linux 6.11+), not the 2023 RFC's.
 */
#ifndef AWR_COMPAT_H
#define AWR_COMPAT_H

#include <stdint.h>
#include <sys/ioctl.h>

#ifndef RWF_DSYNC
#define RWF_DSYNC		0x00000002
#endif
#ifndef RWF_ATOMIC
#define RWF_ATOMIC		0x00000040
#endif
#ifndef STATX_BASIC_STATS
#define STATX_BASIC_STATS	0x000007ffU
#endif
#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN		0x00002000U
#endif
#ifndef STATX_WRITE_ATOMIC
#define STATX_WRITE_ATOMIC	0x00010000U
#endif
#ifndef STATX_ATTR_WRITE_ATOMIC
#define STATX_ATTR_WRITE_ATOMIC	0x00400000
#endif

/* XFS shutdown ioctl (xfsprogs' xfs_fs.h, not installed without xfslibs-dev) */
#ifndef XFS_IOC_GOINGDOWN
#define XFS_IOC_GOINGDOWN		_IOR('X', 125, uint32_t)
#endif
#ifndef XFS_FSOP_GOING_FLAGS_NOLOGFLUSH
#define XFS_FSOP_GOING_FLAGS_NOLOGFLUSH	0x2	/* shut down without flushing the log */
#endif

/* struct statx as the kernel lays it out (256 bytes), with the 6.11+ fields. */
struct awr_kstatx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

struct awr_kstatx {
	uint32_t stx_mask;			/* 0x00 */
	uint32_t stx_blksize;
	uint64_t stx_attributes;		/* 0x08 */
	uint32_t stx_nlink;			/* 0x10 */
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t spare0;
	uint64_t stx_ino;			/* 0x20 */
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;		/* 0x38 */
	struct awr_kstatx_ts stx_atime;		/* 0x40 */
	struct awr_kstatx_ts stx_btime;
	struct awr_kstatx_ts stx_ctime;
	struct awr_kstatx_ts stx_mtime;
	uint32_t stx_rdev_major;		/* 0x80 */
	uint32_t stx_rdev_minor;
	uint32_t stx_dev_major;
	uint32_t stx_dev_minor;
	uint64_t stx_mnt_id;			/* 0x90 */
	uint32_t stx_dio_mem_align;		/* 0x98 */
	uint32_t stx_dio_offset_align;		/* 0x9c */
	uint64_t stx_subvol;			/* 0xa0 */
	uint32_t stx_atomic_write_unit_min;	/* 0xa8 */
	uint32_t stx_atomic_write_unit_max;	/* 0xac */
	uint32_t stx_atomic_write_segments_max;	/* 0xb0 */
	uint32_t stx_dio_read_offset_align;	/* 0xb4 */
	uint32_t stx_atomic_write_unit_max_opt;	/* 0xb8 */
	uint32_t spare2;
	uint64_t spare3[8];			/* 0xc0 */
};

_Static_assert(sizeof(struct awr_kstatx) == 0x100, "struct statx is 256 bytes");
_Static_assert(__builtin_offsetof(struct awr_kstatx, stx_dio_mem_align) == 0x98, "statx dio");
_Static_assert(__builtin_offsetof(struct awr_kstatx, stx_atomic_write_unit_min) == 0xa8,
	       "statx atomic");
_Static_assert(__builtin_offsetof(struct awr_kstatx, stx_atomic_write_unit_max_opt) == 0xb8,
	       "statx opt");

/* NVMe passthrough through io_uring (5.19+): struct nvme_uring_cmd, 72 bytes. */
#ifndef IORING_SETUP_SQE128
#define IORING_SETUP_SQE128	(1U << 10)
#endif
#ifndef IORING_SETUP_CQE32
#define IORING_SETUP_CQE32	(1U << 11)
#endif
#define AWR_NVME_URING_CMD_IO	0xc0484e80U	/* _IOWR('N', 0x80, struct nvme_uring_cmd) */

struct awr_nvme_uring_cmd {
	uint8_t opcode;
	uint8_t flags;
	uint16_t rsvd1;
	uint32_t nsid;
	uint32_t cdw2;
	uint32_t cdw3;
	uint64_t metadata;
	uint64_t addr;
	uint32_t metadata_len;
	uint32_t data_len;
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
	uint32_t timeout_ms;
	uint32_t rsvd2;
};

_Static_assert(sizeof(struct awr_nvme_uring_cmd) == 72, "nvme_uring_cmd is 72 bytes");
_Static_assert(__builtin_offsetof(struct awr_nvme_uring_cmd, cdw10) == 40, "nvme_uring_cmd cdw10");
_Static_assert(__builtin_offsetof(struct awr_nvme_uring_cmd, timeout_ms) == 64,
	       "nvme_uring_cmd timeout");

/*
 * XFS_IOC_FSGEOMETRY (5.1+; xfsprogs' xfs_fs.h is not a build dependency): the
 * v5 geometry, 256 bytes. Only the leading fields are named.
 */
struct awr_xfs_geom {
	uint32_t blocksize;
	uint32_t rtextsize;
	uint32_t agblocks;
	uint32_t agcount;
	uint32_t logblocks;
	uint32_t sectsize;
	uint32_t inodesize;
	uint32_t imaxpct;
	uint64_t datablocks;
	uint64_t rtblocks;
	uint64_t rtextents;
	uint64_t logstart;
	uint8_t uuid[16];
	uint32_t sunit;
	uint32_t swidth;
	int32_t version;
	uint32_t flags;
	uint8_t rest[256 - 0x60];
};
_Static_assert(sizeof(struct awr_xfs_geom) == 256, "xfs_fsop_geom is 256 bytes");
_Static_assert(__builtin_offsetof(struct awr_xfs_geom, flags) == 0x5c, "xfs_fsop_geom flags");
#define AWR_XFS_IOC_FSGEOMETRY		_IOR('X', 126, struct awr_xfs_geom)
#define AWR_XFS_GEOM_FLAGS_REFLINK	(1U << 20)
#define AWR_XFS_SUPER_MAGIC		0x58465342
#define AWR_EXT4_SUPER_MAGIC		0xEF53

/*
 * io_uring_enter() flag (Linux 6.15, include/uapi/linux/io_uring.h): the wait is not counted as
 * iowait; the kernel says it knows the flag with IORING_FEAT_NO_IOWAIT in io_uring_params.features.
 */
#ifndef IORING_ENTER_NO_IOWAIT
#define IORING_ENTER_NO_IOWAIT		(1U << 7)
#endif
#ifndef IORING_FEAT_NO_IOWAIT
#define IORING_FEAT_NO_IOWAIT		(1U << 17)
#endif

#endif /* AWR_COMPAT_H */
