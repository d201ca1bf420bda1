// SPDX-License-Identifier: MIT
/*
 * libatomicwr-preload.so: an unmodified program's page writes made RWF_ATOMIC
 * (man 7 libatomicwr-preload).
 *
 *   LD_PRELOAD=libatomicwr-preload.so AWR_PRELOAD_FILES=PATTERN[:PATTERN...] \
 *   AWR_PRELOAD_PAGE_SIZE=16k [AWR_PRELOAD_STATS=FILE] program ...
 *
 * A write is made atomic when it is exactly one page, at an offset that is a
 * multiple of the page, to a named file whose descriptor has O_DIRECT: the
 * same bytes at the same offset, with RWF_ATOMIC added, never split, merged
 * or moved. Every other write to a named file goes down unchanged and is
 * counted with why. Interposed: the open family (which names a descriptor),
 * fcntl (F_SETFL O_DIRECT, as InnoDB sets it; F_DUPFD), dup, close; the
 * pwrite family; liburing's io_uring_submit family (the SQEs queued since the
 * last submit, before liburing hands them to the kernel); libaio's io_submit.
 *
 * What a file can take is decided once, when it is opened (and for the files
 * that exist, at start): the library's own rules (awr_probe_fd(),
 * awr_check()) for one page at offset 0. A named file that cannot take
 * atomic writes of the page size is refused: at start the program is not run
 * (exit 78), later its open fails with EOPNOTSUPP. One message says why.
 */
#undef _FILE_OFFSET_BITS	/* pwrite and pwrite64 are both defined here */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <liburing.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compat.h"
#include "libatomicwr.h"

#define EX_CONFIG_REFUSED 78	/* sysexits' EX_CONFIG: a named file cannot take atomic writes */

/* ---- the real functions ---------------------------------------------------------------------- */

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_open_2)(const char *, int);
static int (*real_open64_2)(const char *, int);
static int (*real_openat_2)(int, const char *, int);
static int (*real_openat64_2)(int, const char *, int);
static int (*real_creat)(const char *, mode_t);
static int (*real_creat64)(const char *, mode_t);
static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_close)(int);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_pwritev64v2)(int, const struct iovec *, int, off64_t, int);
static int (*real_uring_submit)(struct io_uring *);
static int (*real_uring_submit_and_wait)(struct io_uring *, unsigned);
static int (*real_uring_submit_and_wait_timeout)(struct io_uring *, struct io_uring_cqe **, unsigned,
						 struct __kernel_timespec *, sigset_t *);
static int (*real_io_submit)(aio_context_t, long, struct iocb **);

/* ---- configuration and counters -------------------------------------------------------------- */

static uint32_t page_size;
static char **patterns;
static unsigned int nr_patterns;
static struct awr_preload_stats local_stats;
static struct awr_preload_stats *stats = &local_stats;	/* the mapped AWR_PRELOAD_STATS file, if named */
static bool stats_shared;	/* the counters of a parent that runs under the preload too */
static __thread int inside;	/* the library's own calls pass straight through */
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define COUNT(field) atomic_fetch_add_explicit((_Atomic uint64_t *)&stats->field, 1, memory_order_relaxed)

/* ---- descriptor states: two levels, 1024 descriptors a chunk, made on first use ---------------- */

#define FD_NAMED	0x1	/* a file AWR_PRELOAD_FILES names, checked at open */
#define FD_DIRECT	0x2	/* O_DIRECT */
#define FD_CHUNK	1024
#define FD_CHUNKS	4096	/* descriptors below 4 Mi */

static _Atomic(_Atomic uint8_t *) fd_chunks[FD_CHUNKS];

static _Atomic uint8_t *fd_slot(int fd, bool make)
{
	_Atomic uint8_t *c, *fresh = NULL;

	if (fd < 0 || fd / FD_CHUNK >= FD_CHUNKS)
		return NULL;
	c = atomic_load_explicit(&fd_chunks[fd / FD_CHUNK], memory_order_acquire);
	if (!c && make) {
		fresh = calloc(FD_CHUNK, 1);
		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong(&fd_chunks[fd / FD_CHUNK], &c, fresh))
			c = fresh;
		else
			free(fresh);	/* another thread made it: c is that one */
	}
	return c ? &c[fd % FD_CHUNK] : NULL;
}

static uint8_t fd_get(int fd)
{
	_Atomic uint8_t *s = fd_slot(fd, false);

	return s ? atomic_load_explicit(s, memory_order_relaxed) : 0;
}

