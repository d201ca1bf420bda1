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
#include <linux/fiemap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "discover/dbfiles.h"

const char *awr_db_verdict_name(enum awr_db_verdict v)
{
	switch (v) {
	case AWR_DB_GUARANTEED:
		return "guaranteed";
	case AWR_DB_DEVICE_IMPLICIT:
		return "device-implicit";
	case AWR_DB_NOT_SAFE:
		return "not safe";
	default:
		return "unknown";
	}
}

static void reason(struct awr_db_file *f, enum awr_db_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One reason of @f's verdict; the verdict falls to @v (unknown counts below not safe) */
static void reason(struct awr_db_file *f, enum awr_db_verdict v, const char *fmt, ...)
{
	va_list ap;

	if (f->nr_reasons < AWR_DB_MAX_REASONS) {
		va_start(ap, fmt);
		vsnprintf(f->reasons[f->nr_reasons++], sizeof(f->reasons[0]), fmt, ap);
		va_end(ap);
	}
	if (v == AWR_DB_NOT_SAFE || f->verdict != AWR_DB_NOT_SAFE)
		f->verdict = v;
}

static void condition(struct awr_db_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
		reason(f, AWR_DB_UNKNOWN, "the device below could not be examined: %s", strerror(-ret));
		return;
	}
	sv = awr_probe_sysfs(p);
	st = awr_probe_stack(p);
	dev = awr_probe_device(p);
	if (!sv) {
		reason(f, AWR_DB_UNKNOWN, "no block device below the file in sysfs: what its writes reach is unknown");
		goto out;
	}
	/* every start below: the partition, each leg's data start and the leg's own partition */
	f->device_offset_align = align_min(0, sv->part_start);
	for (unsigned int i = 0; st && i < st->nr_legs; i++) {
		f->device_offset_align = align_min(f->device_offset_align, st->legs[i].start);
		f->device_offset_align = align_min(f->device_offset_align, part_start_of(st->legs[i].name));
	}
	if (f->device_offset_align && f->device_offset_align < P)
		reason(f, AWR_DB_NOT_SAFE, "the data starts at an offset that is a multiple of %" PRIu64 " bytes only "
		       "on the disk below (partition start %" PRIu64 "%s): every %u-byte page is misaligned there",
		       f->device_offset_align, sv->part_start, st ? ", or a dm/md leg's data start" : "", P);
	if (!fs->hw_atomic || !fs->hw_unit_max) {
		reason(f, AWR_DB_NOT_SAFE, "%s writes nothing atomically itself (sysfs atomic_write_unit_max_bytes 0): "
		       "a plain %u-byte write can be torn by a power cut", sv->disk, P);
	} else if (fs->hw_unit_max < P || fs->hw_unit_min > P) {
		reason(f, AWR_DB_NOT_SAFE, "%s writes %u..%u bytes atomically, and the page is %u bytes", sv->disk,
		       fs->hw_unit_min, fs->hw_unit_max, P);
	} else if (!st && dev && awr_device_type(dev) == AWR_DEVICE_SCSI) {
		reason(f, AWR_DB_NOT_SAFE, "%s is SCSI: its atomic unit holds only for WRITE ATOMIC(16) commands, and "
		       "the engine's plain writes are WRITE(10/16) (only RWF_ATOMIC sends WRITE ATOMIC)", sv->disk);
	} else if (!st && !dev) {
		reason(f, AWR_DB_UNKNOWN, "%s's device fields could not be read (needs root): whether its atomic unit "
		       "holds for plain writes (NVMe AWUPF/NAWUPF) is unknown", sv->disk);
	}
	if (sv->boundary && (sv->boundary < P || sv->boundary % P))
		reason(f, AWR_DB_NOT_SAFE, "%s's atomic boundary is %u bytes: an aligned %u-byte page can cross it",
		       sv->disk, sv->boundary, P);
	snprintf(q, sizeof(q), "%s/block/%s/queue", awr__sysfs_root(), sv->disk);
	if (!awr__sysfs_read_u64(q, "max_sectors_kb", &v) && v * 1024 < P)
		reason(f, AWR_DB_NOT_SAFE, "%s's max_sectors_kb is %" PRIu64 ": a %u-byte write is split", sv->disk, v, P);
	if (!awr__sysfs_read_u64(q, "chunk_sectors", &v) && v && (v * 512) % P)
		reason(f, AWR_DB_NOT_SAFE, "%s's chunk_sectors is %" PRIu64 " (%" PRIu64 " bytes), not a multiple of the "
		       "%u-byte page: a page across a chunk end is split", sv->disk, v, v * 512, P);
	if (!awr__sysfs_read_u64(q, "max_segments", &v) && v < (P + 4095) / 4096)
		reason(f, AWR_DB_NOT_SAFE, "%s takes %" PRIu64 " segments a request: a %u-byte page from %u user pages is "
		       "split", sv->disk, v, P, (P + 4095) / 4096);
	if (st && st->chunk_bytes && st->chunk_bytes % P)
		reason(f, AWR_DB_NOT_SAFE, "%s (%s) stripes in %" PRIu64 "-byte chunks, not a multiple of the page: a page "
		       "across a chunk end goes to two legs", st->disk, st->type, st->chunk_bytes);
out:
	awr_probe_free(p);
}

