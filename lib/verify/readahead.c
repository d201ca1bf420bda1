// SPDX-License-Identifier: MIT
/*
 * Two-slot read-ahead for the verifier: a thread reads the next chunk with
 * O_DIRECT while the caller classifies the current one, so a scan runs at
 * the speed of the slower of the two rather than of their sum.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "private.h"
#include "verify/verify.h"

struct ra_slot {
	uint8_t *buf;
	uint64_t off;
	size_t len;		/* bytes of the span in this chunk; 0 at the end */
	ssize_t got;		/* bytes read (the rest is zero), or -errno */
	bool full;
};

struct awr__readahead {
	int fd;
	uint64_t total;
	size_t chunk;
	struct ra_slot slot[2];
	struct ra_slot *held;	/* the slot the caller works on */
	unsigned int next;	/* the caller's next slot */
	bool stop;
	pthread_mutex_t m;
	pthread_cond_t c;
	pthread_t t;
};

/* Read @len bytes at @off; bytes past the end of a short file read as zero. */
static ssize_t read_full(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	ssize_t got = awr__pread_full(fd, buf, len, off);

	if (got >= 0)
		memset(buf + got, 0, len - (size_t)got);
	return got;
}

static bool wait_free(struct awr__readahead *ra, struct ra_slot *s)
{
	bool stop;

	pthread_mutex_lock(&ra->m);
	while (s->full && !ra->stop)
		pthread_cond_wait(&ra->c, &ra->m);
	stop = ra->stop;
	pthread_mutex_unlock(&ra->m);
	return !stop;
}

static void *reader(void *arg)
{
	struct awr__readahead *ra = arg;
	uint64_t off = 0;

	for (unsigned int k = 0; wait_free(ra, &ra->slot[k & 1]); k++) {
		struct ra_slot *s = &ra->slot[k & 1];
		size_t len = ra->total - off < ra->chunk ? (size_t)(ra->total - off) : ra->chunk;
		ssize_t got = len ? read_full(ra->fd, s->buf, len, off) : 0;

		pthread_mutex_lock(&ra->m);
		s->off = off;
		s->len = len;
		s->got = got;
		s->full = true;
		pthread_cond_broadcast(&ra->c);
		pthread_mutex_unlock(&ra->m);
		if (!len || got < 0)
			break;
		off += len;
	}
	return NULL;
}

int awr__ra_start(struct awr__readahead **out, int fd, uint64_t total, size_t chunk)
{
	struct awr__readahead *ra = calloc(1, sizeof(*ra));

	if (!ra)
		return -ENOMEM;
	ra->fd = fd;
	ra->total = total;
	ra->chunk = chunk;
	pthread_mutex_init(&ra->m, NULL);
	pthread_cond_init(&ra->c, NULL);
	if (posix_memalign((void **)&ra->slot[0].buf, 4096, chunk) ||
	    posix_memalign((void **)&ra->slot[1].buf, 4096, chunk))
		goto err;
	if (pthread_create(&ra->t, NULL, reader, ra))
		goto err;
	*out = ra;
	return 0;
err:
	free(ra->slot[0].buf);
	free(ra->slot[1].buf);
	free(ra);
	return -ENOMEM;
}

/* Hand back the previous chunk and wait for the next: its length (0 at the end) or -errno. */
ssize_t awr__ra_next(struct awr__readahead *ra, const uint8_t **buf, uint64_t *off, ssize_t *got)
{
	struct ra_slot *s = &ra->slot[ra->next++ & 1];

	pthread_mutex_lock(&ra->m);
	if (ra->held) {
		ra->held->full = false;
		pthread_cond_broadcast(&ra->c);
	}
	while (!s->full)
		pthread_cond_wait(&ra->c, &ra->m);
	pthread_mutex_unlock(&ra->m);
	ra->held = s;
	*buf = s->buf;
	*off = s->off;
	*got = s->got;
	return s->got < 0 ? s->got : (ssize_t)s->len;
}

void awr__ra_stop(struct awr__readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->m);
	ra->stop = true;
	pthread_cond_broadcast(&ra->c);
	pthread_mutex_unlock(&ra->m);
	pthread_join(ra->t, NULL);
	pthread_mutex_destroy(&ra->m);
	pthread_cond_destroy(&ra->c);
	free(ra->slot[0].buf);
	free(ra->slot[1].buf);
	free(ra);
}
