/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/verify.h - verification: stamped units, the stress writers, the
 * verifier, the journal server.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_VERIFY_H
#define LIBATOMICWR_VERIFY_H

#include <libatomicwr/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The stamped-unit format (awr-stamp(5)). A unit of U bytes (a multiple of
 * 512) is split in 512-byte sectors; each sector starts with a 40-byte stamp
 * (little endian): magic "AWRSTMP1", unit index, generation, sector index,
 * writer id, unit size, reserved. The rest is filler derived from the stamp,
 * and the unit's last 8 bytes hold XXH3_64bits of its first U - 8 bytes.
 */
#define AWR_STAMP_SECTOR	512
/* the largest stamped unit (each writer holds one unit in memory) */
#define AWR_STAMP_UNIT_MAX	(1U << 30)
#define AWR_STAMP_MAGIC		0x31504d5453525741ULL	/* "AWRSTMP1" */

/* What a unit read back holds. */
enum awr_unit_class {
	AWR_UNIT_NEVER_WRITTEN = 0,	/* no sector carries the magic (all zero or foreign data) */
	AWR_UNIT_INTACT,		/* every sector of one generation, checksum good */
	AWR_UNIT_TORN,			/* sectors of different generations (0: unstamped) */
	AWR_UNIT_CORRUPT,		/* stamps agree, the checksum (or writer) does not */
	AWR_UNIT_MISPLACED,		/* a stamp of another unit, sector or unit size */
	AWR_UNIT__COUNT
};

/* The classification of one unit: a plain value type. */
struct awr_unit_state {
	enum awr_unit_class cls;
	bool all_zero;			/* never written: every byte is zero */
	/* intact, corrupt: its generation; torn: sector 0's (0 = unstamped) */
	uint64_t generation;
	uint64_t other_generation;	/* torn: the generation of bad_sector */
	uint64_t newest_generation;	/* highest generation of any sector */
	uint32_t writer;		/* writer id of sector 0's stamp */
	uint32_t bad_sector;		/* torn, corrupt, misplaced: first sector that disagrees */
	uint64_t found_unit;		/* misplaced: unit index found at bad_sector */
	uint32_t found_sector;		/* misplaced: sector index found there */
	uint32_t found_unit_size;	/* misplaced: unit size found there */
	uint32_t reserved[6];
};

/**
 * awr_stamp_fill() - fill a buffer with one stamped unit
 * @buf:	destination, @unit_size bytes
 * @unit_size:	unit size in bytes, a non-zero multiple of AWR_STAMP_SECTOR
 * @unit:	the unit's index in the target (its offset / @unit_size)
 * @generation:	the generation, at least 1 (0 means "never written")
 * @writer:	the writer's id
 *
 * Every sector gets a stamp, the filler is a function of the stamp, and the
 * last 8 bytes the checksum (awr-stamp(5)).
 *
 * Return: 0, or -EINVAL for a bad size or generation 0.
 */
int awr_stamp_fill(void *buf, uint32_t unit_size, uint64_t unit, uint64_t generation,
		   uint32_t writer);

/**
 * awr_stamp_classify() - classify a unit read back
 * @buf:	the unit's content, @unit_size bytes
 * @unit_size:	unit size in bytes, a non-zero multiple of AWR_STAMP_SECTOR
 * @unit:	the index the unit is expected to carry
 * @out:	the classification
 *
 * Misplaced is decided first, then torn, then corrupt; else intact or never
 * written.
 *
 * Return: 0, or -EINVAL for a bad size.
 */
int awr_stamp_classify(const void *buf, uint32_t unit_size, uint64_t unit,
		       struct awr_unit_state *out);

/**
 * awr_unit_class_name() - stable snake_case name of a unit class ("torn")
 * @cls:	the class
 *
 * Return: a static string; "unknown" for values out of range.
 */
const char *awr_unit_class_name(enum awr_unit_class cls);

/**
 * awr_stamp_unit_check() - whether @unit can be the unit of stamped writes
 * @unit:	bytes
 *
 * The unit of awr_stress_run() and awr_verify_run(): a non-zero multiple of
 * AWR_STAMP_SECTOR up to AWR_STAMP_UNIT_MAX.
 *
 * Return: 0, or -EINVAL with the sentence in awr_last_error(), in awr
 * stress's and awr verify's words ("--unit 1000 must be a multiple of 512 up
 * to 1 GiB, such as 16k").
 */
