// SPDX-License-Identifier: MIT
/*
 * The page store: open (target safety, mode choice, recovery), close and the
 * getters. The mode rules, from the kernel's side:
 * - RWF_ATOMIC is honoured for a length within statx's atomic_write_unit_min
 *   .. unit_max, naturally aligned, on an O_DIRECT fd (generic_atomic_write_valid()
 *   and xfs_file_dio_write_atomic() in fs/xfs/xfs_file.c, Linux 6.16..6.18);
 * - on XFS, a write up to atomic_write_unit_max_opt may go to the device in
 *   place when the range is one aligned extent, anything else takes the
 *   copy-on-write software path (xfs_atomic_write_cow_iomap_begin(), 6.16);
 *   XFS picks the path per write, the store cannot force it;
 * - a block device has no software path: atomic writes are the device's
 *   (blkdev_dio_write_atomic checks in block/fops.c, 6.11+).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pages/pages.h"

#define MODE_FLAGS (AWR_PAGES_HARDWARE | AWR_PAGES_SOFTWARE | AWR_PAGES_DOUBLEWRITE)

const char *awr_pages_mode_name(enum awr_pages_mode m)
{
	switch (m) {
	case AWR_PAGES_MODE_HARDWARE: return "hardware";
	case AWR_PAGES_MODE_SOFTWARE: return "software";
	case AWR_PAGES_MODE_DOUBLEWRITE: return "doublewrite";
	}
	return "unknown";
}

enum awr_pages_mode awr_pages_mode(const struct awr_pages *s)
{
	return s->mode;
}

const char *awr_pages_explain(const struct awr_pages *s)
{
	return s ? s->explain : "";
}

unsigned int awr_pages_recovered(const struct awr_pages *s)
{
	return s->recovered;
}

/* What the target offers: each mode possible or not, with the reason. */
struct offer {
	bool hardware, software, doublewrite;
	char hw_why[160], sw_why[160], dw_why[160];
};

static void size_str(uint64_t v, char *buf)
{
	awr_format_size(v, buf, 24);
}

static void examine(const struct awr_pages *s, struct offer *o)
{
	const struct awr_limits *l = awr_file_limits(s->file);
	char ps[24], a[24], b[24];
	bool atomic = l->supported && s->page_size >= l->unit_min && s->page_size <= l->unit_max;

	memset(o, 0, sizeof(*o));
	size_str(s->page_size, ps);
	size_str(l->unit_min, a);
	size_str(l->unit_max, b);
	if (!l->supported)
		awr__pages_say(o->sw_why, sizeof(o->sw_why), "the target takes no atomic writes "
							     "(statx: unsupported)");
	else if (!atomic)
		awr__pages_say(o->sw_why, sizeof(o->sw_why), "%s pages are outside the atomic "
							     "write units %s..%s",
			 ps, a, b);
	if (s->is_blk) {
		o->hardware = atomic;
		if (atomic)
			awr__pages_say(o->hw_why, sizeof(o->hw_why), "the block device writes %s "
								     "atomically itself "
				 "(units %s..%s)", ps, a, b);
		else
			awr__pages_say(o->hw_why, sizeof(o->hw_why), "%s", o->sw_why);
		awr__pages_say(o->sw_why, sizeof(o->sw_why), "a block device has no copy-on-write "
							     "path");
		awr__pages_say(o->dw_why, sizeof(o->dw_why), "a doublewrite area beside a block "
							     "device would live "
			 "in /dev, which does not survive a reboot");
		return;
	}
	o->software = atomic;
	if (atomic)
		awr__pages_say(o->sw_why, sizeof(o->sw_why), "the filesystem writes %s atomically "
							     "(units %s..%s)",
			 ps, a, b);
	/* a file: the filesystem view and the pages' extents say whether they go in place */
	if (atomic)
		o->hardware = awr__pages_hardware_file(s, o->hw_why, sizeof(o->hw_why));
	else
		awr__pages_say(o->hw_why, sizeof(o->hw_why), "%s", o->sw_why);
	o->doublewrite = !l->offset_align || !(s->page_size % l->offset_align);
	if (!o->doublewrite)
		awr__pages_say(o->dw_why, sizeof(o->dw_why), "%s pages are not a multiple of the "
							     "direct I/O "
			 "alignment %u", ps, l->offset_align);
}

