/* SPDX-License-Identifier: MIT */
/* Private declarations shared between the library's source files. */
#ifndef AWR_PRIVATE_H
#define AWR_PRIVATE_H

#include <endian.h>
#include <sys/types.h>
#include <string.h>
#include <stdarg.h>

#include "libatomicwr.h"
#include "compat.h"

#define AWR_MAX_FINDINGS 32

struct awr_probe {
	char path[4096];
	bool have_statx;
	bool have_sysfs;
	bool new_file;			/* the path is a directory: statx is of an O_TMPFILE made there */
	struct awr_statx_view statx;
	struct awr_sysfs_view sysfs;
	struct awr_limits effective;
	struct awr_device *device;	/* NVMe/SCSI view, or NULL */
	struct awr_stack_view *stack;	/* dm/md/NVMe head legs, or NULL (discover/stack.c) */
	unsigned int nr_findings;
	struct awr_finding findings[AWR_MAX_FINDINGS];
};

struct awr_file {
	int fd;
	bool owns_fd;
	int open_flags;			/* fcntl(F_GETFL), read once */
	struct awr_probe *probe;
	struct awr_limits limits;
};

/* Little-endian fields of on-disk formats (stamps, journal records). */
static inline void awr__put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static inline void awr__put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static inline uint32_t awr__get_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t awr__get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static inline bool awr_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static inline uint64_t awr_max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* discover/statx.c */
int awr__statx_fd(int dirfd, const char *path, struct awr_statx_view *out);
/* discover/extents.c: the physical offset whose alignment the kernel judges (XFS: within the AG) */
uint64_t awr__align_base(uint64_t physical, uint64_t ag_size);

/* decide/safety.c: unlink @path only while it still names @fd's inode (-ESTALE otherwise) */
int awr__unlink_if_same(const char *path, int fd);

/* sysfs_read.c: where sysfs is, one attribute as text or as a number */
const char *awr__sysfs_root(void);
int awr__sysfs_read_str(const char *dir, const char *name, char *buf, size_t len);
int awr__sysfs_read_u64(const char *dir, const char *name, uint64_t *out);
/* discover/sysfs.c: a partition's start against the running kernel's rule */
void awr__sysfs_part_check(struct awr_sysfs_view *y, uint32_t hw_unit_min);
/* discover/sysfs.c: queue/write_cache and queue/fua of the queue a device's writes go to */
void awr__sysfs_disk_cache(const char *name, enum awr_write_cache *wc, enum awr_fua *fua);

/* finding.c */
void awr__findings_vadd(struct awr_finding *arr, unsigned int *nr, const char *id,
			enum awr_severity sev, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

/* discover/findings.c */
void awr__add_finding(struct awr_probe *p, const char *id, enum awr_severity sev,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void awr__derive_effective(struct awr_probe *p);
/* discover/durability.c: what the disk's write cache means for durability (the catalogue) */
void awr__durability_findings(struct awr_probe *p);
void awr__durability_condition(const char *disk, char *buf, size_t len);

/* discover/stack.c */
void awr__probe_stack(struct awr_probe *p);
void awr__stack_findings(struct awr_probe *p, const struct awr_stack_view *s);

/* verify/readahead.c: two-slot read-ahead of a span */
struct awr__readahead;
int awr__ra_start(struct awr__readahead **out, int fd, uint64_t total, size_t chunk);
ssize_t awr__ra_next(struct awr__readahead *ra, const uint8_t **buf, uint64_t *off, ssize_t *got);
void awr__ra_stop(struct awr__readahead *ra);

/* FIEMAP extents whose physical offset is not a device address (discover/extents.c, write/prepare.c) */
#define AWR_FIEMAP_NO_ADDRESS	(FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_ENCODED | \
				 FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_NOT_ALIGNED)

/* span.c */
int awr__fd_size(int fd, uint64_t *size);
/* Read up to @len bytes at @off (EINTR retried); short only at the end of the file. */
ssize_t awr__pread_full(int fd, void *buf, size_t len, uint64_t off);
/* fsync the directory that holds @path (relative to @dirfd, or AT_FDCWD): a new entry made durable */
int awr__sync_dir_of(int dirfd, const char *path);
uint64_t awr__now_ns(void);
uint64_t awr__realtime_ns(void);

#endif /* AWR_PRIVATE_H */
