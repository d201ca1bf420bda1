/* SPDX-License-Identifier: MIT */
/*
 * The stress journal (awr-stamp(5), "JOURNAL"): fixed 48-byte little-endian
 * records appended to a file on another filesystem than the target.
 */
#ifndef AWR_JOURNAL_H
#define AWR_JOURNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define AWR_JREC_SIZE	48
#define AWR_JREC_MAGIC	0x4a525741U	/* "AWRJ" */

enum awr_jrec_type {
	/* a stress run starts: unit = unit size, generation = first, value = span */
	AWR_JREC_RUN = 1,
	AWR_JREC_INTENT = 2,	/* generation issued for unit, durable before the data write */
	AWR_JREC_ACK = 3,	/* the RWF_DSYNC write returned; value = the ack horizon */
};

struct awr_jrec {
	uint32_t type;
	uint32_t writer;
	uint64_t unit;
	uint64_t generation;
	uint64_t value;
	uint64_t time_ns;	/* CLOCK_REALTIME when the record was made */
};

/* An open journal for appending, shared by writer threads. */
struct awr_journal {
	int fd;				/* the file, or -1 for a remote journal */
	struct awr_remote *remote;	/* a journal server's journal (remote.c), or NULL */
	pthread_mutex_t lock;		/* serialises appends */
	pthread_mutex_t sync_lock;	/* one fdatasync at a time: group commit */
	uint64_t appended;		/* records appended (under lock) */
	uint64_t synced;		/* records known durable */
	uint64_t syncs;			/* fdatasync calls */
	uint64_t max_generation;	/* highest generation found when opened */
	/* in the file (a local one): each append is checked as a scan would */
	uint64_t records, runs;
};

/*
 * Open @path to append records: a new file (created with O_EXCL) or a regular
 * file that already is a journal (its first record valid); never through a
 * symbolic link. A damaged tail (torn appends) of a journal is cut back to its
 * last valid record. With @force a regular file that is not a journal is
 * emptied and used; a journal (its first record valid) damaged before its end
 * is refused even then (-EBADMSG): it is never emptied without a person
 * moving it away. An append whose generation no stress run could have issued
 * (as a scan would judge it) is refused with -EBADMSG and not written.
 * Return: 0, or -ELOOP (a symbolic link), -EISDIR (a directory), -EINVAL
 * (a device, FIFO or socket: never used), -ENOEXEC (data that is not a
 * journal), -EBADMSG (a journal damaged before its end or forged), -EAGAIN
 * (the path changed while it was opened), -EMLINK (a file with more than one
 * name: a hard link, perhaps to another's file), or another negative errno.
 * A new journal is made with mode 0600 and its directory synced.
 */
int awr__journal_open_force(const char *path, bool force, struct awr_journal *j);
/* The same, @path relative to the directory @dirfd (AT_FDCWD: as above). */
int awr__journal_open_in(int dirfd, const char *path, bool force, struct awr_journal *j);
/* awr__journal_open_force() without force. */
int awr__journal_open(const char *path, struct awr_journal *j);
/*
 * Open @where: a file as awr__journal_open_force(), or tcp://HOST:PORT[/NAME],
 * a journal kept by a journal server (remote.h) with the shared secret of
 * @secret_file (NULL: $AWR_JOURNAL_SECRET). Remote errors besides the file's:
 * -EINVAL (a malformed URL), -ENOKEY (no secret, or shorter than 32 bytes),
 * -EKEYREVOKED (a secret that does not look random),
 * -EPERM (a secret file group or others may read), -EADDRNOTAVAIL (the host
 * is not found), -ECONNREFUSED, -ETIMEDOUT, -ECONNABORTED (closed before its
 * greeting: too many clients), -EKEYREJECTED (the server refused the secret),
 * -EPROTO (a reply failed its MAC: tampered, or another secret), -EBUSY (the
 * journal is being appended to by another client).
 */
int awr__journal_open_at(const char *where, const char *secret_file, bool force,
			 struct awr_journal *j);
/* awr__journal_read() of a file or of a journal server's journal (-ENOENT: none by that name). */
int64_t awr__journal_read_at(const char *where, const char *secret_file,
			     int (*cb)(const struct awr_jrec *r, void *arg), void *arg);
void awr__jrec_encode(uint8_t *b, const struct awr_jrec *r);
/* Return: 0, or -EBADMSG for a record whose magic or checksum is wrong. */
int awr__jrec_decode(const uint8_t *b, struct awr_jrec *r);
int awr__journal_append(struct awr_journal *j, const struct awr_jrec *r, uint64_t *seq);
int awr__journal_sync(struct awr_journal *j, uint64_t seq);
void awr__journal_close(struct awr_journal *j);

/*
 * Read every valid record of the journal at @path (a regular file, read a
 * block at a time); a torn last record (short or bad checksum) is ignored.
 * @cb returns 0 to go on or a negative errno to stop.
 * Return: records read, or a negative errno (-EBADMSG: damaged before the end,
 * or a generation its record count cannot explain; -ENOEXEC: a non-empty file
 * whose first record is not valid, so not a journal; -EINVAL / -EISDIR: not a
 * regular file).
 */
int64_t awr__journal_read(const char *path, int (*cb)(const struct awr_jrec *r, void *arg),
			  void *arg);

/*
 * stress.c's fault point, for the replayed power cuts (tests/vm/guest/replay_cycles.sh):
 * AWR_STRESS_FAULT=nosync:N, read with secure_getenv() when a run starts (ignored in set-uid
 * programs). From the run's write N on (0: its first), data writes go without RWF_DSYNC and are
 * acknowledged as durable all the same. @spec NULL or empty: no fault (*from = UINT64_MAX).
 * Return: 0, or -EINVAL for anything else than nosync:N.
 */
int awr__stress_fault_parse(const char *spec, uint64_t *from);

#endif /* AWR_JOURNAL_H */