static int forced(struct awr_pages *s, unsigned int mode, const struct offer *o)
{
	static const char *names[] = { "hardware", "software", "doublewrite" };
	const char *why = mode == AWR_PAGES_HARDWARE ? o->hw_why :
			  mode == AWR_PAGES_SOFTWARE ? o->sw_why : o->dw_why;
	bool ok = mode == AWR_PAGES_HARDWARE ? o->hardware :
		  mode == AWR_PAGES_SOFTWARE ? o->software : o->doublewrite;
	int i = mode == AWR_PAGES_HARDWARE ? 0 : mode == AWR_PAGES_SOFTWARE ? 1 : 2;

	if (!ok) {
		awr__pages_say(s->explain, sizeof(s->explain), "%s mode is not possible here: %s",
			       names[i], why);
		return -EOPNOTSUPP;
	}
	s->mode = (enum awr_pages_mode)(i + 1);
	awr__pages_say(s->explain, sizeof(s->explain), "%s mode, as asked: %s", names[i],
		 mode == AWR_PAGES_DOUBLEWRITE ? "pages go to the doublewrite area first, then in "
						 "place" : why);
	return 0;
}

static int automatic(struct awr_pages *s, const char *path, const struct offer *o)
{
	struct awr__pages_calibration c;
	int ret;

	if (o->hardware) {
		s->mode = AWR_PAGES_MODE_HARDWARE;
		awr__pages_say(s->explain, sizeof(s->explain), "hardware: %s", o->hw_why);
		return 0;
	}
	if (o->software && o->doublewrite) {
		ret = awr__pages_calibrate(s, path, &c);
		if (ret == -ENOSPC) {	/* see software_out_of_space() in write.c */
			s->mode = AWR_PAGES_MODE_DOUBLEWRITE;
			awr__pages_say(s->explain, sizeof(s->explain), "doublewrite: no hardware "
								       "path (%s), and "
				 "software-mode writes on a scratch file beside %s failed with "
				 "ENOSPC (no new blocks "
				 "for a copy-on-write atomic write; free space may be in small "
				 "pieces)", o->hw_why,
				 path);
			return 0;
		}
		if (ret) {
			awr__pages_say(s->explain, sizeof(s->explain), "cannot calibrate software "
								       "against doublewrite "
				 "beside %s: %s", path, strerror(-ret));
			return ret;
		}
		s->mode = c.doublewrite_ns < c.software_ns ? AWR_PAGES_MODE_DOUBLEWRITE
							   : AWR_PAGES_MODE_SOFTWARE;
		s->auto_cal = true;
		awr__pages_say(
			s->explain, sizeof(s->explain),
			"%s until this store's first %u "
			"batches are "
			"measured: no hardware path (%s); on scratch files %u batches of %u pages "
			"took "
			"%.1f ms in software mode, %.1f ms in doublewrite mode",
			awr_pages_mode_name(s->mode), AWR_PAGES_LIVE_CAL, o->hw_why, c.rounds,
			c.pages, c.software_ns / 1e6, c.doublewrite_ns / 1e6);
		return 0;
	}
	if (o->software || o->doublewrite) {
		s->mode = o->software ? AWR_PAGES_MODE_SOFTWARE : AWR_PAGES_MODE_DOUBLEWRITE;
		awr__pages_say(s->explain, sizeof(s->explain),
			       "%s: the only untorn mode here "
			       "(hardware: %s; %s: %s)",
			       awr_pages_mode_name(s->mode), o->hw_why,
			       o->software ? "doublewrite" : "software",
			       o->software ? o->dw_why : o->sw_why);
		return 0;
	}
	awr__pages_say(s->explain, sizeof(s->explain), "no untorn mode on %s: hardware: %s; "
						       "software: %s; "
		 "doublewrite: %s", path, o->hw_why, o->sw_why, o->dw_why);
	return -EOPNOTSUPP;
}

