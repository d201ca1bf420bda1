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
 * What a write relies on is looked at again at the write, by two cheap calls:
 * the descriptor is still the file that was named (fstat: it may have been
 * closed behind the preload's back and the number given to another file), and
 * its open file description has O_DIRECT and no O_APPEND (F_GETFL: a dup()'s
 * F_SETFL changes it for both numbers). The preload never hurts the program:
 * what it cannot judge passes through unchanged, and in a set-user-ID or
 * set-group-ID program (AT_SECURE) everything does.
 */
#undef _FILE_OFFSET_BITS	/* pwrite and pwrite64 are both defined here */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <liburing.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compat.h"
#include "libatomicwr.h"
#include "preload.h"
#include "database/preload_names.h"

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
static void (*real_closefrom)(int);
static int (*real_fclose)(FILE *);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_pwritev64v2)(int, const struct iovec *, int, off64_t, int);
static int (*real_uring_submit)(struct io_uring *);
static int (*real_uring_submit_and_wait)(struct io_uring *, unsigned);
static int (*real_uring_submit_and_wait_timeout)(struct io_uring *, struct io_uring_cqe **,
						 unsigned, struct __kernel_timespec *, sigset_t *);
static int (*real_uring_submit_and_get_events)(struct io_uring *);
static int (*real_io_submit)(aio_context_t, long, struct iocb **);

/* ---- configuration and counters -------------------------------------------------------------- */

static uint32_t page_size;
static struct awr__names names;	/* AWR_PRELOAD_FILES (preload_names.c: db.c reads it alike) */
static struct awr_preload_stats local_stats;
/* the mapped AWR_PRELOAD_STATS file, if named */
static struct awr_preload_stats *stats = &local_stats;
static bool stats_shared;	/* the counters of a parent that runs under the preload too */
static int stats_lock_fd = -1;	/* holds the writer's lock on the counters file (stats_file.c) */
static __thread int inside;	/* the library's own calls pass straight through */
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define COUNT(field)                                                                               \
	atomic_fetch_add_explicit((_Atomic uint64_t *)&stats->field, 1, memory_order_relaxed)

/*
 * The environment as glibc's secure_getenv() reads it: nothing in a set-user-ID or set-group-ID
 * program (AT_SECURE), whose environment is its unprivileged caller's (the dynamic loader drops
 * LD_PRELOAD paths there for the same reason: elf/dl-support.c, _dl_non_dynamic_init()).
 */
static const char *env(const char *name)
{
	return secure_getenv(name);
}

/* ---- descriptor states: two levels, 1024 descriptors a chunk, made on first use -------------- */

#define FD_CHUNK	1024
#define FD_CHUNKS	4096	/* descriptors below 4 Mi */

/* A named descriptor: the file it was opened on, checked again at each write (fd_still()) */
struct fd_state {
	_Atomic uint8_t named;	/* set last (release), after dev and ino */
	dev_t dev;
	ino_t ino;
};

static _Atomic(struct fd_state *) fd_chunks[FD_CHUNKS];

static struct fd_state *fd_slot(int fd, bool make)
{
	struct fd_state *c, *fresh = NULL;

	if (fd < 0 || fd / FD_CHUNK >= FD_CHUNKS)
		return NULL;
	c = atomic_load_explicit(&fd_chunks[fd / FD_CHUNK], memory_order_acquire);
	if (!c && make) {
		fresh = calloc(FD_CHUNK, sizeof(*fresh));
		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong(&fd_chunks[fd / FD_CHUNK], &c, fresh))
			c = fresh;
		else
			free(fresh);	/* another thread made it: c is that one */
	}
	return c ? &c[fd % FD_CHUNK] : NULL;
}

static void fd_forget(int fd)
{
	struct fd_state *s = fd_slot(fd, false);

	if (s)
		atomic_store_explicit(&s->named, 0, memory_order_release);
}

static void fd_name(int fd, dev_t dev, ino_t ino)
{
	struct fd_state *s = fd_slot(fd, true);

	if (!s)
		return;
	s->dev = dev;
	s->ino = ino;
	atomic_store_explicit(&s->named, 1, memory_order_release);
}

