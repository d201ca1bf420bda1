// SPDX-License-Identifier: MIT
/* The synchronous engine: an open target with its limits, pwritev2(RWF_ATOMIC). */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "private.h"
#include "write/write.h"

static int file_init(struct awr_file *f)
{
	int ret;

	f->open_flags = fcntl(f->fd, F_GETFL);
	if (f->open_flags < 0)
		return -errno;
	ret = awr_probe_fd(f->fd, AWR_PROBE_NO_DEVICE, &f->probe);
	if (ret)
		return ret;
	f->limits = *awr_probe_effective(f->probe);
	return 0;
}

static int file_new(int fd, bool owns, struct awr_file **out)
{
	struct awr_file *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return -ENOMEM;
	f->fd = fd;
	f->owns_fd = owns;
	ret = file_init(f);
	if (ret) {
		f->owns_fd = false;
		awr_file_close(f);
		return ret;
	}
	*out = f;
	return 0;
}

int awr_file_open(const char *path, unsigned int flags, struct awr_file **out)
{
	int oflags = O_CLOEXEC;
	int fd, ret;

	if (!path || !out)
		return -EINVAL;
	oflags |= (flags & AWR_OPEN_READONLY) ? O_RDONLY : O_RDWR;
	if (!(flags & AWR_OPEN_BUFFERED))
		oflags |= O_DIRECT;
	if (flags & AWR_OPEN_DSYNC)
		oflags |= O_DSYNC;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	ret = file_new(fd, true, out);
	if (ret)
		close(fd);
	return ret;
}

int awr_file_from_fd(int fd, struct awr_file **out)
{
	if (fd < 0)
		return -EBADF;
	if (!out)
		return -EINVAL;
	return file_new(fd, false, out);
}

int awr_file_adopt(int fd, struct awr_file **out)
{
	int ret;

	if (fd < 0)
		return -EBADF;
	if (!out) {
		close(fd);
		return -EINVAL;
	}
	ret = file_new(fd, true, out);
	if (ret)
		close(fd);
	return ret;
}

void awr_file_close(struct awr_file *f)
{
	if (!f)
		return;
	if (f->owns_fd)
		close(f->fd);
	awr_probe_free(f->probe);
	free(f);
}

int awr_file_fd(const struct awr_file *f)
{
	return f->fd;
}

const struct awr_limits *awr_file_limits(const struct awr_file *f)
{
	return &f->limits;
}

const struct awr_probe *awr_file_probe(const struct awr_file *f)
{
	return f->probe;
}

int awr_file_check(const struct awr_file *f, const void *buf, size_t len,
		   uint64_t offset, struct awr_verdict *v)
{
	struct awr_write_plan plan = {
		.offset = offset,
		.length = len,
		.buf = buf,
		.nr_segs = 1,
		.open_flags = f->open_flags,
	};

	return awr_check(&f->limits, &plan, v);
}

ssize_t awr_pwrite_raw(int fd, const void *iov, int iovcnt, uint64_t offset, unsigned int flags)
{
	int rwf = RWF_ATOMIC | ((flags & AWR_WRITE_DSYNC) ? RWF_DSYNC : 0);
	ssize_t ret;

	ret = pwritev2(fd, (const struct iovec *)iov, iovcnt, (off_t)offset, rwf);
	return ret < 0 ? -errno : ret;
}

/* A short atomic write: -EIO, and the verdict says what it means. */
static ssize_t short_write(struct awr_verdict *v, ssize_t got, size_t len)
{
	if (v) {
		v->rule = AWR_RULE_OK;
		v->error = -EIO;
		snprintf(v->message, sizeof(v->message), "short atomic write: %zd of %zu bytes, "
							 "the range "
			 "may be torn (a buffer the kernel pinned only partly; fixed by 'block: "
			 "fail a short "
			 "atomic pin')", got, len);
	}
	return -EIO;
}

ssize_t awr_pwrite(struct awr_file *f, const void *buf, size_t len, uint64_t offset,
		   unsigned int flags, struct awr_verdict *v)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	ssize_t ret;

	if (!f || !buf)
		return -EINVAL;
	if (!(flags & AWR_WRITE_NOCHECK)) {
		ret = awr_file_check(f, buf, len, offset, v);
		if (ret)
			return ret;
	}
	ret = awr_pwrite_raw(f->fd, &iov, 1, offset, flags);
	/*
	 * An atomic write is never short: anything else is an error, never a count to continue
	 * from. A short count is how the kernel bug of a partly pinned buffer shows (block/bio.c
	 * bio_iov_iter_get_pages(), 6.11 until the fix posted for 7.4): part of the range went down
	 * atomically, the rest to the page cache. @buf is the caller's; the library's own buffers
	 * (posix_memalign(), heap memory) are readable whole and never take that path.
	 */
	if (ret >= 0 && (size_t)ret != len)
		return short_write(v, ret, len);
	return ret;
}
