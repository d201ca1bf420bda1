// SPDX-License-Identifier: MIT
/*
 * Description: libFuzzer harness for the remote journal's client (lib/verify/remote.c and the
 * journal reader behind it): a fake journal server on loopback answers with the input.
 *
 * Byte 0: bit 0 set: the input after it is sent raw after the greeting (unauthenticated bytes:
 * the handshake and MAC checks); clear: the fake server authenticates as a real one and sends the
 * input as frames it MACs itself ([type:1][length:le16][payload]..., type 0xff: a header with a
 * length of 2^32-1), the peer with the secret gone bad. Bit 1: the client appends (stress) rather
 * than reads (verify). The server closes afterwards, so the client never waits for ever.
 * Raw input can never authenticate: the client getting records or a sync from it aborts.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "private.h"
#include "verify/journal.h"
#include "verify/remote.h"

#define SECRET                                                                                     \
	"fuzz-Zk3q9VbT0xLr7MwP2sYc8NdE5uHj1GaF6oKi4BnQ" /* 32 bytes or more that look random */

static int lfd = -1;
static char url[64];

struct fake {
	const uint8_t *data;
	size_t size;
	bool raw;
};

static void init(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);

	setenv(AWR_RJ_SECRET_ENV, SECRET, 1);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen))
		abort();
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%u/fuzz", ntohs(a.sin_port));
}

/* The input as MACed frames, as an authenticated server would send them. */
static void send_frames(struct awr_chan *c, const uint8_t *p, size_t n)
{
	while (n >= 3) {
		uint32_t type = p[0], len = (uint32_t)p[1] | (uint32_t)p[2] << 8;

		p += 3;
		n -= 3;
		if (type == 0xff) {
			uint8_t hdr[8];

			awr__put_le32(hdr, AWR_RJ_DATA);
			awr__put_le32(hdr + 4, UINT32_MAX);
			awr__rj_write_all(c->fd, hdr, sizeof(hdr));
			continue;
		}
		if (len > n)
			len = (uint32_t)n;
		if (awr__chan_send(c, type, p, len))
			return;
		p += len;
		n -= len;
	}
}

static void *fake_server(void *arg)
{
	struct fake *f = arg;
	uint8_t hello[AWR_RJ_HELLO_SIZE], auth[AWR_RJ_AUTH_SIZE], drain[4096];
	struct awr_chan c;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		abort();
	memcpy(hello, awr__rj_hello_magic, 8);
	memset(hello + 8, 0x5a, AWR_RJ_NONCE);
	if (awr__chan_init(&c, fd, true))
		abort();
	awr__rj_write_all(fd, hello, sizeof(hello));
	if (f->raw) {
		awr__rj_write_all(fd, f->data, f->size);
	} else if (!awr__rj_read_all(fd, auth, sizeof(auth)) &&
		   !awr__rj_session_key((const uint8_t *)SECRET, strlen(SECRET), hello + 8,
					auth + 8, c.key)) {
		send_frames(&c, f->data, f->size);
	}
	shutdown(fd, SHUT_WR);
	while (read(fd, drain, sizeof(drain)) > 0)
		;
	awr__chan_free(&c);
	close(fd);
	return NULL;
}

static int count_cb(const struct awr_jrec *r, void *arg)
{
	(void)r;
	++*(uint64_t *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fake f;
	pthread_t t;
	uint64_t n = 0;
	int64_t got;

	if (!size || size > (1 << 20))
		return 0;
	if (lfd < 0)
		init();
	f = (struct fake){ data + 1, size - 1, data[0] & 1 };
	if (pthread_create(&t, NULL, fake_server, &f))
		abort();
	if (data[0] & 2) {
		struct awr_jrec r = { AWR_JREC_RUN, 0, 4096, 1, 4096, 1 };
		struct awr_journal j;
		uint64_t seq;
		int ret = awr__journal_open_at(url, NULL, false, &j);

		if (!ret) {
			if (f.raw)
				abort();	/* unauthenticated bytes opened a journal */
			ret = awr__journal_append(&j, &r, &seq);
			if (!ret && !awr__journal_sync(&j, seq) && f.raw)
				abort();
			awr__journal_close(&j);
		}
	} else {
		got = awr__journal_read_at(url, NULL, count_cb, &n);
		if (got >= 0 && (uint64_t)got != n)
			abort();	/* the count returned is not the records delivered */
		if (got > 0 && f.raw)
			abort();	/* records from unauthenticated bytes */
	}
	pthread_join(t, NULL);
	return 0;
}