/* dup(), dup2(), dup3(), F_DUPFD: @to is @from's open file description, named or not */
static void fd_copy(int from, int to)
{
	struct fd_state *s = fd_slot(from, false);

	if (s && atomic_load_explicit(&s->named, memory_order_acquire))
		fd_name(to, s->dev, s->ino);
	else
		fd_forget(to);
}

/* Descriptors @first to @last closed (close_range(), closefrom()): their chunks that exist. */
static void fd_forget_range(unsigned int first, unsigned int last)
{
	for (unsigned int c = first / FD_CHUNK; c < FD_CHUNKS && c <= last / FD_CHUNK; c++) {
		struct fd_state *s = atomic_load_explicit(&fd_chunks[c], memory_order_acquire);

		for (unsigned int i = 0; s && i < FD_CHUNK; i++)
			if (c * FD_CHUNK + i >= first && c * FD_CHUNK + i <= last)
				atomic_store_explicit(&s[i].named, 0, memory_order_release);
	}
}

/*
 * Is @fd still the named file it was (the number may have been closed where the preload does
 * not see it: a raw close system call, and given to another file by a path it does not see
 * either: fopen)? Return its open file description's flags (F_GETFL, where O_DIRECT and
 * O_APPEND live, shared with every dup), or -1: not named, or no longer.
 */
static int fd_still(int fd)
{
	struct fd_state *s = fd_slot(fd, false);
	struct stat st;

	if (!s || !atomic_load_explicit(&s->named, memory_order_acquire))
		return -1;
	if (fstat(fd, &st) || st.st_dev != s->dev || st.st_ino != s->ino) {
		atomic_store_explicit(&s->named, 0, memory_order_release);
		return -1;
	}
	return real_fcntl(fd, F_GETFL, 0);
}

/* ---- messages (async-signal-safe: the report is also written from a signal handler) ---------- */

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

/* put(), then the counter @v */
static void put_n(char *buf, size_t *n, size_t cap, const char *s, uint64_t v)
{
	put(buf, n, cap, s);
	put_u64(buf, n, cap, v);
}

static void report(void)
{
	const struct awr_preload_stats *s = stats;
	uint64_t atomic = s->atomic_pwrite + s->atomic_uring + s->atomic_aio;
	uint64_t plain = s->plain_size + s->plain_misaligned + s->plain_buffered +
			 s->plain_segments + s->plain_position + s->plain_append;
	char b[896];
	size_t n = 0;

	if (!names.nr || stats_shared ||
	    (!s->files_named && !atomic && !plain && !s->uring_fixed_files))
		return;
	put_n(b, &n, sizeof(b), "libatomicwr-preload: pid ", (uint64_t)getpid());
	put_n(b, &n, sizeof(b), ": ", atomic);
	put_n(b, &n, sizeof(b), " page writes made atomic (pwrite ", s->atomic_pwrite);
	put_n(b, &n, sizeof(b), ", io_uring ", s->atomic_uring);
	put_n(b, &n, sizeof(b), ", libaio ", s->atomic_aio);
	put_n(b, &n, sizeof(b), "; ", s->split_pwrite);
	put_n(b, &n, sizeof(b), " writes of several pages split) to ", s->files_named);
	put_n(b, &n, sizeof(b), " named file opens; ", plain);
	put_n(b, &n, sizeof(b), " writes to them left as they were (not whole pages ",
	      s->plain_size);
	put_n(b, &n, sizeof(b), ", not page-aligned ", s->plain_misaligned);
	put_n(b, &n, sizeof(b), ", buffered ", s->plain_buffered);
	put_n(b, &n, sizeof(b), ", a page across iovecs ", s->plain_segments);
	put_n(b, &n, sizeof(b), ", at the file position ", s->plain_position);
	put_n(b, &n, sizeof(b), ", appending ", s->plain_append);
	put_n(b, &n, sizeof(b), "); refused by the kernel ", s->refused);
	if (s->uring_fixed_files)
		put_n(b, &n, sizeof(b), "; io_uring writes to registered files, not looked at: ",
		      s->uring_fixed_files);
	put(b, &n, sizeof(b), "\n");
	if (write(STDERR_FILENO, b, n) < 0)
		return;
}

void awr__preload_say(const char *fmt, ...)
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

