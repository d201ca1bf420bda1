// SPDX-License-Identifier: MIT
/* The probe handle: runs each discovery source, then derives effective limits. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/device.h"
#include "discover/discover.h"

static void probe_sysfs(struct awr_probe *p)
{
	unsigned int maj = p->statx.dev_major, min = p->statx.dev_minor;

	if (S_ISBLK(p->statx.mode)) {
		maj = p->statx.rdev_major;
		min = p->statx.rdev_minor;
	} else if (!S_ISREG(p->statx.mode) && !S_ISDIR(p->statx.mode)) {
		return;
	}
	p->have_sysfs = !awr_sysfs_lookup(maj, min, &p->sysfs);
}

/*
 * A directory takes no write: what a program gets is a file made in it, so the answer is that of
 * a new file (O_TMPFILE, gone at close), as the filesystem view's is. Where O_TMPFILE cannot be
 * made (a read-only mount, no permission, a filesystem without it) the directory stays itself.
 */
static void probe_new_file(struct awr_probe *p, int dirfd, const char *path)
{
	struct awr_statx_view sx;
	int fd;

	if (!S_ISDIR(p->statx.mode))
		return;
	fd = openat(dirfd, path ? path : ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (!awr__statx_fd(fd, NULL, &sx)) {
		p->statx = sx;
		p->new_file = true;
	}
	close(fd);
}

static int probe_run(struct awr_probe *p, int dirfd, const char *path, unsigned int flags)
{
	int ret = awr__statx_fd(dirfd, path, &p->statx);

	if (ret)
		return ret;
	probe_new_file(p, dirfd, path);
	p->have_statx = true;
	probe_sysfs(p);
	awr__probe_device(p, flags);
	awr__probe_stack(p);
	awr__derive_effective(p);
	return 0;
}

static int probe_new(int dirfd, const char *path, unsigned int flags, struct awr_probe **out)
{
	struct awr_probe *p;
	int ret;

	if (!out)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (path)
		strncpy(p->path, path, sizeof(p->path) - 1);
	ret = probe_run(p, dirfd, path, flags);
	if (ret) {
		awr_probe_free(p);
		return ret;
	}
	*out = p;
	return 0;
}

int awr_probe_path(const char *path, unsigned int flags, struct awr_probe **out)
{
	if (!path || !*path)
		return -EINVAL;
	return probe_new(AT_FDCWD, path, flags, out);
}

int awr_probe_fd(int fd, unsigned int flags, struct awr_probe **out)
{
	if (fd < 0)
		return -EBADF;
	return probe_new(fd, NULL, flags, out);
}

void awr_probe_free(struct awr_probe *p)
{
	if (p) {
		awr_device_free(p->device);
		free(p->stack);
	}
	free(p);
}

const struct awr_statx_view *awr_probe_statx(const struct awr_probe *p)
{
	return p->have_statx ? &p->statx : NULL;
}

const struct awr_sysfs_view *awr_probe_sysfs(const struct awr_probe *p)
{
	return p->have_sysfs ? &p->sysfs : NULL;
}

const struct awr_limits *awr_probe_effective(const struct awr_probe *p)
{
	return &p->effective;
}

unsigned int awr_probe_nr_findings(const struct awr_probe *p)
{
	return p->nr_findings;
}

const struct awr_finding *awr_probe_finding(const struct awr_probe *p, unsigned int i)
{
	return i < p->nr_findings ? &p->findings[i] : NULL;
}

bool awr_probe_new_file(const struct awr_probe *p)
{
	return p->new_file;
}

const char *awr_probe_kind(const struct awr_probe *p)
{
	mode_t m = p->statx.mode;

	if (p->new_file)
		return "directory";
	if (!p->have_statx)
		return "unknown";
	return S_ISREG(m) ? "file" : S_ISBLK(m) ? "block" : S_ISCHR(m) ? "char" :
	       S_ISDIR(m) ? "directory" : "other";
}

const char *awr_probe_path_name(const struct awr_probe *p)
{
	return p->path;
}
