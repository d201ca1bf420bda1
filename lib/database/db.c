// SPDX-License-Identifier: MIT
/*
 * May a database's torn-page protection (InnoDB's doublewrite buffer,
 * PostgreSQL's full_page_writes) be turned off for a data directory?
 *
 * For each data file, with the engine's page size P read from its own files:
 *   guaranteed       the engine's page writes are RWF_ATOMIC (libatomicwr-
 *                    preload), O_DIRECT, and statx gives P within the file's
 *                    atomic unit: the kernel refuses any write it cannot make
 *                    untorn (generic_atomic_write_valid(), fs/read_write.c;
 *                    xfs_file_dio_write_atomic(), fs/xfs/xfs_file.c, 6.16+);
 *   device-implicit  plain O_DIRECT writes of one page reach an NVMe device
 *                    whose power-fail atomic unit (AWUPF/NAWUPF, which holds
 *                    for every write, not only REQ_ATOMIC ones) covers P, in
 *                    one piece: every page aligned on the device inside one
 *                    extent (FIEMAP) and not shared, every start below (the
 *                    partition, dm and md data offsets) a multiple of P, the
 *                    atomic boundary a multiple of P, and nothing that splits a
 *                    P-byte bio (max_sectors_kb, chunk_sectors, max_segments for
 *                    P / 4096 user pages: bio_split_rw(), block/blk-merge.c);
 *   not safe         any of those fails (each reason one sentence), or the
 *                    engine writes through the page cache (writeback sends the
 *                    page as the cache holds it, and no kernel up to 7.3 takes
 *                    RWF_ATOMIC on buffered writes);
 *   unknown          a fact the answer needs could not be read.
 * The directory's verdict is the worst of its files'. Only reads are made.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "database/preload_names.h"
#include "database/dbfiles.h"
#include "database/pgconf.h"
#include "database/reasons.h"
#include "device/device.h"
#include "discover/discover.h"

const char *awr_db_verdict_name(enum awr_db_verdict v)
{
	switch (v) {
	case AWR_DB_GUARANTEED:
		return "guaranteed";
	case AWR_DB_DEVICE_IMPLICIT:
		return "device_implicit";
	case AWR_DB_NOT_SAFE:
		return "not_safe";
	default:
		return "unknown";
	}
}

const char *awr_db_verdict_text(enum awr_db_verdict v)
{
	return v == AWR_DB_DEVICE_IMPLICIT ? "device-implicit" : v == AWR_DB_NOT_SAFE ? "not safe" :
	       awr_db_verdict_name(v);
}

const char *awr_db_engine_name(enum awr_db_engine e)
{
	return e == AWR_DB_INNODB ? "innodb" : e == AWR_DB_POSTGRESQL ? "postgresql" : "any";
}

static void reason(struct awr_db_file *f, enum awr__finding_key key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * One reason of @f's verdict, an entry of the catalogue (findings.def): an error makes it not
 * safe, a warning unknown (unknown counts below not safe); the first one's what to do is the
 * file's.
 */
static void reason(struct awr_db_file *f, enum awr__finding_key key, const char *fmt, ...)
{
	enum awr_db_verdict v = awr__findings[key].severity == AWR_SEV_ERROR ? AWR_DB_NOT_SAFE :
				AWR_DB_UNKNOWN;
	va_list ap;

	if (!f->what_to_do || (v == AWR_DB_NOT_SAFE && f->verdict != AWR_DB_NOT_SAFE))
		f->what_to_do = awr__findings[key].what_to_do;
	if (f->nr_reasons < AWR_DB_MAX_REASONS) {
		va_start(ap, fmt);
		vsnprintf(f->reasons[f->nr_reasons++], sizeof(f->reasons[0]), fmt, ap);
		va_end(ap);
	}
	if (v == AWR_DB_NOT_SAFE || f->verdict != AWR_DB_NOT_SAFE)
		f->verdict = v;
}