void awr__preload_refuse(const char *fmt, ...)
{
	char b[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	awr__preload_say("libatomicwr-preload: %s", b);
	_exit(EX_CONFIG_REFUSED);
}

#define say awr__preload_say
#define refuse awr__preload_refuse

/* ---- a named file: matched by its path, checked by the library's rules ----------------------- */

/* @fd's path as /proc/self/fd shows it (symlinks resolved): false when it has none */
static bool fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	if (n <= 0 || buf[0] != '/')
		return false;
	buf[n] = '\0';
	return true;
}

/* "//" and "/./" made "/", as the kernel's path walk reads them (walk_component()) */
static void squash(char *p)
{
	char *w = p;

	for (char *r = p; *r;) {
		if (r[0] == '/' && r[1] == '/')
			r++;
		else if (r[0] == '/' && r[1] == '.' && (r[2] == '/' || !r[2]))
			r += 2;
		else
			*w++ = *r++;
	}
	if (w == p)
		*w++ = '/';
	*w = '\0';
}

/*
 * The path the program gave, made absolute: a relative one joined to the working directory
 * (open) or to @dirfd's directory (openat), where the kernel's walk starts (path_init()).
 */
static bool given_path(int dirfd, const char *path, char *buf, size_t len)
{
	size_t n = 0;

	if (path[0] != '/') {
		if (dirfd == AT_FDCWD ? !getcwd(buf, len) || buf[0] != '/'
				      : !fd_path(dirfd, buf, len))
			return false;
		n = strlen(buf);
	}
	if ((size_t)snprintf(buf + n, len - n, "%s%s", n ? "/" : "", path) >= len - n)
		return false;
	squash(buf);
	return true;
}

/*
 * Is @fd named? A pattern matches the path the program gave (@path from @dirfd; NULL: none)
 * or the path the file resolves to (/proc/self/fd): a data directory reached through a
 * symlink is named either way.
 */
static bool is_named(int fd, int dirfd, const char *path)
{
	char buf[PATH_MAX];

	if (path && given_path(dirfd, path, buf, sizeof(buf)) && awr__names_match(&names, buf))
		return true;
	return fd_path(fd, buf, sizeof(buf)) && awr__names_match(&names, buf);
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

/*
 * @fd, open for writing with @flags: named or not (0), or named and unable to take atomic
 * writes of a page (the errno, @why saying so, @abs the file).
 */
static int consider(int fd, int flags, int dirfd, const char *path, char *abs, size_t len,
		    char *why, size_t why_len)
{
	struct stat st;
	int err;

	if (!names.nr || (flags & O_ACCMODE) == O_RDONLY)
		return 0;
	inside++;
	err = fstat(fd, &st) || !S_ISREG(st.st_mode) || !is_named(fd, dirfd, path) ? -1 : 0;
	if (!err && !fd_path(fd, abs, len))
		snprintf(abs, len, "descriptor %d", fd);
	if (!err)
		err = check_fd(fd, why, why_len);
	inside--;
	if (err < 0)
		return 0;
	if (err)
		return err;
	COUNT(files_named);
	fd_name(fd, st.st_dev, st.st_ino);
	return 0;
}

/* After an open of @fd with @flags: name it when a pattern matches; refuse what cannot take
 * atomics. */
static int track(int fd, int flags, int dirfd, const char *path)
{
	char abs[PATH_MAX], why[320];
	int err;

	if (fd < 0)
		return fd;
	fd_forget(fd);
	if (inside)
		return fd;	/* the library's own open */
	if ((flags & O_TMPFILE) == O_TMPFILE)
		path = NULL;		/* the path given is the directory */
	err = consider(fd, flags, dirfd, path, abs, sizeof(abs), why, sizeof(why));
	if (!err)
		return fd;
	say("libatomicwr-preload: %s cannot take atomic writes of %u bytes: %s; not opened "
	    "(EOPNOTSUPP). Name only files that can (awr probe %s), or set AWR_PRELOAD_PAGE_SIZE "
	    "to a size they take",
	    abs, page_size, why, abs);
	COUNT(files_refused);
	real_close(fd);
	errno = EOPNOTSUPP;
	return -1;
}

/* ---- start: configuration, the files that exist, the report at exit -------------------------- */

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

static void refuse_file(const char *path, const char *why)
{
	refuse("%s cannot take atomic writes of %u bytes: %s. Not run: name only files that can "
	       "(awr probe %s), or set AWR_PRELOAD_PAGE_SIZE to a size they take",
	       path, page_size, why, path);
}

#define WALK_DEPTH	16		/* directories below a pattern's literal directory */
#define WALK_ENTRIES	200000		/* entries looked at, for all patterns */

static unsigned long walked;

/* One entry of the walk: a regular file (or a symlink to one) a pattern names is checked. */
static int check_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	char why[320], real[PATH_MAX];
	struct stat st = *sb;
	int fd;

	if (++walked > WALK_ENTRIES)
		return FTW_STOP;
	if (type == FTW_D)
		return ftw->level >= WALK_DEPTH ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if ((type != FTW_F && type != FTW_SL) || (type == FTW_SL && stat(path, &st)) ||
	    !S_ISREG(st.st_mode))
		return FTW_CONTINUE;	/* a FIFO, a device, a dangling link: never opened */
	if (!awr__names_match(&names, path) &&
	    !(type == FTW_SL && realpath(path, real) && awr__names_match(&names, real)))
		return FTW_CONTINUE;
	fd = real_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return FTW_CONTINUE;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && check_fd(fd, why, sizeof(why)))
		refuse_file(path, why);
	real_close(fd);
	return FTW_CONTINUE;
}