int awr_stamp_unit_check(uint64_t unit);


/* awr_stress_opts.flags */
#define AWR_STRESS_DSYNC	(1U << 0)	/* RWF_DSYNC: each acknowledged write is durable */
/* plain O_DIRECT writes, no RWF_ATOMIC (a control run) */
#define AWR_STRESS_PLAIN	(1U << 1)
/* awr_stress_run(): write a target in use or holding data */
#define AWR_STRESS_FORCE	(1U << 2)

/* awr_stress_opts.span of an empty (new) file when none is given */
#define AWR_STRESS_DEFAULT_SPAN	(64ULL << 20)

/* What awr_stress_run() does. */
struct awr_stress_opts {
	uint32_t unit;		/* bytes per atomic write (the stamped unit) */
	uint32_t threads;	/* writer threads, at most 256; 0 means 4 */
	/* bytes from offset 0 to write; 0: the whole file or device, an empty file's default */
	uint64_t span;
	uint64_t writes;	/* stop after this many writes in all; 0: no count limit */
	uint64_t duration_ms;	/* stop after this time; 0: no time limit */
	unsigned int flags;	/* AWR_STRESS_* */
	const char *journal;	/* record intents and acknowledgements here (implies DSYNC) */
	uint32_t reserved[8];
	/*
	 * The journal is a new file or a journal (first record valid), never a
	 * link, device or FIFO; true: a regular file holding other data (or a
	 * journal damaged before its end) is emptied and used instead of refused.
	 */
	bool journal_force;
	/*
	 * A journal "tcp://HOST:PORT[/NAME]" is kept by awr_journal_serve() on
	 * another machine (NAME defaults to this host's name): a record counts
	 * as durable once the server has written and fdatasync'd it and said so.
	 * Its shared secret is read from this file (not readable by group or
	 * others), or when NULL from $AWR_JOURNAL_SECRET (secure_getenv).
	 */
	const char *journal_secret_file;
};

/* What a stress run did. */
struct awr_stress_result {
	uint64_t writes;		/* acknowledged atomic writes */
	uint64_t bytes;			/* their bytes */
	uint64_t units;			/* units in the span */
	uint64_t first_generation;	/* the run's first generation */
	uint64_t last_generation;	/* the highest generation issued */
	uint64_t nsec;			/* run time */
	uint64_t journal_syncs;		/* journal fdatasync calls */
	/* 0, or the negative errno of the write that ended the run */
	int error;
	uint64_t error_offset;		/* that write's offset */
	/* 0, or the negative errno of a failed journal append or sync */
	int journal_error;
	struct awr_verdict verdict;	/* a rule broken by the unit before any write */
	uint32_t reserved[8];
};

/**
 * awr_stress_run() - concurrent stamped atomic writers over a target
 * @path:	a regular file (created when missing, extended to @o->span) or a
 *		block device, opened by awr_target_open(): one in use or holding
 *		data is refused (-EBUSY, -EEXIST) unless AWR_STRESS_FORCE
 * @o:		the run's options; one of @o->writes and @o->duration_ms is needed
 * @out:	what the run did
 *
 * Writer threads overwrite units of the span, half of their writes on a hot
 * set of 8 units so that writers overlap, with unique increasing generations
 * from one atomic counter (awr-stamp(5)). With a journal each generation is
 * recorded (durably) before its write and acknowledged after it. A failed
 * write (EIO after a shutdown or power loss) ends the run for every writer.
 *
 * Return: 0 when the run ran (a write error is in @out->error, a journal
 * error in @out->journal_error), or a negative errno when it could not
 * start (-EINVAL with @out->verdict when the unit breaks a rule of the
 * target's limits).
 */
int awr_stress_run(const char *path, const struct awr_stress_opts *o,
		   struct awr_stress_result *out);

/**
 * awr_stress_run_fd() - awr_stress_run() on a descriptor the caller holds
 * @fd:		a regular file or block device opened O_RDWR | O_DIRECT, e.g. by
 *		awr_target_open(); not closed
 * @o:		the run's options (AWR_STRESS_FORCE is not looked at: the caller
 *		has decided)
 * @out:	what the run did
 *
 * Return: as awr_stress_run().
 */
