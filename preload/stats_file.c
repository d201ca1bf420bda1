// SPDX-License-Identifier: MIT
/*
 * The counters file AWR_PRELOAD_STATS names (man 7 libatomicwr-preload, "Counting"): made or
 * taken so that it can never hurt a program. A file is made with O_CREAT|O_EXCL|O_NOFOLLOW and
 * its blocks reserved before it is mapped (a full filesystem is a refusal at start, not a
 * SIGBUS later); it is never truncated; the writer holds an OFD lock on it for its life, so a
 * second program started with the same environment can tell the file is in use. An existing
 * file is taken only when it is a counters file (magic, version, size) whose writer is gone;
 * anything else is refused and left untouched. The path is walked one component at a time: a
 * symlink on the way is followed only when root or this process's user owns it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload.h"

#define MAX_LINKS 40	/* the kernel's MAXSYMLINKS */

/* @path with %p replaced by the process id */
static void expand(const char *path, char *p, size_t len)
{
	size_t n = 0;

	for (const char *s = path; *s && n + 24 < len; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(p + n, len - n, "%d", (int)getpid());
			s++;
		} else {
			p[n++] = *s;
		}
	}
	p[n] = '\0';
}

/*
 * A symlink on the way to the counters file is followed only when root or the user this
 * process runs as owns it: one another user planted (in a sticky world-writable directory,
 * say) is not, the rule fs.protected_symlinks applies there (may_follow_link()). /var/run ->
 * /run, owned by root, is followed.
 */
static int follow(int dfd, const char *name, char *target, size_t len, char *why, size_t why_len)
{
	struct stat st;
	ssize_t n;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, why_len, "its component '%s' is a symlink owned by uid %u, neither "
			 "root nor this process's user (uid %u): not followed",
			 name, st.st_uid, geteuid());
		return -EPERM;
	}
	n = readlinkat(dfd, name, target, len - 1);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	target[n] = '\0';
	return 0;
}

/* Step from directory *@dfd into its component @name (a directory, or a symlink followed). */
static int step(int *dfd, const char *name, char *rest, size_t len, int *links, char *why,
		size_t why_len)
{
	char target[PATH_MAX], tail[PATH_MAX];
	int nfd = openat(*dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ret;

	if (nfd >= 0 || errno != ENOTDIR) {	/* a directory, or an error that is not a symlink */
		if (nfd < 0)
			return -errno;
		close(*dfd);
		*dfd = nfd;
		return 0;
	}
	if (++*links > MAX_LINKS)
		return -ELOOP;
	ret = follow(*dfd, name, target, sizeof(target), why, why_len);
	if (ret)
		return ret;
	snprintf(tail, sizeof(tail), "%s", rest);
	if ((size_t)snprintf(rest, len, "%s/%s", target, tail) >= len)
		return -ENAMETOOLONG;
	if (target[0] == '/') {
		nfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0)
			return -errno;
		close(*dfd);
		*dfd = nfd;
	}
	return 0;
}

/*
 * The directory that holds @path, reached component by component with O_NOFOLLOW (openat(2);
 * openat2's RESOLVE_NO_SYMLINKS would also refuse root's /var/run), its last component into
 * @leaf. Return: the directory's O_PATH descriptor, or -errno (@why may say more).
 */
static int open_dir(const char *path, char *leaf, size_t leaf_len, char *why, size_t why_len)
{
	char rest[PATH_MAX], name[NAME_MAX + 1];
	int dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), links = 0, ret = 0;

	snprintf(rest, sizeof(rest), "%s", path);
	while (dfd >= 0 && !ret) {
		char *s = rest + strspn(rest, "/");
		size_t l = strcspn(s, "/");

		if (l > NAME_MAX) {
			ret = -ENAMETOOLONG;
			break;
		}
		memcpy(name, s, l);
		name[l] = '\0';
		memmove(rest, s + l, strlen(s + l) + 1);
		if (!rest[strspn(rest, "/")]) {		/* the last component: the file */
			if (!l || !strcmp(name, ".") || !strcmp(name, ".."))
				ret = -EISDIR;
			snprintf(leaf, leaf_len, "%s", name);
			break;
		}
		if (strcmp(name, "."))
			ret = step(&dfd, name, rest, sizeof(rest), &links, why, why_len);
	}
	if (dfd < 0)
		return -errno;
	if (ret)
		close(dfd);
	return ret ? ret : dfd;
}

/* Is @fd a counters file (magic, version, size)? An empty file is one being made. */
static bool is_stats(int fd, const struct stat *st)
{
	struct awr_preload_stats s;

	if (st->st_size == 0)
		return true;
	return st->st_size == sizeof(s) && pread(fd, &s, sizeof(s), 0) == (ssize_t)sizeof(s) &&
	       !memcmp(s.magic, AWR_PRELOAD_STATS_MAGIC, sizeof(s.magic)) &&
	       s.version == AWR_PRELOAD_STATS_VERSION;
}