/*
 * The files that exist and a pattern names, checked at start as at open: each pattern's
 * literal directory walked (nftw(3) from where it resolves to, not following symlinks below it,
 * not leaving its filesystem), every regular file matched with the same fnmatch rule ('*'
 * crosses '/') against the patterns as given and resolved (preload_names.c).
 */
static void check_existing(void)
{
	char dir[PATH_MAX], real[PATH_MAX], prev[PATH_MAX] = "";

	for (unsigned int i = 0; i < names.nr_given && walked <= WALK_ENTRIES; i++) {
		awr__names_dir(&names, i, dir, sizeof(dir));
		if (!realpath(dir, real) || !strcmp(real, prev))
			continue;	/* the walk starts where the literal directory leads */
		snprintf(prev, sizeof(prev), "%s", real);
		nftw(real, check_entry, 16, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	}
	if (walked > WALK_ENTRIES)
		say("libatomicwr-preload: the check at start stopped after %u entries; the files "
		    "beyond are checked when they are opened", WALK_ENTRIES);
}

/*
 * Descriptors this process inherited (an exec'd child of a program under the preload gets its
 * named descriptors, not its states): each one open for writing looked at as if opened now.
 */
static void adopt_inherited(void)
{
	char abs[PATH_MAX], why[320];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		int fd = atoi(e->d_name), fl;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d))
			continue;
		fl = real_fcntl(fd, F_GETFL, 0);
		if (fl >= 0 && consider(fd, fl, AT_FDCWD, NULL, abs, sizeof(abs), why, sizeof(why)))
			refuse_file(abs, why);
	}
	if (d)
		closedir(d);
}

static void map_stats(const char *path)
{
	const char *owner = env("AWR_PRELOAD_STATS_OWNER");
	struct awr_preload_stats *m;
	bool fresh = true;
	char id[24];

	m = path && *path ? awr__stats_map(path, owner, &stats_shared, &fresh, &stats_lock_fd)
			  : NULL;
	if (m)
		stats = m;
	if (fresh) {
		stats->version = AWR_PRELOAD_STATS_VERSION;
		stats->pid = (uint64_t)getpid();
		stats->page_size = page_size;
		memcpy(stats->magic, AWR_PRELOAD_STATS_MAGIC, sizeof(stats->magic));
	}
	if (m && !stats_shared) {
		snprintf(id, sizeof(id), "%d", (int)getpid());
		setenv("AWR_PRELOAD_STATS_OWNER", id, 1);
	}
}

#define REAL(name) real_##name = dlsym(RTLD_NEXT, #name)