/*
 * A second open file description of what @lfd has open, for the writes. The guard's lock (an OFD
 * lock on a file, O_EXCL on a block device) stays with @lfd, which no ring ever sees: a process
 * killed with writes in flight keeps its io_uring, and the descriptions the ring holds, alive until
 * the kernel tears the ring down (up to about a second), but its own descriptors close at once, so
 * the guard goes with the process and a restarted store is not refused (pages_reopen). Through
 * /proc/self/fd (the same inode, whatever happened to the path since); without /proc by @path,
 * checked to be the same inode.
 */
static int reopen_for_writes(int lfd, const char *path, const struct stat *st)
{
	struct stat w;
	int fd, flags = O_RDWR | O_DIRECT | O_CLOEXEC | O_NOCTTY;

	fd = awr__reopen(lfd, flags);
	if (fd == -ENOENT) {
		fd = open(path, flags | (S_ISBLK(st->st_mode) ? 0 : O_NOFOLLOW));
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &w) || w.st_dev != st->st_dev || w.st_ino != st->st_ino ||
	    w.st_rdev != st->st_rdev) {
		close(fd);
		return -ESTALE;		/* the path now names another file */
	}
	return fd;
}

/*
 * The writes' description carries a flock(): a dead process's description keeps it until its
 * ring has let go of the description, that is until the writes it had in flight are done. A
 * restarted store waits for that (DRAIN_MS at most) before it recovers, so that no write of the
 * dead process lands after recovery. (flock and OFD locks do not see each other on Linux: the
 * guard's check in awr_target_open() is not held up by it.)
 */
#define DRAIN_MS	10000

static int wait_for_dead_writes(int fd, char *why, size_t len, const char *path)
{
	for (unsigned int ms = 0; flock(fd, LOCK_EX | LOCK_NB); ms++) {
		if (errno != EWOULDBLOCK)
			return -errno;
		if (ms >= DRAIN_MS) {
			awr__pages_say(why, len, "the writes of a process that had the store %s "
						 "open are still "
				 "in flight after %d s", path, DRAIN_MS / 1000);
			return -EBUSY;
		}
		usleep(1000);
	}
	return 0;
}

static int open_target(struct awr_pages *s, const char *path, unsigned int flags)
{
	struct awr_safety why;
	struct stat st;
	int fd, ret;

	s->lock_fd = awr_target_open(
		path, O_RDWR | O_DIRECT,
		((flags & AWR_PAGES_CREATE) ? AWR_TARGET_CREATE : 0) | AWR_TARGET_KEEP_DATA, &why);
	if (s->lock_fd < 0) {
		ret = s->lock_fd;
		s->lock_fd = -1;
		awr__pages_say(s->explain, sizeof(s->explain), "cannot open the store %s: %s%s%s",
			       path, strerror(-ret), why.detail[0] ? ": " : "", why.detail);
		return ret;
	}
	if (fstat(s->lock_fd, &st))
		return -errno;
	fd = reopen_for_writes(s->lock_fd, path, &st);
	if (fd < 0) {
		awr__pages_say(s->explain, sizeof(s->explain), "cannot open the store %s a second "
							       "time for its "
			 "writes: %s", path, strerror(-fd));
		return fd;
	}
	ret = wait_for_dead_writes(fd, s->explain, sizeof(s->explain), path);
	if (ret) {
		close(fd);
		return ret;
	}
	s->is_blk = S_ISBLK(st.st_mode);
	s->ino = st.st_ino;
	ret = awr_file_adopt(fd, &s->file);	/* closes fd on failure */
	if (ret) {
		awr__pages_say(s->explain, sizeof(s->explain), "cannot probe %s: %s", path,
			       strerror(-ret));
		return ret;
	}
	s->fd = fd;
	s->mem_align = awr_file_limits(s->file)->mem_align;
	return 0;
}

