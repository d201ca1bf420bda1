// SPDX-License-Identifier: MIT
/*
 * The stress journal: records of issued (intent) and acknowledged (ack)
 * stamped writes, appended with group-committed fdatasync so a verifier can
 * tell lost writes after a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "journal.h"
#include "private.h"

static void rec_encode(uint8_t *b, const struct awr_jrec *r)
{
	awr__put_le32(b, AWR_JREC_MAGIC ^ (r->type << 24));
	awr__put_le32(b + 4, r->writer);
	awr__put_le64(b + 8, r->unit);
	awr__put_le64(b + 16, r->generation);
	awr__put_le64(b + 24, r->value);
	awr__put_le64(b + 32, r->time_ns);
	awr__put_le64(b + 40, XXH3_64bits(b, 40));
}

static int rec_decode(const uint8_t *b, struct awr_jrec *r)
{
	uint32_t tag = awr__get_le32(b);

	if (awr__get_le64(b + 40) != XXH3_64bits(b, 40) || (tag & 0x00ffffffU) != (AWR_JREC_MAGIC & 0x00ffffffU))
		return -EBADMSG;
	r->type = (tag ^ AWR_JREC_MAGIC) >> 24;
	r->writer = awr__get_le32(b + 4);
	r->unit = awr__get_le64(b + 8);
	r->generation = awr__get_le64(b + 16);
	r->value = awr__get_le64(b + 24);
	r->time_ns = awr__get_le64(b + 32);
	return 0;
}

static int read_all(const char *path, uint8_t **out, size_t *len)
{
	struct stat st;
	size_t done = 0;
	ssize_t got;
	int ret = 0, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto err;
	}
	*out = malloc((size_t)st.st_size + 1);
	if (!*out) {
		ret = -ENOMEM;
		goto err;
	}
	while (done < (size_t)st.st_size) {
		got = read(fd, *out + done, (size_t)st.st_size - done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	*len = done;
err:
	close(fd);
	return ret;
}

/*
 * Generations a run may take without leaving a record: each writer holds at
 * most one whose intent a crash or a failed append can lose (awr stress runs
 * at most 256 writers).
 */
#define GEN_GAP_PER_RUN	256U

/*
 * Generations are issued once each, from 1, and each run continues after the
 * journal's highest: a journal of @slots records with @runs RUN records so far
 * cannot hold a higher one. A higher one is forged or damaged; refusing it
 * keeps what readers allocate per generation in proportion to the journal.
 */
static bool gen_possible(uint64_t gen, size_t slots, uint64_t runs)
{
	return gen <= (uint64_t)slots + runs * GEN_GAP_PER_RUN;
}

/*
 * A crash may leave the last appends damaged (short, zero or half written):
 * damaged records are ignored when no valid record follows them. @valid_end
 * (optional) receives the length of the journal up to its last valid record.
 */
static int64_t journal_scan(const char *path, int (*cb)(const struct awr_jrec *r, void *arg),
			    void *arg, size_t *valid_end)
{
	uint8_t *buf = NULL;
	struct awr_jrec r;
	int64_t n = 0, damaged = -1;
	size_t len = 0, end = 0;
	uint64_t runs = 0;
	int ret = read_all(path, &buf, &len);

	for (size_t off = 0; !ret && off + AWR_JREC_SIZE <= len; off += AWR_JREC_SIZE) {
		if (rec_decode(buf + off, &r)) {
			if (damaged < 0)
				damaged = (int64_t)(off / AWR_JREC_SIZE);
			continue;
		}
		runs += r.type == AWR_JREC_RUN;
		if (damaged >= 0 || !gen_possible(r.generation, len / AWR_JREC_SIZE, runs))
			ret = -EBADMSG;
		else if (!(ret = cb(&r, arg)))
			n++;
		end = off + AWR_JREC_SIZE;
	}
	free(buf);
	if (valid_end)
		*valid_end = end;
	return ret ? ret : n;
}

int64_t awr__journal_read(const char *path, int (*cb)(const struct awr_jrec *r, void *arg),
			  void *arg)
{
	return journal_scan(path, cb, arg, NULL);
}

static int max_gen_cb(const struct awr_jrec *r, void *arg)
{
	uint64_t *max = arg;

	if (r->generation > *max)
		*max = r->generation;
	return 0;
}

int awr__journal_open(const char *path, struct awr_journal *j)
{
	size_t valid_end = 0;
	struct stat st;
	int64_t n;
	int ret;

	memset(j, 0, sizeof(*j));
	j->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (j->fd < 0)
		return -errno;
	n = journal_scan(path, max_gen_cb, &j->max_generation, &valid_end);
	ret = n < 0 ? (int)n : 0;
	/* Cut a tail a crash damaged, so new records stay aligned and readable. */
	if (!ret && !fstat(j->fd, &st) && (uint64_t)st.st_size > valid_end &&
	    (ftruncate(j->fd, (off_t)valid_end) || fdatasync(j->fd)))
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

int awr__journal_append(struct awr_journal *j, const struct awr_jrec *r, uint64_t *seq)
{
	uint8_t b[AWR_JREC_SIZE];
	ssize_t got;
	int ret = 0;

	rec_encode(b, r);
	pthread_mutex_lock(&j->lock);
	got = write(j->fd, b, sizeof(b));
	if (got != (ssize_t)sizeof(b))
		ret = got < 0 ? -errno : -EIO;
	else
		j->appended++;
	if (seq)
		*seq = j->appended;
	pthread_mutex_unlock(&j->lock);
	return ret;
}

/* Make every record up to @seq durable; concurrent callers share one fdatasync. */
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
	pthread_mutex_unlock(&j->lock);
	if (fdatasync(j->fd)) {
		ret = -errno;
		goto out;
	}
	j->syncs++;
	__atomic_store_n(&j->synced, target, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&j->sync_lock);
	return ret;
}

void awr__journal_close(struct awr_journal *j)
{
	if (j->fd < 0)
		return;
	close(j->fd);
	j->fd = -1;
	pthread_mutex_destroy(&j->lock);
	pthread_mutex_destroy(&j->sync_lock);
}