static void find_real(void)
{
	REAL(open); REAL(open64); REAL(openat); REAL(openat64);
	real_open_2 = dlsym(RTLD_NEXT, "__open_2");
	real_open64_2 = dlsym(RTLD_NEXT, "__open64_2");
	real_openat_2 = dlsym(RTLD_NEXT, "__openat_2");
	real_openat64_2 = dlsym(RTLD_NEXT, "__openat64_2");
	REAL(creat);
	REAL(creat64);
	REAL(fcntl);
	REAL(fcntl64);
	REAL(dup);
	REAL(dup2);
	REAL(dup3);
	REAL(close);
	REAL(closefrom); REAL(fclose);
	REAL(pwrite);
	REAL(pwrite64);
	REAL(pwritev);
	REAL(pwritev64);
	REAL(pwritev2);
	REAL(pwritev64v2);
	real_uring_submit = dlsym(RTLD_NEXT, "io_uring_submit");
	real_uring_submit_and_wait = dlsym(RTLD_NEXT, "io_uring_submit_and_wait");
	real_uring_submit_and_wait_timeout = dlsym(RTLD_NEXT, "io_uring_submit_and_wait_timeout");
	real_uring_submit_and_get_events = dlsym(RTLD_NEXT, "io_uring_submit_and_get_events");
	real_io_submit = dlsym(RTLD_NEXT, "io_submit");
}

/* AWR_PRELOAD_FILES and AWR_PRELOAD_PAGE_SIZE; false: nothing named, every call passes through */
static bool configure(void)
{
	const char *files = env("AWR_PRELOAD_FILES"), *ps = env("AWR_PRELOAD_PAGE_SIZE");
	char why[512];
	uint64_t v = 0;
	int ret;

	ret = awr__names_parse(files, &names, why, sizeof(why));
	if (ret == -ENOENT && (!files || !*files))
		say("libatomicwr-preload: AWR_PRELOAD_FILES is not set: no file is named, every "
		    "write goes down as it was (set it to the data files' patterns, e.g. "
		    "AWR_PRELOAD_FILES='/var/lib/mysql/*.ibd')");
	else if (ret == -ENOENT)
		say("libatomicwr-preload: AWR_PRELOAD_FILES: %s; every write goes down as it was",
		    why);
	else if (ret)
		refuse("AWR_PRELOAD_FILES: %s", why);
	if (ret)
		return false;
	if (!ps || awr_parse_size(ps, &v) || v < 512 || v > (1U << 20) || (v & (v - 1)))
		refuse("AWR_PRELOAD_PAGE_SIZE=%s: give the engine's page size, a power of two from "
		       "512 to 1M (InnoDB: innodb_page_size, 16k by default)",
		       ps && *ps ? ps : "(not set)");
	page_size = (uint32_t)v;
	return true;
}

static void init(void)
{
	inside++;
	find_real();
	/* set-user-ID or set-group-ID: nothing but the calls passed through (no file, no
	 * refusal) */
	if (getauxval(AT_SECURE) || !configure()) {
		inside--;
		return;
	}
	map_stats(env("AWR_PRELOAD_STATS"));
	check_existing();
	adopt_inherited();
	catch_default(SIGTERM);
	catch_default(SIGINT);
	catch_default(SIGHUP);
	inside--;
}

/* Before the first interposed call is served: init() once. Its own calls (the thread inside it)
 * pass. */
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

/* ---- the open family ------------------------------------------------------------------------- */

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
	return track(real(path, flags, mode), flags, AT_FDCWD, path);		\
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
	return track(real(dirfd, path, flags, mode), flags, dirfd, path);	\
}
OPENAT_FN(openat, real_openat)
OPENAT_FN(openat64, real_openat64)

int __open_2(const char *path, int flags)
{
	ready();
	return track(real_open_2(path, flags), flags, AT_FDCWD, path);
}

int __open64_2(const char *path, int flags)
{
	ready();
	return track(real_open64_2(path, flags), flags, AT_FDCWD, path);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	ready();
	return track(real_openat_2(dirfd, path, flags), flags, dirfd, path);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	ready();
	return track(real_openat64_2(dirfd, path, flags), flags, dirfd, path);
}

int creat(const char *path, mode_t mode)
{
	ready();
	return track(real_creat(path, mode), O_WRONLY | O_CREAT | O_TRUNC, AT_FDCWD, path);
}

