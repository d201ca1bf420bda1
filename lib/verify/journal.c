// SPDX-License-Identifier: MIT
/*
 * The stress journal: records of issued (intent) and acknowledged (ack)
 * stamped writes, appended with group-committed fdatasync so a verifier can
 * tell lost writes after a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include "platform/hash.h"

#include "journal.h"
#include "private.h"
#include "remote.h"

void awr__jrec_encode(uint8_t *b, const struct awr_jrec *r)
{
	awr__put_le32(b, AWR_JREC_MAGIC ^ (r->type << 24));
	awr__put_le32(b + 4, r->writer);
	awr__put_le64(b + 8, r->unit);
	awr__put_le64(b + 16, r->generation);
	awr__put_le64(b + 24, r->value);
	awr__put_le64(b + 32, r->time_ns);
	awr__put_le64(b + 40, XXH3_64bits(b, 40));
}

int awr__jrec_decode(const uint8_t *b, struct awr_jrec *r)
{
	uint32_t tag = awr__get_le32(b);

	if (awr__get_le64(b + 40) != XXH3_64bits(b, 40) ||
	    (tag & 0x00ffffffU) != (AWR_JREC_MAGIC & 0x00ffffffU))
		return -EBADMSG;
	r->type = (tag ^ AWR_JREC_MAGIC) >> 24;
	r->writer = awr__get_le32(b + 4);
	r->unit = awr__get_le64(b + 8);
	r->generation = awr__get_le64(b + 16);
	r->value = awr__get_le64(b + 24);
	r->time_ns = awr__get_le64(b + 32);
	return 0;
}

/*
 * Generations a run may take without leaving a record: each writer holds at
 * most one whose intent a crash or a failed append can lose (awr stress runs
 * at most 256 writers).
 */
#define GEN_GAP_PER_RUN	256U

/* Records read at a time: the reader's memory does not grow with the journal. */
#define SCAN_RECORDS	21845U		/* 48 * 21845 = 1048560 bytes */

/*
 * Generations are issued once each, from 1, and each run continues after the
 * journal's highest: a journal of @slots records with @runs RUN records so far
 * cannot hold a higher one. A higher one is forged or damaged; refusing it
 * keeps what readers allocate per generation in proportion to the journal.
 */
static bool gen_possible(uint64_t gen, uint64_t slots, uint64_t runs)
{
	if (runs > (UINT64_MAX - slots) / GEN_GAP_PER_RUN)
		return true;	/* beyond any file's record count */
	return gen <= slots + runs * GEN_GAP_PER_RUN;
}

/* What a scan found besides the records. */
struct scan_info {
	uint64_t size;		/* bytes in the file when the scan began */
	uint64_t valid_end;	/* length up to the last valid record */
	bool header;		/* the first record is valid: the file is a journal */
};

/* Where a scan reads a journal's bytes: a file, or a journal server's stream. */
struct jsource {
	uint64_t size;
	ssize_t (*read)(void *ctx, void *buf, size_t len, uint64_t off);
	void *ctx;
};

static ssize_t file_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	return awr__pread_full(*(int *)ctx, buf, len, off);
}

/*
 * Scan the journal @src reads (its bytes in order). A crash may leave the last
 * appends damaged (short, zero or half written): damaged records are ignored
 * when no valid record follows them. A non-empty file whose first record is
 * not valid is not a journal: -ENOEXEC (@info->header false).
 */
static int64_t journal_scan(const struct jsource *src,
			    int (*cb)(const struct awr_jrec *r, void *arg), void *arg,
			    struct scan_info *info)
{
	uint64_t runs = 0, slots, off = 0;
	int64_t n = 0, damaged = -1;
	struct awr_jrec r;
	uint8_t *buf;
	ssize_t got;
	int ret = 0;

	memset(info, 0, sizeof(*info));
	info->size = src->size;
	if (!info->size)
		return 0;
	slots = info->size / AWR_JREC_SIZE;
	buf = malloc((size_t)SCAN_RECORDS * AWR_JREC_SIZE);
	if (!buf)
		return -ENOMEM;
	while (!ret && off + AWR_JREC_SIZE <= info->size) {
		uint64_t want = info->size - off;

		if (want > (uint64_t)SCAN_RECORDS * AWR_JREC_SIZE)
			want = (uint64_t)SCAN_RECORDS * AWR_JREC_SIZE;
		got = src->read(src->ctx, buf, (size_t)(want - want % AWR_JREC_SIZE), off);
		if (got < 0) {
			ret = (int)got;
			break;
		}
		if (got < AWR_JREC_SIZE)
			break;		/* the file shrank */
		for (size_t i = 0; !ret && i + AWR_JREC_SIZE <= (size_t)got; i += AWR_JREC_SIZE) {
			uint64_t at = off + i;

			if (awr__jrec_decode(buf + i, &r)) {
				if (damaged < 0)
					damaged = (int64_t)(at / AWR_JREC_SIZE);
				continue;
			}
			if (!at)
				info->header = true;
			runs += r.type == AWR_JREC_RUN;
			if (damaged >= 0 || !gen_possible(r.generation, slots, runs))
				ret = -EBADMSG;
			else if (!(ret = cb(&r, arg)))
				n++;
			info->valid_end = at + AWR_JREC_SIZE;
		}
		off += (uint64_t)got - (uint64_t)got % AWR_JREC_SIZE;
	}
	free(buf);
	if (!ret && !info->header)
		ret = -ENOEXEC;		/* data, but not a journal's first record */
	return ret ? ret : n;
}