static void condition(struct awr_db_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void condition(struct awr_db_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_conditions >= sizeof(r->conditions) / sizeof(r->conditions[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->conditions[r->nr_conditions++], sizeof(r->conditions[0]), fmt, ap);
	va_end(ap);
}

static const char *engine_name(enum awr_db_engine e)
{
	return e == AWR_DB_INNODB ? "InnoDB" : "PostgreSQL";
}

/* the largest power of two dividing @v (0: none, any alignment) */
static uint64_t pow2_of(uint64_t v)
{
	return v ? v & -v : 0;
}

static uint64_t align_min(uint64_t a, uint64_t start)
{
	uint64_t p = pow2_of(start);

	return !p ? a : !a || p < a ? p : a;
}

/* a partition's start in bytes (/sys/class/block/NAME/start), 0 for a whole disk */
static uint64_t part_start_of(const char *name)
{
	char dir[512];
	uint64_t v = 0;

	snprintf(dir, sizeof(dir), "%s/class/block/%s", awr__sysfs_root(), name);
	return awr__sysfs_read_u64(dir, "start", &v) ? 0 : v * 512;
}

static void note(struct awr_db_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A cloud provider's own statement (awr_device_provider(): AWS's NTWPU/NTWPG/NTWPB, which Linux
 * does not read) in place of the kernel's unit, when it covers a plain @P-byte page write.
 */
static bool judge_provider(struct awr_db_file *f, const struct awr_device *dev,
			   const struct awr_fs_view *fs)
{
	const struct awr_provider_atomic *pa = dev ? awr_device_provider(dev) : NULL;
	const uint32_t P = f->page_size;
	char why[256];

	if (!pa || !pa->read || (fs->hw_atomic && fs->hw_unit_max >= P && fs->hw_unit_min <= P))
		return false;
	if (!awr__provider_covers(dev, P, why, sizeof(why))) {
		note(f, "%s's own statement does not cover the page: %s", pa->provider, why);
		return false;
	}
	f->by_provider = true;
	note(f, "the page is within %s's own statement (device-implicit on its word, not the "
	     "kernel's): writes of n x %u up to %u bytes, aligned%s, are never torn "
	     "(NTWPU/NTWPG/NTWPB); the kernel reads none of it and gives %u..%u bytes",
	     pa->provider, pa->granularity, pa->unit,
	     pa->boundary ? ", within its boundary" : "", fs->hw_unit_min, fs->hw_unit_max);
	return true;
}

/* The page's way down: offsets below, the device's unit and boundary, what splits a bio. */
static void judge_device(struct awr_db_file *f, int fd, const struct awr_fs_view *fs)
{
	const uint32_t P = f->page_size;
	const struct awr_sysfs_view *sv;
	const struct awr_stack_view *st;
	const struct awr_device *dev;
	struct awr_probe *p = NULL;
	char q[600];
	uint64_t v;
	int ret = awr_probe_fd(fd, 0, &p);

	if (ret) {
		reason(f, AWR_FIND(db_device_unreadable), strerror(-ret));
		return;
	}
	sv = awr_probe_sysfs(p);
	st = awr_probe_stack(p);
	dev = awr_probe_device(p);
	if (!sv) {
		reason(f, AWR_FIND(db_no_block_device));
		goto out;
	}
	/* every start below: the partition, each leg's data start and the leg's own partition */
	f->device_offset_align = align_min(0, sv->part_start);
	for (unsigned int i = 0; st && i < st->nr_legs; i++) {
		f->device_offset_align = align_min(f->device_offset_align, st->legs[i].start);
		f->device_offset_align =
			align_min(f->device_offset_align, part_start_of(st->legs[i].name));
	}
	if (f->device_offset_align && f->device_offset_align < P)
		reason(f, AWR_FIND(db_offset_misaligned), f->device_offset_align, sv->part_start,
		       st ? ", or a dm/md leg's data start" : "", P);
	if (!st && judge_provider(f, dev, fs)) {
		/* the provider's unit stands for the kernel's; every check below still applies */
	} else if (!fs->hw_atomic || !fs->hw_unit_max) {
		reason(f, AWR_FIND(db_device_no_atomic), sv->disk, P);
	} else if (fs->hw_unit_max < P || fs->hw_unit_min > P) {
		reason(f, AWR_FIND(db_device_unit_page), sv->disk,
		       fs->hw_unit_min, fs->hw_unit_max, P);
	} else if (!st && dev && awr_device_type(dev) == AWR_DEVICE_SCSI) {
		reason(f, AWR_FIND(db_scsi_plain), sv->disk);
	} else if (!st && !dev) {
		reason(f, AWR_FIND(db_device_fields_unread), sv->disk);
	}
	if (sv->boundary && (sv->boundary < P || sv->boundary % P))
		reason(f, AWR_FIND(db_boundary),
		       sv->disk, sv->boundary, P);
	snprintf(q, sizeof(q), "%s/block/%s/queue", awr__sysfs_root(), sv->disk);
	if (!awr__sysfs_read_u64(q, "max_sectors_kb", &v) && v * 1024 < P)
		reason(f, AWR_FIND(db_max_sectors), sv->disk, v, P);
	if (!awr__sysfs_read_u64(q, "chunk_sectors", &v) && v && (v * 512) % P)
		reason(f, AWR_FIND(db_chunk_sectors), sv->disk, v, v * 512, P);
	if (!awr__sysfs_read_u64(q, "max_segments", &v) && v < (P + 4095) / 4096)
		reason(f, AWR_FIND(db_max_segments), sv->disk, v, P, (P + 4095) / 4096);
	if (st && st->chunk_bytes && st->chunk_bytes % P)
		reason(f, AWR_FIND(db_stripe_chunk), st->disk, st->type, st->chunk_bytes);
out:
	awr_probe_free(p);
}

static void judge_extents(struct awr_db_file *f, int fd, const struct awr_fs_view *fs)
{
	struct awr_extent_report *er = NULL;
	uint64_t shared = 0, moved = 0;
	char a[32], b[32];
	int ret = awr_extents_read(fd, f->page_size, &er);

	if (ret) {
		reason(f, AWR_FIND(db_extents_unread),
		       strerror(-ret));
		return;
	}
	f->mapped_bytes = er->total_bytes;
	f->aligned_bytes = er->aligned_bytes;
	for (unsigned int i = 0; i < er->nr_extents; i++) {
		const struct awr_extent *e = &er->extents[i];

		if (e->flags & FIEMAP_EXTENT_SHARED)
			shared += e->length;
		if (e->flags &
		    (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_NOT_ALIGNED |
		     FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
			moved += e->length;
	}
	f->write_route = awr__route_predict(
		fs, er,
		er->nr_misaligned ? er->misaligned[0].offset / f->page_size * f->page_size : 0,
		f->page_size, NULL, 0);
	if (er->aligned_bytes < er->total_bytes)
		reason(f, AWR_FIND(db_extents_misaligned),
		       awr__human_bytes(er->total_bytes - er->aligned_bytes, a, sizeof(a)),
		       awr__human_bytes(er->total_bytes, b, sizeof(b)), f->page_size,
		       er->nr_misaligned ? er->misaligned[0].offset : 0);
	if (shared)
		reason(f, AWR_FIND(db_extents_shared), awr__human_bytes(shared, a, sizeof(a)));
	if (moved)
		reason(f, AWR_FIND(db_extents_moved), awr__human_bytes(moved, a, sizeof(a)));
	awr_extent_report_free(er);
}

/*
 * The extents a data file gets as it grows (the engine extends its files all the time): XFS aligns
 * a new extent at a file's end to the stripe unit where space allows (xfs_bmap_btalloc()'s stripe
 * alignment; an extent size hint sets only the length and file offset: args->prod/mod), ext4 with
 * bigalloc allocates whole clusters. Seen in the guest (tests/vm/guest/mariadb.sh): on an XFS made
 * without a stripe unit, InnoDB grew a table's file by 10 MiB of which 5 MiB were not 16 KiB
 * aligned on the device, with a 16 KiB extent size hint on its directory.
 */
static void judge_growth(struct awr_db_file *f, const struct awr_fs_view *fs)
{
	const uint32_t P = f->page_size;
	char mk[80];

	if (fs->type == AWR_FS_XFS) {
		f->grow_align = fs->stripe_unit;
		snprintf(mk, sizeof(mk), "mkfs.xfs -d su=%u,sw=1", P);
	} else if (fs->type == AWR_FS_EXT4 && fs->bigalloc_known) {
		f->grow_align = fs->cluster_size;
		snprintf(mk, sizeof(mk), "mkfs.ext4 -O bigalloc -C %u", P);
	} else {
		return;
	}
	if (!P || (f->grow_align && f->grow_align % P == 0))
		return;
	if (fs->type == AWR_FS_XFS && f->grow_align)
		reason(f, AWR_FIND(db_growth_stripe), f->grow_align, P, mk, P);
	else
		reason(f, AWR_FIND(db_growth_any), fs->type_name,
		       f->grow_align ? f->grow_align : fs->block_size,
		       fs->type == AWR_FS_XFS ? "block" : "cluster",
		       fs->type == AWR_FS_XFS ? "no stripe unit"
					      : "no bigalloc cluster of the page",
		       mk, P);
}

/* Files whose writes no path makes atomic: DAX (CPU stores to persistent memory, dax_iomap_rw()),
 * and a file that takes no direct I/O (ext4_dio_write_iter() buffers its O_DIRECT writes) */
static void judge_dax(struct awr_db_file *f, const struct awr_fs_view *fs)
{
	if (fs->dax)
		reason(f, AWR_FIND(db_dax));
	if (fs->no_direct_io)
		reason(f, AWR_FIND(db_no_direct_io));
}

/* A line that explains, not lowers, @f's verdict */
static void note(struct awr_db_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct awr_db_file *f, const char *fmt, ...)
{
	va_list ap;

	if (f->nr_reasons >= AWR_DB_MAX_REASONS)
		return;
	va_start(ap, fmt);
	vsnprintf(f->reasons[f->nr_reasons++], sizeof(f->reasons[0]), fmt, ap);
	va_end(ap);
}

/*
 * @f's page size from its page 0; a page 0 not written yet (a table just created) takes the
 * directory's (ibdata1's: innodb_page_size is one for the instance), said in @from. 0, or -1
 * unknown.
 */
static int file_page_size(const struct awr_db_report *r, int fd, struct awr_db_file *f, char *from,
			  size_t len)
{
	uint8_t head[1024];
	char why[256];
	ssize_t n;
	int ret;

	if (r->engine != AWR_DB_INNODB) {
		f->page_size = r->page_size;
		return 0;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		reason(f, AWR_FIND(db_page_size_unread), strerror(errno));
		return -1;
	}
	ret = awr__innodb_page_size(head, (size_t)n, &f->page_size, why, sizeof(why));
	if (ret == -ENODATA && r->page_size) {
		f->page_size = r->page_size;
		snprintf(from, len, "its %u-byte page size is ibdata1's: page 0 is not written yet "
			 "(all zeros, a table just created; a ROW_FORMAT=COMPRESSED one's smaller "
			 "page shows once it is)", f->page_size);
		return 0;
	}
	if (ret) {
		reason(f, AWR_FIND(db_page_size_unknown), why, ret == -ENODATA ?
		       ", and ibdata1's is unknown too" : "");
		return -1;
	}
	return 0;
}

/*
 * The one reason of every file of a PostgreSQL that writes through the page cache (@why says why
 * it does): nothing below the page cache can change the answer, so nothing else is judged.
 */
static void judge_buffered(struct awr_db_file *f, const char *why)
{
	const uint32_t P = f->page_size ? f->page_size : 8192;

	reason(f, AWR_FIND(db_pg_buffered), why, P);
}

static void judge_file(struct awr_db_report *r, int dfd, const char *rel, struct awr_db_file *f,
		       const char *buffered)
{
	char via[256], from[256] = "";
	struct awr_fs_view fs;
	int fd, ret;

	snprintf(f->path, sizeof(f->path), "%s", rel);
	f->verdict = AWR_DB_DEVICE_IMPLICIT;	/* until a reason lowers it */
	fd = awr__db_open(dfd, rel, via, sizeof(via));
	if (fd < 0) {
		reason(f, AWR_FIND(db_open_failed), fd == -EINVAL ? "no longer a regular file (a "
		       "FIFO or a device now): not read" : strerror(-fd));
		return;
	}
	if (file_page_size(r, fd, f, from, sizeof(from)))
		goto out;
	if (buffered) {
		judge_buffered(f, buffered);
		goto out;
	}
	ret = awr_fs_view_fd(fd, &fs);
	if (ret) {
		reason(f, AWR_FIND(db_fs_unread), strerror(-ret));
		goto out;
	}
	snprintf(f->fs, sizeof(f->fs), "%s", fs.type_name);
	snprintf(f->device, sizeof(f->device), "%s", fs.device);
	f->statx_atomic = fs.atomic;
	f->unit_min = fs.unit_min;
	f->unit_max = fs.unit_max;
	f->hw_atomic = fs.hw_atomic;
	f->hw_unit_max = fs.hw_unit_max;
	judge_extents(f, fd, &fs);
	if (r->atomic_writes && r->direct_io) {
		/* the kernel enforces it: statx's unit is the whole answer */
		f->nr_reasons = 0;
		f->what_to_do = NULL;
		f->verdict = AWR_DB_GUARANTEED;
		if (!fs.atomic)
			reason(f, AWR_FIND(db_statx_no_atomic), fs.type_name,
			       fs.device[0] ? fs.device : "no device");
		else if (f->page_size < fs.unit_min || f->page_size > fs.unit_max)
			reason(f, AWR_FIND(db_statx_unit_page), fs.unit_min, fs.unit_max,
			       f->page_size);
		judge_dax(f, &fs);
		goto out;
	}
	/* plain writes: the extents' reasons stand */
	if (!r->direct_io)
		reason(f, AWR_FIND(db_buffered), engine_name(r->engine), f->page_size);
	/* PostgreSQL 17's smgrwritev() (bulk_write.c, relation extension) writes runs of blocks */
	if (r->engine == AWR_DB_POSTGRESQL && (!r->engine_version || r->engine_version >= 17))
		reason(f, AWR_FIND(db_pg_writev), r->engine_version ? "17+" :
		       "(PG_VERSION unread; 17+)");
	if (fs.type != AWR_FS_XFS && fs.type != AWR_FS_EXT4 && fs.type != AWR_FS_BLOCK)
		reason(f, AWR_FIND(db_fs_unknown), fs.type_name);
	judge_growth(f, &fs);
	judge_dax(f, &fs);
	judge_device(f, fd, &fs);
out:
	if (from[0])
		note(f, "%s", from);
	if (via[0])
		note(f, "reached through a symlink to %.200s: the file judged is the one it leads "
		     "to", via);
	close(fd);
}

/* --- the engine: does it ask for atomic writes, does it write O_DIRECT? ------- */

/* the data files' open descriptors (a redo log has its own way, innodb_log_file_buffering) */
static bool page_file(const char *path)
{
	const char *name = strrchr(path, '/');

	if (strstr(path, ".ibd") || strstr(path, "/ibdata") || strstr(path, "/undo"))
		return true;
	/* PostgreSQL's relation files (NNN...), not pg_control, pg_filenode.map,
	 * pg_internal.init */
	return (strstr(path, "/base/") || strstr(path, "/global/")) && name &&
	       isdigit((unsigned char)name[1]);
}

/* does descriptor @fd of process @pid have O_DIRECT (its fdinfo flags)? */
static bool fd_direct(const char *pid, const char *fd)
{
	char path[600], line[128];
	unsigned int fl = 0;
	bool direct = false;
	FILE *fi;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	fi = fopen(path, "re");
	while (fi && fgets(line, sizeof(line), fi))
		if (sscanf(line, "flags: %o", &fl) == 1 && (fl & O_DIRECT))
			direct = true;
	if (fi)
		fclose(fi);
	return direct;
}

/* how many page files of @datadir process @pid holds open (-1: none of its files), O_DIRECT seen */
static int held_files(const char *pid, const char *datadir, bool *direct)
{
	size_t dl = strlen(datadir);
	char dir[300], link[4352], target[4096];
	struct dirent *fe;
	int held = -1;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	fds = opendir(dir);
	while (fds && (fe = readdir(fds))) {
		ssize_t n;

		if (fe->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, fe->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= (ssize_t)dl || strncmp(target, datadir, dl) || target[dl] != '/')
			continue;
		target[n] = 0;
		held = held < 0 ? 0 : held;
		if (!page_file(target))
			continue;
		held++;
		*direct |= fd_direct(pid, fe->d_name);
	}
	if (fds)
		closedir(fds);
	return held;
}

/* does process @pid have libatomicwr-preload mapped? */
static bool has_preload(pid_t pid)
{
	char maps[64], line[1024];
	bool found = false;
	FILE *m;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	m = fopen(maps, "re");
	while (m && fgets(line, sizeof(line), m))
		found |= strstr(line, "libatomicwr-preload") != NULL;
	if (m)
		fclose(m);
	return found;
}

/* The server: of the processes with files of @datadir open, the one holding the most page files
 * (@held of them, O_DIRECT on any in @direct). */
static pid_t find_server(const char *datadir, bool *direct, int *held_most)
{
	struct dirent *de;
	DIR *proc = opendir("/proc");
	pid_t found = 0;
	int most = -1;

	*direct = false;
	while (proc && (de = readdir(proc))) {
		bool d = false;
		int held;

		if (!isdigit((unsigned char)de->d_name[0]) || atoi(de->d_name) == (int)getpid())
			continue;
		held = held_files(de->d_name, datadir, &d);
		if (held > most) {
			most = held;
			found = (pid_t)atoi(de->d_name);
			*direct = d;
		}
	}
	if (proc)
		closedir(proc);
	*held_most = most;
	return found;
}

/*
 * What libatomicwr-preload is told (preload/preload.c reads the same variables and matches with
 * the same code, preload_names.c): in the running server, its environment as /proc/PID/environ
 * holds it (the process's owner or root may read it); with --atomic-writes and no server, awr's
 * own environment when it sets AWR_PRELOAD_FILES (the configuration about to be used).
 */
struct preload_cfg {
	int read; /* 0: read; 1: not given (as given); -errno: cannot be read */
	char from[64];			/* "process N's environment", "awr's environment" */
	struct awr__names names;	/* AWR_PRELOAD_FILES */
	int names_err;
	char names_why[200];
	char files[256], page[32];	/* the values as set */
	uint32_t page_size;		/* AWR_PRELOAD_PAGE_SIZE; 0: unset or not a size */
	int stats_err;			/* AWR_PRELOAD_STATS: 0 read; 1 not set; -errno */
	char stats_path[300];
	struct awr_preload_stats st;
};

/* the whole of a /proc file (NUL-separated strings) into @buf, NUL-terminated: its length, or
 * -errno */
static ssize_t read_whole(const char *path, char *buf, size_t len)
{
	ssize_t n = 0, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got + 1 < len && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	if (n < 0)
		got = -errno;
	close(fd);
	buf[got < 0 ? 0 : got] = '\0';
	return got;
}

static const char *env_in(const char *env, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (!strncmp(env + i, name, nl) && env[i + nl] == '=')
			return env + i + nl + 1;
	return NULL;
}

/* the counters file: %p is the server's pid (as the preload names it) */
static void read_stats(struct preload_cfg *c, const char *st, pid_t pid)
{
	size_t n = 0;

	c->stats_err = 1;
	if (!st || !*st)
		return;
	for (const char *s = st; *s && n + 24 < sizeof(c->stats_path); s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(c->stats_path + n, sizeof(c->stats_path) - n, "%d",
					      (int)pid);
			s++;
		} else {
			c->stats_path[n++] = *s;
		}
	}
	c->stats_path[n] = '\0';
	c->stats_err = awr_preload_stats_read(c->stats_path, &c->st);
}

static void cfg_set(struct preload_cfg *c, const char *files, const char *page, const char *stats,
		    pid_t pid)
{
	uint64_t v = 0;

	c->read = 0;
	snprintf(c->files, sizeof(c->files), "%s", files ? files : "");
	snprintf(c->page, sizeof(c->page), "%s", page ? page : "");
	c->names_err = awr__names_parse(files, &c->names, c->names_why, sizeof(c->names_why));
	if (page && !awr_parse_size(page, &v) && v >= 512 && v <= (1U << 20) && !(v & (v - 1)))
		c->page_size = (uint32_t)v;
	read_stats(c, stats, pid);
}

static void cfg_of_process(struct preload_cfg *c, pid_t pid)
{
	const size_t len = 256 * 1024;
	char path[64], *env = malloc(len);
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	n = env ? read_whole(path, env, len) : -ENOMEM;

	snprintf(c->from, sizeof(c->from), "process %d's environment", (int)pid);
	if (n < 0)
		c->read = (int)n;
	else
		cfg_set(c, env_in(env, (size_t)n, "AWR_PRELOAD_FILES"),
			env_in(env, (size_t)n, "AWR_PRELOAD_PAGE_SIZE"),
			env_in(env, (size_t)n, "AWR_PRELOAD_STATS"), pid);
	free(env);
}

/*
 * Is file @f covered: named by a pattern (as reached through the data directory given, or as
 * resolved) with the preload's page size equal to the file's? Each mismatch is a reason.
 */
static void judge_cover(const struct awr_db_report *r, const char *given,
			const struct preload_cfg *c, struct awr_db_file *f)
{
	char g[8192], res[8192];

	if (!r->atomic_writes || c->read == 1)
		return;
	if (c->read < 0) {
		reason(f, AWR_FIND(db_preload_cfg_unread), c->from, strerror(-c->read));
		return;
	}
	snprintf(g, sizeof(g), "%s/%s", given, f->path);
	snprintf(res, sizeof(res), "%s/%s", r->datadir, f->path);
	if (c->names_err)
		reason(f, AWR_FIND(db_preload_no_names), c->from, c->names_why);
	else if (!awr__names_match(&c->names, g) && !awr__names_match(&c->names, res))
		reason(f, AWR_FIND(db_preload_no_match), c->files, c->from, g, res);
	if (!c->page_size)
		reason(f, AWR_FIND(db_preload_page_bad), c->page, c->from);
	else if (f->page_size && c->page_size != f->page_size)
		reason(f, AWR_FIND(db_preload_page_mismatch), c->page, c->from, f->page_size);
}

/* The live counters: what the preload did in the server. A reason for every file when they say
 * writes to named files went down plain, or were refused. Writes of other sizes than one page
 * (the doublewrite batch, a file extended with zeroes) are not page writes: not counted against. */
static void judge_counters(const struct awr_db_report *r, const struct preload_cfg *c,
			   struct awr_db_file *f)
{
	const struct awr_preload_stats *s = &c->st;
	uint64_t plain = s->plain_buffered + s->plain_misaligned + s->plain_segments +
			 s->plain_position + s->plain_append;

	if (!r->atomic_writes || c->read || c->stats_err)
		return;
	if (!s->files_named)
		reason(f, AWR_FIND(db_preload_none_opened), c->stats_path);
	if (s->files_refused)
		reason(f, AWR_FIND(db_preload_refused_opens), s->files_refused, c->stats_path);
	if (s->refused)
		reason(f, AWR_FIND(db_preload_kernel_refused), s->refused, c->stats_path);
	if (plain)
		reason(f, AWR_FIND(db_preload_plain), plain, c->stats_path, s->plain_buffered,
		       s->plain_misaligned, s->plain_segments, s->plain_position, s->plain_append);
	if (s->uring_fixed_files)
		reason(f, AWR_FIND(db_preload_uring_fixed), s->uring_fixed_files, c->stats_path);
}

/* --- PostgreSQL: its postmaster, its settings, direct I/O ----------------------------------- */

/* DATADIR/postmaster.pid's process, when it runs with @datadir as its directory
 * (ChangeToDataDir()): the postmaster, whose command line its children overwrite in their own (ps
 * display) */
static pid_t postmaster_of(const char *datadir)
{
	char path[4200], cwd[4096];
	FILE *f;
	long pid = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/postmaster.pid", datadir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1 || pid <= 0 || pid > INT_MAX)
		pid = 0;
	fclose(f);
	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/cwd", pid);
	n = readlink(path, cwd, sizeof(cwd) - 1);
	if (n < 0)
		return 0;	/* a stale file: the server was killed */
	cwd[n] = '\0';
	return strcmp(cwd, datadir) ? 0 : (pid_t)pid;
}

/* -c NAME=V, -cNAME=V, --NAME=V ('-' as '_' in the name, postmaster.c): V when @arg sets @name */
static const char *pg_arg(const char *prev, const char *arg, const char *name)
{
	const size_t nl = strlen(name);
	const char *o;

	if (!strcmp(prev, "-c"))
		o = arg;
	else if (!strncmp(arg, "-c", 2) && arg[2] != '-')
		o = arg + 2;
	else if (!strncmp(arg, "--", 2))
		o = arg + 2;
	else
		return NULL;
	for (size_t i = 0; i < nl; i++)
		if (tolower((unsigned char)(o[i] == '-' ? '_' : o[i])) != name[i])
			return NULL;
	return o[nl] == '=' ? o + nl + 1 : NULL;
}

/* @name on process @pid's command line (the last one counts): 1 with @s, 0 not there, -errno */
static int cmdline_setting(pid_t pid, const char *name, struct awr__pg_setting *s)
{
	const size_t len = 64 * 1024;
	char path[64], *cmd = malloc(len);
	const char *prev = "", *v;
	int found = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = cmd ? read_whole(path, cmd, len) : -ENOMEM;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(cmd + i) + 1) {
		v = pg_arg(prev, cmd + i, name);
		if (v) {
			snprintf(s->value, sizeof(s->value), "%s", v);
			snprintf(s->where, sizeof(s->where), "%.120s on process %d's command line",
				 cmd + i, (int)pid);
			found = 1;
		}
		prev = cmd + i;
	}
	free(cmd);
	return n < 0 ? (int)n : found;
}

enum { PG_UNSET, PG_CMDLINE, PG_FILE };

/*
 * @name as the server has it: the postmaster's command line first (PGC_S_ARGV wins over
 * PGC_S_FILE), else the configuration files as the server reads them (pgconf.c: its config_file,
 * else DATADIR/postgresql.conf or Debian's, then postgresql.auto.conf). PG_CMDLINE or PG_FILE
 * with @s, PG_UNSET (@s->where names what was read), or -errno (@s->where says why).
 */
static int pg_setting(const struct awr_db_report *r, const char *name, struct awr__pg_setting *s)
{
	struct awr__pg_setting cf = { .value = "" };
	char conf[PATH_MAX];
	int ret;

	memset(s, 0, sizeof(*s));
	if (r->server_pid && cmdline_setting(r->server_pid, name, s) == 1)
		return PG_CMDLINE;
	if (r->server_pid)
		cmdline_setting(r->server_pid, "config_file", &cf);
	ret = awr__pg_conf_main(r->datadir, cf.value, conf, sizeof(conf));
	if (ret) {
		snprintf(s->where, sizeof(s->where), "no postgresql.conf found (in the data "
			 "directory, nor in /etc/postgresql with it as data_directory)");
		return ret;
	}
	ret = awr__pg_conf_get(conf, r->datadir, name, s);
	if (ret < 0)
		snprintf(s->where, sizeof(s->where), "%.300s cannot be read: %s", conf,
			 strerror(-ret));
	else if (!ret)
		snprintf(s->where, sizeof(s->where), "not set in %.300s, its includes or "
			 "postgresql.auto.conf",
			 conf);
	return ret < 0 ? ret : ret ? PG_FILE : PG_UNSET;
}

/* PostgreSQL's boolean (parse_bool_with_len(), utils/adt/bool.c): 1, 0, or -1 not one */
static int pg_bool(const char *v)
{
	const size_t n = strlen(v);

	if (!strcmp(v, "1") || (n && (!strncasecmp(v, "true", n) || !strncasecmp(v, "yes", n))) ||
	    (n >= 2 && !strncasecmp(v, "on", n)))
		return 1;
	if (!strcmp(v, "0") || (n && (!strncasecmp(v, "false", n) || !strncasecmp(v, "no", n))) ||
	    (n >= 2 && !strncasecmp(v, "off", n)))
		return 0;
	return -1;
}

/* Does debug_io_direct's list @v name data? (fd.c check_debug_io_direct(): SplitGUCList() on ',',
 * items data, wal, wal_init without case; IO_DIRECT_DATA makes md.c open relation files
 * O_DIRECT) */
static bool io_direct_data(const char *v)
{
	while (*v) {
		size_t n = strcspn(v, ",");
		const char *b = v, *e = v + n;

		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (e - b >= 2 && *b == '"' && e[-1] == '"')
			b++, e--;
		if (e - b == 4 && !strncasecmp(b, "data", 4))
			return true;
		v += n + (v[n] == ',');
	}
	return false;
}

/*
 * Are PostgreSQL's data files written O_DIRECT? The running state first: the relation files a
 * process of the server holds open (@held of them, @direct their fdinfo flags); else PG_VERSION
 * (15 and older have no direct I/O for data files); else debug_io_direct on the postmaster's
 * command line or in the configuration. When not, @why (one clause) says why for the reason.
 */
static void pg_direct(struct awr_db_report *r, pid_t holder, int held, bool direct, char *why,
		      size_t len)
{
	const unsigned int v = r->engine_version;
	struct awr__pg_setting s;
	int ret;

	if (holder && held > 0) {
		r->direct_io = direct;
		snprintf(r->direct_io_from, sizeof(r->direct_io_from),
			 "process %d holds %d relation files open %s O_DIRECT (fdinfo flags)%s",
			 (int)holder, held, direct ? "with" : "without",
			 v && v < 16 ? "; PostgreSQL 15 and older have no direct I/O for data files"
				     : "");
		if (v && v < 16)
			snprintf(why, len, "PostgreSQL %u has no direct I/O for data files", v);
		else
			snprintf(why, len,
				 "process %d has its relation files open without O_DIRECT",
				 (int)holder);
		return;
	}
	if (v && v < 16) {
		r->direct_io = false;
		snprintf(r->direct_io_from, sizeof(r->direct_io_from), "PostgreSQL %u (PG_VERSION) "
			 "has no direct I/O for data files; 16+ has debug_io_direct=data", v);
		snprintf(why, len, "PostgreSQL %u has no direct I/O for data files", v);
		return;
	}
	ret = pg_setting(r, "debug_io_direct", &s);
	r->direct_io = ret > 0 && io_direct_data(s.value);
	if (ret == PG_CMDLINE)
		snprintf(r->direct_io_from, sizeof(r->direct_io_from), "debug_io_direct: %.200s",
			 s.where);
	else if (ret == PG_FILE)
		snprintf(r->direct_io_from, sizeof(r->direct_io_from), "debug_io_direct = '%.40s' "
			 "at %.140s (as configured: the server reads it at start)",
			 s.value, s.where);
	else
		snprintf(r->direct_io_from, sizeof(r->direct_io_from), "debug_io_direct: %.200s",
			 s.where);
	if (ret > 0)
		snprintf(why, len, "debug_io_direct='%.24s' has no 'data'", s.value);
	else
		snprintf(why, len, "debug_io_direct is not set");
	if (r->direct_io && !r->server_pid)
		condition(r, "debug_io_direct=data as configured (%.150s): seen in the server's "
			  "descriptors when awr database runs while it does", s.where);
}

/* full_page_writes as the server has it: its command line, else as configured (on by default) */
static void read_pg_protection(struct awr_db_report *r)
{
	struct awr__pg_setting s;
	int ret = pg_setting(r, "full_page_writes", &s);

	r->protection = ret > 0 ? pg_bool(s.value) : ret == PG_UNSET ? 1 : -1;
	if (ret == PG_CMDLINE)
		snprintf(r->protection_from, sizeof(r->protection_from), "%.200s", s.where);
	else if (ret == PG_FILE)
		snprintf(r->protection_from, sizeof(r->protection_from),
			 "full_page_writes = '%.20s' at %.150s (as configured: the server reads it "
			 "at start and reload)",
			 s.value, s.where);
	else if (ret == PG_UNSET)
		snprintf(r->protection_from, sizeof(r->protection_from), "on by default: %.200s",
			 s.where);
	else
		snprintf(r->protection_from, sizeof(r->protection_from), "%.250s", s.where);
}

/* @why: PostgreSQL's data files written through the page cache, why (else "") */
static void judge_engine(struct awr_db_report *r, unsigned int flags, struct preload_cfg *c,
			 char *why, size_t why_len)
{
	bool direct = false;
	int held = 0;
	const pid_t holder = find_server(r->datadir, &direct, &held);
	const pid_t pm = r->engine == AWR_DB_POSTGRESQL ? postmaster_of(r->datadir) : 0;
	const pid_t pid = pm ? pm : holder;
	bool preload = pid && has_preload(pid);

	c->read = 1;
	r->direct_io = r->engine == AWR_DB_INNODB;
	r->server_pid = pid;
	if (pid && preload) {
		r->atomic_writes = true;
		cfg_of_process(c, pid);
		snprintf(r->atomic_why, sizeof(r->atomic_why),
			 "process %d holds files of the directory open and has libatomicwr-preload "
			 "loaded: AWR_PRELOAD_FILES='%.80s', AWR_PRELOAD_PAGE_SIZE=%.16s%s",
			 (int)pid, c->files, c->page[0] ? c->page : "(not set)",
			 c->read < 0 ? " (its environment unread)" : "");
	} else if (pid && (flags & AWR_DB_ATOMIC_WRITES)) {
		snprintf(r->atomic_why, sizeof(r->atomic_why), "--atomic-writes was given, but "
			 "process %d, which holds the files open, has no libatomicwr-preload "
			 "loaded: its page writes are plain", (int)pid);
	} else if (flags & AWR_DB_ATOMIC_WRITES) {
		const char *files = getenv("AWR_PRELOAD_FILES");

		r->atomic_writes = true;
		if (files) {
			snprintf(c->from, sizeof(c->from), "awr's environment");
			cfg_set(c, files, getenv("AWR_PRELOAD_PAGE_SIZE"), NULL, 0);
		}
		snprintf(r->atomic_why, sizeof(r->atomic_why), "as given: the engine will run "
			 "under libatomicwr-preload%s",
			 files ? " configured as awr's environment says "
							  "(AWR_PRELOAD_FILES, "
							  "AWR_PRELOAD_PAGE_SIZE)" : "");
	} else {
		snprintf(r->atomic_why, sizeof(r->atomic_why), "%s issues no RWF_ATOMIC of its own "
			 "(%s)%s",
			 engine_name(r->engine), r->engine == AWR_DB_INNODB ? "MySQL 8, MariaDB "
									      "10.11 and 11" :
			 "PostgreSQL 15..17", pid ? "; the running server has no "
						    "libatomicwr-preload" : "");
	}
	why[0] = '\0';
	if (r->engine == AWR_DB_POSTGRESQL) {
		pg_direct(r, holder, held, direct, why, why_len);
		if (r->direct_io)
			why[0] = '\0';
		return;
	}
	if (!pid)
		snprintf(r->direct_io_from, sizeof(r->direct_io_from), "no server runs on the "
			 "directory: innodb_flush_method=O_DIRECT taken as a condition");
	else
		snprintf(r->direct_io_from, sizeof(r->direct_io_from), "process %d's page files: "
			 "%s (fdinfo flags)", (int)pid, direct ? "O_DIRECT" : "no O_DIRECT");
	if (r->engine == AWR_DB_INNODB && pid && !direct) {
		r->direct_io = false;
		condition(r, "process %d has the data files open without O_DIRECT: set "
			     "innodb_flush_method=O_DIRECT",
			  (int)pid);
	}
	if (r->engine == AWR_DB_INNODB && !pid)
		condition(r, "innodb_flush_method=O_DIRECT (or O_DIRECT_NO_FSYNC): buffered page "
			  "writes are never untorn (no server runs on the directory now to check "
			  "it)");
}

/* --- the directory's page size ------------------------------------------------- */

static int read_page_size(struct awr_db_report *r, int dfd)
{
	const char *name = r->engine == AWR_DB_INNODB ? "ibdata1" : "global/pg_control";
	char why[200], via[256], at[100];
	uint8_t buf[8192];
	uint32_t v;
	ssize_t n;
	int fd = awr__db_open(dfd, name, via, sizeof(via)), ret;

	snprintf(at, sizeof(at), "%s%s%.60s%s", name, via[0] ? " (a symlink to " : "", via,
		 via[0] ? ")" : "");
	if (fd < 0) {
		snprintf(r->page_size_from, sizeof(r->page_size_from), "%s cannot be read: %s", at,
			 fd == -EINVAL ? "not a regular file (a FIFO, a device or a directory)"
				       : strerror(-fd));
		return 0;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	ret = n < 0 ? errno : 0;
	close(fd);
	if (n < 0) {
		snprintf(r->page_size_from, sizeof(r->page_size_from), "%s cannot be read: %s", at,
			 strerror(ret));
		return 0;
	}
	ret = r->engine == AWR_DB_INNODB ?
		awr__innodb_page_size(buf, (size_t)n, &r->page_size, why, sizeof(why)) :
		awr__pg_control_block_size(buf, (size_t)n, &r->page_size, why, sizeof(why));
	snprintf(r->page_size_from, sizeof(r->page_size_from), "%.94s%s: %.150s", at,
		 r->engine == AWR_DB_INNODB ? " page 0" : "", why);
	if (ret)
		r->page_size = 0;
	if (r->engine == AWR_DB_POSTGRESQL && !awr__pg_control_checksums(buf, (size_t)n, &v))
		r->data_checksum_version = (int)v;
	return 0;
}

/* PostgreSQL's major version: the first line of PG_VERSION (ValidatePgVersion(), miscinit.c) */
static void read_pg_version(struct awr_db_report *r, int dfd)
{
	char buf[16] = "";
	int fd = awr__db_open(dfd, "PG_VERSION", NULL, 0);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n > 0 && isdigit((unsigned char)buf[0]))
		r->engine_version = (unsigned int)strtoul(buf, NULL, 10);
}

/* --- the server's own setting, and what to run -------------------------------------- */

/* @arg as an option name without "--" and MariaDB's "loose-" prefix, '_' as '-' (my_getopt.c) */
static void option_name(const char *arg, char *out, size_t len)
{
	size_t n = 0;

	arg += 2;
	if (!strncmp(arg, "loose-", 6) || !strncmp(arg, "loose_", 6))
		arg += 6;
	for (; *arg && n + 1 < len; arg++)
		out[n++] = *arg == '_' ? '-' : *arg;
	out[n] = '\0';
}

static bool off_value(const char *v)
{
	return !strcasecmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "false") ||
	       !strcasecmp(v, "no");
}

/* InnoDB: --innodb-doublewrite[=V], --skip-/--disable-/--enable-innodb-doublewrite; the last
 * counts */
static int doublewrite_arg(const char *arg)
{
	char o[64];

	if (strncmp(arg, "--", 2))
		return -1;
	option_name(arg, o, sizeof(o));
	if (!strcmp(o, "skip-innodb-doublewrite") || !strcmp(o, "disable-innodb-doublewrite"))
		return 0;
	if (!strcmp(o, "innodb-doublewrite") || !strcmp(o, "enable-innodb-doublewrite"))
		return 1;
	if (!strncmp(o, "innodb-doublewrite=", 19))
		return !off_value(o + 19);
	return -1;
}

/* The running server's innodb_doublewrite as its command line sets it; PostgreSQL's
 * full_page_writes as the server has it (read_pg_protection()) */
static void read_protection(struct awr_db_report *r)
{
	const size_t len = 64 * 1024;
	const char *which = NULL;
	char path[64], *cmd;
	ssize_t n;

	r->protection = -1;
	if (r->engine == AWR_DB_POSTGRESQL) {
		read_pg_protection(r);
		return;
	}
	if (!r->server_pid) {
		snprintf(r->protection_from, sizeof(r->protection_from), "no server runs on the "
			 "directory");
		return;
	}
	cmd = malloc(len);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", r->server_pid);
	n = cmd ? read_whole(path, cmd, len) : -ENOMEM;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(cmd + i) + 1) {
		int v = doublewrite_arg(cmd + i);

		if (v >= 0) {
			r->protection = v;
			which = cmd + i;
		}
	}
	if (which)
		snprintf(r->protection_from, sizeof(r->protection_from), "%.120s on process %d's "
			 "command line",
			 which, r->server_pid);
	free(cmd);
	if (!which)
		snprintf(r->protection_from, sizeof(r->protection_from), "innodb_doublewrite is "
			 "not on process %d's command line%s: the option files decide (on by "
			 "default; awr does not read them)",
			 r->server_pid, n < 0 ? " (it cannot be read)" : "");
}