static void fd_put(int fd, uint8_t v)
{
	_Atomic uint8_t *s = fd_slot(fd, v != 0);

	if (s)
		atomic_store_explicit(s, v, memory_order_relaxed);
}

/* ---- messages (async-signal-safe: the report is also written from a signal handler) ----------- */

static void put(char *buf, size_t *n, size_t cap, const char *s)
{
	while (*s && *n + 1 < cap)
		buf[(*n)++] = *s++;
}

static void put_u64(char *buf, size_t *n, size_t cap, uint64_t v)
{
	char d[24];
	int i = 0;

	do
		d[i++] = (char)('0' + v % 10);
	while ((v /= 10) && i < 23);
	while (i && *n + 1 < cap)
		buf[(*n)++] = d[--i];
}

static void report(void)
{
	const struct awr_preload_stats *s = stats;
	uint64_t atomic = s->atomic_pwrite + s->atomic_uring + s->atomic_aio;
	uint64_t plain = s->plain_size + s->plain_misaligned + s->plain_buffered + s->plain_segments +
			 s->plain_position;
	char b[768];
	size_t n = 0;

	if (!nr_patterns || stats_shared || (!s->files_named && !atomic && !plain && !s->uring_fixed_files))
		return;
	put(b, &n, sizeof(b), "libatomicwr-preload: pid ");
	put_u64(b, &n, sizeof(b), (uint64_t)getpid());
	put(b, &n, sizeof(b), ": ");
	put_u64(b, &n, sizeof(b), atomic);
	put(b, &n, sizeof(b), " page writes made atomic (pwrite ");
	put_u64(b, &n, sizeof(b), s->atomic_pwrite);
	put(b, &n, sizeof(b), ", io_uring ");
	put_u64(b, &n, sizeof(b), s->atomic_uring);
	put(b, &n, sizeof(b), ", libaio ");
	put_u64(b, &n, sizeof(b), s->atomic_aio);
	put(b, &n, sizeof(b), ") to ");
	put_u64(b, &n, sizeof(b), s->files_named);
	put(b, &n, sizeof(b), " named file opens; ");
	put_u64(b, &n, sizeof(b), plain);
	put(b, &n, sizeof(b), " writes to them left as they were (not one page ");
	put_u64(b, &n, sizeof(b), s->plain_size);
	put(b, &n, sizeof(b), ", not page-aligned ");
	put_u64(b, &n, sizeof(b), s->plain_misaligned);
	put(b, &n, sizeof(b), ", buffered ");
	put_u64(b, &n, sizeof(b), s->plain_buffered);
	put(b, &n, sizeof(b), ", several iovecs ");
	put_u64(b, &n, sizeof(b), s->plain_segments);
	put(b, &n, sizeof(b), ", at the file position ");
	put_u64(b, &n, sizeof(b), s->plain_position);
	put(b, &n, sizeof(b), "); refused by the kernel ");
	put_u64(b, &n, sizeof(b), s->refused);
	if (s->uring_fixed_files) {
		put(b, &n, sizeof(b), "; io_uring writes to registered files, not looked at: ");
		put_u64(b, &n, sizeof(b), s->uring_fixed_files);
	}
	put(b, &n, sizeof(b), "\n");
	if (write(STDERR_FILENO, b, n) < 0)
		return;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(b) - 2)
		n = sizeof(b) - 2;
	b[n++] = '\n';
	if (write(STDERR_FILENO, b, (size_t)n) < 0)
		return;
}

/* ---- a named file: matched by its path, checked by the library's rules ------------------------- */

static bool named(const char *abs)
{
	for (unsigned int i = 0; i < nr_patterns; i++)
		if (!fnmatch(patterns[i], abs, 0))
			return true;
	return false;
}

/* Can @fd take RWF_ATOMIC writes of one page? 0, or the errno the kernel would give (and @why). */
static int check_fd(int fd, char *why, size_t len)
{
	struct awr_write_plan plan = { .offset = 0, .length = page_size, .nr_segs = 1,
				       .open_flags = O_RDWR | O_DIRECT };
	struct awr_probe *p;
	struct awr_verdict v;
	int ret;

	ret = awr_probe_fd(fd, AWR_PROBE_NO_DEVICE, &p);
	if (ret) {
		snprintf(why, len, "it cannot be examined: %s", strerror(-ret));
		return -ret;
	}
	ret = awr_check(awr_probe_effective(p), &plan, &v);
	if (ret)
		snprintf(why, len, "%s (rule %s)", v.message, awr_rule_name(v.rule));
	awr_probe_free(p);
	return -ret;
}

