// SPDX-License-Identifier: MIT
/*
 * The remote stress journal, client side and wire protocol (remote.h):
 * tcp://HOST:PORT[/NAME] names a journal kept by `awr journal-serve` on
 * another machine, so that it survives a power cut of the one under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "journal.h"
#include "optlib.h"
#include "private.h"
#include "remote.h"

/* HMAC-SHA256 from libcrypto, loaded by the first channel or MAC (optlib.h) */
static struct {
	typeof(HMAC) *hmac;
	typeof(EVP_sha256) *sha256;
	typeof(CRYPTO_memcmp) *ct_memcmp;
} cr;

static const char *cr_resolve(void *h)
{
	AWR_OPTLIB_SYM(h, cr.hmac, HMAC);
	AWR_OPTLIB_SYM(h, cr.sha256, EVP_sha256);
	AWR_OPTLIB_SYM(h, cr.ct_memcmp, CRYPTO_memcmp);
	return NULL;
}

static struct awr_optlib libcrypto = AWR_OPTLIB_INIT(
	"libcrypto.so.3", "libssl3", "the remote journal's HMAC-SHA256", cr_resolve);

int awr__rj_crypto_load(void)
{
	return awr__optlib_load(&libcrypto, NULL, 0);
}

const uint8_t awr__rj_hello_magic[8] = { 'A', 'W', 'R', 'J', 'S', 1, 0, 0 };
const uint8_t awr__rj_auth_magic[8] = { 'A', 'W', 'R', 'J', 'C', 1, 0, 0 };

#define CHAN_BUF	(9 + AWR_RJ_HDR + AWR_RJ_MAX_PAYLOAD + AWR_RJ_MAC)
#define REPLY_TIMEOUT_S	60	/* a server that does not answer a sync or a read */

struct awr_remote {
	struct awr_chan ch;
	uint64_t pos;		/* read mode: journal bytes handed out */
	uint64_t size;		/* read mode: the journal's size when the server opened it */
	const uint8_t *left;	/* read mode: the rest of the last DATA frame */
	uint32_t nleft;
	/* sticky: the first failure ends the session (__atomic: set by senders and the waiter) */
	int error;
};

bool awr__journal_is_remote(const char *where)
{
	return where && !strncmp(where, "tcp://", 6);
}

/* An errno the server sent (1..4095), else a protocol error. */
static int peer_errno(uint32_t v)
{
	return v && v < 4096 ? -(int)v : -EPROTO;
}

int awr__rj_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno) : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int awr__rj_read_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (!n)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* log2(x) for x >= 1 within 0.01 (no libm): the exponent, and a quadratic for the mantissa */
static double log2_approx(unsigned int x)
{
	int e = 31 - __builtin_clz(x);
	double f = (double)x / (double)(1U << e) - 1.0;

	return e + f * (1.3465 - 0.3465 * f);
}

/*
 * The secret's bytes, estimated in bits: its length times the Shannon entropy of its byte
 * histogram. Random bytes, their base64 or their hex score near their length in bits times 5, 6
 * or 4 (32 bytes of /dev/urandom in base64: about 215); a repeated character scores 0 and a
 * sentence of 32 characters about 125.
 */
static double secret_bits(const uint8_t *key, size_t n)
{
	unsigned int hist[256] = { 0 };
	double bits = (double)n * log2_approx((unsigned int)n);

	for (size_t i = 0; i < n; i++)
		hist[key[i]]++;
	for (unsigned int c = 0; c < 256; c++)	/* n log2 n - sum h log2 h = -sum h log2(h / n) */
		if (hist[c])
			bits -= (double)hist[c] * log2_approx(hist[c]);
	return bits;
}

/*
 * The secret's bytes; one trailing newline of a file is not part of it. -ENOKEY: fewer than
 * AWR_RJ_SECRET_MIN bytes; -EKEYREVOKED: long enough but not random-looking (under
 * AWR_RJ_SECRET_BITS by secret_bits(): "aaaa...", a short sentence).
 */
static int secret_check(uint8_t *key, size_t *len, size_t n)
{
	if (n && key[n - 1] == '\n')
		n--;
	if (n < AWR_RJ_SECRET_MIN)
		return -ENOKEY;
	if (secret_bits(key, n) < AWR_RJ_SECRET_BITS)
		return -EKEYREVOKED;
	*len = n;
	return 0;
}

