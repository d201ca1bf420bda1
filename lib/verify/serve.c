// SPDX-License-Identifier: MIT
/*
 * awr_journal_serve(): keeps the stress journals of clients on other
 * machines (remote.h), so that a journal survives the power cut of the
 * machine under test. One thread per connection, a fixed number of them;
 * every buffer has a fixed size whatever a peer sends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "journal.h"
#include "private.h"
#include "remote.h"

#define AUTH_TIMEOUT_S 10 /* the whole handshake: a peer not authenticated by then is dropped */
#define MAX_CLIENTS	1024
#define PEER_LEN	64
/*
 * Connections not yet authenticated have slots of their own, PENDING_MAX of them and at most
 * PENDING_PER_ADDR from one address, beside the max_clients of authenticated ones; a new
 * connection over either cap takes the place of the oldest pending one (of its address, or of
 * all). Peers that trickle bytes without the secret then cannot keep a client out: a real
 * client's handshake takes a round trip, theirs last until they are pushed out.
 */
#define PENDING_MAX	16
#define PENDING_PER_ADDR 4

struct server;

struct slot {
	struct server *srv;
	bool used;
	bool authed;			/* past authenticate(): counts against max_clients */
	bool evicted;			/* pushed out by a newer pending connection */
	uint64_t since_ns;		/* accepted at (CLOCK_MONOTONIC) */
	int fd;
	int mode;			/* AWR_RJ_APPEND while appending to name */
	char name[AWR_RJ_NAME_MAX];
	char peer[PEER_LEN];
	char addr[PEER_LEN];		/* the peer's address without its port */
};

struct server {
	const struct awr_journal_serve_opts *o;
	uint8_t secret[AWR_RJ_SECRET_MAX + 1];
	size_t slen;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned int active, max, authed;
	unsigned int nslots;		/* max + PENDING_MAX */
	int dirfd; /* o->dir, opened at start: journals are opened below it, by name */
	struct slot *slots;
};

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t stop_fd = -1;

void awr_journal_serve_stop(void)
{
	int fd = stop_fd;
	char c = 1;

	stop_requested = 1;
	if (fd >= 0 && write(fd, &c, 1) < 0)
		return;		/* the flag is seen at the next poll */
}

static void slog(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void slog(struct server *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (s->o->log)
		s->o->log(line, s->o->arg);
	else
		fprintf(stderr, "awr journal-serve: %s\n", line);
}

static void addr_text(const struct sockaddr_storage *a, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)a;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	} else if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)a;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
	} else {
		snprintf(buf, len, "(family %d)", a->ss_family);
	}
}

/* "1.2.3.4:5" -> "1.2.3.4", "[::1]:5" -> "[::1]": a peer's address without its port */
static void addr_only(const char *peer, char *buf, size_t len)
{
	const char *colon = strrchr(peer, ':');

	snprintf(buf, len, "%.*s", colon ? (int)(colon - peer) : (int)strlen(peer), peer);
}