/* The preload's variables for this directory, as the README gives them */
static void preload_env(const struct awr_db_report *r, const char *given, char *buf, size_t len)
{
	char ps[32];

	snprintf(ps, sizeof(ps), "%uk", r->page_size ? r->page_size / 1024 :
		 r->engine == AWR_DB_INNODB ? 16 : 8);
	if (r->engine == AWR_DB_INNODB)
		snprintf(buf, len, "LD_PRELOAD=libatomicwr-preload.so "
				   "AWR_PRELOAD_FILES='%s/*.ibd:%s/ibdata*:"
			 "%s/undo[0-9]*' AWR_PRELOAD_PAGE_SIZE=%s", given, given, given, ps);
	else
		snprintf(buf, len,
			 "LD_PRELOAD=libatomicwr-preload.so "
			 "AWR_PRELOAD_FILES='%s/base/*/[0-9]*:"
			 "%s/global/[0-9]*:%s/pg_tblspc/*/PG_*/*/[0-9]*' AWR_PRELOAD_PAGE_SIZE=%s",
			 given, given, given, ps);
}

/* Safe, but is it faster here? The atomic writes of the software path cost what they cost on this
 * machine: measured with awr bench beside the data, never quoted from elsewhere. */
static void speed(struct awr_db_report *r, const char *given)
{
	bool software = false;
	char parent[4096], *slash;

	for (unsigned int i = 0; i < r->nr_files; i++)
		software |= r->files[i].write_route == AWR_ROUTE_SOFTWARE;
	if (r->verdict != AWR_DB_GUARANTEED || !software)
		return;
	snprintf(parent, sizeof(parent), "%s", given);
	slash = strrchr(parent, '/');
	if (slash)
		*(slash == parent ? slash + 1 : slash) = '\0';
	snprintf(r->speed, sizeof(r->speed),
		 "the atomic page writes take %s's copy-on-write (software) path here, which can "
		 "cost more than the %s saves: measure it on this machine before turning it off: "
		 "awr bench %.200s/awr-bench.tmp --unit %u --mode all (then remove the file)",
		 r->files[0].fs,
		 r->engine == AWR_DB_INNODB ? "doublewrite buffer" : "full page images",
		 strcmp(parent, "/") ? parent : "", r->page_size ? r->page_size : 16384);
}