int awr__rj_secret_load(const char *file, uint8_t *key, size_t *len)
{
	const char *env;
	struct stat st;
	ssize_t n;
	int fd, ret;

	if (!file) {
		env = secure_getenv(AWR_RJ_SECRET_ENV);
		if (!env || strlen(env) > AWR_RJ_SECRET_MAX)
			return -ENOKEY;
		n = (ssize_t)strlen(env);
		memcpy(key, env, (size_t)n);
		return secret_check(key, len, (size_t)n);
	}
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if (st.st_mode & 077)
		ret = -EPERM;		/* group or others may read it: not a secret */
	else if (st.st_size > AWR_RJ_SECRET_MAX + 1)
		ret = -EFBIG;
	else if ((n = awr__pread_full(fd, key, AWR_RJ_SECRET_MAX + 1, 0)) < 0)
		ret = (int)n;
	else
		ret = n > AWR_RJ_SECRET_MAX + (n && key[n - 1] == '\n') ?
			-EFBIG : secret_check(key, len, (size_t)n);
	close(fd);
	return ret;
}

int awr__rj_hmac(const uint8_t *key, size_t keylen, const void *a, size_t alen, const void *b,
		 size_t blen, const void *c, size_t clen, uint8_t mac[AWR_RJ_MAC])
{
	uint8_t buf[64 + 2 * AWR_RJ_NONCE + AWR_RJ_AUTH_BODY];
	unsigned int mlen = 0;
	int ret;

	if (alen + blen + clen > sizeof(buf))
		return -EINVAL;
	ret = awr__optlib_load(&libcrypto, NULL, 0);
	if (ret)
		return ret;
	memcpy(buf, a, alen);
	memcpy(buf + alen, b, blen);
	memcpy(buf + alen + blen, c, clen);
	if (!cr.hmac(cr.sha256(), key, (int)keylen, buf, alen + blen + clen, mac, &mlen) ||
	    mlen != AWR_RJ_MAC)
		return -EIO;
	return 0;
}

bool awr__rj_mac_equal(const uint8_t *a, const uint8_t *b)
{
	return !awr__rj_crypto_load() &&
	       !cr.ct_memcmp(a, b, AWR_RJ_MAC); /* no table: never equal */
}

int awr__rj_session_key(const uint8_t *secret, size_t len, const uint8_t *snonce,
			const uint8_t *cnonce, uint8_t key[AWR_RJ_MAC])
{
	static const char label[] = "awr-journal session";

	return awr__rj_hmac(secret, len, label, sizeof(label) - 1, snonce, AWR_RJ_NONCE, cnonce,
			    AWR_RJ_NONCE, key);
}

int awr__rj_auth_mac(const uint8_t *secret, size_t len, const uint8_t *snonce, const uint8_t *body,
		     uint8_t mac[AWR_RJ_MAC])
{
	static const char label[] = "awr-journal auth";

	return awr__rj_hmac(secret, len, label, sizeof(label) - 1, snonce, AWR_RJ_NONCE, body,
			    AWR_RJ_AUTH_BODY, mac);
}

/* A journal name: 1..63 of [A-Za-z0-9._-], not beginning with a dot. */
bool awr__rj_name_valid(const char *name)
{
	size_t n = strnlen(name, AWR_RJ_NAME_MAX);

	if (!n || n >= AWR_RJ_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			return false;
	}
	return true;
}

int awr__chan_init(struct awr_chan *c, int fd, bool server)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = awr__rj_crypto_load();	/* the frames' MACs take the table without asking again */
	if (ret)
		return ret;
	c->fd = fd;
	c->send_dir = server ? 'S' : 'C';
	c->recv_dir = server ? 'C' : 'S';
	c->sbuf = malloc(CHAN_BUF);
	c->rbuf = malloc(CHAN_BUF);
	if (!c->sbuf || !c->rbuf) {
		awr__chan_free(c);
		return -ENOMEM;
	}
	return 0;
}

void awr__chan_free(struct awr_chan *c)
{
	free(c->sbuf);
	free(c->rbuf);
	c->sbuf = c->rbuf = NULL;
	explicit_bzero(c->key, sizeof(c->key));
}

/* The frame's MAC: over direction, frame number, header and payload (laid out from @b). */
static int frame_mac(const struct awr_chan *c, uint8_t *b, uint8_t dir, uint64_t seq, uint32_t len,
		     uint8_t *mac)
{
	unsigned int mlen = 0;

	b[0] = dir;
	awr__put_le64(b + 1, seq);
	if (!cr.hmac(cr.sha256(), c->key, AWR_RJ_MAC, b, 9 + AWR_RJ_HDR + (size_t)len, mac,
		     &mlen) ||
	    mlen != AWR_RJ_MAC)
		return -EIO;
	return 0;
}