/* After an open of @fd with @flags: name it when a pattern matches; refuse what cannot take atomics. */
static int track(int fd, int flags)
{
	char link[64], abs[4096], why[320];
	struct stat st;
	ssize_t n;
	int err;

	if (fd < 0)
		return fd;
	fd_put(fd, 0);
	if (!nr_patterns || (flags & O_ACCMODE) == O_RDONLY || inside)
		return fd;
	inside++;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, abs, sizeof(abs) - 1);
	if (n <= 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		inside--;
		return fd;
	}
	abs[n] = '\0';
	if (!named(abs)) {
		inside--;
		return fd;
	}
	err = check_fd(fd, why, sizeof(why));
	inside--;
	if (err) {
		say("libatomicwr-preload: %s cannot take atomic writes of %u bytes: %s; not opened (EOPNOTSUPP). "
		    "Name only files that can (awr probe %s), or set AWR_PRELOAD_PAGE_SIZE to a size they take",
		    abs, page_size, why, abs);
		COUNT(files_refused);
		real_close(fd);
		errno = EOPNOTSUPP;
		return -1;
	}
	COUNT(files_named);
	fd_put(fd, FD_NAMED | ((flags & O_DIRECT) ? FD_DIRECT : 0));
	return fd;
}

/* ---- start: configuration, the files that exist, the report at exit ------------------------------ */

