/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/database.h - databases: may an engine's own torn-page protection be
 * turned off here (the verdict, the page size its files record), and the
 * counters of a program run under libatomicwr-preload.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_DATABASE_H
#define LIBATOMICWR_DATABASE_H

#include <libatomicwr/discover.h>

#ifdef __cplusplus
extern "C" {
#endif

enum awr_db_engine {
	AWR_DB_ANY = 0,		/* awr_db_qualify(): the engine whose files the directory holds */
	AWR_DB_INNODB = 1,	/* MySQL / MariaDB: innodb_doublewrite */
	AWR_DB_POSTGRESQL,	/* PostgreSQL: full_page_writes */
};

enum awr_db_verdict {
	AWR_DB_UNKNOWN = 0,	/* a fact the answer needs could not be read (see the reasons) */
	AWR_DB_NOT_SAFE,	/* a page write can be torn (see the reasons) */
	/* plain page writes reach the device whole, within its atomic unit */
	AWR_DB_DEVICE_IMPLICIT,
	AWR_DB_GUARANTEED,	/* every page write is RWF_ATOMIC and the kernel accepts it */
};

/* awr_db_qualify() flags */
/* the engine's page writes are RWF_ATOMIC (libatomicwr-preload) */
#define AWR_DB_ATOMIC_WRITES	(1U << 0)

#define AWR_DB_MAX_REASONS	8

/* One data file of the directory and its verdict. */
struct awr_db_file {
	char path[4096];		/* relative to the data directory */
	uint32_t page_size;		/* bytes, read from the engine's files; 0: unknown */
	enum awr_db_verdict verdict;
	char fs[16];			/* "xfs", "ext4", ... */
	char device[64];		/* the disk below, "" none */
	bool statx_atomic;		/* statx: the file takes atomic writes */
	uint32_t unit_min, unit_max;	/* statx's atomic unit */
	bool hw_atomic;			/* the device writes atomically itself */
	/*
	 * device-implicit on its cloud provider's word, not the kernel's unit
	 * (awr_device_provider()); in what was padding
	 */
	bool by_provider;
	uint32_t hw_unit_max;
	/* the route an RWF_ATOMIC page write takes (awr_route_predict); JSON "write_path" */
	enum awr_write_route write_route;
	uint64_t mapped_bytes;		/* FIEMAP: bytes mapped */
	uint64_t aligned_bytes;		/* of those, in whole pages aligned on the device */
	/* the largest power of two dividing every start below (partition, dm, md) */
	uint64_t device_offset_align;
	/*
	 * the device alignment of the extents a growing file gets: XFS's stripe unit, ext4's
	 * cluster (bigalloc) or block; 0 when unknown or not a file
	 */
	uint64_t grow_align;
	/* why not safe / unknown, one sentence each with the numbers */
	unsigned int nr_reasons;
	char reasons[AWR_DB_MAX_REASONS][256];
	/* not safe / unknown: one sentence, what would make it safe (its worst reason's); NULL */
	const char *what_to_do;
};

/* awr_db_report.reasons: the distinct reasons it groups */
#define AWR_DB_MAX_REASON_GROUPS	64

/* One distinct reason across a report's files: how many files give it, and the first. */
struct awr_db_reason_group {
	const char *text;		/* the sentence, in the first file's reasons */
	const char *first;		/* that file's path (relative to the data directory) */
	unsigned int files;		/* how many files give it */
};

/* The verdict for a data directory. */
struct awr_db_report {
	enum awr_db_engine engine;
	char datadir[4096];
	/* the engine's page size (InnoDB: of the system tablespace) */
	uint32_t page_size;
	/* where it was read, e.g. "ibdata1 page 0: FSP flags 0x15 (full_crc32)" */
	char page_size_from[256];
	/* the engine writes pages with O_DIRECT (see direct_io_from) */
	bool direct_io;
	bool atomic_writes;		/* the engine's page writes are RWF_ATOMIC */
	char atomic_why[256];		/* why atomic_writes is what it is */
	uint32_t kernel;		/* AWR_KERNEL() of the running kernel */
	enum awr_db_verdict verdict;	/* the directory's: the worst of its files */
	/* not safe / unknown: one sentence, what would make it safe (a worst file's); else NULL */
	const char *what_to_do;
	char advice[512];		/* one line: keep the protection, or turn it off and how */
	/* device-implicit: what makes it true and what would break it */
	unsigned int nr_conditions;
	char conditions[8][256];
	/* files named and left out (redo logs, temporary tablespaces) */
	unsigned int nr_skipped;
	char skipped[8][256];
	unsigned int nr_files;
	struct awr_db_file *files;
	/* the running server (the process holding the most page files), 0 none */
	int server_pid;
	/* its innodb_doublewrite / full_page_writes: 1 on, 0 off, -1 unknown */
	int protection;
	/*
	 * where that was read (its command line; PostgreSQL's configuration files), or why it could
	 * not be
	 */
	char protection_from[256];
	/* the protection is off and a page write can be torn: what to run; "" */
	char warning[768];
	/* safe, but the atomic writes take a software path: how to measure it */
	char speed[512];
	/*
	 * where direct_io was read: the server's descriptors (fdinfo), its command line, a
	 * configuration file (FILE:LINE), or the version
	 */
	char direct_io_from[256];
	/* PostgreSQL: the major version PG_VERSION names; 0 unknown */
	unsigned int engine_version;
	/* PostgreSQL: pg_control's (0: no data checksums); -1 unknown */
	int data_checksum_version;
	/* the distinct reasons of its files, in the order the files give them first */
	unsigned int nr_reason_groups;
	struct awr_db_reason_group reason_groups[AWR_DB_MAX_REASON_GROUPS];
	/* reasons past the groups' room, each file's counted */
	unsigned int reason_groups_more;
	/* how many files have each verdict, indexed by enum awr_db_verdict */
	unsigned int nr_files_by_verdict[AWR_DB_GUARANTEED + 1];
};

/**
 * awr_innodb_page_size() - the page size an InnoDB tablespace's page 0 records
 * @page0:	the first bytes of the tablespace (at least 58)
 * @len:	their length
 * @page_size:	the physical page size in bytes (the compressed size for ROW_FORMAT=COMPRESSED)
 *
 * The FSP header's FSP_SPACE_FLAGS (big endian at byte 54): MariaDB's
 * full_crc32 layout (marker bit 4, page size in bits 0..3) or the older
 * MySQL/MariaDB one (page size in bits 6..9, 0 = 16 KiB; compressed size in 1..4).
 * A page 0 whose first 1 KiB (or all of @len, if less) is zeros has not been
 * written yet: InnoDB creates a tablespace as zeros and writes page 0 at its
 * first flush, a minute or more after CREATE TABLE.
 *
 * Return: 0; -ENODATA when page 0 is not written yet (all zeros: the page size
 * is the instance's, innodb_page_size, e.g. ibdata1's); -EINVAL when page 0 is
 * not an FSP header page or the flags hold no valid size. On failure
 * awr_last_error() says what page 0 holds (its type, its flags) or lacks.
 */
int awr_innodb_page_size(const void *page0, size_t len, uint32_t *page_size);

/**
 * awr_pg_control_block_size() - the block size global/pg_control records
 * @buf:	the file's contents (PostgreSQL writes 8192 bytes; the data is at the start)
 * @len:	their length
 * @blcksz:	the block size in bytes
 *
 * ControlFileData: blcksz follows floatFormat (1234567.0) in every version;
 * the CRC-32C at the end of the structure must match.
 *
 * Return: 0, or -EINVAL when the file is not a pg_control this reader knows (or its CRC
 * fails); awr_last_error() then says which.
 */
int awr_pg_control_block_size(const void *buf, size_t len, uint32_t *blcksz);

/**
 * awr_db_engine_parse() - the engine a common name means
 * @name:	innodb, mariadb or mysql; postgresql, postgres or pg (any case)
 *
 * Return: AWR_DB_INNODB or AWR_DB_POSTGRESQL; AWR_DB_ANY when @name names neither.
 */
enum awr_db_engine awr_db_engine_parse(const char *name);

/**
 * awr_db_engine_name() - an engine's name, as awr_db_engine_parse() reads it and JSON carries it
 * @e:		the engine
 *
 * Return: "innodb", "postgresql", or "any" for AWR_DB_ANY.
 */
const char *awr_db_engine_name(enum awr_db_engine e);

/**
 * awr_db_qualify() - may @engine's torn-page protection be turned off for @datadir?
 * @datadir:	the data directory (opened read-only; nothing is created in it)
 * @engine:	AWR_DB_INNODB, AWR_DB_POSTGRESQL, or AWR_DB_ANY: the engine whose files
 *		@datadir holds (ibdata1 or mysql.ibd: InnoDB; global/pg_control and
 *		PG_VERSION: PostgreSQL), in the report's engine
 * @flags:	AWR_DB_ATOMIC_WRITES when the engine's page writes are RWF_ATOMIC
 * @out:	the report, freed with awr_db_report_free()
 *
 * Reads the page size from the engine's own files, then judges every data
 * file: its filesystem view, its extents against the page, the stack below,
 * the device's atomic unit and what could split one page write. A running
 * server is fine: only reads are made.
 *
 * Return: 0 (the verdict is in the report), -ENOTDIR / -ENOENT for a
 * @datadir that is not a directory, -ENODATA when it holds no data file of
 * @engine, -EMEDIUMTYPE when @engine is AWR_DB_ANY and @datadir holds the files
 * of neither engine or of both (awr_last_error() says which), other negative errno.
 */
int awr_db_qualify(const char *datadir, enum awr_db_engine engine, unsigned int flags,
		   struct awr_db_report **out);

/**
 * awr_db_report_free() - free a report
 * @r:	the report, may be NULL
 */
void awr_db_report_free(struct awr_db_report *r);

/**
 * awr_db_verdict_name() - "guaranteed", "device_implicit", "not_safe", "unknown"
 * @v:	the verdict
 *
 * The snake_case name, as JSON carries it; text says it in words ("not safe").
 *
 * Return: a static string.
 */
const char *awr_db_verdict_name(enum awr_db_verdict v);

/**
 * awr_db_verdict_text() - a verdict in words: "guaranteed", "device-implicit", "not safe",
 *			   "unknown"
 * @v:	the verdict
 *
 * As text output says it (JSON has awr_db_verdict_name()).
 *
 * Return: a static string.
 */
const char *awr_db_verdict_text(enum awr_db_verdict v);

/* --- libatomicwr-preload: the counters of a program run under it -------- */

#define AWR_PRELOAD_STATS_MAGIC		"AWRPRLD1"
#define AWR_PRELOAD_STATS_VERSION	1

/*
 * The file AWR_PRELOAD_STATS names holds exactly this structure (native byte
 * order), updated in place by the running program (a shared mapping), so the
 * counts survive a kill -9 of the program.
 */
struct awr_preload_stats {
	char magic[8];			/* AWR_PRELOAD_STATS_MAGIC */
	uint64_t version;		/* AWR_PRELOAD_STATS_VERSION */
	uint64_t pid;			/* the program's process id */
	uint64_t page_size;		/* AWR_PRELOAD_PAGE_SIZE */
	uint64_t files_named;		/* opens of named files that take atomic writes of a page */
	uint64_t files_refused;		/* opens of named files refused (they cannot) */
	uint64_t atomic_pwrite;		/* page writes made RWF_ATOMIC: pwrite, pwritev, pwritev2 */
	uint64_t atomic_uring;		/*   through liburing's io_uring_submit family */
	uint64_t atomic_aio;		/*   through libaio's io_submit */
	/*
	 * writes to named files left as they were: not one page (pwrite family: not a whole number
	 * of pages, or more than IOV_MAX)
	 */
	uint64_t plain_size;
	uint64_t plain_misaligned;	/*   at an offset that is not a multiple of the page */
	uint64_t plain_buffered;	/*   on a descriptor without O_DIRECT */
	/* in more than one iovec (pwrite family: an iovec that is not a whole number of pages) */
	uint64_t plain_segments;
	uint64_t plain_position;	/*   at the file position (no offset given) */
	/* pwrite family: the kernel refused the atomic write (its error returned) */
	uint64_t refused;
	uint64_t uring_fixed_files;	/* io_uring writes to registered files (not looked at) */
	/* left as they were: O_APPEND or RWF_APPEND (they land at the end) */
	uint64_t plain_append;
	/*
	 * pwrite family: writes of several pages split into atomic page writes (each page written
	 * counted in atomic_pwrite)
	 */
	uint64_t split_pwrite;
	uint64_t reserved[14];
};

/**
 * awr_preload_stats_read() - read the counters a program under the preload keeps
 * @path:	the file AWR_PRELOAD_STATS named (with %p replaced by the pid)
 * @out:	the counters
 *
 * Return: 0, -EINVAL when the file is not such a file (magic, version or
 * size), other negative errno; awr_last_error() says which.
 */
int awr_preload_stats_read(const char *path, struct awr_preload_stats *out);

/* What the counters add up to (awr preload-stats' summary line). */
struct awr_preload_totals {
	uint64_t atomic;	/* page writes made atomic: atomic_pwrite, _uring, _aio */
	uint64_t plain;		/* writes to named files left as they were: the plain_* counters */
	bool refused;		/* the kernel refused an atomic page write, or a named file */
};

/**
 * awr_preload_stats_totals() - what the counters of a program under the preload add up to
 * @s:		the counters (awr_preload_stats_read())
 * @out:	the page writes made atomic, the writes left plain, whether any was refused
 */
void awr_preload_stats_totals(const struct awr_preload_stats *s,
			      struct awr_preload_totals *out);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_DATABASE_H */