/* 127.0.0.0/8, ::1 or ::ffff:127.x.y.z; with @wildcard also 0.0.0.0 and :: */
static bool is_loopback(const struct sockaddr *a, bool wildcard)
{
	if (a->sa_family == AF_INET) {
		uint32_t v = ntohl(((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr);

		return (v >> 24) == 127 || (wildcard && !v);
	}
	if (a->sa_family == AF_INET6) {
		const struct in6_addr *v =
			&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(v) ||
		       (IN6_IS_ADDR_V4MAPPED(v) && v->s6_addr[12] == 127) ||
		       (wildcard && IN6_IS_ADDR_UNSPECIFIED(v));
	}
	return false;
}

static int send_status(struct awr_chan *c, int err, uint64_t max_gen, uint64_t size)
{
	uint8_t b[AWR_RJ_OPENED_SIZE] = { 0 };

	awr__put_le32(b, (uint32_t)-err);
	awr__put_le64(b + 8, max_gen);
	awr__put_le64(b + 16, size);
	return awr__chan_send(c, AWR_RJ_OPENED, b, sizeof(b));
}

static void send_error(struct awr_chan *c, int err)
{
	uint8_t b[4];

	awr__put_le32(b, (uint32_t)-err);
	awr__chan_send(c, AWR_RJ_ERROR, b, sizeof(b));
}

/* Why a frame ended the session, in words. */
static const char *recv_failure(int ret)
{
	if (ret == -EPROTO)
		return "refused: a frame failed its MAC or is oversize or malformed (tampered?): "
		       "check the network path between the client and this server";
	return ret == -ECONNRESET ? "closed" : "connection failed";
}

/* The journal's name inside the directory (s->dirfd): NAME.journal */
static int journal_path(struct slot *sl, char *path, size_t len)
{
	int n = snprintf(path, len, "%s.journal", sl->name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Another connection appending to the same journal? (under lock) */
static bool name_busy(struct slot *sl)
{
	struct server *s = sl->srv;

	for (unsigned int i = 0; i < s->nslots; i++)
		if (&s->slots[i] != sl && s->slots[i].used && s->slots[i].mode == AWR_RJ_APPEND &&
		    !strcmp(s->slots[i].name, sl->name))
			return true;
	return false;
}

static int serve_append(struct slot *sl, struct awr_chan *c, bool force)
{
	struct server *s = sl->srv;
	uint64_t records = 0, syncs = 0;
	char path[PATH_MAX];
	struct awr_journal j;
	const uint8_t *p;
	uint32_t type, len;
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = name_busy(sl) ? -EBUSY : 0;
	if (!ret)
		sl->mode = AWR_RJ_APPEND;
	pthread_mutex_unlock(&s->lock);
	if (!ret)
		ret = journal_path(sl, path, sizeof(path));
	if (!ret)
		ret = awr__journal_open_in(s->dirfd, path, force, &j);
	if (ret) {
		slog(s, "%s: journal %s refused: %s: %s", sl->peer, sl->name, strerror(-ret),
		     ret == -EBUSY ? "another client appends to it; give this one another name" :
		     "move the file away or give another name");
		return send_status(c, ret, 0, 0);
	}
	slog(s, "%s: appending to %s.journal (highest generation %llu)", sl->peer, sl->name,
	     (unsigned long long)j.max_generation);
	ret = send_status(c, 0, j.max_generation, 0);
	while (!ret) {
		ret = awr__chan_recv(c, &type, &p, &len);
		if (ret)
			break;
		if (type == AWR_RJ_RECORDS && len && !(len % AWR_JREC_SIZE)) {
			for (uint32_t i = 0; !ret && i < len; i += AWR_JREC_SIZE) {
				struct awr_jrec r;

				ret = awr__jrec_decode(p + i, &r);
				if (!ret)
					ret = awr__journal_append(&j, &r, NULL);
			}
			if (ret) {
				slog(s, "%s: %s: a record was refused: %s: the client sent a "
				     "record no stress run issues; keep the journal for awr verify",
				     sl->peer, sl->name, strerror(-ret));
				send_error(c, ret);
				break;
			}
			records += len / AWR_JREC_SIZE;
		} else if (type == AWR_RJ_SYNC && len == 8 && awr__get_le64(p) == records) {
			uint8_t b[8];

			ret = awr__journal_sync(&j, j.appended);
			if (ret) {
				slog(s, "%s: %s: fdatasync failed: %s", sl->peer, sl->name,
				     strerror(-ret));
				send_error(c, ret);
				break;
			}
			syncs++;
			awr__put_le64(b, records);
			ret = awr__chan_send(c, AWR_RJ_SYNCED, b, sizeof(b));
		} else {
			ret = -EPROTO;
		}
	}
	slog(s, "%s: %s: %s after %llu records, %llu syncs", sl->peer, sl->name, recv_failure(ret),
	     (unsigned long long)records, (unsigned long long)syncs);
	awr__journal_close(&j);
	return 0;
}

static int serve_read(struct slot *sl, struct awr_chan *c)
{
	char path[PATH_MAX];
	uint64_t off = 0, size = 0;
	struct stat st;
	int ret, fd = -1;

	ret = journal_path(sl, path, sizeof(path));
	if (!ret) {
		fd = openat(sl->srv->dirfd, path,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			ret = -errno;
		else if (fstat(fd, &st))
			ret = -errno;
		else if (!S_ISREG(st.st_mode))
			ret = -EINVAL;
		else if (st.st_nlink != 1)
			ret = -EMLINK;	/* a hard link in DIR to a file elsewhere is never sent */
		else
			size = (uint64_t)st.st_size;
	}
	if (ret) {
		slog(sl->srv, "%s: journal %s not sent: %s", sl->peer, sl->name, strerror(-ret));
		if (fd >= 0)
			close(fd);
		return send_status(c, ret, 0, 0);
	}
	ret = send_status(c, 0, 0, size);
	while (!ret && off < size) {
		uint8_t *b = c->rbuf;	/* not receiving while sending the file */
		size_t want =
			size - off > AWR_RJ_MAX_PAYLOAD ? AWR_RJ_MAX_PAYLOAD : (size_t)(size - off);
		ssize_t got = awr__pread_full(fd, b, want, off);

		if (got != (ssize_t)want) {
			ret = got < 0 ? (int)got : -ESTALE;	/* the file shrank meanwhile */
			send_error(c, ret);
			break;
		}
		ret = awr__chan_send(c, AWR_RJ_DATA, b, (uint32_t)want);
		off += want;
	}
	close(fd);
	slog(sl->srv, "%s: %s.journal: %s %llu of %llu bytes", sl->peer, sl->name,
	     ret ? "failed after" : "sent", (unsigned long long)off, (unsigned long long)size);
	return 0;
}

/* Read @len bytes before @deadline_ns, however the peer spaces them: -ETIMEDOUT after it. */
static int read_by(int fd, void *buf, size_t len, uint64_t deadline_ns)
{
	uint8_t *p = buf;

	while (len) {
		uint64_t now = awr__now_ns();
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		r = poll(&pf, 1, (int)((deadline_ns - now + 999999) / 1000000));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The handshake's end: an authenticated client takes one of max_clients, or is refused. */
static int admit(struct slot *sl)
{
	struct server *s = sl->srv;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (s->authed >= s->max)
		ret = -EUSERS;
	else
		sl->authed = true, s->authed++;
	pthread_mutex_unlock(&s->lock);
	if (ret)
		slog(s, "%s: refused: %u clients are connected already (--max-clients): start the "
		     "server with a higher --max-clients, or run fewer clients at once", sl->peer,
		     s->max);
	return ret;
}

/*
 * HELLO, then the client's AUTH checked: the session key, or a refusal logged. The whole
 * handshake has AUTH_TIMEOUT_S from the accept, however the peer spaces its bytes.
 */
static int authenticate(struct slot *sl, struct awr_chan *c, uint32_t *mode, uint32_t *flags)
{
	struct server *s = sl->srv;
	uint8_t hello[AWR_RJ_HELLO_SIZE], auth[AWR_RJ_AUTH_SIZE], mac[AWR_RJ_MAC];
	int ret;

	memcpy(hello, awr__rj_hello_magic, 8);
	if (getrandom(hello + 8, AWR_RJ_NONCE, 0) != AWR_RJ_NONCE)
		return -EIO;
	ret = awr__rj_write_all(sl->fd, hello, sizeof(hello));
	if (!ret)
		ret = read_by(sl->fd, auth, sizeof(auth),
			      sl->since_ns + AUTH_TIMEOUT_S * 1000000000ULL);
	if (ret) {
		if (sl->evicted)
			slog(s, "%s: dropped before authenticating: a newer connection took its "
			     "place (%d pending from one address, %d in all at most)", sl->peer,
			     PENDING_PER_ADDR, PENDING_MAX);
		else if (ret == -ETIMEDOUT)
			slog(s, "%s: refused: not authenticated within %d s of connecting: a "
			     "client of yours must reach the server without long stalls", sl->peer,
			     AUTH_TIMEOUT_S);
		else
			slog(s, "%s: refused: %s before authenticating", sl->peer,
			     ret == -ECONNRESET ? "closed" : strerror(-ret));
		return ret;
	}
	if (memcmp(auth, awr__rj_auth_magic, 8)) {
		slog(s, "%s: refused: not an awr journal client (its first bytes are not a "
		     "greeting): point only awr stress and awr verify at this port", sl->peer);
		return -EPROTO;
	}
	ret = awr__rj_auth_mac(s->secret, s->slen, hello + 8, auth, mac);
	if (ret)
		return ret;
	if (!awr__rj_mac_equal(mac, auth + AWR_RJ_AUTH_BODY)) {
		slog(s, "%s: refused: bad MAC on authentication (a wrong secret, or a replayed or "
		     "tampered session): give the client the secret this server was started with",
		     sl->peer);
		return -EKEYREJECTED;
	}
	*mode = awr__get_le32(auth + 40);
	*flags = awr__get_le32(auth + 44);
	memcpy(sl->name, auth + 48, AWR_RJ_NAME_MAX);
	if (sl->name[AWR_RJ_NAME_MAX - 1] || !awr__rj_name_valid(sl->name) ||
	    (*mode != AWR_RJ_APPEND && *mode != AWR_RJ_READ) || (*flags & ~AWR_RJ_FLAG_FORCE)) {
		sl->name[0] = '\0';
		slog(s, "%s: refused: a malformed request (journal name, mode or flags): run the "
		     "same version of awr on the client", sl->peer);
		return -EPROTO;
	}
	return awr__rj_session_key(s->secret, s->slen, hello + 8, auth + 8, c->key);
}

static void release(struct slot *sl)
{
	struct server *s = sl->srv;

	pthread_mutex_lock(&s->lock);
	close(sl->fd);
	sl->fd = -1;
	sl->used = false;
	sl->mode = 0;
	if (sl->authed)
		s->authed--;
	sl->authed = false;
	s->active--;
	pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
}

static void *client_main(void *arg)
{
	struct slot *sl = arg;
	struct timeval tv = { AUTH_TIMEOUT_S, 0 };
	int one = 1, idle = 30, intvl = 10, cnt = 3;
	uint32_t mode = 0, flags = 0;
	struct awr_chan c;

	setsockopt(sl->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(sl->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a client that lost its power never closes: keepalive ends the connection */
	setsockopt(sl->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(sl->fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(sl->fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(sl->fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	if (awr__chan_init(&c, sl->fd, true)) {
		slog(sl->srv, "%s: refused: out of memory", sl->peer);
	} else {
		if (!authenticate(sl, &c, &mode, &flags) && admit(sl)) {
			send_status(&c, -EUSERS, 0, 0);	/* the client says: too many clients */
		} else if (sl->authed) {
			if (mode == AWR_RJ_APPEND)
				serve_append(sl, &c, flags & AWR_RJ_FLAG_FORCE);
			else
				serve_read(sl, &c);
		}
		awr__chan_free(&c);
	}
	release(sl);
	return NULL;
}

/* Push the oldest pending connection (of @addr, or of all when NULL) out (under lock). */
static void evict_oldest(struct server *s, const char *addr)
{
	struct slot *old = NULL;

	for (unsigned int i = 0; i < s->nslots; i++) {
		struct slot *x = &s->slots[i];

		if (x->used && !x->authed && !x->evicted && (!addr || !strcmp(x->addr, addr)) &&
		    (!old || x->since_ns < old->since_ns))
			old = x;
	}
	if (old) {
		old->evicted = true;
		shutdown(old->fd, SHUT_RDWR);	/* its thread sees the end and frees the slot */
	}
}

/*
 * A slot for a new connection, or NULL when every slot is taken (max_clients authenticated and
 * PENDING_MAX pending, being pushed out). Over a pending cap the oldest pending connection of the
 * same address, or of all, is pushed out first.
 */
static struct slot *take_slot(struct server *s, int fd, const char *peer, const char *addr)
{
	unsigned int pending = 0, from_addr = 0;
	struct slot *sl = NULL;

	pthread_mutex_lock(&s->lock);
	for (unsigned int i = 0; i < s->nslots; i++) {
		struct slot *x = &s->slots[i];

		if (!x->used) {
			if (!sl)
				sl = x;
		} else if (!x->authed && !x->evicted) {
			pending++;
			from_addr += !strcmp(x->addr, addr);
		}
	}
	if (from_addr >= PENDING_PER_ADDR)
		evict_oldest(s, addr);
	else if (pending >= PENDING_MAX)
		evict_oldest(s, NULL);
	if (sl) {
		*sl = (struct slot){ .srv = s, .used = true, .fd = fd, .since_ns = awr__now_ns() };
		snprintf(sl->peer, sizeof(sl->peer), "%s", peer);
		snprintf(sl->addr, sizeof(sl->addr), "%s", addr);
		s->active++;
	}
	pthread_mutex_unlock(&s->lock);
	return sl;
}

/* accept one connection; false when the process is out of descriptors (or memory) for it */
static bool accept_one(struct server *s, int lfd)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	pthread_attr_t attr;
	char peer[PEER_LEN], addr[PEER_LEN];
	struct slot *sl;
	pthread_t t;
	int fd = accept4(lfd, (struct sockaddr *)&a, &alen, SOCK_CLOEXEC);

	if (fd < 0)
		return errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM;
	addr_text(&a, peer, sizeof(peer));
	if (!(s->o->flags & AWR_JSERVE_ALLOW_REMOTE) &&
	    !is_loopback((struct sockaddr *)&a, false)) {
		slog(s, "%s: refused: not a loopback address (the server accepts other machines "
		     "only when started with --allow-remote): start it with --allow-remote to "
		     "serve this machine", peer);
		close(fd);
		return true;
	}
	addr_only(peer, addr, sizeof(addr));
	sl = take_slot(s, fd, peer, addr);
	if (!sl) {
		slog(s, "%s: refused: %u clients are connected and %d more are authenticating: "
		     "retry later, or start the server with a higher --max-clients", peer, s->max,
		     PENDING_MAX);
		close(fd);
		return true;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, client_main, sl)) {
		slog(s, "%s: refused: no thread for it: the server's machine is out of memory or "
		     "threads; free some", peer);
		release(sl);
	}
	pthread_attr_destroy(&attr);
	return true;
}

/* Bind @o->listen; a loopback or wildcard address unless AWR_JSERVE_ALLOW_REMOTE. */
static int listen_on(const struct awr_journal_serve_opts *o, char *bound, size_t blen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res;
	char host[256], port[6];
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	int fd, one = 1, ret;

	ret = awr__rj_split_addr(o->listen, strlen(o->listen), host, sizeof(host), port);
	if (ret)
		return ret;
	if (getaddrinfo(host, port, &hints, &res))
		return -EADDRNOTAVAIL;
	if (!(o->flags & AWR_JSERVE_ALLOW_REMOTE) && !is_loopback(res->ai_addr, true)) {
		freeaddrinfo(res);
		return -EADDRNOTAVAIL;
	}
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
	if (fd < 0) {
		freeaddrinfo(res);
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen))
		ret = -errno;
	freeaddrinfo(res);
	if (ret) {
		close(fd);
		return ret;
	}
	addr_text(&a, bound, blen);
	return fd;
}

/*
 * Out of descriptors (EMFILE: another part of the process, or connections the kernel queued
 * past the limit), the listener stays readable: instead of calling accept4() in a loop at full
 * CPU, stop polling it for BACKOFF_MS and say so once per episode.
 */
#define BACKOFF_MS	200

static int serve_loop(struct server *s, int lfd, int pipe_r)
{
	struct pollfd pf[2] = { { .fd = lfd, .events = POLLIN },
				{ .fd = pipe_r, .events = POLLIN } };
	bool starved = false;

	while (!stop_requested) {
		int n = poll(pf, 2, pf[0].fd < 0 ? BACKOFF_MS : -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pf[0].fd < 0) {		/* the pause is over: try the listener again */
			pf[0].fd = lfd;
			continue;
		}
		if (!(pf[0].revents & POLLIN))
			continue;
		if (accept_one(s, lfd)) {
			starved = false;
		} else {
			if (!starved)
				slog(s, "accepting a connection: %s; pausing new connections for "
				     "%d ms at a time until one is free", strerror(errno),
				     BACKOFF_MS);
			starved = true;
			pf[0].fd = -1;
		}
	}
	return 0;
}

/*
 * Every connection takes a socket and, while it appends, a journal file: 2 descriptors a client
 * and a few for the process (the listener, the stop pipe, stdio, the directory). Raise the soft
 * RLIMIT_NOFILE to that if the hard limit allows; -EMFILE when it does not.
 */
static int fds_for(unsigned int max_clients)
{
	rlim_t need = 2 * (rlim_t)max_clients + PENDING_MAX + 16;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return -errno;
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < need) {
		if (r.rlim_max != RLIM_INFINITY && r.rlim_max < need)
			return -EMFILE;
		r.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &r))
			return -EMFILE;
	}
	return 0;
}

/* Stop: every open connection is shut down, its thread ends and frees its slot. */
static void drain(struct server *s)
{
	pthread_mutex_lock(&s->lock);
	for (unsigned int i = 0; i < s->nslots; i++)
		if (s->slots[i].used)
			shutdown(s->slots[i].fd, SHUT_RDWR);
	while (s->active)
		pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

static int serve(const struct awr_journal_serve_opts *o)
{
	struct server *s;
	char bound[PEER_LEN];
	struct stat st;
	int pfd[2], lfd, ret;

	if (!o || !o->listen || !o->dir || o->max_clients > MAX_CLIENTS)
		return -EINVAL;
	if (stat(o->dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	/*
	 * The directory is held from the start: a DIR swapped for a symbolic link later does not
	 * move the journals (each opened with openat(), O_NOFOLLOW, below this descriptor).
	 */
	s->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0) {
		ret = -errno;
		free(s);
		return ret;
	}
	s->o = o;
	s->max = o->max_clients ? o->max_clients : 16;
	ret = fds_for(s->max);
	if (ret)
		goto out;
	ret = awr__rj_secret_load(o->secret_file, s->secret, &s->slen);
	if (!ret)
		/* a server without its MACs refuses at start, not per client */
		ret = awr__rj_crypto_load();
	if (ret)
		goto out;
	s->nslots = s->max + PENDING_MAX;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots) {
		ret = -ENOMEM;
		goto out;
	}
	lfd = listen_on(o, bound, sizeof(bound));
	if (lfd < 0) {
		ret = lfd;
		goto out;
	}
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK)) {
		ret = -errno;
		close(lfd);
		goto out;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->idle, NULL);
	stop_requested = 0;
	stop_fd = pfd[1];
	if (o->ready)
		o->ready(bound, o->arg);
	ret = serve_loop(s, lfd, pfd[0]);
	close(lfd);
	drain(s);
	stop_fd = -1;
	close(pfd[0]);
	close(pfd[1]);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->lock);
out:
	close(s->dirfd);
	explicit_bzero(s->secret, sizeof(s->secret));
	free(s->slots);
	free(s);
	return ret;
}

/* Why the server could not start, in words (awr_last_error()); returns @ret. */
static int explain(const struct awr_journal_serve_opts *o, int ret)
{
	unsigned int max = o && o->max_clients ? o->max_clients : 16;
	struct rlimit r = { 0, 0 };

	if (!o || !o->listen || !o->dir)
		return awr__fail(ret, "give --listen ADDR:PORT (such as 127.0.0.1:7070) and --dir "
				 "DIR");
	if (ret == -EINVAL && o->max_clients > MAX_CLIENTS)
		return awr__fail(ret, "--max-clients %u must be between 1 and %d", o->max_clients,
				 MAX_CLIENTS);
	if (ret == -EINVAL)
		return awr__fail(ret, "--listen %s: give ADDR:PORT, such as 127.0.0.1:7070 or "
				 "[::1]:7070", o->listen);
	if (ret == -EADDRNOTAVAIL)
		return awr__fail(ret, "--listen %s: not a loopback address (or not found): the "
				 "server listens on 127.0.0.1, ::1 or a wildcard address (loopback "
				 "peers only) unless --allow-remote", o->listen);
	if (ret == -ENOTDIR || ret == -ENOENT)
		return awr__fail(ret, "--dir %s: %s: give an existing directory for the journals",
				 o->dir, ret == -ENOTDIR ? "not a directory" : "no such directory");
	if (ret == -EMFILE) {
		getrlimit(RLIMIT_NOFILE, &r);
		return awr__fail(ret, "--max-clients %u needs %u file descriptors (2 a client, %d "
				 "for connections authenticating, 16 more), but the hard limit is "
				 "%llu (ulimit -Hn): give a smaller --max-clients or raise the "
				 "limit", max, 2 * max + PENDING_MAX + 16, PENDING_MAX,
				 (unsigned long long)r.rlim_max);
	}
	if (awr__rj_secret_explain(o->secret_file, ret))
		return ret;
	return awr__fail(ret, "journal-serve: %s", strerror(-ret));
}

int awr_journal_serve(const struct awr_journal_serve_opts *o)
{
	int ret = serve(o);

	return ret ? explain(o, ret) : 0;
}