static void warn_unprotected(struct awr_db_report *r)
{
	const bool inno = r->engine == AWR_DB_INNODB;
	const char *torn = r->verdict == AWR_DB_NOT_SAFE ? "can be torn" :
			   "is not known to be untorn";

	if (r->protection != 0 || r->verdict == AWR_DB_GUARANTEED ||
	    r->verdict == AWR_DB_DEVICE_IMPLICIT)
		return;
	if (!r->server_pid) {	/* PostgreSQL's configuration: no server runs with it yet */
		snprintf(r->warning, sizeof(r->warning), "the configuration sets full_page_writes "
			 "OFF (%s), and a page write here %s: a server started on this directory "
			 "runs unprotected. Set it on before starting one: ALTER SYSTEM SET "
			 "full_page_writes = on writes postgresql.auto.conf, which is read last "
			 "(or edit the line named)", r->protection_from, torn);
		return;
	}
	snprintf(r->warning, sizeof(r->warning), "process %d runs with %s OFF (%s), and a page "
		 "write here %s: a crash or power cut can leave a page that recovery cannot "
		 "repair. Restore it now: %s", r->server_pid,
		 inno ? "the doublewrite buffer" : "full_page_writes", r->protection_from, torn,
		 inno ? "take that option off the server's command line (systemctl cat mariadb "
		 "shows where it is set) and restart it: systemctl restart mariadb "
		 "(innodb_doublewrite is not dynamic in MariaDB 10.11)" :
		 "take full_page_writes=off off the server's command line if it is there, then "
		 "psql -c \"ALTER SYSTEM SET full_page_writes = on\" "
		 "-c \"SELECT pg_reload_conf()\"");
}