/* The writer's lock, held on @fd for the life of the open file description (F_OFD_SETLK). */
static bool lock(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	return !fcntl(fd, F_OFD_SETLK, &fl);
}

/* Reserve the file's blocks, then map it: a full filesystem is a refusal now, not a SIGBUS. */
static struct awr_preload_stats *reserve_map(int fd, int dfd, const char *leaf, const char *p,
					     bool made)
{
	void *m;
	int err = posix_fallocate(fd, 0, sizeof(struct awr_preload_stats));

	if (err) {
		if (made)
			unlinkat(dfd, leaf, 0);
		awr__preload_refuse("AWR_PRELOAD_STATS=%s: no room for its %zu bytes: %s (name a "
				    "file on a filesystem with free space)",
				    p, sizeof(struct awr_preload_stats), strerror(err));
	}
	m = mmap(NULL, sizeof(struct awr_preload_stats), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		awr__preload_refuse("AWR_PRELOAD_STATS=%s: cannot map it: %s", p, strerror(errno));
	return m;
}

/* The file @leaf in @dfd: made anew (*@made), or the one there, never through a symlink. */
static int open_file(int dfd, const char *leaf, const char *p, bool *made)
{
	struct stat st;
	int fd;

	fd = openat(dfd, leaf, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	*made = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = openat(dfd, leaf, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		awr__preload_refuse("AWR_PRELOAD_STATS=%s is a symlink: not followed (name the "
				    "file itself)",
				    p);
	if (fd < 0)
		awr__preload_refuse("AWR_PRELOAD_STATS=%s: cannot create or open it: %s (name a "
				    "file in a writable directory)", p, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		awr__preload_refuse("AWR_PRELOAD_STATS=%s is not a regular file: not touched (name "
				    "a new file, or one the preload made before)", p);
	if (!*made && !is_stats(fd, &st))
		awr__preload_refuse("AWR_PRELOAD_STATS=%s is a file of %lld bytes that is not a "
				    "counters file of libatomicwr-preload (magic %s, version %d, "
				    "%zu bytes): not touched (name a new file, or one the preload "
				    "made before)", p,
				    (long long)st.st_size, AWR_PRELOAD_STATS_MAGIC,
				    AWR_PRELOAD_STATS_VERSION, sizeof(struct awr_preload_stats));
	return fd;
}

/*
 * A second program started with the same AWR_PRELOAD_STATS while the first runs (systemd's
 * ExecStartPre and ExecStartPost get the service's environment): the file stays the first's,
 * and the second counts in memory and says so once. Refusing it instead would stop a unit's
 * helper, and the preload must never hurt the program it runs in.
 */
static void in_use(int fd, const char *p)
{
	struct awr_preload_stats s = { 0 };

	if (pread(fd, &s, sizeof(s), 0) < 0)
		s.pid = 0;
	awr__preload_say("libatomicwr-preload: AWR_PRELOAD_STATS=%s is in use by a running program "
			 "(pid %llu): pid %d keeps its counters in memory and reports them at exit "
			 "(give each program its own file, e.g. with %%p)", p,
			 (unsigned long long)s.pid, (int)getpid());
}

struct awr_preload_stats *awr__stats_map(const char *path, const char *owner, bool *shared,
					 bool *fresh, int *lock_fd)
{
	char p[PATH_MAX], leaf[NAME_MAX + 1], why[512] = "";
	struct awr_preload_stats *m = NULL;
	bool made, child = owner && atoi(owner) != (int)getpid() && !strstr(path, "%p");
	int dfd, fd;

	expand(path, p, sizeof(p));
	dfd = open_dir(p, leaf, sizeof(leaf), why, sizeof(why));
	if (dfd < 0)
		awr__preload_refuse("AWR_PRELOAD_STATS=%s: %s", p, why[0] ? why : strerror(-dfd));
	fd = open_file(dfd, leaf, p, &made);
	*shared = !made && child;	/* started by the writer of this file: its counters */
	/* the same program again after an exec (AWR_PRELOAD_STATS_OWNER is its pid): counts on */
	*fresh = made || (!*shared && !(owner && atoi(owner) == (int)getpid()));
	*lock_fd = -1;
	if (*shared) {
		m = reserve_map(fd, dfd, leaf, p, false);
	} else if (!lock(fd)) {
		in_use(fd, p);
	} else {
		m = reserve_map(fd, dfd, leaf, p, made);
		if (*fresh)
			memset(m, 0, sizeof(*m));
		*lock_fd = fd; /* kept open (O_CLOEXEC) for the life of the program: the lock */
	}
	if (*lock_fd < 0)
		close(fd);
	close(dfd);
	return m;
}