static void on_signal(int sig)
{
	report();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A signal whose default ends the program gets the report first, unless the program handles it. */
static void catch_default(int sig)
{
	struct sigaction old, sa = { .sa_handler = on_signal };

	if (sigaction(sig, NULL, &old) || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
		return;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	sigaction(sig, &sa, NULL);
}

static void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void refuse(const char *fmt, ...)
{
	char b[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	say("libatomicwr-preload: %s", b);
	_exit(EX_CONFIG_REFUSED);
}

/*
 * The counters in the file @path names (%p: this process's id), made anew, unless this process
 * was started by a program under the preload that made that file (AWR_PRELOAD_STATS_OWNER, set
 * here and inherited): then its counters are shared, and the writes of both are counted in them.
 * (A child that started over would zero the file under its parent: MariaDB starts addr2line when
 * it dies of an I/O error.)
 */
static void map_stats(const char *path)
{
	const char *owner = getenv("AWR_PRELOAD_STATS_OWNER");
	char p[4096], id[24];
	size_t n = 0;
	void *m;
	int fd = -1;

	for (const char *s = path; *s && n + 24 < sizeof(p); s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(p + n, sizeof(p) - n, "%d", (int)getpid());
			s++;
		} else {
			p[n++] = *s;
		}
	}
	p[n] = '\0';
	if (owner && atoi(owner) != (int)getpid() && !strstr(path, "%p")) {
		struct awr_preload_stats old;

		if (!awr_preload_stats_read(p, &old)) {
			fd = real_open(p, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
			stats_shared = fd >= 0;
		}
	}
	if (fd < 0)
		fd = real_open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		refuse("AWR_PRELOAD_STATS=%s: cannot create it: %s (name a file in a writable directory)", p,
		       strerror(errno));
	if (!stats_shared && ftruncate(fd, sizeof(struct awr_preload_stats)))
		refuse("AWR_PRELOAD_STATS=%s: %s", p, strerror(errno));
	m = mmap(NULL, sizeof(struct awr_preload_stats), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	real_close(fd);
	if (m == MAP_FAILED)
		refuse("AWR_PRELOAD_STATS=%s: cannot map it: %s", p, strerror(errno));
	stats = m;
	if (!stats_shared) {
		snprintf(id, sizeof(id), "%d", (int)getpid());
		setenv("AWR_PRELOAD_STATS_OWNER", id, 1);
	}
}

static void check_existing(void)
{
	char why[320];
	glob_t g;
	int fd;

	for (unsigned int i = 0; i < nr_patterns; i++) {
		if (glob(patterns[i], GLOB_NOSORT, NULL, &g))
			continue;
		for (size_t j = 0; j < g.gl_pathc; j++) {
			struct stat st;

			if (stat(g.gl_pathv[j], &st) || !S_ISREG(st.st_mode))
				continue;
			fd = real_open(g.gl_pathv[j], O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			if (check_fd(fd, why, sizeof(why)))
				refuse("%s cannot take atomic writes of %u bytes: %s. Not run: name only files that "
				       "can (awr probe %s), or set AWR_PRELOAD_PAGE_SIZE to a size they take",
				       g.gl_pathv[j], page_size, why, g.gl_pathv[j]);
			real_close(fd);
		}
		globfree(&g);
	}
}

#define REAL(name) real_##name = dlsym(RTLD_NEXT, #name)

static void init(void)
{
	const char *files = getenv("AWR_PRELOAD_FILES"), *ps = getenv("AWR_PRELOAD_PAGE_SIZE");
	const char *st = getenv("AWR_PRELOAD_STATS");
	uint64_t v = 0;
	char *copy, *tok, *save;

	inside++;
	REAL(open); REAL(open64); REAL(openat); REAL(openat64);
	real_open_2 = dlsym(RTLD_NEXT, "__open_2");
	real_open64_2 = dlsym(RTLD_NEXT, "__open64_2");
	real_openat_2 = dlsym(RTLD_NEXT, "__openat_2");
	real_openat64_2 = dlsym(RTLD_NEXT, "__openat64_2");
	REAL(creat); REAL(creat64); REAL(fcntl); REAL(fcntl64); REAL(dup); REAL(dup2); REAL(dup3); REAL(close);
	REAL(pwrite); REAL(pwrite64); REAL(pwritev); REAL(pwritev64); REAL(pwritev2); REAL(pwritev64v2);
	real_uring_submit = dlsym(RTLD_NEXT, "io_uring_submit");
	real_uring_submit_and_wait = dlsym(RTLD_NEXT, "io_uring_submit_and_wait");
	real_uring_submit_and_wait_timeout = dlsym(RTLD_NEXT, "io_uring_submit_and_wait_timeout");
	real_io_submit = dlsym(RTLD_NEXT, "io_submit");
	if (!files || !*files) {
		say("libatomicwr-preload: AWR_PRELOAD_FILES is not set: no file is named, every write goes down "
		    "as it was (set it to the data files' patterns, e.g. AWR_PRELOAD_FILES='/var/lib/mysql/*.ibd')");
		inside--;
		return;
	}
	if (!ps || awr_parse_size(ps, &v) || v < 512 || v > (1U << 20) || (v & (v - 1)))
		refuse("AWR_PRELOAD_PAGE_SIZE=%s: give the engine's page size, a power of two from 512 to 1M "
		       "(InnoDB: innodb_page_size, 16k by default)", ps && *ps ? ps : "(not set)");
	page_size = (uint32_t)v;
	copy = strdup(files);
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		if (tok[0] != '/')
			refuse("AWR_PRELOAD_FILES: '%s' is not an absolute pattern (patterns match the file's "
			       "absolute path, e.g. /var/lib/mysql/*.ibd; '*' also matches '/')", tok);
		patterns = realloc(patterns, (nr_patterns + 1) * sizeof(*patterns));
		patterns[nr_patterns++] = tok;
	}
	if (st && *st)
		map_stats(st);
	if (!stats_shared) {
		stats->version = AWR_PRELOAD_STATS_VERSION;
		stats->pid = (uint64_t)getpid();
		stats->page_size = page_size;
		memcpy(stats->magic, AWR_PRELOAD_STATS_MAGIC, sizeof(stats->magic));
	}
	check_existing();
	catch_default(SIGTERM);
	catch_default(SIGINT);
	catch_default(SIGHUP);
	inside--;
}

/* Before the first interposed call is served: init() once. Its own calls (the thread inside it) pass. */
static inline void ready(void)
{
	if (!inside)
		pthread_once(&once, init);
}

__attribute__((constructor)) static void preload_start(void)
{
	ready();
}

__attribute__((destructor)) static void preload_end(void)
{
	report();
}

/* ---- the open family -------------------------------------------------------------------------- */

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_FN(name, real)							\
int name(const char *path, int flags, ...)					\
{										\
	va_list ap;								\
	mode_t mode;								\
										\
	ready();								\
	va_start(ap, flags);							\
	mode = mode_arg(flags, ap);						\
	va_end(ap);								\
	return track(real(path, flags, mode), flags);				\
}
OPEN_FN(open, real_open)
OPEN_FN(open64, real_open64)

#define OPENAT_FN(name, real)							\
int name(int dirfd, const char *path, int flags, ...)				\
{										\
	va_list ap;								\
	mode_t mode;								\
										\
	ready();								\
	va_start(ap, flags);							\
	mode = mode_arg(flags, ap);						\
	va_end(ap);								\
	return track(real(dirfd, path, flags, mode), flags);			\
}
OPENAT_FN(openat, real_openat)
OPENAT_FN(openat64, real_openat64)

int __open_2(const char *path, int flags)
{
	ready();
	return track(real_open_2(path, flags), flags);
}

int __open64_2(const char *path, int flags)
{
	ready();
	return track(real_open64_2(path, flags), flags);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	ready();
	return track(real_openat_2(dirfd, path, flags), flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	ready();
	return track(real_openat64_2(dirfd, path, flags), flags);
}

int creat(const char *path, mode_t mode)
{
	ready();
	return track(real_creat(path, mode), O_WRONLY | O_CREAT | O_TRUNC);
}

int creat64(const char *path, mode_t mode)
{
	ready();
	return track(real_creat64(path, mode), O_WRONLY | O_CREAT | O_TRUNC);
}

/* ---- what changes a descriptor: fcntl, dup, close ---------------------------------------------- */

static int after_fcntl(int fd, int cmd, long arg, int ret)
{
	uint8_t s = fd_get(fd);

	if (ret < 0 || !s)
		return ret;
	if (cmd == F_SETFL)
		fd_put(fd, (uint8_t)((s & ~FD_DIRECT) | ((arg & O_DIRECT) ? FD_DIRECT : 0)));
	else if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		fd_put(ret, s);
	return ret;
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	ready();
	va_start(ap, cmd);
	arg = va_arg(ap, long);	/* every command's argument fits a long: an int, or a pointer */
	va_end(ap);
	return after_fcntl(fd, cmd, arg, real_fcntl(fd, cmd, arg));
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	ready();
	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return after_fcntl(fd, cmd, arg, (real_fcntl64 ? real_fcntl64 : real_fcntl)(fd, cmd, arg));
}

int dup(int fd)
{
	int ret;

	ready();
	ret = real_dup(fd);
	if (ret >= 0)
		fd_put(ret, fd_get(fd));
	return ret;
}

int dup2(int fd, int to)
{
	int ret;

	ready();
	ret = real_dup2(fd, to);
	if (ret >= 0 && ret != fd)
		fd_put(ret, fd_get(fd));
	return ret;
}

int dup3(int fd, int to, int flags)
{
	int ret;

	ready();
	ret = real_dup3(fd, to, flags);
	if (ret >= 0)
		fd_put(ret, fd_get(fd));
	return ret;
}

int close(int fd)
{
	ready();
	fd_put(fd, 0);
	return real_close(fd);
}

/* ---- one write: atomic, or left as it was and counted -------------------------------------------- */

/* Should a write of @len bytes at @off (-1: the file position) in @nr_segs iovecs be RWF_ATOMIC? */
static bool make_atomic(int fd, uint64_t len, int64_t off, unsigned int nr_segs)
{
	uint8_t s = fd_get(fd);

	if (!(s & FD_NAMED) || inside)
		return false;
	if (!(s & FD_DIRECT))
		COUNT(plain_buffered);
	else if (nr_segs != 1)
		COUNT(plain_segments);
	else if (len != page_size)
		COUNT(plain_size);
	else if (off < 0)
		COUNT(plain_position);
	else if ((uint64_t)off % page_size)
		COUNT(plain_misaligned);
	else
		return true;
	return false;
}

static ssize_t atomic_pwrite(int fd, const struct iovec *iov, int64_t off, int flags)
{
	ssize_t ret = (real_pwritev2 ? real_pwritev2 : real_pwritev64v2)(fd, iov, 1, (off_t)off,
									    flags | RWF_ATOMIC);

	if (ret < 0 && (errno == EINVAL || errno == EOPNOTSUPP))
		COUNT(refused);
	else if (ret >= 0)
		COUNT(atomic_pwrite);
	return ret;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	struct iovec iov = { (void *)buf, n };

	ready();
	if (make_atomic(fd, n, off, 1))
		return atomic_pwrite(fd, &iov, off, 0);
	return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	struct iovec iov = { (void *)buf, n };

	ready();
	if (make_atomic(fd, n, off, 1))
		return atomic_pwrite(fd, &iov, off, 0);
	return real_pwrite64(fd, buf, n, off);
}

static uint64_t iov_bytes(const struct iovec *iov, int cnt)
{
	uint64_t n = 0;

	for (int i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ready();
	if (cnt > 0 && make_atomic(fd, iov_bytes(iov, cnt), off, (unsigned int)cnt))
		return atomic_pwrite(fd, iov, off, 0);
	return real_pwritev(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	ready();
	if (cnt > 0 && make_atomic(fd, iov_bytes(iov, cnt), off, (unsigned int)cnt))
		return atomic_pwrite(fd, iov, off, 0);
	return real_pwritev64(fd, iov, cnt, off);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	ready();
	if (cnt > 0 && !(flags & RWF_ATOMIC) && make_atomic(fd, iov_bytes(iov, cnt), off, (unsigned int)cnt))
		return atomic_pwrite(fd, iov, off, flags);
	return real_pwritev2(fd, iov, cnt, off, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
	ready();
	if (cnt > 0 && !(flags & RWF_ATOMIC) && make_atomic(fd, iov_bytes(iov, cnt), off, (unsigned int)cnt))
		return atomic_pwrite(fd, iov, off, flags);
	return real_pwritev64v2(fd, iov, cnt, off, flags);
}

/* ---- io_uring: the SQEs queued since the last submit, before liburing publishes them ------------- */

static void uring_mark(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned int shift = (ring->flags & IORING_SETUP_SQE128) ? 1 : 0;

	if (!nr_patterns || inside)
		return;
	for (unsigned int h = sq->sqe_head; h != sq->sqe_tail; h++) {
		struct io_uring_sqe *sqe = &sq->sqes[(h & sq->ring_mask) << shift];
		uint64_t len;
		unsigned int segs = 1;

		switch (sqe->opcode) {
		case IORING_OP_WRITE:
		case IORING_OP_WRITE_FIXED:
			len = sqe->len;
			break;
		case IORING_OP_WRITEV: {
			const struct iovec *iov = (const struct iovec *)(uintptr_t)sqe->addr;

			segs = sqe->len;
			len = segs ? iov_bytes(iov, (int)segs) : 0;
			break;
		}
		default:
			continue;
		}
		if (sqe->flags & IOSQE_FIXED_FILE) {
			COUNT(uring_fixed_files);
			continue;
		}
		if (!(sqe->rw_flags & RWF_ATOMIC) &&
		    make_atomic(sqe->fd, len, (int64_t)sqe->off, segs)) {
			sqe->rw_flags |= RWF_ATOMIC;
			COUNT(atomic_uring);
		}
	}
}

int io_uring_submit(struct io_uring *ring)
{
	ready();
	uring_mark(ring);
	return real_uring_submit(ring);
}

int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
	ready();
	uring_mark(ring);
	return real_uring_submit_and_wait(ring, wait_nr);
}

int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe, unsigned wait_nr,
				     struct __kernel_timespec *ts, sigset_t *sigmask)
{
	ready();
	uring_mark(ring);
	return real_uring_submit_and_wait_timeout(ring, cqe, wait_nr, ts, sigmask);
}

/* ---- libaio: io_submit's iocbs (the kernel's struct iocb, which libaio's mirrors) ------------------ */

int io_submit(aio_context_t ctx, long nr, struct iocb **ios)
{
	ready();
	for (long i = 0; nr_patterns && !inside && ios && i < nr; i++) {
		struct iocb *cb = ios[i];
		uint64_t len;
		unsigned int segs = 1;

		if (cb->aio_lio_opcode == IOCB_CMD_PWRITE) {
			len = cb->aio_nbytes;
		} else if (cb->aio_lio_opcode == IOCB_CMD_PWRITEV) {
			segs = (unsigned int)cb->aio_nbytes;
			len = iov_bytes((const struct iovec *)(uintptr_t)cb->aio_buf, (int)segs);
		} else {
			continue;
		}
		if (!(cb->aio_rw_flags & RWF_ATOMIC) && make_atomic((int)cb->aio_fildes, len, cb->aio_offset, segs)) {
			cb->aio_rw_flags |= RWF_ATOMIC;
			COUNT(atomic_aio);
		}
	}
	if (!real_io_submit) {
		errno = ENOSYS;
		return -ENOSYS;
	}
	return real_io_submit(ctx, nr, ios);
}
