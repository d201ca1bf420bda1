/* SPDX-License-Identifier: MIT */
/*
 * The remote stress journal (awr_journal_serve(3), awr(1) "REMOTE JOURNAL"):
 * the wire protocol shared by the client (remote.c) and the server (serve.c).
 *
 * Every connection: the server sends HELLO (magic, a fresh 32-byte nonce);
 * the client sends AUTH (magic, its own nonce, mode, flags, journal name)
 * with HMAC-SHA256(secret, "awr-journal auth" | server nonce | AUTH body).
 * Both then key every frame with HMAC-SHA256(secret, "awr-journal session" |
 * server nonce | client nonce): a frame is type (le32), length (le32), the
 * payload, and HMAC-SHA256(session key, direction | frame number (le64) |
 * type | length | payload). A recorded session cannot be replayed (the other
 * side's nonce differs), a frame cannot be changed, dropped, reordered or
 * moved to the other direction without its MAC failing.
 */
#ifndef AWR_REMOTE_H
#define AWR_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AWR_RJ_NONCE		32
#define AWR_RJ_MAC		32
#define AWR_RJ_HELLO_SIZE	(8 + AWR_RJ_NONCE)
#define AWR_RJ_NAME_MAX		64	/* with the NUL: at most 63 characters */
#define AWR_RJ_AUTH_BODY	(8 + AWR_RJ_NONCE + 4 + 4 + AWR_RJ_NAME_MAX)
#define AWR_RJ_AUTH_SIZE	(AWR_RJ_AUTH_BODY + AWR_RJ_MAC)
#define AWR_RJ_MAX_PAYLOAD	65536U	/* a peer's length above this is refused, never allocated */
#define AWR_RJ_HDR		8
#define AWR_RJ_SECRET_MIN	32	/* bytes; and AWR_RJ_SECRET_BITS estimated (secret_check) */
#define AWR_RJ_SECRET_BITS	128
#define AWR_RJ_SECRET_MAX	1024
#define AWR_RJ_SECRET_ENV	"AWR_JOURNAL_SECRET"

extern const uint8_t awr__rj_hello_magic[8];
extern const uint8_t awr__rj_auth_magic[8];

enum awr_rj_mode {
	AWR_RJ_APPEND = 1,	/* stress: records are appended and made durable */
	AWR_RJ_READ = 2,	/* verify: the journal's bytes are sent */
};

#define AWR_RJ_FLAG_FORCE	1U	/* replace a server file that is not a journal */

enum awr_rj_type {
	/* S->C: le32 status (0 or errno), le32 0, le64 max generation, le64 size */
	AWR_RJ_OPENED = 1,
	AWR_RJ_RECORDS = 2,	/* C->S: whole 48-byte journal records */
	AWR_RJ_SYNC = 3,	/* C->S: le64 records appended so far: make them durable */
	AWR_RJ_SYNCED = 4,	/* S->C: le64 records durable (written and fdatasync'd) */
	AWR_RJ_ERROR = 5,	/* S->C: le32 errno; the server closes */
	AWR_RJ_DATA = 6,	/* S->C: the next bytes of the journal file */
};
#define AWR_RJ_OPENED_SIZE	24

/* One authenticated connection; send and receive have their own buffers and counters. */
struct awr_chan {
	int fd;
	uint8_t key[AWR_RJ_MAC];	/* the session key */
	uint8_t send_dir, recv_dir;	/* 'C' client to server, 'S' server to client */
	uint64_t send_seq, recv_seq;
	uint8_t *sbuf, *rbuf;		/* 9 + AWR_RJ_HDR + AWR_RJ_MAX_PAYLOAD + AWR_RJ_MAC each */
};

/*
 * The shared secret: @file (a regular file not readable by group or others), else
 * $AWR_JOURNAL_SECRET.
 */
int awr__rj_secret_load(const char *file, uint8_t *key, size_t *len);
int awr__rj_hmac(const uint8_t *key, size_t keylen, const void *a, size_t alen, const void *b,
		 size_t blen, const void *c, size_t clen, uint8_t mac[AWR_RJ_MAC]);
bool awr__rj_mac_equal(const uint8_t *a, const uint8_t *b);
int awr__rj_session_key(const uint8_t *secret, size_t len, const uint8_t *snonce,
			const uint8_t *cnonce, uint8_t key[AWR_RJ_MAC]);
/* HMAC over the AUTH body (AWR_RJ_AUTH_BODY bytes) under the server's nonce. */
int awr__rj_auth_mac(const uint8_t *secret, size_t len, const uint8_t *snonce, const uint8_t *body,
		     uint8_t mac[AWR_RJ_MAC]);
bool awr__rj_name_valid(const char *name);
/* "HOST:PORT" or "[IPV6]:PORT" in the first @len bytes of @s; @port gets at most 5 digits. */
int awr__rj_split_addr(const char *s, size_t len, char *host, size_t hlen, char port[6]);

/* libcrypto for the MACs (loaded on first use, optlib.h): 0 or -ELIBACC */
int awr__rj_crypto_load(void);
int awr__chan_init(struct awr_chan *c, int fd, bool server);
void awr__chan_free(struct awr_chan *c);
int awr__chan_send(struct awr_chan *c, uint32_t type, const void *payload, uint32_t len);
/* The next frame: -EPROTO for a bad MAC or length, -ECONNRESET at its end. */
int awr__chan_recv(struct awr_chan *c, uint32_t *type, const uint8_t **payload, uint32_t *len);
int awr__rj_write_all(int fd, const void *buf, size_t len);
int awr__rj_read_all(int fd, void *buf, size_t len);

/* The client (remote.c), used by journal.c. */
struct awr_remote;
bool awr__journal_is_remote(const char *where);
int awr__remote_open(const char *url, const char *secret_file, enum awr_rj_mode mode, bool force,
		     struct awr_remote **out, uint64_t *max_generation, uint64_t *size);
int awr__remote_append(struct awr_remote *r, const uint8_t *rec); /* caller serialises sends */
int awr__remote_sync_send(struct awr_remote *r, uint64_t target); /* caller serialises sends */
int awr__remote_sync_wait(struct awr_remote *r, uint64_t target);	/* one waiter at a time */
ssize_t awr__remote_stream(void *r, void *buf, size_t len, uint64_t off);
void awr__remote_close(struct awr_remote *r);

/*
 * The sentence (awr_last_error()) of a secret that cannot be used (-ENOKEY, -EKEYREVOKED, -EPERM,
 * -EFBIG); false for another error.
 */
bool awr__rj_secret_explain(const char *secret_file, int ret);
/*
 * The sentence of a tcp:// journal that could not be used for VERB ("stress", "verify"); false
 * for a journal file, or an error about the journal's content (-EBADMSG, -ENOEXEC).
 */
bool awr__rj_explain(const char *verb, const char *url, const char *secret_file, int ret);

#endif /* AWR_REMOTE_H */
