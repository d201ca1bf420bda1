/* SPDX-License-Identifier: MIT */
/* Private declarations of lib/ itself (findings, spans, sysfs reading, byte order), for every
 * stage; a stage's own declarations are in its header, lib/STAGE/STAGE.h. */
#ifndef AWR_PRIVATE_H
#define AWR_PRIVATE_H

#include <endian.h>
#include <sys/types.h>
#include <string.h>
#include <stdarg.h>

#include "libatomicwr.h"
#include "compat.h"
#include "platform/platform.h"
#include "findings_gen.h"

#define AWR_MAX_FINDINGS 32

/*
 * The environment variable of a fault point (AWR_STRESS_FAULT, AWR_PAGES_FAULT): read with
 * secure_getenv() in a build with -Dtest_hooks=true; otherwise never read, its name not kept.
 */
#ifdef AWR_TEST_HOOKS
#define awr__test_env(name)	secure_getenv(name)
#else
#define awr__test_env(name)	((void)sizeof(name), (char *)NULL)
#endif

/* Little-endian fields of on-disk formats (stamps, journal records). */
static inline void awr__put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static inline void awr__put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static inline uint32_t awr__get_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t awr__get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static inline bool awr_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static inline uint64_t awr_max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * error.c: the sentence awr_last_error() returns, set by a failing call; returns @err so that
 * a failure reads "return awr__fail(-EINVAL, "page size %u is not a power of two", ps);".
 */
int awr__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int awr__vfail(int err, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* How many sentences this thread set: a caller sees whether a callee said why. */
unsigned long awr__failures(void);

/* finding.c: the catalogue of findings.def; emit as awr__probe_finding(p, AWR_FIND(key), ...) */
struct awr__finding_entry {
	const char *id;
	enum awr_severity severity;
	const char *what_to_do;		/* NULL for info */
};

extern const struct awr__finding_entry awr__findings[AWR__F_NR];

/* Append the catalogue's @key with its template @fmt filled in; a full list (@max) drops it. */
void awr__finding_vadd(struct awr_finding *arr, unsigned int *nr, unsigned int max,
		       enum awr__finding_key key, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
/* Append a finding made elsewhere (a device view's, into the probe's list). */
void awr__finding_copy(struct awr_finding *arr, unsigned int *nr, unsigned int max,
		       const struct awr_finding *f);

/* span.c */
/* Read up to @len bytes at @off (EINTR retried); short only at the end of the file. */
ssize_t awr__pread_full(int fd, void *buf, size_t len, uint64_t off);
/* fsync the directory that holds @path (relative to @dirfd, or AT_FDCWD): a new entry made
 * durable */
int awr__sync_dir_of(int dirfd, const char *path);

#endif /* AWR_PRIVATE_H */