static void advise(struct awr_db_report *r, const char *given)
{
	const bool inno = r->engine == AWR_DB_INNODB;
	const char *setting =
		inno ? "the doublewrite buffer (innodb_doublewrite=ON)" : "full_page_writes=on";
	const char *off = inno ? "--innodb-doublewrite=0 --innodb-flush-method=O_DIRECT" :
		"-c full_page_writes=off";
	const char *what = inno ? "the doublewrite buffer" : "full_page_writes";
	char env[600];

	preload_env(r, given, env, sizeof(env));
	switch (r->verdict) {
	case AWR_DB_GUARANTEED:
		if (r->protection == 0)
			snprintf(r->advice, sizeof(r->advice), "%s is off (%s), and that is safe "
				 "here: keep the server under libatomicwr-preload as it runs now.",
				 inno ? "The doublewrite buffer" : "full_page_writes",
				 r->protection_from);
		else if (r->server_pid)
			snprintf(r->advice, sizeof(r->advice), "Turn %s off: it is safe here. "
				 "Restart process %d with %s, keeping its libatomicwr-preload "
				 "environment as it is.", what, r->server_pid, off);
		else
			snprintf(r->advice, sizeof(r->advice),
				 "Turn %s off: it is safe here when the server runs as: %.290s %s "
				 "%s", what, env, inno ? "mariadbd" : "postgres", off);
		break;
	case AWR_DB_DEVICE_IMPLICIT:
		snprintf(r->advice, sizeof(r->advice), "%s is safe while the conditions below "
			 "hold (awr checked them; the engine does not); to have the kernel enforce "
			 "them, run it as: %.290s %s %s",
			 inno ? "innodb_doublewrite=OFF" : "full_page_writes=off", env,
			 inno ? "mariadbd" : "postgres", off);
		break;
	case AWR_DB_NOT_SAFE:
		snprintf(r->advice, sizeof(r->advice),
			 "Keep %s: a page write here can be torn (see the reasons).", setting);
		break;
	default:
		snprintf(r->advice, sizeof(r->advice),
			 "Keep %s until what the reasons name as unknown can be read.", setting);
	}
}