int creat64(const char *path, mode_t mode)
{
	ready();
	return track(real_creat64(path, mode), O_WRONLY | O_CREAT | O_TRUNC, AT_FDCWD, path);
}

/* ---- what changes a descriptor: fcntl, dup, the close family --------------------------------- */

/*
 * F_SETFL giving O_DIRECT to a descriptor the preload has not named: it may have been opened
 * where the preload does not see (fopen(3), a raw system call), so it is looked at now. It is
 * only named or not: a file that cannot take atomic writes is left as it is (no refusal
 * mid-run). Whether a named descriptor has O_DIRECT is read at each write (fd_still()).
 */
static void setfl(int fd, long arg)
{
	char abs[PATH_MAX], why[320];
	int fl;

	if (!(arg & O_DIRECT) || fd_still(fd) >= 0)
		return;
	fl = real_fcntl(fd, F_GETFL, 0);
	if (fl >= 0)
		consider(fd, fl, AT_FDCWD, NULL, abs, sizeof(abs), why, sizeof(why));
}

static int after_fcntl(int fd, int cmd, long arg, int ret)
{
	if (ret < 0 || inside)
		return ret;
	if (cmd == F_SETFL)
		setfl(fd, arg);
	else if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		fd_copy(fd, ret);
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
		fd_copy(fd, ret);
	return ret;
}

int dup2(int fd, int to)
{
	int ret;

	ready();
	ret = real_dup2(fd, to);
	if (ret >= 0 && ret != fd)
		fd_copy(fd, ret);
	return ret;
}

int dup3(int fd, int to, int flags)
{
	int ret;

	ready();
	ret = real_dup3(fd, to, flags);
	if (ret >= 0)
		fd_copy(fd, ret);
	return ret;
}

/* The states go before the numbers do: a number closed here may be reused by another thread. */
int close(int fd)
{
	ready();
	fd_forget(fd);
	return real_close(fd);
}

int fclose(FILE *f)
{
	ready();
	if (f)
		fd_forget(fileno(f));
	return real_fclose(f);
}

/*
 * close_range() and closefrom() (daemons close what they inherited) leave the counters file's
 * lock descriptor open: closed, its lock would go and a second program could take the file.
 * A program that closes it by number (close(), dup2() over it) loses only that lock.
 */
static int close_span(unsigned int first, unsigned int last, int flags)
{
	unsigned int lk = (unsigned int)stats_lock_fd;
	int ret = 0;

	if (!(flags & CLOSE_RANGE_CLOEXEC))
		fd_forget_range(first, last);
	if (stats_lock_fd < 0 || lk < first || lk > last)
		return (int)syscall(SYS_close_range, first, last, flags);
	if (lk > first)
		ret = (int)syscall(SYS_close_range, first, lk - 1, flags);
	if (!ret && lk < last)
		ret = (int)syscall(SYS_close_range, lk + 1, last, flags);
	return ret;
}

int close_range(unsigned int first, unsigned int last, int flags)
{
	ready();
	return close_span(first, last, flags);
}

void closefrom(int low)
{
	ready();
	if (low < 0)
		low = 0;
	if (close_span((unsigned int)low, ~0U, 0) && real_closefrom)
		real_closefrom(low);	/* no close_range (before Linux 5.9): glibc's own way */
}

/* ---- one write: atomic, or left as it was and counted ---------------------------------------- */

/*
 * Is @fd a named descriptor a write with the RWF_ flags @rwf may be made atomic on? Counted
 * with why when not. An appending write (O_APPEND, RWF_APPEND) lands at the end of the file,
 * not at its offset (generic_write_checks_count()): never made atomic.
 */
static bool direct_named(int fd, int rwf)
{
	int fl;

	if (inside || (fl = fd_still(fd)) < 0)
		return false;
	if ((fl & O_APPEND) || (rwf & RWF_APPEND))
		COUNT(plain_append);
	else if (!(fl & O_DIRECT))
		COUNT(plain_buffered);
	else
		return true;
	return false;
}

/* At @off (-1: the file position), a multiple of the page? Counted with why when not. */
static bool page_placed(int64_t off)
{
	if (off < 0)
		COUNT(plain_position);
	else if ((uint64_t)off % page_size)
		COUNT(plain_misaligned);
	else
		return true;
	return false;
}