int awr__chan_send(struct awr_chan *c, uint32_t type, const void *payload, uint32_t len)
{
	uint8_t *b = c->sbuf;
	int ret;

	if (len > AWR_RJ_MAX_PAYLOAD)
		return -EMSGSIZE;
	awr__put_le32(b + 9, type);
	awr__put_le32(b + 13, len);
	if (len)
		memcpy(b + 9 + AWR_RJ_HDR, payload, len);
	ret = frame_mac(c, b, c->send_dir, c->send_seq, len, b + 9 + AWR_RJ_HDR + len);
	if (ret)
		return ret;
	c->send_seq++;
	return awr__rj_write_all(c->fd, b + 9, AWR_RJ_HDR + (size_t)len + AWR_RJ_MAC);
}

int awr__chan_recv(struct awr_chan *c, uint32_t *type, const uint8_t **payload, uint32_t *len)
{
	uint8_t *b = c->rbuf, mac[AWR_RJ_MAC];
	uint32_t n;
	int ret;

	ret = awr__rj_read_all(c->fd, b + 9, AWR_RJ_HDR);
	if (ret)
		return ret;
	n = awr__get_le32(b + 13);
	if (n > AWR_RJ_MAX_PAYLOAD)
		return -EPROTO;		/* never read, never allocated */
	ret = awr__rj_read_all(c->fd, b + 9 + AWR_RJ_HDR, (size_t)n + AWR_RJ_MAC);
	if (ret)
		return ret == -ECONNRESET ? -EPROTO : ret;
	ret = frame_mac(c, b, c->recv_dir, c->recv_seq, n, mac);
	if (ret)
		return ret;
	if (!awr__rj_mac_equal(mac, b + 9 + AWR_RJ_HDR + n))
		return -EPROTO;
	c->recv_seq++;
	*type = awr__get_le32(b + 9);
	*payload = b + 9 + AWR_RJ_HDR;
	*len = n;
	return 0;
}

int awr__rj_split_addr(const char *s, size_t len, char *host, size_t hlen, char port[6])
{
	const char *colon = NULL, *h = s;
	size_t n;

	if (len && *s == '[') {
		const char *end = memchr(s, ']', len);

		if (!end || (size_t)(end - s) + 1 >= len || end[1] != ':')
			return -EINVAL;
		h = s + 1;
		colon = end + 1;
	} else {
		for (size_t i = 0; i < len; i++)
			if (s[i] == ':')
				colon = s + i;
		if (!colon)
			return -EINVAL;
	}
	n = (size_t)(colon - h) - (h != s);	/* without the closing bracket */
	if (!n || n >= hlen)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	n = len - (size_t)(colon + 1 - s);
	if (!n || n > 5 || strspn(colon + 1, "0123456789") < n)
		return -EINVAL;
	memcpy(port, colon + 1, n);
	port[n] = '\0';
	return 0;
}

/*
 * tcp://HOST:PORT[/NAME], HOST a name, an IPv4 address or [IPv6]; NAME defaults to this host's
 * name.
 */