/* Untorn is not durable: the engine's fsync/O_DSYNC and the disk's write cache (the catalogue) */
static void durable_condition(struct awr_db_report *r, const struct awr_db_file *f)
{
	char text[sizeof(r->conditions[0])];

	awr__durability_condition(f->device[0] ? f->device : "the disk below", text, sizeof(text));
	condition(r, "%s", text);
}

static void conditions(struct awr_db_report *r)
{
	const struct awr_db_file *f = r->nr_files ? &r->files[0] : NULL;

	if (!f)
		return;
	if (r->verdict == AWR_DB_GUARANTEED) {
		condition(r, "every page write RWF_ATOMIC and O_DIRECT (libatomicwr-preload "
			  "reports the writes it could not make atomic at exit)");
		durable_condition(r, f);
		return;
	}
	if (r->verdict != AWR_DB_DEVICE_IMPLICIT)
		return;
	if (f->by_provider)
		condition(r,
			  "%s writes %u-byte pages untorn for every plain write on its cloud "
			  "provider's word (read from the device, not enforced by Linux, whose "
			  "unit is %u bytes); a volume or instance type without it breaks this",
			  f->device, r->page_size, f->hw_unit_max);
	else
		condition(r, "%s writes %u-byte pages atomically on power failure for every write "
			  "(sysfs atomic unit up to %u bytes from the device's AWUPF/NAWUPF); a "
			  "firmware or kernel that lowers it breaks this",
			  f->device, r->page_size, f->hw_unit_max);
	if (f->grow_align)
		condition(r,
			  "every page of every file in one extent aligned on the device (FIEMAP); "
			  "a file grown into misaligned extents breaks this: %s aligns new extents "
			  "to %" PRIu64 " bytes%s",
			  f->fs, f->grow_align,
			  strcmp(f->fs, "xfs") ? ""
					       : " where free space allows (its stripe unit: run "
						 "awr database again after the files grow)");
	else
		condition(r, "every page of every file aligned on the device (FIEMAP)");
	condition(r, "every start below (partition, dm/LVM, md) a multiple of the page, and no "
		  "layer splitting a page write (max_sectors_kb, chunk_sectors, max_segments, the "
		  "atomic boundary)");
	durable_condition(r, f);
}