int awr_stress_run_fd(int fd, const struct awr_stress_opts *o, struct awr_stress_result *out);

/**
 * awr_stress_opts_check() - whether awr_stress_run() can take @o
 * @o:		the options
 *
 * Checks, in this order, the unit (awr_stamp_unit_check()), the span (whole
 * units, at most 2^63 - 1 bytes), a count of writes or a time (one of them),
 * and at most 256 threads; awr_stress_run() checks the same before it starts.
 *
 * Return: 0, or -EINVAL with the sentence in awr_last_error(), in awr
 * stress's words ("--threads 300 must be between 1 and 256").
 */
int awr_stress_opts_check(const struct awr_stress_opts *o);

/**
 * awr_stress_stop() - ask the running awr_stress_run() to stop early
 *
 * Async-signal-safe: meant for a SIGINT or SIGTERM handler. Each writer
 * finishes the write it has in flight, journals its acknowledgement, and
 * the run returns 0 with the writes made so far in its result; the journal
 * is consistent for awr_verify_run(). The request ends with that run (the
 * next awr_stress_run() starts afresh).
 */
void awr_stress_stop(void);

/**
 * awr_journal_check() - whether a file may be taken as a stress journal
 * @path:	the journal (a tcp:// URL is not looked at)
 * @force:	a regular file holding other data may be replaced (as
 *		awr_stress_opts.journal_force)
 *
 * Looks at the file without changing it, so that a caller can refuse a journal
 * before it touches its target: a journal is a new file, a journal of an
 * earlier run (its first bytes those of a journal record), or with @force any
 * regular file; never a link, directory, device, FIFO or socket.
 * awr_stress_run() checks the whole first record again when it opens it.
 *
 * Return: 0 when it may, -EINVAL for a file that is not a regular one, -ENOEXEC
 * for a regular file holding other data; awr_last_error() says what it holds.
 */
int awr_journal_check(const char *path, bool force);

/* One offending unit found by awr_verify_run(). */
struct awr_verify_issue {
	uint64_t unit;			/* unit index */
	uint64_t offset;		/* byte offset of the unit */
	struct awr_unit_state state;	/* its classification */
	bool lost;			/* an acknowledged write is missing */
	bool unjournaled;		/* holds a generation the journal never issued for it */
	uint64_t acked_generation;	/* lost: the newest acknowledged generation */
};

/* What awr_verify_run() checks. */
struct awr_verify_opts {
	uint32_t unit;		/* unit size the target was stamped with */
	uint64_t span;		/* bytes from offset 0 to scan; 0: the whole file or device */
	const char *journal;	/* a stress journal: also find lost writes; NULL: no */
	/* CLOCK_REALTIME of the crash: later acks count as in flight; 0 none */
	uint64_t crash_time_ns;
	/* called for every offending unit in offset order; non-zero stops the scan */
	int (*issue)(const struct awr_verify_issue *is, void *arg);
	void *arg;
	uint32_t reserved[8];
	/* the secret of a tcp:// journal, as awr_stress_opts.journal_secret_file */
	const char *journal_secret_file;
};

/* What a scan found. */
struct awr_verify_result {
	uint64_t units;				/* units scanned */
	uint64_t count[AWR_UNIT__COUNT];	/* units per class */
	uint64_t lost;				/* units missing an acknowledged write */
	uint64_t unjournaled;			/* units with a generation not issued for them */
	uint64_t journal_records;		/* valid journal records read */
	uint64_t acked_writes;			/* acknowledged writes in the span */
	uint64_t acked_units;			/* units with an acknowledged write */
	uint64_t acked_late;			/* acks at or after crash_time_ns (in flight) */
	uint32_t journal_unit;			/* the unit size the journal's runs used */
	bool direct;				/* read with O_DIRECT */
	uint64_t bytes;				/* bytes read */
	uint64_t nsec;				/* scan time */
	double mb_per_s;			/* 10^6 bytes read per second */
	uint32_t failed;			/* 1: the scan found a torn, corrupt or misplaced
						   unit, or a lost or unjournaled write */
	uint32_t stamped_unit;			/* misplaced units carry stamps of this
						   unit size (the target's); 0: none */
	uint32_t reserved[6];
	char what_to_do[256];			/* failed: what to do, in one sentence */
};

