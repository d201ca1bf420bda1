/* SPDX-License-Identifier: MIT */
/*
 * Fake sysfs trees for unit tests, in a temporary directory (fx_root): directories, files holding
 * a value, symbolic links, the queue/ attributes of a disk, a file whose st_dev the tree maps to a
 * disk, and the tree's removal. Every builder exits with T_EXIT_FAIL when it cannot build.
 */
#ifndef AWR_TEST_SYSFS_FIXTURE_H
#define AWR_TEST_SYSFS_FIXTURE_H

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "helpers.h"

static char fx_root[PATH_MAX];

/* Makes the tree's root, $TMPDIR/awr-NAME-XXXXXX (/tmp without TMPDIR); exits when it cannot. */
static inline void fx_make_root(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fx_root, sizeof(fx_root), "%s/awr-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (!mkdtemp(fx_root))
		exit(T_EXIT_FAIL);
}

/* ROOT/REL as a path; exits when it does not fit. */
static inline void fx_path(char *path, size_t len, const char *rel)
{
	if ((size_t)snprintf(path, len, "%s/%s", fx_root, rel) >= len)
		exit(T_EXIT_FAIL);
}

/* mkdir -p of PATH up to (not including) its byte at @end. */
static inline void fx_mkdir_upto(char *path, size_t end)
{
	for (size_t i = 1; i <= end; i++) {
		char c = path[i];

		if (c != '/' && i != end)
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			printf("FAIL: mkdir %s: %s\n", path, strerror(errno));
			exit(T_EXIT_FAIL);
		}
		path[i] = c;
	}
}

/* mkdir -p ROOT/REL, REL a printf format. */
static inline void __attribute__((format(printf, 1, 2))) fx_mkdir(const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX * 2];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	fx_path(path, sizeof(path), rel);
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	fx_mkdir_upto(path, len);
}

/* The directories above ROOT/REL. */
static inline void fx_mkdir_parent(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash && slash != path)
		fx_mkdir_upto(path, (size_t)(slash - path));
}

/* ROOT/REL holds the printf text (its directories made). */
static inline void fx_vput(const char *rel, const char *fmt, va_list ap)
{
	char path[PATH_MAX * 2];
	FILE *f;

	fx_path(path, sizeof(path), rel);
	fx_mkdir_parent(path);
	f = fopen(path, "w");
	if (!f)
		exit(T_EXIT_FAIL);
	vfprintf(f, fmt, ap);
	if (ferror(f) | fclose(f))
		exit(T_EXIT_FAIL);
}

static inline void __attribute__((format(printf, 2, 3)))
fx_put(const char *rel, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fx_vput(rel, fmt, ap);
	va_end(ap);
}

/* ROOT/DIR/queue/NAME holds the number @v and a newline. */
static inline void fx_queue_attr(const char *dir, const char *name, unsigned int v)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/queue/%s", dir, name);
	fx_put(rel, "%u\n", v);
}

/* The four atomic write limits of ROOT/DIR/queue/, in bytes. */
static inline void fx_atomic_limits(const char *dir, unsigned int umin, unsigned int umax,
				    unsigned int maxb, unsigned int bnd)
{
	fx_queue_attr(dir, "atomic_write_unit_min_bytes", umin);
	fx_queue_attr(dir, "atomic_write_unit_max_bytes", umax);
	fx_queue_attr(dir, "atomic_write_max_bytes", maxb);
	fx_queue_attr(dir, "atomic_write_boundary_bytes", bnd);
}

/* The caps of an NVMe queue in ROOT/DIR/queue/: 4 KiB logical blocks, 128 segments, 512 KiB. */
static inline void fx_nvme_caps(const char *dir)
{
	fx_queue_attr(dir, "logical_block_size", 4096);
	fx_queue_attr(dir, "max_segments", 128);
	fx_queue_attr(dir, "max_hw_sectors_kb", 512);
}

/* ROOT/REL a symbolic link to TARGET (its directories made); an existing REL fails. */
static inline void fx_ln(const char *target, const char *rel)
{
	char path[PATH_MAX * 2];

	fx_path(path, sizeof(path), rel);
	fx_mkdir_parent(path);
	if (symlink(target, path)) {
		printf("FAIL: symlink %s: %s\n", path, strerror(errno));
		exit(T_EXIT_FAIL);
	}
}

/*
 * An empty file ROOT/NAME (its path in @file) and ROOT/dev/block/MAJ:MIN of the filesystem it
 * lives on, a link to TARGET: sysfs lookups of the file land on TARGET.
 */
static inline void fx_file_on(const char *name, const char *target, char *file, size_t len)
{
	char rel[64];
	struct stat st;
	int fd;

	if ((size_t)snprintf(file, len, "%s/%s", fx_root, name) >= len)
		exit(T_EXIT_FAIL);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || fstat(fd, &st))
		exit(T_EXIT_FAIL);
	close(fd);
	snprintf(rel, sizeof(rel), "dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	fx_ln(target, rel);
}

/* rm -rf of the tree: 0, or what system() returned. */
static inline int fx_remove(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx_root);
	return system(cmd);
}

/* fx_remove() for atexit(): the tree goes on every exit, skips included. */
static inline void fx_remove_at_exit(void)
{
	if (fx_remove())
		printf("cannot remove %s\n", fx_root);
}

#endif /* AWR_TEST_SYSFS_FIXTURE_H */