/* journal_scan() of the regular file open at @fd. */
static int64_t journal_scan_fd(int fd, int (*cb)(const struct awr_jrec *r, void *arg), void *arg,
			       struct scan_info *info)
{
	struct jsource src = { 0, file_read, &fd };
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	src.size = (uint64_t)st.st_size;
	return journal_scan(&src, cb, arg, info);
}

int64_t awr__journal_read(const char *path, int (*cb)(const struct awr_jrec *r, void *arg),
			  void *arg)
{
	struct scan_info info;
	struct stat st;
	int64_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		n = -errno;
	else if (S_ISDIR(st.st_mode))
		n = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		n = -EINVAL;	/* a device or FIFO: not a journal file (its size says nothing) */
	else
		n = journal_scan_fd(fd, cb, arg, &info);
	close(fd);
	return n;
}

static int max_gen_cb(const struct awr_jrec *r, void *arg)
{
	struct awr_journal *j = arg;

	if (r->generation > j->max_generation)
		j->max_generation = r->generation;
	j->runs += r->type == AWR_JREC_RUN;
	return 0;
}

/* Type of a file that is not a regular file, as errno: -ELOOP link, -EISDIR, else -EINVAL. */
static int not_regular(mode_t mode)
{
	if (S_ISLNK(mode))
		return -ELOOP;
	return S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

/*
 * Open the existing @path for appending without following a symbolic link
 * and without opening anything but a regular file: the file is looked at
 * through an O_PATH descriptor first (opening a device or FIFO can have
 * effects), then opened and checked to be the same file.
 * Return: the fd, -ENOENT when there is no file, or a negative errno.
 */
static int open_existing(int dirfd, const char *path)
{
	struct stat st, st2;
	int pfd, fd;

	pfd = openat(dirfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		fd = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		fd = not_regular(st.st_mode);
		goto out;
	}
	if (st.st_nlink != 1) {
		fd = -EMLINK; /* a hard link: the same file under another name, perhaps another's */
		goto out;
	}
	fd = openat(dirfd, path,
		    O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		goto out;
	}
	if (fstat(fd, &st2) || !S_ISREG(st2.st_mode) || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino) {
		close(fd);
		fd = -EAGAIN;	/* the path was replaced while it was opened */
	} else if (st2.st_nlink != 1) {
		close(fd);
		fd = -EMLINK;	/* linked meanwhile */
	}
out:
	close(pfd);
	return fd;
}

/*
 * The journal's file @path below @dirfd: an existing regular file, or a new one made here (O_EXCL:
 * a file or link planted after the check is not opened; mode 0600, the directory synced).
 */
static int open_journal_file(int dirfd, const char *path)
{
	int fd = -ENOENT, ret;

	for (int tries = 0; tries < 3 && fd == -ENOENT; tries++) {
		fd = open_existing(dirfd, path);
		if (fd != -ENOENT)
			break;
		fd = openat(dirfd, path,
			    O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			fd = errno == EEXIST ? -ENOENT : -errno; /* made meanwhile: look again */
			continue;
		}
		ret = awr__sync_dir_of(dirfd, path); /* its entry survives a crash with the file */
		if (ret) {
			close(fd);
			return ret;
		}
	}
	return fd == -ENOENT ? -EAGAIN : fd;
}

int awr__journal_open_force(const char *path, bool force, struct awr_journal *j)
{
	return awr__journal_open_in(AT_FDCWD, path, force, j);
}

int awr__journal_open_in(int dirfd, const char *path, bool force, struct awr_journal *j)
{
	struct scan_info info;
	int64_t n;
	int ret = 0;

	memset(j, 0, sizeof(*j));
	j->fd = open_journal_file(dirfd, path);
	if (j->fd < 0)
		return j->fd;
	n = journal_scan_fd(j->fd, max_gen_cb, j, &info);
	if (n == -ENOEXEC && force) {
		/* not a journal: replaced on request (a journal damaged before its end never is) */
		j->max_generation = j->runs = 0;
		info.valid_end = 0;
		n = 0;
	}
	j->records = info.valid_end / AWR_JREC_SIZE;
	ret = n < 0 ? (int)n : 0;
	/*
	 * Cut a tail a crash damaged, so new records stay aligned and readable
	 * (only in a file whose first record shows it is a journal, or on request).
	 */
	if (!ret && info.size > info.valid_end &&
	    (ftruncate(j->fd, (off_t)info.valid_end) || fdatasync(j->fd)))
		ret = -errno;
	if (ret) {
		close(j->fd);
		j->fd = -1;
		return ret;
	}
	pthread_mutex_init(&j->lock, NULL);
	pthread_mutex_init(&j->sync_lock, NULL);
	return 0;
}

int awr__journal_open(const char *path, struct awr_journal *j)
{
	return awr__journal_open_force(path, false, j);
}

/*
 * A short write (a full filesystem takes part of a record): write the rest, which
 * fails with the real cause (ENOSPC, EDQUOT, EFBIG), and cut the part written, so
 * the journal ends with a whole record and the error names the cause, not EIO.
 */
static int finish_record(int fd, const uint8_t *b, size_t done)
{
	ssize_t got = write(fd, b + done, AWR_JREC_SIZE - done);
	off_t end;
	int ret;

	if (got == (ssize_t)(AWR_JREC_SIZE - done))
		return 0;
	ret = got < 0 ? -errno : -EIO;
	done += got > 0 ? (size_t)got : 0;
	end = lseek(fd, 0, SEEK_END);	/* O_APPEND: the record is the file's last bytes */
	if (end >= (off_t)done && ftruncate(fd, end - (off_t)done))
		ret = ret ? ret : -errno;
	return ret;
}

/*
 * A journal kept by a journal server (tcp://HOST:PORT[/NAME]): the server
 * opens its file as awr__journal_open_force() does and answers with the
 * highest generation in it.
 */
static int journal_open_remote(const char *url, const char *secret_file, bool force,
			       struct awr_journal *j)
{
	uint64_t size;
	int ret;

	memset(j, 0, sizeof(*j));
	j->fd = -1;
	ret = awr__remote_open(url, secret_file, AWR_RJ_APPEND, force, &j->remote,
			       &j->max_generation, &size);
	if (ret)
		return ret;
	pthread_mutex_init(&j->lock, NULL);
	pthread_mutex_init(&j->sync_lock, NULL);
	return 0;
}

int awr__journal_open_at(const char *where, const char *secret_file, bool force,
			 struct awr_journal *j)
{
	if (awr__journal_is_remote(where))
		return journal_open_remote(where, secret_file, force, j);
	return awr__journal_open_force(where, force, j);
}

int64_t awr__journal_read_at(const char *where, const char *secret_file,
			     int (*cb)(const struct awr_jrec *r, void *arg), void *arg)
{
	struct jsource src = { 0, awr__remote_stream, NULL };
	struct awr_remote *r;
	struct scan_info info;
	uint64_t max_gen;
	int64_t n;

	if (!awr__journal_is_remote(where))
		return awr__journal_read(where, cb, arg);
	n = awr__remote_open(where, secret_file, AWR_RJ_READ, false, &r, &max_gen, &src.size);
	if (n)
		return n;
	src.ctx = r;
	n = journal_scan(&src, cb, arg, &info);
	awr__remote_close(r);
	return n;
}

int awr__journal_append(struct awr_journal *j, const struct awr_jrec *r, uint64_t *seq)
{
	uint8_t b[AWR_JREC_SIZE];
	ssize_t got;
	int ret = 0;

	awr__jrec_encode(b, r);
	pthread_mutex_lock(&j->lock);
	if (j->remote) {
		ret = awr__remote_append(j->remote, b);
	} else if (!gen_possible(r->generation, j->records + 1,
				 j->runs + (r->type == AWR_JREC_RUN))) {
		ret = -EBADMSG;		/* a scan would find the journal forged from here on */
	} else {
		got = write(j->fd, b, sizeof(b));
		if (got > 0 && got < (ssize_t)sizeof(b))
			ret = finish_record(j->fd, b, (size_t)got);
		else if (got != (ssize_t)sizeof(b))
			ret = got < 0 ? -errno : -EIO;
	}
	if (!ret) {
		j->appended++;
		j->records++;
		j->runs += r->type == AWR_JREC_RUN;
	}
	if (seq)
		*seq = j->appended;
	pthread_mutex_unlock(&j->lock);
	return ret;
}

/*
 * Make every record up to @seq durable; concurrent callers share one
 * fdatasync. A remote journal is durable once the server has written and
 * fdatasync'd the records and said so.
 */
int awr__journal_sync(struct awr_journal *j, uint64_t seq)
{
	uint64_t target;
	int ret = 0;

	if (__atomic_load_n(&j->synced, __ATOMIC_ACQUIRE) >= seq)
		return 0;
	pthread_mutex_lock(&j->sync_lock);
	if (__atomic_load_n(&j->synced, __ATOMIC_ACQUIRE) >= seq)
		goto out;
	pthread_mutex_lock(&j->lock);
	target = j->appended;
	if (j->remote)
		ret = awr__remote_sync_send(j->remote, target);
	pthread_mutex_unlock(&j->lock);
	if (j->remote)
		ret = ret ? ret : awr__remote_sync_wait(j->remote, target);
	else if (fdatasync(j->fd))
		ret = -errno;
	if (ret)
		goto out;
	j->syncs++;
	__atomic_store_n(&j->synced, target, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&j->sync_lock);
	return ret;
}

void awr__journal_close(struct awr_journal *j)
{
	if (j->fd < 0 && !j->remote)
		return;
	if (j->remote)
		awr__remote_close(j->remote);
	else
		close(j->fd);
	j->fd = -1;
	j->remote = NULL;
	pthread_mutex_destroy(&j->lock);
	pthread_mutex_destroy(&j->sync_lock);
}

/* ---- awr_journal_check(): what a file is, before a stress run takes it as its journal ---- */

/* Printable as text: the bytes shown with \n, \t and \r escaped. */
static bool text_bytes(const uint8_t *b, size_t len, char *shown, size_t slen)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (!((b[i] >= 32 && b[i] < 127) || b[i] == '\n' || b[i] == '\t' || b[i] == '\r'))
			return false;
	for (size_t i = 0; i < len && n + 3 < slen; i++) {
		if (b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
			shown[n++] = '\\';
			shown[n++] = b[i] == '\n' ? 'n' : b[i] == '\t' ? 't' : 'r';
		} else {
			shown[n++] = (char)b[i];
		}
	}
	shown[n] = '\0';
	return true;
}

