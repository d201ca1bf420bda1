/* SPDX-License-Identifier: MIT */
/* Private declarations of discovery (lib/discover/): the probe handle and its findings. */
#ifndef AWR_DISCOVER_H
#define AWR_DISCOVER_H

#include "private.h"
#include "device/device.h"

struct awr_probe {
	char path[4096];
	bool have_statx;
	bool have_sysfs;
	bool new_file;			/* a directory: statx is of an O_TMPFILE made there */
	struct awr_statx_view statx;
	struct awr_sysfs_view sysfs;
	struct awr_limits effective;
	struct awr_device *device;	/* NVMe/SCSI view, or NULL */
	struct awr_stack_view *stack;	/* dm/md/NVMe head legs, or NULL (discover/stack.c) */
	unsigned int nr_findings;
	struct awr_finding findings[AWR_MAX_FINDINGS];
};

/* FIEMAP extents whose physical offset is not a device address (extents.c, write/prepare.c) */
#define AWR_FIEMAP_NO_ADDRESS	(FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | \
				 FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE | \
				 FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_NOT_ALIGNED)

/* statx.c */
int awr__statx_fd(int dirfd, const char *path, struct awr_statx_view *out);
/* extents.c: the physical offset whose alignment the kernel judges (XFS: within the AG) */
uint64_t awr__align_base(uint64_t physical, uint64_t ag_size);

/* sysfs.c: a partition's start against the running kernel's rule */
void awr__sysfs_part_check(struct awr_sysfs_view *y, uint32_t hw_unit_min);
/* sysfs.c: queue/write_cache and queue/fua of the queue a device's writes go to */
void awr__sysfs_disk_cache(const char *name, enum awr_write_cache *wc, enum awr_fua *fua);
/* sysfs.c: the queue limits of the disk at sysfs directory @disk (stack legs read them too) */
void awr__sysfs_read_queue(const char *disk, struct awr_sysfs_view *out);

/* findings.c: a finding of the catalogue, awr__probe_finding(p, AWR_FIND(key), args...) */
void awr__probe_finding(struct awr_probe *p, enum awr__finding_key key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void awr__derive_effective(struct awr_probe *p);
/* which files take atomic writes on the running kernel, for a sentence's parenthesis */
const char *awr__fs_atomic_kernel(void);
/* durability.c: what the disk's write cache means for durability (the catalogue) */
void awr__durability_findings(struct awr_probe *p);
void awr__durability_condition(const char *disk, char *buf, size_t len);

/* stack.c */
void awr__probe_stack(struct awr_probe *p);
void awr__stack_findings(struct awr_probe *p, const struct awr_stack_view *s);

/* device_probe.c */
void awr__probe_device(struct awr_probe *p, unsigned int flags);

/* extents.c: awr_route_predict() with its reason in @why (or NULL) for every route */
enum awr_write_route awr__route_predict(const struct awr_fs_view *fs,
					const struct awr_extent_report *r, uint64_t offset,
					uint64_t length, char *why, size_t why_len);

#endif /* AWR_DISCOVER_H */