static void judge_extents(struct awr_db_file *f, int fd, const struct awr_fs_view *fs)
{
	struct awr_extent_report *er = NULL;
	uint64_t shared = 0, moved = 0;
	int ret = awr_extents_read(fd, f->page_size, &er);

	if (ret) {
		reason(f, AWR_DB_UNKNOWN, "its extents could not be read (FIEMAP: %s): where its pages lie is unknown",
		       strerror(-ret));
		return;
	}
	f->mapped_bytes = er->total_bytes;
	f->aligned_bytes = er->aligned_bytes;
	for (unsigned int i = 0; i < er->nr_extents; i++) {
		const struct awr_extent *e = &er->extents[i];

		if (e->flags & FIEMAP_EXTENT_SHARED)
			shared += e->length;
		if (e->flags & (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_NOT_ALIGNED |
				FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
			moved += e->length;
	}
	f->write_path = awr_path_predict(fs, er, er->nr_misaligned ? er->misaligned[0].offset / f->page_size *
				   f->page_size : 0, f->page_size, NULL, 0);
	if (er->aligned_bytes < er->total_bytes)
		reason(f, AWR_DB_NOT_SAFE, "%" PRIu64 " of its %" PRIu64 " mapped bytes are not in whole %u-byte pages "
		       "aligned on the device (FIEMAP, first at byte %" PRIu64 "): such a page goes down as two pieces",
		       er->total_bytes - er->aligned_bytes, er->total_bytes, f->page_size,
		       er->nr_misaligned ? er->misaligned[0].offset : 0);
	if (shared)
		reason(f, AWR_DB_NOT_SAFE, "%" PRIu64 " bytes are in shared (reflinked) extents: an overwrite goes "
		       "elsewhere by copy-on-write", shared);
	if (moved)
		reason(f, AWR_DB_UNKNOWN, "%" PRIu64 " bytes are in extents FIEMAP marks inline, encoded, delayed or "
		       "not aligned: where they are written is unknown", moved);
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
	reason(f, AWR_DB_NOT_SAFE, "%s places the extents a growing file gets at any %" PRIu64 "-byte %s (%s): "
	       "pages written where the file grew can be split on the device; %s keeps them %u-byte aligned",
	       fs->type_name, f->grow_align ? f->grow_align : fs->block_size,
	       fs->type == AWR_FS_XFS ? "block" : "cluster", fs->type != AWR_FS_XFS ? "no bigalloc cluster of the page" :
	       f->grow_align ? "a stripe unit that is not a multiple of the page" : "no stripe unit", mk, P);
}

/* Files whose writes no path makes atomic: DAX (CPU stores to persistent memory, dax_iomap_rw()),
 * and a file that takes no direct I/O (ext4_dio_write_iter() buffers its O_DIRECT writes) */
static void judge_dax(struct awr_db_file *f, const struct awr_fs_view *fs)
{
	if (fs->dax)
		reason(f, AWR_DB_NOT_SAFE, "the file is DAX (statx): its writes are copied to persistent memory "
		       "by the CPU, with no atomic unit (6.17+ refuses RWF_ATOMIC on DAX; before, it was ignored)");
	if (fs->no_direct_io)
		reason(f, AWR_DB_NOT_SAFE, "the file takes no direct I/O (statx STATX_DIOALIGN 0: ext4 data=journal, "
		       "a journalled file, inline data or fs-verity): its O_DIRECT page writes, RWF_ATOMIC ones too, "
		       "go through the page cache as plain writes");
}

static void judge_file(struct awr_db_report *r, int dfd, const char *rel, struct awr_db_file *f)
{
	struct awr_fs_view fs;
	uint8_t head[64];
	char why[256];
	int fd, ret;

	snprintf(f->path, sizeof(f->path), "%s", rel);
	f->verdict = AWR_DB_DEVICE_IMPLICIT;	/* until a reason lowers it */
	fd = openat(dfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		reason(f, AWR_DB_UNKNOWN, "cannot be opened: %s", strerror(errno));
		return;
	}
	if (r->engine == AWR_DB_INNODB) {
		ssize_t n = pread(fd, head, sizeof(head), 0);

		ret = n < 0 ? -errno : awr_innodb_page_size(head, (size_t)n, &f->page_size, why, sizeof(why));
		if (ret) {
			reason(f, AWR_DB_UNKNOWN, "its page size is unknown: %s", n < 0 ? strerror(errno) : why);
			goto out;
		}
	} else {
		f->page_size = r->page_size;
	}
	ret = awr_fs_view_fd(fd, &fs);
	if (ret) {
		reason(f, AWR_DB_UNKNOWN, "its filesystem could not be examined: %s", strerror(-ret));
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
		f->verdict = AWR_DB_GUARANTEED;
		if (!fs.atomic)
			reason(f, AWR_DB_NOT_SAFE, "statx: the file takes no atomic writes (%s on %s): the engine's "
			       "RWF_ATOMIC page writes are refused", fs.type_name, fs.device[0] ? fs.device : "no device");
		else if (f->page_size < fs.unit_min || f->page_size > fs.unit_max)
			reason(f, AWR_DB_NOT_SAFE, "statx: atomic writes of %u..%u bytes, and the page is %u bytes: the "
			       "engine's RWF_ATOMIC page writes are refused", fs.unit_min, fs.unit_max, f->page_size);
		judge_dax(f, &fs);
		goto out;
	}
	/* plain writes: the extents' reasons stand */
	if (!r->direct_io)
		reason(f, AWR_DB_NOT_SAFE, "%s writes its %u-byte pages through the page cache: writeback sends them "
		       "as the cache holds them (4 KiB pages, any order), and no kernel up to 7.3 takes RWF_ATOMIC on "
		       "buffered writes", engine_name(r->engine), f->page_size);
	if (fs.type != AWR_FS_XFS && fs.type != AWR_FS_EXT4 && fs.type != AWR_FS_BLOCK)
		reason(f, AWR_DB_UNKNOWN, "awr knows how XFS and ext4 place an overwrite, not %s", fs.type_name);
	judge_growth(f, &fs);
	judge_dax(f, &fs);
	judge_device(f, fd, &fs);
out:
	close(fd);
}

/* --- the engine: does it ask for atomic writes, does it write O_DIRECT? ------- */

/* a running process with files of @datadir open: its pid, whether libatomicwr-preload is in it, O_DIRECT seen */
static pid_t find_server(const char *datadir, bool *preload, bool *direct)
{
	size_t dl = strlen(datadir);
	struct dirent *de;
	DIR *proc = opendir("/proc");
	pid_t found = 0;

	*preload = *direct = false;
	while (proc && !found && (de = readdir(proc))) {
		char dir[300], link[4352], target[4096];
		struct dirent *fe;
		DIR *fds;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/fd", de->d_name);
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
			found = (pid_t)atoi(de->d_name);
			/* O_DIRECT of the page files only (a redo log has its own way, innodb_log_file_buffering) */
			if (!strstr(target, ".ibd") && !strstr(target, "/ibdata") && !strstr(target, "/undo") &&
			    !strstr(target, "/base/") && !strstr(target, "/global/"))
				continue;
			snprintf(link, sizeof(link), "/proc/%s/fdinfo/%s", de->d_name, fe->d_name);
			FILE *fi = fopen(link, "re");
			unsigned int fl = 0;
			char line[128];

			while (fi && fgets(line, sizeof(line), fi))
				if (sscanf(line, "flags: %o", &fl) == 1 && (fl & O_DIRECT))
					*direct = true;
			if (fi)
				fclose(fi);
		}
		if (fds)
			closedir(fds);
		if (found) {
			char maps[300], line[1024];
			FILE *m;

			snprintf(maps, sizeof(maps), "/proc/%s/maps", de->d_name);
			m = fopen(maps, "re");
			while (m && fgets(line, sizeof(line), m))
				if (strstr(line, "libatomicwr-preload"))
					*preload = true;
			if (m)
				fclose(m);
		}
	}
	if (proc)
		closedir(proc);
	return found;
}

static void judge_engine(struct awr_db_report *r, unsigned int flags)
{
	bool preload = false, direct = false;
	pid_t pid = find_server(r->datadir, &preload, &direct);

	r->direct_io = r->engine == AWR_DB_INNODB;
	if (flags & AWR_DB_ATOMIC_WRITES) {
		r->atomic_writes = true;
		snprintf(r->atomic_why, sizeof(r->atomic_why), "as given: the engine runs under libatomicwr-preload%s",
			 pid && !preload ? " (but the running process with its files open has no libatomicwr-preload)" : "");
	} else if (pid && preload) {
		r->atomic_writes = true;
		snprintf(r->atomic_why, sizeof(r->atomic_why), "process %d holds files of the directory open and has "
			 "libatomicwr-preload loaded", (int)pid);
	} else {
		snprintf(r->atomic_why, sizeof(r->atomic_why), "%s issues no RWF_ATOMIC of its own (%s)%s",
			 engine_name(r->engine), r->engine == AWR_DB_INNODB ? "MySQL 8, MariaDB 10.11 and 11" :
			 "PostgreSQL 15..17, buffered writes", pid ? "; the running server has no libatomicwr-preload" : "");
	}
	if (r->engine == AWR_DB_INNODB && pid && !direct) {
		r->direct_io = false;
		condition(r, "process %d has the data files open without O_DIRECT: set innodb_flush_method=O_DIRECT",
			  (int)pid);
	}
	if (r->engine == AWR_DB_INNODB && !pid)
		condition(r, "innodb_flush_method=O_DIRECT (or O_DIRECT_NO_FSYNC): buffered page writes are never "
			  "untorn (no server runs on the directory now to check it)");
}

/* --- the directory's page size ------------------------------------------------- */

static int read_page_size(struct awr_db_report *r, int dfd)
{
	const char *name = r->engine == AWR_DB_INNODB ? "ibdata1" : "global/pg_control";
	uint8_t buf[8192];
	char why[200];
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd < 0) {
		snprintf(r->page_size_from, sizeof(r->page_size_from), "%s cannot be opened: %s", name, strerror(errno));
		return 0;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0) {
		snprintf(r->page_size_from, sizeof(r->page_size_from), "%s cannot be read: %s", name, strerror(errno));
		return 0;
	}
	ret = r->engine == AWR_DB_INNODB ? awr_innodb_page_size(buf, (size_t)n, &r->page_size, why, sizeof(why)) :
		awr_pg_control_block_size(buf, (size_t)n, &r->page_size, why, sizeof(why));
	snprintf(r->page_size_from, sizeof(r->page_size_from), "%s%s: %s", name,
		 r->engine == AWR_DB_INNODB ? " page 0" : "", why);
	if (ret)
		r->page_size = 0;
	return 0;
}