/* What the first bytes of a file that is not a journal look like, in words. */
static void describe_data(const uint8_t *b, size_t len, char *out, size_t outlen)
{
	char shown[40];
	size_t n = 0, zero = 0;

	for (size_t i = 0; i < len; i++)
		zero += !b[i];
	if (zero == len) {
		snprintf(out, outlen, "its first %zu bytes are zero", len);
		return;
	}
	if (text_bytes(b, len, shown, sizeof(shown))) {
		snprintf(out, outlen, "text beginning \"%s\"", shown);
		return;
	}
	for (size_t i = 0; i < len && i < 8 && n + 4 < sizeof(shown); i++)
		n += (size_t)snprintf(shown + n, sizeof(shown) - n, "%s%02x", i ? " " : "", b[i]);
	snprintf(out, outlen, "binary data beginning %s", shown);
}

/* "AWRJ" XOR (type << 24), little endian: the first 4 bytes of every journal record. */
static bool record_start(const uint8_t *b, uint64_t size)
{
	uint8_t type = b[3] ^ 0x4a;

	return size >= AWR_JREC_SIZE && b[0] == 'A' && b[1] == 'W' && b[2] == 'R' && type >= 1 &&
	       type <= 3;
}

int awr_journal_check(const char *path, bool force)
{
	uint8_t head[AWR_JREC_SIZE];
	char what[128];
	struct stat st;
	ssize_t got;
	int fd;

	if (!path || !strncmp(path, "tcp://", 6) || lstat(path, &st))
		return 0;	/* missing: made new (other errors: the open says) */
	if (!S_ISREG(st.st_mode))
		return awr__fail(-EINVAL, "refusing to use %s as the journal: it is %s. The "
				 "journal must be a new or existing journal file (a regular "
				 "file) on another filesystem than the target%s", path,
				 awr__file_type_name(st.st_mode, "not a regular file"),
				 S_ISLNK(st.st_mode) ?
				 "; give the path of the file itself, not a link" :
				 S_ISBLK(st.st_mode) ? "; records written to a block device land "
				 "from offset 0 over its data" : "");
	if (!st.st_size || force)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = read(fd, head, sizeof(head));
	close(fd);
	if (got <= 0 || record_start(head, (uint64_t)st.st_size))
		return 0;	/* the open checks the whole record */
	describe_data(head, (size_t)got, what, sizeof(what));
	return awr__fail(-ENOEXEC, "refusing to use %s as the journal: it holds %lld bytes that "
			 "are not an awr journal (%s; a journal begins with an AWRJ record). Give "
			 "a new file or the journal of an earlier awr stress run, or "
			 "--journal-force to replace the file's content.", path,
			 (long long)st.st_size, what);
}
