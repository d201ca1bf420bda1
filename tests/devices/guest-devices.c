// SPDX-License-Identifier: MIT
/*
 * Description: in a guest with real NVMe / scsi_debug devices, the derived limits equal the
 * kernel's sysfs (read directly, not through the library; a device without atomic writes fails, the
 * rig configures every one with them), passthrough writes land and read back, too-large or
 * misaligned ones are refused, sense data is decoded, a partition is refused by the passthrough
 * engines and an sg node without its sd disk is written only with --force.
 *
 * Usage: guest-devices [--nvme /dev/nvmeXnY --ng /dev/ngXnY] [--scsi /dev/sdX --sg /dev/sgN]
 *                      [--awr PATH-OF-awr] [--no-atomic]
 * --no-atomic (last): the device is configured so that Linux turns atomic writes
 * off (NVMe NABO != 0): sysfs must read none and the kernel refuse RWF_ATOMIC.
 * Writes to the given devices (they must be scratch devices). One line per
 * case: "PASS name", "FAIL name: reason" or "SKIP name: reason"; exit 1 when
 * any case failed, else 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../raw_sysfs.h"

#ifndef BLKRRPART
#define BLKRRPART _IO(0x12, 95)
#endif

static int failures;
static const char *awr_bin;	/* --awr: also check awr write --engine nvme|scsi */
static bool no_atomic; /* --no-atomic: the rig configured this device so that Linux turns atomic
			  writes off */

static void result(const char *verdict, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", verdict, name);
	if (fmt) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
	if (!strcmp(verdict, "FAIL"))
		failures++;
}

#define PASS(name) result("PASS", name, NULL)
#define FAIL(name, ...) result("FAIL", name, __VA_ARGS__)
#define SKIP(name, ...) result("SKIP", name, __VA_ARGS__)

static void *aligned(size_t len, int fill)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 4096))
		return NULL;
	memset(p, fill, len);
	return p;
}

/* Read @len bytes at @off of a block device with O_DIRECT; 0 when they all equal @fill. */
static int read_check(const char *dev, uint64_t off, size_t len, int fill, char *why, size_t whylen)
{
	uint8_t *b = aligned(len, 0);
	int fd = open(dev, O_RDONLY | O_DIRECT);
	ssize_t n;
	int ret = -1;

	if (!b || fd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", dev, strerror(errno));
		goto out;
	}
	n = pread(fd, b, len, (off_t)off);
	if (n != (ssize_t)len) {
		snprintf(why, whylen, "read-back of %zu bytes at %" PRIu64 " returned %zd", len,
			 off, n);
		goto out;
	}
	for (size_t i = 0; i < len; i++)
		if (b[i] != fill) {
			snprintf(why, whylen, "byte %" PRIu64 " reads 0x%02x, expected 0x%02x",
				 off + i, b[i], fill);
			goto out;
		}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(b);
	return ret;
}