static void advise(struct awr_db_report *r)
{
	const bool inno = r->engine == AWR_DB_INNODB;
	const char *setting = inno ? "the doublewrite buffer (innodb_doublewrite=ON)" : "full_page_writes=on";
	bool software = false;

	for (unsigned int i = 0; i < r->nr_files; i++)
		software |= r->files[i].write_path == AWR_PATH_SOFTWARE;
	switch (r->verdict) {
	case AWR_DB_GUARANTEED:
		if (software)	/* safe, but slower: bench/mariadb.sh, README "What turning it off buys" */
			snprintf(r->advice, sizeof(r->advice), "%s would be safe under libatomicwr-preload, but keep %s "
				 "for speed: the atomic page writes take the filesystem's copy-on-write path here, "
				 "which is slower than the doublewrite buffer (MariaDB 0.87x the transactions, 1.45x "
				 "the p99 latency in bench/mariadb.sh); a device whose atomic writes take the hardware "
				 "path makes turning it off pay.", inno ? "innodb_doublewrite=OFF" : "full_page_writes=off",
				 setting);
		else
			snprintf(r->advice, sizeof(r->advice), "Turn %s off: %s, keeping %s under libatomicwr-preload "
				 "with every data file named.", inno ? "the doublewrite buffer" : "full_page_writes",
				 inno ? "innodb_doublewrite=OFF" : "full_page_writes=off",
				 inno ? "innodb_flush_method=O_DIRECT and the server" : "the server");
		break;
	case AWR_DB_DEVICE_IMPLICIT:
		snprintf(r->advice, sizeof(r->advice), "%s is safe while the conditions below hold (awr checked them; "
			 "the engine does not): run the server under libatomicwr-preload to have the kernel enforce them.",
			 inno ? "innodb_doublewrite=OFF" : "full_page_writes=off");
		break;
	case AWR_DB_NOT_SAFE:
		snprintf(r->advice, sizeof(r->advice), "Keep %s: a page write here can be torn (see the reasons).",
			 setting);
		break;
	default:
		snprintf(r->advice, sizeof(r->advice), "Keep %s until what the reasons name as unknown can be read.", setting);
	}
}