static int parse_url(const char *url, char *host, size_t hlen, char port[6], char *name)
{
	const char *p = url + 6, *slash = strchr(p, '/');
	int ret = awr__rj_split_addr(p, slash ? (size_t)(slash - p) : strlen(p), host, hlen, port);

	if (ret)
		return ret;
	if (slash) {
		if (strlen(slash + 1) >= AWR_RJ_NAME_MAX)
			return -EINVAL;
		strcpy(name, slash + 1);
	} else {
		if (gethostname(name, AWR_RJ_NAME_MAX - 1))
			return -errno;
		name[AWR_RJ_NAME_MAX - 1] = '\0';
		/* a host name is a valid journal name but for these */
		for (char *q = name; *q; q++)
			if (!strchr("abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *q))
				*q = '_';
	}
	return awr__rj_name_valid(name) ? 0 : -EINVAL;
}

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	struct timeval tv = { REPLY_TIMEOUT_S, 0 };
	int fd = -EHOSTUNREACH, one = 1;

	if (getaddrinfo(host, port, &hints, &res))
		return -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			fd = -errno;
			continue;
		}
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -errno;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return fd;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/* HELLO, AUTH, then the server's authenticated OPENED. */
static int handshake(struct awr_remote *r, const uint8_t *secret, size_t slen,
		     enum awr_rj_mode mode, bool force, const char *name, uint64_t *max_generation,
		     uint64_t *size)
{
	uint8_t hello[AWR_RJ_HELLO_SIZE], auth[AWR_RJ_AUTH_SIZE];
	const uint8_t *p;
	uint32_t type, len;
	int ret;

	ret = awr__rj_read_all(r->ch.fd, hello, sizeof(hello));
	if (ret)
		return ret == -ECONNRESET ? -ECONNABORTED : ret; /* closed before its greeting */
	if (memcmp(hello, awr__rj_hello_magic, 8))
		return -EPROTO;
	memset(auth, 0, sizeof(auth));
	memcpy(auth, awr__rj_auth_magic, 8);
	if (getrandom(auth + 8, AWR_RJ_NONCE, 0) != AWR_RJ_NONCE)
		return -EIO;
	awr__put_le32(auth + 40, mode);
	awr__put_le32(auth + 44, force ? AWR_RJ_FLAG_FORCE : 0);
	memcpy(auth + 48, name, strlen(name));
	ret = awr__rj_auth_mac(secret, slen, hello + 8, auth, auth + AWR_RJ_AUTH_BODY);
	if (!ret)
		ret = awr__rj_session_key(secret, slen, hello + 8, auth + 8, r->ch.key);
	if (!ret)
		ret = awr__rj_write_all(r->ch.fd, auth, sizeof(auth));
	if (ret)
		return ret;
	ret = awr__chan_recv(&r->ch, &type, &p, &len);
	if (ret == -ECONNRESET)
		return -EKEYREJECTED;	/* the server closes on a wrong secret */
	if (ret)
		return ret;
	if (type != AWR_RJ_OPENED || len != AWR_RJ_OPENED_SIZE)
		return -EPROTO;
	if (awr__get_le32(p))
		return peer_errno(awr__get_le32(p));
	*max_generation = awr__get_le64(p + 8);
	*size = awr__get_le64(p + 16);
	return 0;
}

int awr__remote_open(const char *url, const char *secret_file, enum awr_rj_mode mode, bool force,
		     struct awr_remote **out, uint64_t *max_generation, uint64_t *size)
{
	char host[256], port[8], name[AWR_RJ_NAME_MAX];
	uint8_t secret[AWR_RJ_SECRET_MAX + 1];
	struct awr_remote *r;
	size_t slen = 0;
	int ret, fd;

	*out = NULL;
	ret = parse_url(url, host, sizeof(host), port, name);
	if (ret)
		return ret;
	ret = awr__rj_secret_load(secret_file, secret, &slen);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto out;
	}
	fd = dial(host, port);
	if (fd < 0) {
		free(r);
		ret = fd;
		goto out;
	}
	ret = awr__chan_init(&r->ch, fd, false);
	if (!ret)
		ret = handshake(r, secret, slen, mode, force, name, max_generation, size);
	if (ret) {
		awr__chan_free(&r->ch);
		close(fd);
		free(r);
		goto out;
	}
	r->size = *size;
	*out = r;
out:
	explicit_bzero(secret, sizeof(secret));
	return ret;
}