/* @datadir as given, made absolute but not resolved (the path a preload pattern may name) */
static void given_path(const char *datadir, char *buf, size_t len)
{
	char cwd[4096];
	size_t n;

	if (datadir[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(buf, len, "%s", datadir);
	else
		snprintf(buf, len, "%.2000s/%.2000s", cwd, datadir);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
}

/* entry @i of @l in the skipped list; when the rest does not fit, the last line counts it */
static void skipped(struct awr_db_report *r, const struct awr__db_list *l, unsigned int i)
{
	const unsigned int room = sizeof(r->skipped) / sizeof(r->skipped[0]);
	unsigned int rest = 0;

	for (unsigned int k = i; k < l->nr; k++)
		rest += l->e[k].skip;
	if (r->nr_skipped + rest <= room || r->nr_skipped + 1 < room)
		snprintf(r->skipped[r->nr_skipped++], sizeof(r->skipped[0]), "%.90s: %.160s",
			 l->e[i].rel, l->e[i].why);
	else if (r->nr_skipped + 1 == room)
		snprintf(r->skipped[r->nr_skipped++], sizeof(r->skipped[0]), "%.80s: %.100s; and "
			 "%u more entries after it, not listed",
			 l->e[i].rel, l->e[i].why, rest - 1);
}

/* every data file judged, and what the preload covers of it; the directory's verdict the worst */
/* Not safe or unknown: what would make it safe, the first worst file's (or the page size's) */
static void what_to_do(struct awr_db_report *r)
{
	if (r->verdict != AWR_DB_NOT_SAFE && r->verdict != AWR_DB_UNKNOWN)
		return;
	for (unsigned int i = 0; i < r->nr_files && !r->what_to_do; i++)
		if (r->files[i].verdict == r->verdict)
			r->what_to_do = r->files[i].what_to_do;
	if (!r->what_to_do)
		r->what_to_do = r->engine == AWR_DB_INNODB ?
			"Run awr database as a user who can read ibdata1 (root or the server's "
			"user); a damaged ibdata1 page 0 is for innochecksum." :
			"Run awr database as a user who can read global/pg_control (root or the "
			"server's user); pg_controldata checks the file.";
}

static int judge_all(struct awr_db_report *r, int dfd, const struct awr__db_list *l,
		     const struct preload_cfg *c, const char *given, const char *buffered)
{
	for (unsigned int i = 0; i < l->nr; i++) {
		struct awr_db_file *f = &r->files[r->nr_files];

		if (l->e[i].skip) {
			skipped(r, l, i);
			continue;
		}
		judge_file(r, dfd, l->e[i].rel, f, buffered);
		if (!buffered) { /* the preload makes no buffered write atomic: nothing to add */
			judge_cover(r, given, c, f);
			judge_counters(r, c, f);
		}
		r->nr_files++;
	}
	if (!r->nr_files)
		return -ENODATA;
	r->verdict = AWR_DB_GUARANTEED;
	for (unsigned int i = 0; i < r->nr_files; i++) {
		enum awr_db_verdict v = r->files[i].verdict;

		r->nr_files_by_verdict[v]++;
		if (v == AWR_DB_NOT_SAFE ||
		    (v == AWR_DB_UNKNOWN && r->verdict != AWR_DB_NOT_SAFE) ||
		    (v == AWR_DB_DEVICE_IMPLICIT && r->verdict == AWR_DB_GUARANTEED))
			r->verdict = v;
	}
	if (!r->page_size && r->verdict != AWR_DB_NOT_SAFE)
		r->verdict = AWR_DB_UNKNOWN;
	what_to_do(r);
	awr__db_group_reasons(r);
	return 0;
}

static int db_qualify(const char *datadir, enum awr_db_engine engine, unsigned int flags,
		      struct awr_db_report **out)
{
	struct preload_cfg cfg = { 0 };
	struct awr__db_list l;
	struct awr_db_report *r;
	char given[4096], buffered[160];
	int dfd, ret;

	if (!datadir || !out || (engine != AWR_DB_ANY && engine != AWR_DB_INNODB &&
				 engine != AWR_DB_POSTGRESQL))
		return -EINVAL;
	*out = NULL;
	dfd = open(datadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOTDIR ? -ENOTDIR : -errno;
	ret = engine == AWR_DB_ANY ? awr__db_engine_of(dfd, datadir, &engine) : 0;
	if (ret) {
		close(dfd);
		return ret;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(dfd);
		return -ENOMEM;
	}
	r->engine = engine;
	r->data_checksum_version = -1;
	if (!realpath(datadir, r->datadir))
		snprintf(r->datadir, sizeof(r->datadir), "%s", datadir);
	given_path(datadir, given, sizeof(given));
	r->kernel = awr_kernel_running();
	ret = awr__db_list_files(dfd, engine, &l);
	if (ret)
		goto err;
	read_page_size(r, dfd);
	if (engine == AWR_DB_POSTGRESQL)
		read_pg_version(r, dfd);
	judge_engine(r, flags, &cfg, buffered, sizeof(buffered));
	read_protection(r);
	r->files = calloc(l.nr ? l.nr : 1, sizeof(*r->files));
	ret = r->files ? judge_all(r, dfd, &l, &cfg, given, buffered[0] ? buffered : NULL)
		       : -ENOMEM;
	if (ret)
		goto err_list;
	conditions(r);
	advise(r, given);
	speed(r, given);
	warn_unprotected(r);
	awr__names_free(&cfg.names);
	awr__db_list_free(&l);
	close(dfd);
	*out = r;
	return 0;
err_list:
	awr__db_list_free(&l);
err:
	awr__names_free(&cfg.names);
	close(dfd);
	awr_db_report_free(r);
	return ret;
}

void awr_db_report_free(struct awr_db_report *r)
{
	if (r)
		free(r->files);
	free(r);
}

/* Why no report: awr__db_engine_of() said it for -EMEDIUMTYPE; the rest named here */
static int no_report(const char *datadir, enum awr_db_engine engine, int ret)
{
	if (ret == -EMEDIUMTYPE || !datadir)
		return ret;
	if (ret == -ENODATA && engine == AWR_DB_ANY)
		return awr__fail(ret, "%s holds no data file its engine reads: is it the data "
				 "directory?", datadir);
	if (ret == -ENODATA)
		return awr__fail(ret, "%s holds no %s data file (%s): is it the data directory, "
				 "and the engine right?", datadir, awr_db_engine_name(engine),
				 engine == AWR_DB_INNODB ? "ibdata1, undoNNN, *.ibd" :
				 "base/*/NNNN, global/NNNN, pg_tblspc/*/PG_*/*/NNNN");
	return awr__fail(ret, "cannot read the data directory %s: %s", datadir, strerror(-ret));
}

int awr_db_qualify(const char *datadir, enum awr_db_engine engine, unsigned int flags,
		   struct awr_db_report **out)
{
	int ret = db_qualify(datadir, engine, flags, out);

	return ret ? no_report(datadir, engine, ret) : 0;
}