/*
 * io_uring and libaio: should a write of @len bytes at @off in @nr_segs iovecs, with the RWF_
 * flags @rwf, be RWF_ATOMIC? Only one page in one segment: one request is one write here.
 */
static bool make_atomic(int fd, uint64_t len, int64_t off, unsigned int nr_segs, int rwf)
{
	if (!direct_named(fd, rwf))
		return false;
	if (nr_segs != 1)
		COUNT(plain_segments);
	else if (len != page_size)
		COUNT(plain_size);
	else
		return page_placed(off);
	return false;
}

/*
 * The pwrite family: into how many atomic page writes does a write of @cnt iovecs at @off go
 * (0: none, left as it was and counted with why)? RWF_ATOMIC takes one buffer (statx's
 * atomic_write_segments_max is 1), so each iovec must be a whole number of pages (zero-length
 * ones are skipped, as the kernel skips them): a page that straddles two iovecs cannot be one
 * atomic write. At most IOV_MAX pages: the count of page writes stays bounded, and with pages
 * of at most 1 MiB the whole stays under the kernel's MAX_RW_COUNT, so pwritev itself would
 * not have shortened it. More than IOV_MAX iovecs is the kernel's EINVAL: passed through.
 */
static uint64_t split_pages(int fd, const struct iovec *iov, int cnt, int64_t off, int rwf)
{
	uint64_t len = 0, cap = (uint64_t)IOV_MAX * page_size;
	bool whole = true;

	if (cnt <= 0 || cnt > IOV_MAX || !direct_named(fd, rwf))
		return 0;
	for (int i = 0; i < cnt && len <= cap; i++) {
		len += iov[i].iov_len <= cap ? iov[i].iov_len : cap + 1;
		whole &= iov[i].iov_len % page_size == 0;
	}
	if (!len || len % page_size || len > cap)
		COUNT(plain_size);
	else if (!whole)
		COUNT(plain_segments);
	else
		return page_placed(off) ? len / page_size : 0;
	return 0;
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

/*
 * How many of @pages pages from @off lie wholly below RLIMIT_FSIZE? pwritev writes up to the
 * limit and returns a short count without a signal (generic_write_check_limits()); a page
 * write at the limit would get EFBIG and SIGXFSZ. A write that starts at or past the limit is
 * left whole: its first page gets EFBIG and the signal, as pwritev would.
 */
static uint64_t below_limit(int64_t off, uint64_t pages)
{
	struct rlimit r;

	if (pages < 2 || getrlimit(RLIMIT_FSIZE, &r) || r.rlim_cur == RLIM_INFINITY ||
	    (uint64_t)off >= r.rlim_cur)
		return pages;
	return (r.rlim_cur - (uint64_t)off) / page_size < pages ?
	       (r.rlim_cur - (uint64_t)off) / page_size : pages;
}

/*
 * A write of @pages whole pages from @cnt iovecs at @off, as @pages atomic page writes in order,
 * each with the caller's RWF_ flags (RWF_DSYNC: each page is durable when its write returns, so
 * the whole is when the last one does). It returns what pwritev would: the kernel stops at the
 * first error or short write and returns the bytes written before it (do_iter_readv_writev(),
 * iomap_dio_rw()), so a page that fails after others gives their bytes as a short count (errno
 * as it was), and -1 with its errno when the first one fails.
 */
static ssize_t atomic_pages(int fd, const struct iovec *iov, int cnt, int64_t off, int flags,
			    uint64_t pages)
{
	uint64_t n = below_limit(off, pages);
	int saved = errno;
	size_t done = 0;

	if (!n) {	/* the limit inside the first page: the kernel's own short write */
		COUNT(plain_size);
		return (real_pwritev2 ? real_pwritev2 : real_pwritev64v2)(fd, iov, cnt, (off_t)off,
									  flags);
	}
	if (pages > 1)
		COUNT(split_pwrite);
	for (int i = 0; i < cnt && done < n * page_size; i++) {
		for (size_t at = 0; at < iov[i].iov_len && done < n * page_size; at += page_size) {
			struct iovec one = { (char *)iov[i].iov_base + at, page_size };
			ssize_t ret = atomic_pwrite(fd, &one, off + (int64_t)done, flags);

			if (ret < 0 && !done)
				return -1;
			if (ret < 0)
				errno = saved;
			if (ret != (ssize_t)page_size)
				return (ssize_t)done + (ret > 0 ? ret : 0);	/* short */
			done += page_size;
		}
	}
	return (ssize_t)done;
}

/*
 * One write of the pwrite family: true when it was made atomic here (one page as it was, or
 * several page by page), its result in @ret; false: the caller makes it as it was.
 */
static bool try_atomic(int fd, const struct iovec *iov, int cnt, int64_t off, int flags,
		       ssize_t *ret)
{
	uint64_t pages = split_pages(fd, iov, cnt, off, flags);

	if (pages == 1 && cnt == 1)
		*ret = atomic_pwrite(fd, iov, off, flags);
	else if (pages)
		*ret = atomic_pages(fd, iov, cnt, off, flags, pages);
	return pages;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	struct iovec iov = { (void *)buf, n };
	ssize_t ret;

	ready();
	return try_atomic(fd, &iov, 1, off, 0, &ret) ? ret : real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	struct iovec iov = { (void *)buf, n };
	ssize_t ret;

	ready();
	return try_atomic(fd, &iov, 1, off, 0, &ret) ? ret : real_pwrite64(fd, buf, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t ret;

	ready();
	return try_atomic(fd, iov, cnt, off, 0, &ret) ? ret : real_pwritev(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	ssize_t ret;

	ready();
	return try_atomic(fd, iov, cnt, off, 0, &ret) ? ret : real_pwritev64(fd, iov, cnt, off);
}

/* The caller's RWF_ flags kept on each page write; its own RWF_ATOMIC write passed as it is. */
ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	ssize_t ret;

	ready();
	if (!(flags & RWF_ATOMIC) && try_atomic(fd, iov, cnt, off, flags, &ret))
		return ret;
	return real_pwritev2(fd, iov, cnt, off, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
	ssize_t ret;

	ready();
	if (!(flags & RWF_ATOMIC) && try_atomic(fd, iov, cnt, off, flags, &ret))
		return ret;
	return real_pwritev64v2(fd, iov, cnt, off, flags);
}

static uint64_t iov_bytes(const struct iovec *iov, int cnt)
{
	uint64_t n = 0;

	for (int i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}

/* ---- io_uring: the SQEs queued since the last submit, before liburing publishes them --------- */

/* Every SQE from liburing's sqe_head (the first not yet published) to its sqe_tail. */
static void uring_mark(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned int shift = (ring->flags & IORING_SETUP_SQE128) ? 1 : 0;

	if (!names.nr || inside)
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
		case IORING_OP_WRITEV:
			segs = sqe->len;
			len = segs ? iov_bytes((const struct iovec *)(uintptr_t)sqe->addr,
					       (int)segs)
				   : 0;
			break;
		default:
			continue;
		}
		if (sqe->flags & IOSQE_FIXED_FILE) {
			COUNT(uring_fixed_files);
			continue;
		}
		if (!(sqe->rw_flags & RWF_ATOMIC) &&
		    make_atomic(sqe->fd, len, (int64_t)sqe->off, segs, (int)sqe->rw_flags)) {
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

int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe,
				     unsigned wait_nr, struct __kernel_timespec *ts,
				     sigset_t *sigmask)
{
	ready();
	uring_mark(ring);
	return real_uring_submit_and_wait_timeout(ring, cqe, wait_nr, ts, sigmask);
}

int io_uring_submit_and_get_events(struct io_uring *ring)
{
	ready();
	uring_mark(ring);
	return real_uring_submit_and_get_events ? real_uring_submit_and_get_events(ring) : -ENOSYS;
}

/* ---- libaio: io_submit's iocbs (the kernel's struct iocb, which libaio's mirrors) ------------ */

int io_submit(aio_context_t ctx, long nr, struct iocb **ios)
{
	ready();
	for (long i = 0; names.nr && !inside && ios && i < nr; i++) {
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
		if (!(cb->aio_rw_flags & RWF_ATOMIC) &&
		    make_atomic((int)cb->aio_fildes, len, cb->aio_offset, segs,
				(int)cb->aio_rw_flags)) {
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