/* The session's first failure, kept: later calls fail with it too. */
static int remote_fail(struct awr_remote *r, int ret)
{
	int none = 0;

	if (ret)
		__atomic_compare_exchange_n(&r->error, &none, ret, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
	return __atomic_load_n(&r->error, __ATOMIC_ACQUIRE);
}

int awr__remote_append(struct awr_remote *r, const uint8_t *rec)
{
	int ret = remote_fail(r, 0);

	if (ret)
		return ret;
	return remote_fail(r, awr__chan_send(&r->ch, AWR_RJ_RECORDS, rec, AWR_JREC_SIZE));
}

int awr__remote_sync_send(struct awr_remote *r, uint64_t target)
{
	int ret = remote_fail(r, 0);
	uint8_t b[8];

	awr__put_le64(b, target);
	return ret ? ret : remote_fail(r, awr__chan_send(&r->ch, AWR_RJ_SYNC, b, sizeof(b)));
}

/* The server's answer to the SYNC for @target: every record up to it is on its disk. */
int awr__remote_sync_wait(struct awr_remote *r, uint64_t target)
{
	const uint8_t *p;
	uint32_t type, len;
	int ret;

	ret = remote_fail(r, 0);
	if (ret)
		return ret;
	ret = awr__chan_recv(&r->ch, &type, &p, &len);
	if (!ret && type == AWR_RJ_ERROR && len == 4)
		ret = peer_errno(awr__get_le32(p));
	else if (!ret && (type != AWR_RJ_SYNCED || len != 8 || awr__get_le64(p) != target))
		ret = -EPROTO;
	return remote_fail(r, ret);
}

/* Read mode: the journal's bytes in order (@off is where the previous call ended). */
ssize_t awr__remote_stream(void *arg, void *buf, size_t len, uint64_t off)
{
	struct awr_remote *r = arg;
	uint8_t *dst = buf;
	size_t done = 0;

	if (off != r->pos)
		return -ESPIPE;
	if (len > r->size - r->pos)
		len = (size_t)(r->size - r->pos);
	while (done < len) {
		uint32_t type, n;
		size_t take;

		if (!r->nleft) {
			int ret = awr__chan_recv(&r->ch, &type, &r->left, &n);

			if (!ret && type == AWR_RJ_ERROR && n == 4)
				ret = peer_errno(awr__get_le32(r->left));
			else if (!ret && (type != AWR_RJ_DATA || !n))
				ret = -EPROTO;
			if (ret)
				return ret;
			r->nleft = n;
		}
		take = len - done < r->nleft ? len - done : r->nleft;
		memcpy(dst + done, r->left, take);
		r->left += take;
		r->nleft -= (uint32_t)take;
		done += take;
	}
	r->pos += done;
	return (ssize_t)done;
}

void awr__remote_close(struct awr_remote *r)
{
	if (!r)
		return;
	close(r->ch.fd);
	awr__chan_free(&r->ch);
	free(r);
}

/* ---- why a journal or its secret could not be used, in words (awr_last_error()) -------- */

bool awr__rj_secret_explain(const char *secret_file, int ret)
{
	const char *secret = secret_file ? secret_file : "$" AWR_RJ_SECRET_ENV;

	if (ret == -ENOKEY)
		awr__fail(ret, "no shared secret of at least %d bytes in %s: give --secret-file "
			  "FILE (mode 0600) or set %s; make one with: head -c 32 /dev/urandom | "
			  "base64", AWR_RJ_SECRET_MIN, secret, AWR_RJ_SECRET_ENV);
	else if (ret == -EKEYREVOKED)
		awr__fail(ret, "the shared secret in %s does not look random (under 128 bits by "
			  "its byte counts: a repeated character, a short sentence): make one "
			  "with: head -c 32 /dev/urandom | base64", secret);
	else if (ret == -EPERM)
		awr__fail(ret, "refusing the secret file %s: group or others may read it; chmod "
			  "600 %s", secret, secret);
	else if (ret == -EFBIG)
		awr__fail(ret, "the secret file %s holds more than %d bytes: give a shorter "
			  "secret", secret, AWR_RJ_SECRET_MAX);
	else
		return false;
	return true;
}

/* The server's refusals a client sees, by errno: what the journal server at URL said. */
static const struct {
	int err;
	const char *why;
} server_says[] = {
	{ EKEYREJECTED, "refused the secret (its log names the reason): give the secret the "
			"server was started with" },
	{ EPROTO, "sent a reply that failed its MAC or was malformed: the connection was "
		  "tampered with, or the server has another secret" },
	{ ECONNABORTED, "closed the connection before its greeting: not an awr journal "
			"server, or it refuses this address (not loopback without "
			"--allow-remote)" },
	{ EMLINK, "refuses that journal: its file has more than one name (a hard link into "
		  "the server's directory, perhaps to another's file)" },
	{ EUSERS, "has --max-clients clients connected already: try again when one has "
		  "ended, or start it with a higher --max-clients" },
	{ ENOENT, "has no such journal: give the URL awr stress used (its NAME defaults to "
		  "the host name of the machine that ran it)" },
	{ ECONNRESET, "closed the connection: its log names the reason (a frame that failed "
		      "its MAC, a record it could not store)" },
};

bool awr__rj_explain(const char *verb, const char *url, const char *secret_file, int ret)
{
	if (strncmp(url, "tcp://", 6) || ret == -EBADMSG || ret == -ENOEXEC)
		return false;	/* a file, or about the journal's content: the caller says it */
	if (awr__rj_secret_explain(secret_file, ret))
		return true;
	for (size_t i = 0; i < sizeof(server_says) / sizeof(server_says[0]); i++)
		if (ret == -server_says[i].err) {
			awr__fail(ret, "the journal server at %s %s", url, server_says[i].why);
			return true;
		}
	if (ret == -EINVAL)
		awr__fail(ret, "cannot %s with journal %s: give tcp://HOST:PORT or "
			  "tcp://HOST:PORT/NAME (NAME 1 to 63 of A-Z a-z 0-9 . _ -, not beginning "
			  "with a dot)", verb, url);
	else if (ret == -EBUSY)
		awr__fail(ret, "journal %s is being appended to by another client: give another "
			  "NAME (tcp://HOST:PORT/NAME)", url);
	else if (ret == -EADDRNOTAVAIL)
		awr__fail(ret, "cannot %s with journal %s: its host is not found", verb, url);
	else
		awr__fail(ret, "cannot %s with journal %s: %s", verb, url, strerror(-ret));
	return true;
}