/**
 * awr_verify_issue_text() - an offending unit in words
 * @is:		the unit, as awr_verify_opts.issue gets it
 * @unit:	the unit size scanned
 * @buf:	the sentence: "unit 3 at 49152: torn: sector 0 holds generation 7, ..."
 * @len:	size of @buf (200 bytes hold any)
 *
 * Return: the length of the whole sentence (as snprintf()), or -EINVAL.
 */
int awr_verify_issue_text(const struct awr_verify_issue *is, uint32_t unit, char *buf,
			  size_t len);

/**
 * awr_verify_run() - scan a stamped target for torn, corrupt, misplaced and lost units
 * @path:	the file or block device written by awr_stress_run()
 * @o:		unit size, span, optional journal and issue callback
 * @out:	counts per class and of lost units
 *
 * Reads with large O_DIRECT reads, the next one while the current chunk is
 * classified. With a journal a unit has lost a write
 * when the journal acknowledges a write to it that was issued after the
 * write of the generation it holds had been acknowledged, or acknowledges
 * any write to a unit that holds none (the rule in awr-stamp(5)).
 *
 * Return: 0 when the scan completed (problems are in @out), -EINVAL when
 * the journal's unit size differs (@out->journal_unit), -EBADMSG for a
 * damaged journal, -EISDIR for a directory, -ENODEV for a target that is
 * not a regular file or block device (a FIFO is never waited on), other
 * negative errno for I/O errors.
 */
int awr_verify_run(const char *path, const struct awr_verify_opts *o,
		   struct awr_verify_result *out);

/* awr_journal_serve_opts.flags */
/* accept peers that are not on a loopback address */
#define AWR_JSERVE_ALLOW_REMOTE	(1U << 0)

/* What awr_journal_serve() does. */
struct awr_journal_serve_opts {
	const char *listen;	/* "ADDR:PORT" or "[IPV6]:PORT"; port 0 picks a free one */
	const char *dir;	/* each client's journal is DIR/NAME.journal */
	const char *secret_file;	/* the shared secret; NULL: $AWR_JOURNAL_SECRET */
	unsigned int max_clients;	/* connections at once; 0 means 16, at most 1024 */
	unsigned int flags;		/* AWR_JSERVE_* */
	/* called once listening, with the address and port bound (NULL: nothing) */
	void (*ready)(const char *addr, void *arg);
	/* every connection, refusal and error as one line naming the peer (NULL: stderr) */
	void (*log)(const char *line, void *arg);
	void *arg;
	uint32_t reserved[8];
};

/**
 * awr_journal_serve() - keep stress journals for clients on other machines
 * @o:		address, directory, secret, limits
 *
 * Serves the journals named "tcp://HOST:PORT[/NAME]" by awr_stress_run()
 * and awr_verify_run() until awr_journal_serve_stop(). A client proves the
 * shared secret with HMAC-SHA256 over a fresh nonce of the server's, and every
 * frame either way carries an HMAC-SHA256 under a key of both sides' nonces.
 * A record is acknowledged once written and fdatasync'd. Without
 * AWR_JSERVE_ALLOW_REMOTE the address must be a loopback or wildcard one and
 * peers off loopback are refused. Refused peers, bad MACs, oversize or
 * malformed frames end that connection only (logged with the peer address).
 *
 * Return: 0 once stopped, or a negative errno: -EINVAL (a malformed address),
 * -EADDRNOTAVAIL (not a loopback address, without AWR_JSERVE_ALLOW_REMOTE,
 * or unknown), -ENOKEY, -EPERM (the secret as for awr_stress_run()),
 * -ENOTDIR / -ENOENT (@o->dir), or the errno of bind() or listen().
 */
int awr_journal_serve(const struct awr_journal_serve_opts *o);

/**
 * awr_journal_serve_stop() - end the running awr_journal_serve()
 *
 * Async-signal-safe (a SIGINT or SIGTERM handler): the server stops taking
 * connections, ends the open ones after the frame in hand and returns 0.
 */
void awr_journal_serve_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_VERIFY_H */