static int fill_dev(const char *dev, uint64_t off, size_t len, int fill)
{
	void *b = aligned(len, fill);
	int fd = open(dev, O_WRONLY | O_DIRECT);
	ssize_t n = -1;

	if (b && fd >= 0)
		n = pwrite(fd, b, len, (off_t)off);
	if (fd >= 0)
		close(fd);
	free(b);
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * The kernel's atomic write limits of a block device, read from sysfs here
 * (not through the library under test); a partition's from its disk's queue.
 */
struct raw_sysfs {
	bool partition;
	uint32_t unit_min, unit_max, max_bytes, boundary, logical_block_size;
};

/* The number in DIR/FILE, as sysfs_number() reads it. */
static int read_u32(const char *dir, const char *file, uint32_t *out)
{
	uint64_t v;
	int ret = sysfs_number(dir, file, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

static int sysfs_of(const char *dev, struct raw_sysfs *y)
{
	char real[PATH_MAX], q[PATH_MAX + 16];
	int ret;

	memset(y, 0, sizeof(*y));
	ret = sysfs_block_dirs(dev, real, &y->partition, q, sizeof(q));
	if (ret)
		return ret;
	if (read_u32(q, "atomic_write_unit_min_bytes", &y->unit_min) ||
	    read_u32(q, "atomic_write_unit_max_bytes", &y->unit_max) ||
	    read_u32(q, "atomic_write_max_bytes", &y->max_bytes) ||
	    read_u32(q, "atomic_write_boundary_bytes", &y->boundary) ||
	    read_u32(q, "logical_block_size", &y->logical_block_size))
		return -ENOENT;
	return 0;
}

static bool limits_equal(const struct awr_device_limits *l, const struct raw_sysfs *y)
{
	return l->unit_min == y->unit_min && l->unit_max == y->unit_max &&
	       l->max_bytes == y->max_bytes && l->boundary == y->boundary;
}

/* 7.0+ kernels ignore the controller's AWUPF for namespaces (kernel-abi.md, "What changed"). */
static bool ignores_awupf(void)
{
	struct utsname u;
	unsigned int major = 0;

	return !uname(&u) && sscanf(u.release, "%u.", &major) == 1 && major >= 7;
}

static bool same_limits(const struct awr_device_limits *a, const struct awr_device_limits *b)
{
	return a->unit_min == b->unit_min && a->unit_max == b->unit_max &&
	       a->max_bytes == b->max_bytes && a->boundary == b->boundary;
}

static void derived_vs_sysfs(const char *name, const char *blk)
{
	struct awr_device *d = NULL;
	struct raw_sysfs y;
	struct awr_device_limits with, without, *l = &with, *alt = &without;
	int ret = awr_device_open(blk, &d);

	if (ret || sysfs_of(blk, &y)) {
		FAIL(name, "cannot read the device view or sysfs of %s: %s", blk,
		     strerror(ret ? -ret : ENODEV));
		goto out;
	}
	awr_device_derive_at(d, AWR_KERNEL(6, 18, 0), &with);
	awr_device_derive_at(d, AWR_KERNEL(7, 0, 0), &without);
	if (same_limits(&with, &without))
		alt = NULL;	/* one interpretation: the answer does not rest on AWUPF */
	/*
	 * Which interpretation this kernel uses is known from its version, not
	 * taken from whichever matches: before 7.0 nvme_update_atomic_write_disk_info()
	 * falls back to AWUPF (the primary derivation); 7.0 ("nvme: stop using
	 * AWUPF") ignores it (the alternative).
	 */
	if (!l->capped)
		FAIL(name, "the block layer caps were not applied (max_segments/max_hw_sectors "
			   "unread)");
	else if (!ignores_awupf() && limits_equal(l, &y))
		PASS(name);
	else if (ignores_awupf() && alt && limits_equal(alt, &y))
		result("PASS", name, "sysfs matches the interpretation without AWUPF, as this "
				     "kernel (7.0+) derives");
	else if (ignores_awupf() && !alt && limits_equal(l, &y))
		PASS(name);
	else if (!ignores_awupf() && alt && limits_equal(alt, &y))
		FAIL(name, "sysfs matches the interpretation without AWUPF, but a kernel before "
			   "7.0 uses AWUPF");
	else if (ignores_awupf() && limits_equal(l, &y))
		FAIL(name,
		     "sysfs matches the AWUPF interpretation, but a 7.0+ kernel ignores AWUPF");
	else
		FAIL(name,
		     "derived %" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32 " but sysfs %" PRIu32
		     "/%" PRIu32 "/%" PRIu32 "/%" PRIu32 " (unit_min/unit_max/max_bytes/boundary)",
		     l->unit_min, l->unit_max, l->max_bytes, l->boundary, y.unit_min, y.unit_max,
		     y.max_bytes, y.boundary);
out:
	awr_device_free(d);
}

/* The kernel takes an RWF_ATOMIC write of the derived unit_max and refuses twice that. */
static void kernel_agrees(const char *name, const char *blk)
{
	struct raw_sysfs y;
	struct iovec iov;
	void *b = NULL;
	ssize_t ok, bad;
	int fd = -1;

	if (no_atomic) {
		/*
		 * blkdev_open() (block/fops.c, 6.11+) sets FMODE_CAN_ATOMIC_WRITE only
		 * when bdev_can_atomic_write(); without it kiocb_set_rw_flags()
		 * (include/linux/fs.h) refuses RWF_ATOMIC with -EOPNOTSUPP.
		 */
		if (sysfs_of(blk, &y) || y.unit_max || y.unit_min || y.max_bytes) {
			FAIL(name,
			     "%s: sysfs atomic limits %" PRIu32 "/%" PRIu32 "/%" PRIu32
			     ", expected none",
			     blk, y.unit_min, y.unit_max, y.max_bytes);
			return;
		}
		b = aligned(y.logical_block_size, 0x3c);
		fd = open(blk, O_RDWR | O_DIRECT);
		if (!b || fd < 0) {
			FAIL(name, "cannot open %s: %s", blk, strerror(errno));
			goto out;
		}
		iov = (struct iovec){ b, y.logical_block_size };
		bad = awr_pwrite_raw(fd, &iov, 1, 0, 0);
		if (bad != -EOPNOTSUPP)
			FAIL(name, "RWF_ATOMIC write of one block returned %zd, expected "
				   "-EOPNOTSUPP", bad);
		else
			PASS(name);
		goto out;
	}
	/* the rig configures every device with atomic writes: none in sysfs is a failure */
	if (sysfs_of(blk, &y) || !y.unit_max) {
		FAIL(name, "%s has no atomic write support in sysfs", blk);
		return;
	}
	b = aligned(2ULL * y.unit_max, 0x3c);
	fd = open(blk, O_RDWR | O_DIRECT);
	if (!b || fd < 0) {
		FAIL(name, "cannot open %s: %s", blk, strerror(errno));
		goto out;
	}
	iov = (struct iovec){ b, y.unit_max };
	ok = awr_pwrite_raw(fd, &iov, 1, y.unit_max, 0);
	iov.iov_len = 2ULL * y.unit_max;
	bad = awr_pwrite_raw(fd, &iov, 1, 0, 0);
	if (ok != (ssize_t)y.unit_max)
		FAIL(name, "RWF_ATOMIC write of unit_max %" PRIu32 " returned %zd", y.unit_max, ok);
	else if (bad != -EINVAL)
		FAIL(name, "RWF_ATOMIC write of 2 x unit_max returned %zd, expected -EINVAL", bad);
	else
		PASS(name);
out:
	if (fd >= 0)
		close(fd);
	free(b);
}

/* awr_probe_path() of a disk or char device carries the device view, without query failures. */
static void probe_view(const char *name, const char *path, enum awr_device_type type)
{
	struct awr_probe *p = NULL;
	const struct awr_device *d;
	struct awr_device_limits l = { 0 };
	int ret = awr_probe_path(path, 0, &p);

	if (ret) {
		FAIL(name, "awr_probe_path(%s): %s", path, strerror(-ret));
		return;
	}
	d = awr_probe_device(p);
	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++) {
		const struct awr_finding *f = awr_probe_finding(p, i);

		if (!strcmp(f->id, "device_query_failed") ||
		    !strcmp(f->id, "device_sysfs_mismatch")) {
			FAIL(name, "%s: %s", f->id, f->message);
			goto out;
		}
	}
	if (d)
		awr_device_derive_at(d, AWR_KERNEL(6, 18, 0), &l);
	if (!d || awr_device_type(d) != type)
		FAIL(name, "no %s device view for %s", type == AWR_DEVICE_NVME ? "NVMe" : "SCSI",
		     path);
	else if (!no_atomic && !l.supported)
		FAIL(name, "the device view of %s derives no atomic support", path);
	else if (no_atomic && l.supported)
		FAIL(name, "the device view of %s derives atomic support, but Linux turns it off",
		     path);
	else
		PASS(name);
out:
	awr_probe_free(p);
}

/* awr write --engine E: a write within the device's limits exits 0, one beyond them 1. */
static void cli_write(const char *name, const char *engine, const char *dev, uint64_t ok_len,
		      uint64_t bad_len, uint64_t off)
{
	char cmd[512];
	int rc_ok, rc_bad;

	if (!awr_bin) {
		SKIP(name, "no --awr given");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "%s write %s --engine %s --offset %" PRIu64 " --length %" PRIu64
		 " --verify --force --dsync >/dev/null 2>&1",
		 awr_bin, dev, engine, off, ok_len);
	rc_ok = system(cmd);
	snprintf(cmd, sizeof(cmd),
		 "%s write %s --engine %s --offset %" PRIu64 " --length %" PRIu64
		 " --force >/dev/null 2>&1",
		 awr_bin, dev, engine, off, bad_len);
	rc_bad = system(cmd);
	if (!WIFEXITED(rc_ok) || WEXITSTATUS(rc_ok))
		FAIL(name, "awr write --engine %s of %" PRIu64 " bytes exited %d", engine, ok_len,
		     WEXITSTATUS(rc_ok));
	else if (!WIFEXITED(rc_bad) || WEXITSTATUS(rc_bad) != 1)
		FAIL(name, "awr write --engine %s of %" PRIu64 " bytes (too large) exited %d, "
							       "expected 1",
		     engine, bad_len, WEXITSTATUS(rc_bad));
	else
		PASS(name);
}

static int run_awr(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The number after "KEY": in awr's JSON, or -1. */
static long json_long(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/*
 * awr write --engine nvme keeps the queue full: 16 units at --qd 8, read back
 * through the block disk (--verify); the writes in the kernel at each reap
 * (awr_queue_stats) reach 8, and --qd 1 (the control) never holds more than 1.
 */
static void cli_write_queued(const char *name, const char *engine, const char *dev, uint64_t unit,
			     uint64_t off)
{
	char out[4096], out1[4096];
	int rc, rc1;

	if (!awr_bin) {
		SKIP(name, "no --awr given");
		return;
	}
	rc = run_awr(out, sizeof(out),
		     "write %s --engine %s --qd 8 --offset %" PRIu64 " --length %" PRIu64
		     " --unit %" PRIu64 " --pattern 0x3c --verify --force -o json",
		     dev, engine, off, 16 * unit, unit);
	rc1 = run_awr(out1, sizeof(out1),
		      "write %s --engine %s --qd 1 --offset %" PRIu64 " --length %" PRIu64
		      " --unit %" PRIu64 " --pattern 0x3d --verify --force -o json",
		      dev, engine, off, 4 * unit, unit);
	if (rc != 0 || !strstr(out, "\"verified\": true") || json_long(out, "writes") != 16)
		FAIL(name, "--qd 8 exited %d: %.300s", rc, out);
	else if (json_long(out, "depth") != 8 || json_long(out, "inflight_max") != 8)
		FAIL(name, "--qd 8 held at most %ld writes in the kernel at a reap, not 8: %.300s",
		     json_long(out, "inflight_max"), out);
	else if (json_long(out, "reaps_below_depth") >= json_long(out, "reaps"))
		FAIL(name,
		     "--qd 8: %ld of %ld reaps counted below the depth, though 8 were in "
		     "flight (counted "
		     "against another depth?): %.300s",
		     json_long(out, "reaps_below_depth"), json_long(out, "reaps"), out);
	else if (json_long(out, "submit_calls") < 16)
		FAIL(name, "--qd 8: %ld submit calls for 16 writes: each is not handed to the "
			   "kernel as it is "
		     "queued: %.300s", json_long(out, "submit_calls"), out);
	else if (rc1 != 0 || !strstr(out1, "\"verified\": true") ||
		 json_long(out1, "inflight_max") != 1)
		FAIL(name, "the control --qd 1 exited %d or held other than 1 write: %.300s", rc1,
		     out1);
	else
		PASS(name);
}

/* Run an awr command line with stdout and stderr in @out; its exit status, or -1. */
static int run_awr(char *out, size_t len, const char *fmt, ...)
{
	char cmd[768], args[640];
	size_t n = 0;
	va_list ap;
	FILE *p;
	int rc;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", awr_bin, args);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n + 1 < len && fgets(out + n, (int)(len - n), p))
		n += strlen(out + n);
	rc = pclose(p);
	for (char *c = out; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Wait up to 10 s until @path exists as a block device (@want) or is gone (!@want). */
static bool wait_blk(const char *path, bool want)
{
	struct stat st;

	for (int i = 0; i < 100; i++) {
		if ((!stat(path, &st) && S_ISBLK(st.st_mode)) == want)
			return true;
		usleep(100000);
	}
	return false;
}

/* An MBR with one partition of 1 MiB at 1 MiB (LBAs in logical blocks), or none (@sec zeroed). */
static int write_mbr(const char *blk, uint8_t *sec, uint32_t lbs, bool part)
{
	uint32_t start = (1U << 20) / lbs, count = start;
	int fd = open(blk, O_RDWR | O_DIRECT);
	int ret = -1;

	memset(sec, 0, lbs);
	if (part) {
		sec[446 + 1] = 0xfe; sec[446 + 2] = 0xff; sec[446 + 3] = 0xff;	/* CHS: use LBA */
		sec[446 + 4] = 0x83;
		sec[446 + 5] = 0xfe; sec[446 + 6] = 0xff; sec[446 + 7] = 0xff;
		memcpy(sec + 446 + 8, &start, 4);	/* little-endian guest */
		memcpy(sec + 446 + 12, &count, 4);
		sec[510] = 0x55;
		sec[511] = 0xaa;
	}
	if (fd >= 0 && pwrite(fd, sec, lbs, 0) == (ssize_t)lbs && !fsync(fd) &&
	    !ioctl(fd, BLKRRPART))
		ret = 0;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The library's open of a partition: its errno (a handle it should not give is closed again). */
static int lib_open(const char *engine, const char *path)
{
	struct awr_queue *q = NULL;
	int ret = !strcmp(engine, "nvme") ? awr_queue_open(AWR_QUEUE_NVME, path, NULL, 1, 0, &q) :
					    awr_queue_open(AWR_QUEUE_SCSI, path, NULL, 0, 0, &q);

	awr_queue_close(q);
	return ret;
}

/*
 * One write through @q, waited for: its length, the rule's errno (nothing sent), or the
 * completion's error with the device's sentence in @v.
 */
static ssize_t write_one(struct awr_queue *q, const void *b, size_t len, uint64_t off,
			 unsigned int flags, struct awr_verdict *v)
{
	struct awr_completion c;
	int ret;

	v->rule = AWR_RULE_OK;
	v->message[0] = 0;
	ret = awr_queue_write(q, b, len, off, 1, flags, v);
	if (ret)
		return ret;
	ret = awr_queue_reap(q, &c, 1, 1);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	if (c.res < 0) {
		v->rule = c.rule;
		snprintf(v->message, sizeof(v->message), "%s",
			 c.rule == AWR_RULE_DEVICE_ERROR ? awr_last_error() : strerror(-c.res));
	}
	return c.res;
}

/* The partition check proper: nothing reaches the disk, the partition table included. */
static void partition_write(const char *name, const char *engine, const char *blk, const char *part,
			    const uint8_t *mbr, uint32_t lbs, uint64_t len)
{
	char out[1024], why[160];
	uint8_t *now = aligned(lbs, 0);
	int fd = open(blk, O_RDONLY | O_DIRECT);
	int rc, lib;

	if (fill_dev(blk, 1U << 20, len, 0x33)) {
		FAIL(name, "cannot pre-fill the partition's first blocks");
		goto out;
	}
	rc = run_awr(out, sizeof(out),
		     "write %s --engine %s --offset 0 --length %" PRIu64
		     " --pattern 0x77 --force --verify",
		     part, engine, len);
	lib = lib_open(engine, part);
	if (!now || fd < 0 || pread(fd, now, lbs, 0) != (ssize_t)lbs)
		FAIL(name, "cannot read LBA 0 of %s back", blk);
	else if (rc != 2 || !strstr(out, "is a partition of"))
		FAIL(name, "awr write %s --engine %s exited %d, expected 2 with a partition error: "
			   "%s", part, engine, rc, out);
	else if (lib != -EINVAL)
		FAIL(name, "the library's open of %s returned %d, expected -EINVAL", part, lib);
	else if (memcmp(now, mbr, lbs))
		FAIL(name, "LBA 0 of %s (the partition table) changed", blk);
	else if (read_check(blk, 1U << 20, len, 0x33, why, sizeof(why)))
		FAIL(name, "the partition changed: %s", why);
	else
		result("PASS", name, "%s", out);
out:
	if (fd >= 0)
		close(fd);
	free(now);
}

/*
 * The passthrough engines address the whole disk: a partition's offset 0 is the
 * disk's LBA 0. @len is a write the device takes at LBA 0, so only the
 * partition refusal can stop it.
 */
static void partition_refused(const char *name, const char *engine, const char *blk, uint64_t len)
{
	struct raw_sysfs y;
	char part[96];
	uint8_t *mbr;
	size_t n = strlen(blk);

	if (!awr_bin) {
		SKIP(name, "no --awr given");
		return;
	}
	if (sysfs_of(blk, &y) || !y.logical_block_size || y.partition) {
		FAIL(name, "%s is not a whole disk with a logical block size in sysfs", blk);
		return;
	}
	snprintf(part, sizeof(part), "%s%s1", blk,
		 n && blk[n - 1] >= '0' && blk[n - 1] <= '9' ? "p" : "");
	mbr = aligned(y.logical_block_size, 0);
	if (!mbr || write_mbr(blk, mbr, y.logical_block_size, true) || !wait_blk(part, true))
		FAIL(name, "cannot make partition %s: %s", part, strerror(errno));
	else
		partition_write(name, engine, blk, part, mbr, y.logical_block_size, len);
	/* drop the table again: the rig's own partition cases come later */
	if (mbr && (write_mbr(blk, mbr, y.logical_block_size, false) || !wait_blk(part, false)))
		FAIL(name, "cannot remove the partition table of %s again", blk);
	free(mbr);
}

static void nvme_cases(const char *blk, const char *ng)
{
	struct awr_verdict v = { 0 };
	struct awr_queue *h = NULL;
	const struct awr_nvme_id *id;
	uint64_t unit, off;
	void *b = NULL;
	char why[160];
	ssize_t ret;

	derived_vs_sysfs("nvme_derived_equals_sysfs", blk);
	kernel_agrees(no_atomic ? "nvme_kernel_refuses_atomic" : "nvme_kernel_takes_unit_max", blk);
	probe_view("nvme_probe_disk_view", blk, AWR_DEVICE_NVME);
	probe_view("nvme_probe_char_view", ng, AWR_DEVICE_NVME);
	if (no_atomic)	/* the passthrough cases below need the kernel's atomic unit */
		return;
	ret = awr_queue_open(AWR_QUEUE_NVME, ng, NULL, 1, 0, &h);
	if (ret) {
		FAIL("nvme_passthrough_open", "awr_queue_open(nvme, %s): %s", ng,
		     strerror((int)-ret));
		return;
	}
	PASS("nvme_passthrough_open");
	id = awr_device_nvme(awr_queue_device(h));
	unit = ((id->nsfeat & 2) && id->nawupf ? id->nawupf : id->awupf) +
	       1ULL; /* NAWUPF 0: AWUPF */
	unit *= id->lba_size;
	off = 2 * unit;
	b = aligned(unit + id->lba_size, 0xa5);
	if (fill_dev(blk, off, unit + id->lba_size, 0x11))
		FAIL("nvme_passthrough_write", "cannot pre-fill %s", blk);
	else if ((ret = write_one(h, b, unit, off, AWR_WRITE_DSYNC, &v)) != (ssize_t)unit)
		FAIL("nvme_passthrough_write", "write of %" PRIu64 " bytes at %" PRIu64 ": %zd %s",
		     unit, off, ret, v.message);
	else if (read_check(blk, off, unit, 0xa5, why, sizeof(why)))
		FAIL("nvme_passthrough_write", "%s", why);
	else
		PASS("nvme_passthrough_write");
	memset(b, 0x5a, unit + id->lba_size);
	ret = write_one(h, b, unit + id->lba_size, off, 0, &v);
	if (ret != -EINVAL || v.rule != AWR_RULE_TOO_LARGE)
		FAIL("nvme_passthrough_refuses_too_large",
		     "a write of %" PRIu64 " bytes returned %zd (rule %s)", unit + id->lba_size,
		     ret, awr_rule_name(v.rule));
	else if (read_check(blk, off, unit, 0xa5, why, sizeof(why)))
		FAIL("nvme_passthrough_refuses_too_large", "refused, but the data changed: %s",
		     why);
	else
		PASS("nvme_passthrough_refuses_too_large");
	free(b);
	awr_queue_close(h);
	cli_write("nvme_cli_write_engine", "nvme", ng, unit, unit + id->lba_size, off);
	cli_write_queued("nvme_cli_write_queued", "nvme", ng, unit, off);
	partition_refused("nvme_cli_partition_refused", "nvme", blk, unit);
}

/*
 * The sg driver's queue (awr_queue_open(), depth 8): 16 WRITE ATOMIC(16) of @len at @off,
 * each reaped with its length and read back through the block disk, at most 8 in flight and a
 * reap that found 8; then, where the device has an atomic alignment, a misaligned command sent
 * unchecked completes with the device's refusal decoded (ILLEGAL REQUEST, invalid field in CDB).
 */
static void scsi_queued(const char *sg, const char *blk, uint64_t len, uint32_t align, uint64_t off)
{
	struct awr_completion c[16];
	struct awr_queue_stats st;
	struct awr_verdict v = { 0 };
	struct awr_queue *h = NULL;
	unsigned int queued = 0, done = 0, bad = 0;
	unsigned char *b = aligned(16 * len, 0x5e);
	const struct awr_scsi_id *s;
	char why[256] = "";
	int ret = awr_queue_open(AWR_QUEUE_SCSI, sg, NULL, 8, 0, &h);

	if (ret) {
		FAIL("scsi_queued_writes", "awr_queue_open(scsi, %s, 8): %s", sg, strerror(-ret));
		free(b);
		return;
	}
	s = awr_device_scsi(awr_queue_device(h));
	while (done < 16 && !why[0]) {
		ret = 0;
		while (queued < 16 && !(ret = awr_queue_write(h, b + queued * len, len,
							       off + queued * len, queued, 0, &v)))
			queued++;
		if (ret && ret != -EBUSY)
			snprintf(why, sizeof(why), "queueing write %u: %s (%s)", queued,
				 strerror(-ret), v.message);
		ret = awr_queue_reap(h, c, 16, 1);
		if (ret < 0)
			snprintf(why, sizeof(why), "reap: %s", strerror(-ret));
		for (int i = 0; i < ret; i++, done++)
			bad += c[i].res != (int32_t)len;
	}
	awr_queue_stats(h, &st);
	if (!why[0] && bad)
		snprintf(why, sizeof(why), "%u of 16 completions not the length written", bad);
	if (!why[0] && (st.inflight_max != 8 || st.completed != 16))
		snprintf(why, sizeof(why),
			 "at most %u in flight at a reap (8 queued), %" PRIu64 " completed",
			 st.inflight_max, st.completed);
	if (!why[0])
		read_check(blk, off, 16 * len, 0x5e, why, sizeof(why));
	if (why[0])
		FAIL("scsi_queued_writes", "%s", why);
	else
		result("PASS", "scsi_queued_writes", "16 writes of %" PRIu64 " bytes, 8 in flight, "
									     "read back", len);
	if (align < 2) {
		SKIP("scsi_queued_sense_decoded", "the device has no atomic alignment");
	} else if ((ret = awr_queue_write(h, b, len, off + s->logical_block_size, 99,
					  AWR_WRITE_NOCHECK, &v)) ||
		   awr_queue_reap(h, c, 1, 1) != 1) {
		FAIL("scsi_queued_sense_decoded", "the misaligned command was not sent or not "
						  "reaped: %s", strerror(-ret));
	} else if (c[0].tag != 99 || c[0].res != -EIO || c[0].rule != AWR_RULE_DEVICE_ERROR ||
		   !strcasestr(awr_last_error(), "ILLEGAL REQUEST")) {
		FAIL("scsi_queued_sense_decoded", "completion tag %" PRIu64 " res %d rule %s: %s",
		     c[0].tag, c[0].res, awr_rule_name(c[0].rule),
		     awr_last_error()[0] ? awr_last_error() : "no sentence");
	} else {
		result("PASS", "scsi_queued_sense_decoded", "%s", awr_last_error());
	}
	awr_queue_close(h);
	free(b);
}

/* Bind or unbind the sd driver of an sg node's SCSI device (H:C:T:L); 0 on success. */
static int sd_driver(const char *op, const char *sg)
{
	char link[PATH_MAX], real[PATH_MAX], path[80];
	const char *base = strrchr(sg, '/');
	FILE *f;
	int ret;

	snprintf(link, sizeof(link), "/sys/class/scsi_generic/%s/device", base ? base + 1 : sg);
	if (!realpath(link, real))
		return -1;
	base = strrchr(real, '/');
	snprintf(path, sizeof(path), "/sys/bus/scsi/drivers/sd/%s", op);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fputs(base ? base + 1 : real, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* A JSON "verified": null, whatever the spacing. */
static bool verified_null(const char *out)
{
	char squeezed[1024];
	size_t n = 0;

	for (const char *c = out; *c && n + 1 < sizeof(squeezed); c++)
		if (*c != ' ' && *c != '\t')
			squeezed[n++] = *c;
	squeezed[n] = '\0';
	return strstr(squeezed, "\"verified\":null");
}

/*
 * With sd unbound, /dev/sgN has no block disk: whether it holds data cannot be
 * checked (refused without --force) and --verify cannot read back (exit 2,
 * "verified": null). The disk is bound again and the data checked through it.
 */
static void sg_unbound(const char *blk, const char *sg, uint64_t len, uint64_t off_a,
		       uint64_t off_b)
{
	char out_a[1024], out_b[1024], why[160];
	int rc_a, rc_b;

	if (!awr_bin || !strcmp(blk, sg)) {
		SKIP("scsi_cli_unbound_sg", "%s", !awr_bin ? "no --awr given" : "no --sg given");
		return;
	}
	if (fill_dev(blk, off_a, len, 0x44) || fill_dev(blk, off_b, len, 0x44)) {
		FAIL("scsi_cli_unbound_sg", "cannot pre-fill %s", blk);
		return;
	}
	if (sd_driver("unbind", sg) || !wait_blk(blk, false)) {
		FAIL("scsi_cli_unbound_sg", "cannot unbind sd from %s: %s", sg, strerror(errno));
		return;
	}
	rc_a = run_awr(out_a, sizeof(out_a),
		       "write %s --engine scsi --offset %" PRIu64 " --length %" PRIu64
		       " --pattern 0x55",
		       sg, off_a, len);
	rc_b = run_awr(out_b, sizeof(out_b),
		       "write %s --engine scsi --offset %" PRIu64 " --length %" PRIu64
		       " --pattern 0x66 --force --verify -o json",
		       sg, off_b, len);
	if (sd_driver("bind", sg) || !wait_blk(blk, true)) {
		FAIL("scsi_cli_unbound_sg", "cannot bind sd to %s again: %s did not come back", sg,
		     blk);
		return;
	}
	if (rc_a != 2 || !strstr(out_a, "cannot tell whether"))
		FAIL("scsi_cli_unbound_sg_needs_force", "without --force exited %d, expected 2 "
							"with a refusal: %s", rc_a, out_a);
	else if (read_check(blk, off_a, len, 0x44, why, sizeof(why)))
		FAIL("scsi_cli_unbound_sg_needs_force", "refused, but the data changed: %s", why);
	else
		result("PASS", "scsi_cli_unbound_sg_needs_force", "%s", out_a);
	if (rc_b != 2 || !strstr(out_b, "cannot verify") || !verified_null(out_b))
		FAIL("scsi_cli_unbound_sg_cannot_verify", "--force --verify exited %d, expected 2, "
							  "\"cannot verify\" and \"verified\": "
							  "null: %s",
		     rc_b, out_b);
	else if (read_check(blk, off_b, len, 0x66, why, sizeof(why)))
		FAIL("scsi_cli_unbound_sg_cannot_verify", "the forced write did not land: %s", why);
	else
		result("PASS", "scsi_cli_unbound_sg_cannot_verify", "%s", out_b);
}

static void scsi_cases(const char *blk, const char *sg)
{
	struct awr_verdict v = { 0 };
	struct awr_queue *h = NULL;
	const struct awr_scsi_id *s;
	uint32_t align, gran, max;
	uint64_t len, lba, spot;
	void *b = NULL;
	char why[160];
	ssize_t ret;

	derived_vs_sysfs("scsi_derived_equals_sysfs", blk);
	kernel_agrees("scsi_kernel_takes_unit_max", blk);
	probe_view("scsi_probe_disk_view", blk, AWR_DEVICE_SCSI);
	probe_view("scsi_probe_char_view", sg, AWR_DEVICE_SCSI);
	ret = awr_queue_open(AWR_QUEUE_SCSI, sg, NULL, 0, 0, &h);
	if (ret) {
		FAIL("scsi_open", "awr_queue_open(scsi, %s, 0): %s", sg, strerror((int)-ret));
		return;
	}
	s = awr_device_scsi(awr_queue_device(h));
	align = s->atomic_alignment > 1 ? s->atomic_alignment : 1;
	gran = s->atomic_granularity > 1 ? s->atomic_granularity : 1;
	lba = 2ULL * align;
	len = 2ULL * gran * s->logical_block_size;
	b = aligned(len, 0xc3);
	if (fill_dev(blk, lba * s->logical_block_size, len, 0x22))
		FAIL("scsi_write_atomic16", "cannot pre-fill %s", blk);
	else if ((ret = write_one(h, b, len, lba * s->logical_block_size, AWR_WRITE_DSYNC, &v)) !=
		 (ssize_t)len)
		FAIL("scsi_write_atomic16", "%zd: %s", ret, v.message);
	else if (read_check(blk, lba * s->logical_block_size, len, 0xc3, why, sizeof(why)))
		FAIL("scsi_write_atomic16", "%s", why);
	else
		PASS("scsi_write_atomic16");
	/* REPORT SUPPORTED OPERATION CODES should list 9Ch; scsi_debug (6.12) does not */
	if (s->write_atomic16 == 1)
		PASS("scsi_write_atomic16_reported");
	else if (s->write_atomic16 == 0 && ret == (ssize_t)len)
		SKIP("scsi_write_atomic16_reported", "REPORT SUPPORTED OPERATION CODES says 9Ch is "
						     "not supported, yet the device executed it (a "
						     "known scsi_debug gap)");
	else
		FAIL("scsi_write_atomic16_reported", "REPORT SUPPORTED OPERATION CODES gave %d",
		     s->write_atomic16);
	if (align < 2) {
		SKIP("scsi_misaligned_refused_by_library", "the device has no atomic alignment");
		SKIP("scsi_misaligned_sense_decoded", "the device has no atomic alignment");
	} else {
		ret = awr_queue_check(h, b, len, s->logical_block_size, &v);
		if (ret != -EINVAL || v.rule != AWR_RULE_MISALIGNED)
			FAIL("scsi_misaligned_refused_by_library", "%zd (rule %s)", ret,
			     awr_rule_name(v.rule));
		else
			PASS("scsi_misaligned_refused_by_library");
		ret = write_one(h, b, len, s->logical_block_size, AWR_WRITE_NOCHECK, &v);
		if (ret != -EIO || v.rule != AWR_RULE_DEVICE_ERROR ||
		    !strcasestr(v.message, "ILLEGAL REQUEST") ||
		    !strcasestr(v.message, "invalid field in cdb"))
			FAIL("scsi_misaligned_sense_decoded", "%zd: %s", ret, v.message);
		else
			result("PASS", "scsi_misaligned_sense_decoded", "%s", v.message);
	}
	max = s->max_atomic_transfer_length ? s->max_atomic_transfer_length :
					      s->max_atomic_transfer_length_with_boundary;
	ret = awr_queue_check(h, b, (max + gran) * (size_t)s->logical_block_size, 0, &v);
	if (ret != -EINVAL)
		FAIL("scsi_too_large_refused_by_library", "%zd (rule %s)", ret,
		     awr_rule_name(v.rule));
	else
		PASS("scsi_too_large_refused_by_library");
	cli_write("scsi_cli_write_engine", "scsi", sg, len,
		  ((uint64_t)max + gran) * s->logical_block_size, lba * s->logical_block_size);
	spot = 64ULL * align * s->logical_block_size;	/* clear of the writes above */
	free(b);
	awr_queue_close(h);
	scsi_queued(sg, blk, len, align, spot);
	cli_write_queued("scsi_cli_write_queued", "scsi", sg, len, spot);
	partition_refused("scsi_cli_partition_refused", "scsi", blk, len);
	sg_unbound(blk, sg, len, spot, 2 * spot);
}

int main(int argc, char **argv)
{
	const char *nvme = NULL, *ng = NULL, *scsi = NULL, *sg = NULL;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--nvme"))
			nvme = argv[i + 1];
		else if (!strcmp(argv[i], "--ng"))
			ng = argv[i + 1];
		else if (!strcmp(argv[i], "--scsi"))
			scsi = argv[i + 1];
		else if (!strcmp(argv[i], "--sg"))
			sg = argv[i + 1];
		else if (!strcmp(argv[i], "--awr"))
			awr_bin = argv[i + 1];
	}
	if (argc > 1 && !strcmp(argv[argc - 1], "--no-atomic"))
		no_atomic = true;
	if (!nvme && !scsi) {
		fprintf(stderr, "usage: %s [--nvme /dev/nvmeXnY --ng /dev/ngXnY] [--scsi /dev/sdX "
				"--sg /dev/sgN]\n", argv[0]);
		return 2;
	}
	/* only the device classes given are checked: the rig gives one per configuration */
	if (nvme)
		nvme_cases(nvme, ng ? ng : nvme);
	if (scsi)
		scsi_cases(scsi, sg ? sg : scsi);
	return failures ? 1 : 0;
}