static void conditions(struct awr_db_report *r)
{
	const struct awr_db_file *f = r->nr_files ? &r->files[0] : NULL;

	if (!f)
		return;
	if (r->verdict == AWR_DB_GUARANTEED) {
		condition(r, "every page write RWF_ATOMIC and O_DIRECT (libatomicwr-preload reports the writes it "
			  "could not make atomic at exit)");
		return;
	}
	if (r->verdict != AWR_DB_DEVICE_IMPLICIT)
		return;
	condition(r, "%s writes %u-byte pages atomically on power failure for every write (sysfs atomic unit up to "
		  "%u bytes from the device's AWUPF/NAWUPF); a firmware or kernel that lowers it breaks this",
		  f->device, r->page_size, f->hw_unit_max);
	if (f->grow_align)
		condition(r, "every page of every file in one extent aligned on the device (FIEMAP); a file grown "
			  "into misaligned extents breaks this: %s aligns new extents to %" PRIu64 " bytes%s", f->fs,
			  f->grow_align, strcmp(f->fs, "xfs") ? "" : " where free space allows (its stripe unit: run awr "
			  "database again after the files grow)");
	else
		condition(r, "every page of every file aligned on the device (FIEMAP)");
	condition(r, "every start below (partition, dm/LVM, md) a multiple of the page, and no layer splitting a "
		  "page write (max_sectors_kb, chunk_sectors, max_segments, the atomic boundary)");
}