static int setup(struct awr_pages *s, const char *path, uint32_t page_size, unsigned int flags)
{
	char dw[4096 + 8];
	struct offer o;
	unsigned int mode = flags & MODE_FLAGS;
	bool need;
	int ret;

	s->page_size = page_size;
#ifdef AWR_TEST_HOOKS
	ret = awr__pages_fault_parse(awr__test_env("AWR_PAGES_FAULT"), &s->fault);
	if (ret) {
		awr__pages_say(s->explain, sizeof(s->explain), "AWR_PAGES_FAULT must be crash:N, "
							       "tear:N, area:N, "
			 "synced:N, held:N or nosync:N");
		return ret;
	}
#endif
	ret = open_target(s, path, flags);
	if (ret)
		return ret;
	examine(s, &o);
	ret = mode ? forced(s, mode, &o) : automatic(s, path, &o);
	if (ret)
		return ret;
	ret = awr__pages_ring(s);	/* the opening thread's: io_uring's errors show here */
	if (ret) {
		awr__pages_say(s->explain, sizeof(s->explain), "cannot set up io_uring: %s",
			       strerror(-ret));
		return ret;
	}
	if (s->is_blk)
		return 0;
	/* recover from an area in any mode: the last open may have chosen doublewrite */
	snprintf(dw, sizeof(dw), "%s" AWR_PAGES_DW_SUFFIX, path);
	need = s->mode == AWR_PAGES_MODE_DOUBLEWRITE || s->auto_cal;
	ret = awr__area_open(s, dw, need, s->explain, sizeof(s->explain));
	if (!ret)
		ret = awr__area_recover(s, s->explain, sizeof(s->explain));
	if (ret || need || s->dw_fd < 0)
		return ret;
	/* repaired and not used: its records would be older than the pages written from now on */
	awr__area_close(s);
	if (unlink(dw)) {
		ret = -errno;
		awr__pages_say(s->explain, sizeof(s->explain), "cannot remove the doublewrite area "
							       "%s after "
			 "recovery: %s", dw, strerror(-ret));
	}
	return ret;
}

int awr_pages_open(const char *path, uint32_t page_size, unsigned int flags, struct awr_pages **out)
{
	struct awr_pages *s;
	unsigned int mode = flags & MODE_FLAGS;
	int ret;

	if (out)
		*out = NULL;
	if (!path || !out || !awr_is_pow2(page_size) || page_size < 512 || page_size > (1U << 20) ||
	    (flags & ~(MODE_FLAGS | AWR_PAGES_CREATE)) || (mode & (mode - 1))) {
		return awr__fail(-EINVAL, "bad arguments: the page size must be a power of two "
					  "from "
				 "512 to 1 MiB, flags AWR_PAGES_CREATE and at most one mode");
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return awr__fail(-ENOMEM, "out of memory for a page store");
	s->fd = s->dw_fd = s->lock_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	ret = setup(s, path, page_size, flags);
	if (ret) {
		awr__fail(ret, "%s", s->explain);
		awr_pages_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int awr_pages_close(struct awr_pages *s)
{
	int ret;

	if (!s)
		return 0;
	ret = s->dw_fd >= 0 ? awr__area_settle(s) : 0; /* the area's batches durable in place too */
	awr__area_close(s);
	awr__pages_rings_free(s);
	awr_file_close(s->file);
	if (s->lock_fd >= 0)
		close(s->lock_fd);	/* the lock last: no write of this store is left */
	pthread_mutex_destroy(&s->lock);
	free(s);
	return ret;
}