int awr_db_qualify(const char *datadir, enum awr_db_engine engine, unsigned int flags, struct awr_db_report **out)
{
	struct awr__db_list l;
	struct awr_db_report *r;
	int dfd, ret;

	if (!datadir || !out || (engine != AWR_DB_INNODB && engine != AWR_DB_POSTGRESQL))
		return -EINVAL;
	*out = NULL;
	dfd = open(datadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOTDIR ? -ENOTDIR : -errno;
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(dfd);
		return -ENOMEM;
	}
	r->engine = engine;
	if (!realpath(datadir, r->datadir))
		snprintf(r->datadir, sizeof(r->datadir), "%s", datadir);
	r->kernel = awr_kernel_running();
	ret = awr__db_list_files(dfd, engine, &l);
	if (ret)
		goto err;
	read_page_size(r, dfd);
	judge_engine(r, flags);
	r->files = calloc(l.nr ? l.nr : 1, sizeof(*r->files));
	if (!r->files) {
		ret = -ENOMEM;
		goto err_list;
	}
	for (unsigned int i = 0; i < l.nr; i++) {
		if (l.e[i].skip) {
			if (r->nr_skipped < sizeof(r->skipped) / sizeof(r->skipped[0]))
				snprintf(r->skipped[r->nr_skipped++], sizeof(r->skipped[0]), "%.90s: %.160s", l.e[i].rel,
					 l.e[i].why);
			continue;
		}
		judge_file(r, dfd, l.e[i].rel, &r->files[r->nr_files++]);
	}
	if (!r->nr_files) {
		ret = -ENODATA;
		goto err_list;
	}
	r->verdict = AWR_DB_GUARANTEED;
	for (unsigned int i = 0; i < r->nr_files; i++) {
		enum awr_db_verdict v = r->files[i].verdict;

		if (v == AWR_DB_NOT_SAFE || (v == AWR_DB_UNKNOWN && r->verdict != AWR_DB_NOT_SAFE) ||
		    (v == AWR_DB_DEVICE_IMPLICIT && r->verdict == AWR_DB_GUARANTEED))
			r->verdict = v;
	}
	if (!r->page_size && r->verdict != AWR_DB_NOT_SAFE)
		r->verdict = AWR_DB_UNKNOWN;
	conditions(r);
	advise(r);
	awr__db_list_free(&l);
	close(dfd);
	*out = r;
	return 0;
err_list:
	awr__db_list_free(&l);
err:
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
