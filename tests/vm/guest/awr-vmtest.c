// SPDX-License-Identifier: MIT
/*
 * awr-vmtest: the guest side of the VM test rig. Runs inside the test guest
 * (6.12, 6.18 and 7.x kernels with scsi_debug and QEMU NVMe) and compares libatomicwr and
 * the awr tool against what the kernel itself reports and does.
 *
 * Every case prints one line on stdout:
 *   AWRVM: PASS name
 *   AWRVM: FAIL name: reason
 *   AWRVM: SKIP name: reason
 * and facts for the record as
 *   AWRVM: INFO topic key=value ...
 *
 * Commands:
 *   awr-vmtest disk TAG DEV        whole disk: statx, probe, json, sweep, errno, awr_pwrite, cli
 *   awr-vmtest part TAG DEV        partition: aligned -> like a disk; misaligned -> refused
 *   awr-vmtest stack TAG DEV       stacked (dm, md, multipath head): statx, probe, json, sweep
 *   awr-vmtest mbr DEV             write an MBR (one aligned, one misaligned partition), re-read it
 *   awr-vmtest chardev TAG DEV     awr probe on /dev/sgN or /dev/ngXnY: valid JSON
 *   awr-vmtest vpd TAG SGDEV DISK  SCSI Block Limits VPD read raw: equal to the scsi_debug
 *                                  parameters and to the library's decoding (API, probe, JSON)
 *   awr-vmtest nvmeid TAG CTRLDEV NSDEV [AWUN AWUPF]
 *                                  NVMe Identify read raw: AWUN/AWUPF as configured, every
 *                                  atomic field equal to the library's decoding (API, probe, JSON)
 *   awr-vmtest sysfs TAG DEV       record the sysfs atomic values
 *   awr-vmtest statx PATH          the kernel's statx of PATH, raw: "MASK UNIT_MIN UNIT_MAX
 *                                  SEGMENTS_MAX UNIT_MAX_OPT" (for the shell cases)
 *
 * The awr binary is taken from $AWR (default /awr/awr).
 * Exit status: 0 when no case failed, 1 otherwise, 2 on usage errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libnvme.h>
#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_unaligned.h>

#include "libatomicwr.h"
#include "../../raw_sysfs.h"

/* Merged kernel ABI (6.11+); Debian 12 headers lack these. */
#define VM_RWF_ATOMIC		0x00000040
#define VM_STATX_WRITE_ATOMIC	0x00010000U
#define VM_STATX_BASIC_STATS	0x000007ffU
#define VM_STATX_DIOALIGN	0x00002000U
#ifndef BLKRRPART
#define BLKRRPART _IO(0x12, 95)
#endif
#ifndef BLKGETSIZE64
#define BLKGETSIZE64 _IOR(0x12, 114, size_t)
#endif

static int failures;

static void result(const char *status, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void result(const char *status, const char *name, const char *fmt, ...)
{
	char msg[512] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (!strcmp(status, "FAIL"))
		failures++;
	if (msg[0])
		printf("AWRVM: %s %s: %s\n", status, name, msg);
	else
		printf("AWRVM: %s %s\n", status, name);
	fflush(stdout);
}

#define PASS(name) result("PASS", name, NULL)
#define FAILF(name, ...) result("FAIL", name, __VA_ARGS__)
#define SKIPF(name, ...) result("SKIP", name, __VA_ARGS__)

/* Case @name passes, or fails saying @why when it is not empty. */
static void verdict(const char *name, const char *why)
{
	if (why[0])
		return FAILF(name, "%s", why);
	PASS(name);
}

static const char *cname(const char *tag, const char *dev, const char *what)
{
	static char buf[4][256];
	static int i;
	const char *b = strrchr(dev, '/');

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s.%s.%s", tag, b ? b + 1 : dev, what);
	return buf[i];
}

static const char *ename(int err)
{
	static char buf[32];

	switch (err < 0 ? -err : err) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSPC: return "ENOSPC";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case EIO: return "EIO";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case ENOTTY: return "ENOTTY";
	default:
		snprintf(buf, sizeof(buf), "errno %d", err < 0 ? -err : err);
		return buf;
	}
}

/* ---------------------------------------------------------------- kernel */

struct kstatx {
	bool ok;
	uint32_t mask;
	uint32_t unit_min, unit_max, segments_max, unit_max_opt;
};

static struct kstatx raw_statx(const char *path)
{
	unsigned char buf[256];
	struct kstatx s = { 0 };
	long r;

	memset(buf, 0, sizeof(buf));
	r = syscall(SYS_statx, AT_FDCWD, path, 0,
		    VM_STATX_BASIC_STATS | VM_STATX_DIOALIGN | VM_STATX_WRITE_ATOMIC, buf);
	if (r)
		return s;
	s.ok = true;
	memcpy(&s.mask, buf + 0x00, 4);
	memcpy(&s.unit_min, buf + 0xa8, 4);
	memcpy(&s.unit_max, buf + 0xac, 4);
	memcpy(&s.segments_max, buf + 0xb0, 4);
	memcpy(&s.unit_max_opt, buf + 0xb8, 4);
	return s;
}

struct ksysfs {
	bool ok;
	char name[64];		/* sda, sda1 */
	char disk[64];		/* sda */
	bool partition;
	uint64_t start;		/* partition start, bytes */
	uint64_t size;		/* bytes */
	uint64_t unit_min, unit_max, max_bytes, boundary, lbs, pbs, max_segments, max_hw_kb;
};

static struct ksysfs raw_sysfs(const char *dev)
{
	struct ksysfs s = { 0 };
	char real[PATH_MAX], q[PATH_MAX + 16];
	uint64_t v;
	char *b;

	if (sysfs_block_dirs(dev, real, &s.partition, q, sizeof(q)))
		return s;
	b = strrchr(real, '/');
	snprintf(s.name, sizeof(s.name), "%s", b + 1);
	if (s.partition) {
		sysfs_number(real, "start", &v);
		s.start = v * 512;
		*b = '\0';
		snprintf(s.disk, sizeof(s.disk), "%s", strrchr(real, '/') + 1);
		*b = '/';
	} else
		snprintf(s.disk, sizeof(s.disk), "%s", s.name);
	if (sysfs_number(real, "size", &v) == 0)
		s.size = v * 512;
	s.ok = sysfs_number(q, "atomic_write_unit_min_bytes", &s.unit_min) == 0 &&
	       sysfs_number(q, "atomic_write_unit_max_bytes", &s.unit_max) == 0 &&
	       sysfs_number(q, "atomic_write_max_bytes", &s.max_bytes) == 0 &&
	       sysfs_number(q, "atomic_write_boundary_bytes", &s.boundary) == 0 &&
	       sysfs_number(q, "logical_block_size", &s.lbs) == 0 &&
	       sysfs_number(q, "physical_block_size", &s.pbs) == 0;
	sysfs_number(q, "max_segments", &s.max_segments);
	sysfs_number(q, "max_hw_sectors_kb", &s.max_hw_kb);
	return s;
}

/* Would the kernel allow atomic writes on this block device (6.11+ rule)? */
static bool kernel_allows(const struct ksysfs *s)
{
	uint64_t align;

	if (!s->unit_min)
		return false;
	if (!s->partition)
		return true;
	align = s->unit_min > s->boundary ? s->unit_min : s->boundary;
	return s->start % align == 0;
}

static void *abuf(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 4096))
		return NULL;
	return p;
}

static void fill(unsigned char *b, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (unsigned char)x;
	}
}

/* pwritev2(RWF_ATOMIC) with @nseg equal iovecs: bytes or -errno */
static long kwrite(int fd, void *buf, size_t len, uint64_t off, int nseg)
{
	struct iovec iov[2];
	ssize_t r;

	if (nseg < 1 || nseg > 2)
		nseg = 1;
	for (int i = 0; i < nseg; i++) {
		iov[i].iov_base = (char *)buf + i * (len / nseg);
		iov[i].iov_len = len / nseg;
	}
	r = pwritev2(fd, iov, nseg, (off_t)off, VM_RWF_ATOMIC);
	return r < 0 ? -errno : r;
}

/* ----------------------------------------------------------- awr binary */

static const char *awr_bin(void)
{
	const char *p = getenv("AWR");

	return p && *p ? p : "/awr/awr";
}

/* run awr with args; stdout into *out (malloc'd) if out != NULL; return the exit status or -1 */
static char awr_err[256];	/* first line of the last awr run's stderr */

static int run_awr(char **out, const char *const *args)
{
	const char *argv[32];
	int pfd[2], st, n = 0;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	pid_t pid;

	argv[n++] = awr_bin();
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int efd = open("/tmp/awr-vmtest.stderr", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (efd >= 0)
			dup2(efd, 2);
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 16384;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		r = read(pfd[0], buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(pfd[0]);
	if (buf)
		buf[len] = '\0';
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = buf;
	else
		free(buf);
	awr_err[0] = '\0';
	{
		FILE *ef = fopen("/tmp/awr-vmtest.stderr", "r");

		if (ef) {
			if (!fgets(awr_err, sizeof(awr_err), ef))
				awr_err[0] = '\0';
			awr_err[strcspn(awr_err, "\n")] = '\0';
			fclose(ef);
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---------------------------------------------------------------- cases */

static void info_sysfs(const char *tag, const struct ksysfs *s)
{
	printf("AWRVM: INFO sysfs %s dev=%s disk=%s partition=%d start=%" PRIu64 " size=%" PRIu64
	       " unit_min=%" PRIu64 " unit_max=%" PRIu64 " max_bytes=%" PRIu64 " boundary=%" PRIu64
	       " logical_block_size=%" PRIu64 " physical_block_size=%" PRIu64
	       " max_segments=%" PRIu64 " max_hw_sectors_kb=%" PRIu64 "\n",
	       tag, s->name, s->disk, s->partition, s->start, s->size, s->unit_min, s->unit_max,
	       s->max_bytes, s->boundary, s->lbs, s->pbs, s->max_segments, s->max_hw_kb);
	fflush(stdout);
}

static void case_statx(const char *tag, const char *dev, const struct ksysfs *s)
{
	const char *n = cname(tag, dev, "statx");
	struct kstatx x = raw_statx(dev);
	bool want = kernel_allows(s);
	bool got = x.mask & VM_STATX_WRITE_ATOMIC;

	printf("AWRVM: INFO statx %s dev=%s mask=0x%x unit_min=%u unit_max=%u segments_max=%u "
	       "unit_max_opt=%u\n",
	       tag, s->name, x.mask, x.unit_min, x.unit_max, x.segments_max, x.unit_max_opt);
	if (!x.ok)
		return FAILF(n, "statx failed");
	if (got != want)
		return FAILF(n, "STATX_WRITE_ATOMIC %s, expected %s (sysfs unit_min %" PRIu64 ")",
			     got ? "set" : "clear", want ? "set" : "clear", s->unit_min);
	if (want && (x.unit_min != s->unit_min || x.unit_max != s->unit_max))
		return FAILF(n, "statx unit_min/max %u/%u, sysfs %" PRIu64 "/%" PRIu64,
			     x.unit_min, x.unit_max, s->unit_min, s->unit_max);
	if (want && x.segments_max != 1)
		return FAILF(n, "segments_max %u, expected 1", x.segments_max);
	PASS(n);
}

static void case_probe(const char *tag, const char *dev, const struct ksysfs *s)
{
	const char *n = cname(tag, dev, "probe");
	struct awr_probe *p = NULL;
	const struct awr_limits *e;
	const struct awr_sysfs_view *sv;
	const struct awr_statx_view *xv;
	struct kstatx x = raw_statx(dev);
	bool want = kernel_allows(s);
	char why[256] = "";
	int r;

	r = awr_probe_path(dev, 0, &p);
	if (r)
		return FAILF(n, "awr_probe_path: %s", ename(r));
	e = awr_probe_effective(p);
	sv = awr_probe_sysfs(p);
	xv = awr_probe_statx(p);
	if (!e || !sv || !xv)
		snprintf(why, sizeof(why), "missing view (effective %p sysfs %p statx %p)",
			 (void *)e, (void *)sv, (void *)xv);
	else if (e->supported != want)
		snprintf(why, sizeof(why), "effective.supported %d, kernel %d", e->supported, want);
	else if (want && (e->unit_min != s->unit_min || e->unit_max != s->unit_max ||
			  e->max_bytes != s->max_bytes || e->boundary != s->boundary))
		snprintf(why, sizeof(why),
			 "effective min/max/max_bytes/boundary %u/%u/%u/%u, sysfs %" PRIu64
			 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64,
			 e->unit_min, e->unit_max, e->max_bytes, e->boundary, s->unit_min,
			 s->unit_max, s->max_bytes, s->boundary);
	else if (want && e->segments_max != 1)
		snprintf(why, sizeof(why), "effective.segments_max %u", e->segments_max);
	else if (sv->unit_min != s->unit_min || sv->unit_max != s->unit_max ||
		 sv->max_bytes != s->max_bytes || sv->boundary != s->boundary ||
		 sv->logical_block_size != s->lbs || sv->physical_block_size != s->pbs)
		snprintf(why, sizeof(why),
			 "sysfs view %u/%u/%u/%u lbs %u pbs %u differs from sysfs", sv->unit_min,
			 sv->unit_max, sv->max_bytes, sv->boundary, sv->logical_block_size,
			 sv->physical_block_size);
	else if (strcmp(sv->disk, s->disk) || strcmp(sv->partition, s->partition ? s->name : ""))
		snprintf(why, sizeof(why), "sysfs view names disk '%s' partition '%s'", sv->disk,
			 sv->partition);
	else if (xv->atomic_reported != !!(x.mask & VM_STATX_WRITE_ATOMIC) ||
		 xv->unit_min != x.unit_min || xv->unit_max != x.unit_max ||
		 xv->segments_max != x.segments_max)
		snprintf(why, sizeof(why), "statx view %d %u/%u/%u, kernel mask 0x%x %u/%u/%u",
			 xv->atomic_reported, xv->unit_min, xv->unit_max, xv->segments_max,
			 x.mask, x.unit_min, x.unit_max, x.segments_max);
	else if (!want && s->partition && s->unit_min) {
		bool found = false;

		for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++) {
			const struct awr_finding *f = awr_probe_finding(p, i);

			if (f && f->id && !strcmp(f->id, "partition_misaligned"))
				found = true;
		}
		if (!found)
			snprintf(why, sizeof(why), "no partition_misaligned finding");
	}
	for (unsigned int i = 0; i < awr_probe_nr_findings(p); i++) {
		const struct awr_finding *f = awr_probe_finding(p, i);

		if (f)
			printf("AWRVM: INFO finding %s dev=%s id=%s\n", tag, s->name,
			       f->id ? f->id : "(null)");
	}
	awr_probe_free(p);
	verdict(n, why);
}

static struct json_object *jget(struct json_object *o, const char *path)
{
	char buf[128], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
		struct json_object *c = NULL;

		if (!json_object_object_get_ex(o, tok, &c))
			return NULL;
		o = c;
	}
	return o;
}

/* check that @key exists as an integer (or boolean when @boolean) and return it */
static bool jnum(struct json_object *root, const char *key, bool boolean, int64_t *v, char *why,
		 size_t wl)
{
	struct json_object *o = jget(root, key);

	if (!o) {
		snprintf(why, wl, "key %s missing", key);
		return false;
	}
	if (boolean ? !json_object_is_type(o, json_type_boolean)
		    : !json_object_is_type(o, json_type_int)) {
		snprintf(why, wl, "key %s is not %s", key, boolean ? "a boolean" : "an integer");
		return false;
	}
	*v = boolean ? json_object_get_boolean(o) : json_object_get_int64(o);
	return true;
}

static struct json_object *probe_json(const char *dev, char *why, size_t wl, int *rc)
{
	const char *args[] = { "probe", "-o", "json", dev, NULL };
	struct json_object *root;
	enum json_tokener_error jerr;
	char *out = NULL;

	*rc = run_awr(&out, args);
	if (!out || !*out) {
		snprintf(why, wl, "awr probe printed nothing (exit %d; %.160s)", *rc, awr_err);
		free(out);
		return NULL;
	}
	root = json_tokener_parse_verbose(out, &jerr);
	if (!root || !json_object_is_type(root, json_type_object)) {
		snprintf(why, wl, "invalid JSON (%s)", json_tokener_error_desc(jerr));
		if (root)
			json_object_put(root);
		free(out);
		return NULL;
	}
	free(out);
	return root;
}

/*
 * The derivation awr probe -o json marks as this kernel's (nvme.derived,
 * scsi.derived, or stack.derived for a stacked device: "this_kernel": true,
 * "kernel" the running release) equals what this kernel put in sysfs. For
 * a partition the disk's derivation is compared with the disk's queue
 * limits, which the partition shares.
 */
static void case_derived(const char *tag, const char *dev, const struct ksysfs *s, bool stacked)
{
	static const char *const keys[] = { "unit_min", "unit_max", "max_bytes", "boundary" };
	const uint64_t sys[] = { s->unit_min, s->unit_max, s->max_bytes, s->boundary };
	const char *n = cname(tag, dev, stacked ? "stack_derived" : "derived_this_kernel");
	struct json_object *root, *sec = NULL, *d, *k;
	const char *secname = NULL;
	char why[256] = "", key[64];
	struct utsname u;
	int64_t v, tk;
	int rc;

	root = probe_json(dev, why, sizeof(why), &rc);
	if (!root)
		return FAILF(n, "%s", why);
	if (stacked) {
		secname = "stack";
		sec = jget(root, "stack");
	} else {
		static const char *const secs[] = { "nvme", "scsi" };

		for (size_t i = 0; i < 2 && !sec; i++) {
			sec = jget(root, secs[i]);
			if (sec && !json_object_is_type(sec, json_type_object))
				sec = NULL;
			secname = secs[i];
		}
	}
	if (!sec || !json_object_is_type(sec, json_type_object)) {
		snprintf(why, sizeof(why), "no %s section in awr probe -o json",
			 stacked ? "stack" : "nvme or scsi");
		goto out;
	}
	d = jget(sec, "derived");
	if (!d || !json_object_is_type(d, json_type_object)) {
		snprintf(why, sizeof(why), "%s.derived missing", secname);
		goto out;
	}
	if (!jnum(d, "this_kernel", true, &tk, why, sizeof(why)))
		goto out;
	k = jget(d, "kernel");
	uname(&u);
	if (!tk || !k || !json_object_is_type(k, json_type_string) ||
	    strncmp(u.release, json_object_get_string(k), strlen(json_object_get_string(k)))) {
		snprintf(why, sizeof(why), "%s.derived is not marked this kernel's (this_kernel "
					   "%d, kernel %s, uname %s)",
			 secname, (int)tk, k ? json_object_get_string(k) : "missing", u.release);
		goto out;
	}
	for (size_t i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "%s", keys[i]);
		if (!jnum(d, key, false, &v, why, sizeof(why)))
			goto out;
		if ((uint64_t)v != sys[i]) {
			snprintf(why, sizeof(why),
				 "%s.derived.%s %" PRId64 ", sysfs %" PRIu64 " (kernel %s)",
				 secname, keys[i], v, sys[i], json_object_get_string(k));
			goto out;
		}
	}
out:
	json_object_put(root);
	verdict(n, why);
}

/* SECTION.NAMES[i] of the JSON equal to @want[i] (what @what reads) each: false, why filled, when
 * one is not. */
static bool jnums_equal(struct json_object *root, const char *section, const char *const *names,
			const uint64_t *want, size_t nr, const char *what, char *why, size_t wl)
{
	char key[64];
	int64_t v;

	for (size_t i = 0; i < nr; i++) {
		snprintf(key, sizeof(key), "%s.%s", section, names[i]);
		if (!jnum(root, key, false, &v, why, wl))
			return false;
		if ((uint64_t)v != want[i]) {
			snprintf(why, wl, "%s %" PRId64 ", %s %" PRIu64, key, v, what, want[i]);
			return false;
		}
	}
	return true;
}

static void case_json(const char *tag, const char *dev, const struct ksysfs *s)
{
	static const char *const eff[] = {"unit_min", "unit_max", "max_bytes", "boundary",
					  "segments_max"};
	static const char *const stx[] = { "unit_min", "unit_max", "segments_max", "unit_max_opt" };
	static const char *const sfs[] = { "unit_min", "unit_max", "max_bytes", "boundary",
					   "logical_block_size", "physical_block_size" };
	const char *n = cname(tag, dev, "json");
	struct kstatx x = raw_statx(dev);
	uint64_t sv[] = { s->unit_min, s->unit_max, s->max_bytes, s->boundary, s->lbs, s->pbs };
	uint64_t xv[] = { x.unit_min, x.unit_max, x.segments_max, x.unit_max_opt };
	bool want = kernel_allows(s), misaligned_found = false;
	struct json_object *root, *fa;
	char why[256] = "", key[64];
	int64_t v, sup = 0;
	int rc;

	root = probe_json(dev, why, sizeof(why), &rc);
	if (!root)
		return FAILF(n, "%s", why);
	if (!jnum(root, "effective.supported", true, &sup, why, sizeof(why)))
		goto out;
	if (sup != want) {
		snprintf(why, sizeof(why), "effective.supported %d, kernel %d", (int)sup, want);
		goto out;
	}
	for (size_t i = 0; i < sizeof(eff) / sizeof(eff[0]); i++) {
		snprintf(key, sizeof(key), "effective.%s", eff[i]);
		if (!jnum(root, key, false, &v, why, sizeof(why)))
			goto out;
		if (want && i < 4 && (uint64_t)v != sv[i]) {
			snprintf(why, sizeof(why), "%s %" PRId64 ", sysfs %" PRIu64, key, v, sv[i]);
			goto out;
		}
		if (want && i == 4 && v != 1) {
			snprintf(why, sizeof(why), "%s %" PRId64 ", expected 1", key, v);
			goto out;
		}
	}
	if (!jnums_equal(root, "statx", stx, xv, sizeof(stx) / sizeof(stx[0]), "kernel statx", why,
			 sizeof(why)) ||
	    !jnums_equal(root, "sysfs", sfs, sv, sizeof(sfs) / sizeof(sfs[0]), "sysfs", why,
			 sizeof(why)))
		goto out;
	fa = jget(root, "findings");
	if (!fa || !json_object_is_type(fa, json_type_array)) {
		snprintf(why, sizeof(why), "findings is not an array");
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(fa); i++) {
		struct json_object *f = json_object_array_get_idx(fa, i), *id = NULL, *msg = NULL;

		if (!json_object_object_get_ex(f, "id", &id) ||
		    !json_object_is_type(id, json_type_string) ||
		    !json_object_object_get_ex(f, "message", &msg) ||
		    !json_object_is_type(msg, json_type_string)) {
			snprintf(why, sizeof(why), "findings[%zu] lacks a string id or message", i);
			goto out;
		}
		if (!strcmp(json_object_get_string(id), "partition_misaligned"))
			misaligned_found = true;
	}
	if (!want && s->partition && s->unit_min && !misaligned_found)
		snprintf(why, sizeof(why), "no partition_misaligned finding in JSON");
	else if (want && misaligned_found)
		snprintf(why, sizeof(why), "partition_misaligned reported for an aligned target");
	else if (rc != 0 && rc != 1)
		snprintf(why, sizeof(why), "awr probe exit status %d", rc);
out:
	json_object_put(root);
	verdict(n, why);
}

/* every power of two from unit_min to unit_max, written atomically and read back */
static void case_sweep(const char *tag, const char *dev, const struct ksysfs *s)
{
	const char *n = cname(tag, dev, "sweep");
	unsigned char *wb, *rb;
	unsigned int count = 0;
	char why[256] = "";
	int fd;

	if (!kernel_allows(s))
		return SKIPF(n, "no atomic support on this target");
	wb = abuf(s->unit_max);
	rb = abuf(s->unit_max);
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0 || !wb || !rb) {
		FAILF(n, "open %s: %s", dev, strerror(errno));
		goto out;
	}
	for (uint64_t len = s->unit_min; len <= s->unit_max; len *= 2) {
		uint64_t off = 2 * len <= s->size ? len : 0;
		long r;

		fill(wb, len, len ^ 0xa5);
		r = kwrite(fd, wb, len, off, 1);
		if (r != (long)len) {
			snprintf(why, sizeof(why), "RWF_ATOMIC %" PRIu64 "@%" PRIu64 " returned %s",
				 len, off, r < 0 ? ename((int)r) : "a short count");
			break;
		}
		memset(rb, 0, len);
		if (pread(fd, rb, len, (off_t)off) != (ssize_t)len || memcmp(wb, rb, len)) {
			snprintf(why, sizeof(why), "read back of %" PRIu64 "@%" PRIu64 " differs",
				 len, off);
			break;
		}
		count++;
	}
	verdict(n, why);
	printf("AWRVM: INFO sweep %s dev=%s sizes=%u from=%" PRIu64 " to=%" PRIu64 "\n",
	       tag, s->name, count, s->unit_min, s->unit_max);
out:
	if (fd >= 0)
		close(fd);
	free(wb);
	free(rb);
}

/*
 * One bad write: the kernel's errno must be the one awr_check() predicts.
 * @flags_extra: 0 = O_DIRECT fd, 1 = buffered fd
 */
static void bad_case(const char *tag, const char *dev, const struct awr_limits *lim,
		     const char *what, uint64_t len, uint64_t off, int nseg, bool buffered,
		     int expect)
{
	const char *n = cname(tag, dev, what);
	struct awr_write_plan plan = { 0 };
	struct awr_verdict v = { 0 };
	unsigned char *b = abuf(len);
	int fd, pred;
	long got;

	fd = open(dev, O_RDWR | (buffered ? 0 : O_DIRECT));
	if (fd < 0 || !b) {
		FAILF(n, "open: %s", strerror(errno));
		goto out;
	}
	fill(b, len, 7);
	plan.offset = off;
	plan.length = len;
	plan.buf = b;
	plan.nr_segs = (unsigned int)nseg;
	plan.open_flags = fcntl(fd, F_GETFL);
	pred = awr_check(lim, &plan, &v);
	got = kwrite(fd, b, len, off, nseg);
	if (got >= 0)
		got = 0;
	printf("AWRVM: INFO errno %s dev=%s case=%s len=%" PRIu64 " off=%" PRIu64
	       " segs=%d buffered=%d"
	       " kernel=%s library=%s rule=%s\n",
	       tag, dev, what, len, off, nseg, buffered, ename((int)got), ename(pred),
	       awr_rule_name(v.rule));
	if (expect && got != expect)
		FAILF(n, "kernel returned %s, this case expects %s", ename((int)got),
		      ename(expect));
	else if (got != pred)
		FAILF(n, "kernel returned %s, library predicted %s (rule %s)", ename((int)got),
		      ename(pred), awr_rule_name(v.rule));
	else if (!got)
		FAILF(n, "the bad write succeeded and the library agreed");
	else
		PASS(n);
out:
	if (fd >= 0)
		close(fd);
	free(b);
}

static void case_errnos(const char *tag, const char *dev, const struct ksysfs *s)
{
	struct awr_probe *p = NULL;
	const struct awr_limits *lim;
	uint64_t um = s->unit_min, uM = s->unit_max, lbs = s->lbs;
	int r = awr_probe_path(dev, 0, &p);

	if (r) {
		FAILF(cname(tag, dev, "errno"), "awr_probe_path: %s", ename(r));
		return;
	}
	lim = awr_probe_effective(p);
	if (!kernel_allows(s)) {
		bad_case(tag, dev, lim, "errno.unsupported", um ? um : lbs, 0, 1, false,
			 -EOPNOTSUPP);
		goto out;
	}
	/* misaligned: offset not a multiple of the length */
	if (2 * um <= uM)
		bad_case(tag, dev, lim, "errno.misaligned", 2 * um, um, 1, false, -EINVAL);
	else if (um >= 2 * lbs)
		bad_case(tag, dev, lim, "errno.misaligned", um, um / 2, 1, false, -EINVAL);
	else
		SKIPF(cname(tag, dev, "errno.misaligned"), "unit_min == unit_max == logical block");
	bad_case(tag, dev, lim, "errno.not_pow2", 3 * um, 0, 1, false, -EINVAL);
	bad_case(tag, dev, lim, "errno.too_large", 2 * uM, 0, 1, false, -EINVAL);
	if (um >= 2 * lbs)
		bad_case(tag, dev, lim, "errno.too_small", um / 2, 0, 1, false, -EINVAL);
	else
		SKIPF(cname(tag, dev, "errno.too_small"), "unit_min is one logical block");
	if (um >= 2 * lbs)
		bad_case(tag, dev, lim, "errno.two_iovecs", um, 0, 2, false, -EINVAL);
	else if (2 * um <= uM)
		bad_case(tag, dev, lim, "errno.two_iovecs", 2 * um, 0, 2, false, -EINVAL);
	else
		SKIPF(cname(tag, dev, "errno.two_iovecs"), "no size splits into two block-aligned "
							   "iovecs");
	if (s->boundary && s->boundary >= 2 * um)
		bad_case(tag, dev, lim, "errno.crosses_boundary", 2 * um, s->boundary - um, 1,
			 false, -EINVAL);
	/* starting at or beyond the end (the first naturally aligned offset >= size) */
	bad_case(tag, dev, lim, "errno.past_end", um, (s->size + um - 1) / um * um, 1, false, 0);
	/* starting inside, ending past the end: needs a size that is not a multiple of the
	 * length */
	{
		uint64_t len = 0;

		for (uint64_t l = um; l <= uM; l *= 2)
			if (s->size % l) {
				len = l;
				break;
			}
		if (len)
			bad_case(tag, dev, lim, "errno.straddles_end", len, s->size / len * len, 1,
				 false, -EINVAL);
		else
			SKIPF(cname(tag, dev, "errno.straddles_end"),
			      "the size is a multiple of every atomic write size");
	}
	/* buffered: 6.11/6.12 EINVAL, 6.13+ EOPNOTSUPP; the library must predict it */
	bad_case(tag, dev, lim, "errno.buffered", um, 0, 1, true, 0);
out:
	awr_probe_free(p);
}

/*
 * DEV opened for the writing case @n; NULL, the case skipped or failed, when the target has no
 * atomic writes or does not open.
 */
static struct awr_file *case_file_open(const char *n, const char *dev, const struct ksysfs *s)
{
	struct awr_file *f = NULL;
	int ret;

	if (!kernel_allows(s)) {
		SKIPF(n, "no atomic support on this target");
		return NULL;
	}
	ret = awr_file_open(dev, 0, &f);
	if (ret) {
		FAILF(n, "awr_file_open: %s", ename(ret));
		return NULL;
	}
	return f;
}

static void case_api_write(const char *tag, const char *dev, const struct ksysfs *s)
{
	const char *n = cname(tag, dev, "awr_pwrite");
	struct awr_file *f = case_file_open(n, dev, s);
	struct awr_verdict v;
	unsigned char *b = NULL, *rb = NULL;
	char why[256] = "";
	ssize_t r;

	if (!f)
		return;
	b = abuf(s->unit_max);
	rb = abuf(s->unit_max);
	for (uint64_t len = s->unit_min; len <= s->unit_max && !why[0]; len *= 2) {
		uint64_t off = 3 * len + len <= s->size ? 3 * len : 0;

		fill(b, len, len + 99);
		memset(&v, 0, sizeof(v));
		r = awr_pwrite(f, b, len, off, 0, &v);
		if (r != (ssize_t)len) {
			snprintf(why, sizeof(why), "awr_pwrite %" PRIu64 "@%" PRIu64 ": %s (%s)",
				 len, off, r < 0 ? ename((int)r) : "short", v.message);
			break;
		}
		if (pread(awr_file_fd(f), rb, len, (off_t)off) != (ssize_t)len ||
		    memcmp(b, rb, len))
			snprintf(why, sizeof(why), "read back of %" PRIu64 "@%" PRIu64 " differs",
				 len, off);
	}
	if (!why[0] && 2 * s->unit_min <= s->unit_max) {
		/* refused before the syscall, and the kernel agrees when let through */
		memset(&v, 0, sizeof(v));
		r = awr_pwrite(f, b, 2 * s->unit_min, s->unit_min, 0, &v);
		if (r != -EINVAL || v.rule != AWR_RULE_MISALIGNED)
			snprintf(why, sizeof(why), "misaligned awr_pwrite gave %s rule %s",
				 r < 0 ? ename((int)r) : "success", awr_rule_name(v.rule));
		else {
			r = awr_pwrite(f, b, 2 * s->unit_min, s->unit_min, AWR_WRITE_NOCHECK, NULL);
			if (r != -EINVAL)
				snprintf(why, sizeof(why), "misaligned NOCHECK write gave %s",
					 r < 0 ? ename((int)r) : "success");
		}
	}
	if (!why[0]) {
		r = awr_pwrite(f, b, s->unit_min, 0, AWR_WRITE_DSYNC, NULL);
		if (r != (ssize_t)s->unit_min)
			snprintf(why, sizeof(why), "DSYNC write: %s",
				 r < 0 ? ename((int)r) : "short");
	}
	awr_file_close(f);
	free(b);
	free(rb);
	verdict(n, why);
}

/* Page batches of unit_min and unit_max units through @r, each read back. */
static void uring_batches(struct awr_queue *r, int fd, const struct ksysfs *s, int reg, char *why,
			  size_t len_why)
{
	uint64_t units[2] = { s->unit_min, s->unit_max };
	struct awr_batch_result br;

	for (int i = 0; i < 2 && !why[0]; i++) {
		uint64_t unit = units[i], len = 8 * unit, off = reg ? len : 0;
		unsigned char *b, *rb;
		int ret;

		if (off + len > s->size)
			len = (s->size - off) / unit * unit;
		b = abuf(len);
		rb = abuf(len);
		fill(b, len, unit * 3 + (uint64_t)reg);
		memset(&br, 0, sizeof(br));
		ret = awr_queue_write_units(r, b, off, len, unit, 0, &br);
		if (ret || br.units_done != len / unit)
			snprintf(why, len_why, "awr_queue_write_units %" PRIu64 "x%" PRIu64
				 "@%" PRIu64 " (register %d): %s, %" PRIu64 " done, %" PRIu64
				 " failed",
				 len / unit, unit, off, reg, ename(ret), br.units_done,
				 br.units_failed);
		else if (pread(fd, rb, len, (off_t)off) != (ssize_t)len || memcmp(b, rb, len))
			snprintf(why, len_why, "read back after awr_queue_write_units of %" PRIu64
				 "-byte units differs", unit);
		free(b);
		free(rb);
	}
}

/* One write through @r, reaped: its result, or the errno of the call. */
static int uring_one(struct awr_queue *r, const void *b, uint64_t len, uint64_t off,
		     unsigned int flags, struct awr_verdict *v)
{
	struct awr_completion c[4];
	int ret = awr_queue_write(r, b, len, off, 1, flags, v);

	if (ret)
		return ret;
	ret = awr_queue_reap(r, c, 4, 1);
	return ret == 1 ? c[0].res : ret < 0 ? ret : -EIO;
}

/* A misaligned write refused before the kernel, the same judged by the kernel, a DSYNC one. */
static void uring_refusals(struct awr_queue *r, const char *tag, const struct ksysfs *s, int reg,
			   char *why, size_t len_why)
{
	struct awr_verdict v = { .rule = AWR_RULE_OK };
	uint64_t u = s->unit_min;
	unsigned char *b = abuf(2 * u);
	int ret;

	if (!b)
		return;
	fill(b, 2 * u, 7);
	if (2 * u <= s->unit_max) {
		ret = awr_queue_write(r, b, 2 * u, u, 1, 0, &v);
		if (ret != -EINVAL || v.rule != AWR_RULE_MISALIGNED || awr_queue_outstanding(r))
			snprintf(why, len_why, "refused misaligned write: %s rule %s, %u queued",
				 ename(ret), awr_rule_name(v.rule), awr_queue_outstanding(r));
		if (!why[0]) {
			ret = uring_one(r, b, 2 * u, u, AWR_WRITE_NOCHECK, NULL);
			printf("AWRVM: INFO uring %s dev=%s case=misaligned_nocheck register=%d "
			       "res=%s\n", tag, s->name, reg, ename(ret));
			if (ret != -EINVAL)
				snprintf(why, len_why, "kernel-judged misaligned write: res %s",
					 ename(ret));
		}
	}
	if (!why[0]) {
		ret = uring_one(r, b, u, 0, AWR_WRITE_DSYNC, NULL);
		if (ret != (int32_t)u)
			snprintf(why, len_why, "DSYNC write: res %s", ename(ret));
	}
	free(b);
}

/* io_uring engine: page batches of unit_min and unit_max units, refused and kernel-judged writes */
static void case_uring(const char *tag, const char *dev, const struct ksysfs *s)
{
	const char *n = cname(tag, dev, "uring");
	struct awr_file *f = case_file_open(n, dev, s);
	struct awr_queue *r = NULL;
	char why[256] = "";
	int ret;

	if (!f)
		return;
	for (int reg = 0; reg < 2 && !why[0]; reg++) {
		ret = awr_queue_open(AWR_QUEUE_URING, NULL, f, 32,
				     reg ? AWR_QUEUE_REGISTER_FILE : 0, &r);
		if (ret) {
			snprintf(why, sizeof(why), "awr_queue_open(flags %d): %s", reg,
				 ename(ret));
			break;
		}
		uring_batches(r, awr_file_fd(f), s, reg, why, sizeof(why));
		if (!why[0])
			uring_refusals(r, tag, s, reg, why, sizeof(why));
		awr_queue_close(r);
		r = NULL;
	}
	awr_file_close(f);
	verdict(n, why);
}

/* concurrent stamped writers with a journal, then a verify scan: nothing torn or lost */
static void case_stress(const char *tag, const char *dev, const struct ksysfs *s)
{
	const char *n = cname(tag, dev, "stress_verify");
	const char *journal = "/tmp/awr-vmtest.journal";
	struct awr_stress_opts so = { 0 };
	struct awr_stress_result sr = { 0 };
	struct awr_verify_opts vo = { 0 };
	struct awr_verify_result vr = { 0 };
	uint64_t span;
	int ret;

	if (!kernel_allows(s))
		return SKIPF(n, "no atomic support on this target");
	unlink(journal);
	span = 64 * (uint64_t)s->unit_max;
	if (span > s->size / 2)
		span = s->size / 2 / s->unit_max * s->unit_max;
	so.unit = (uint32_t)s->unit_max;
	so.threads = 2;
	so.span = span;
	so.duration_ms = 1500;
	so.journal = journal;
	ret = awr_stress_run(dev, &so, &sr);
	if (ret || sr.error)
		return FAILF(n, "awr_stress_run: %s, write error %s at %" PRIu64 " (%s)",
			     ename(ret), ename(sr.error), sr.error_offset, sr.verdict.message);
	vo.unit = so.unit;
	vo.span = span;
	vo.journal = journal;
	ret = awr_verify_run(dev, &vo, &vr);
	printf("AWRVM: INFO stress %s dev=%s unit=%u span=%" PRIu64 " writes=%" PRIu64
	       " units=%" PRIu64 " intact=%" PRIu64 " never=%" PRIu64 " torn=%" PRIu64
	       " corrupt=%" PRIu64 " misplaced=%" PRIu64 " lost=%" PRIu64 " unjournaled=%" PRIu64
	       "\n",
	       tag, s->name, so.unit, span, sr.writes, vr.units, vr.count[AWR_UNIT_INTACT],
	       vr.count[AWR_UNIT_NEVER_WRITTEN], vr.count[AWR_UNIT_TORN],
	       vr.count[AWR_UNIT_CORRUPT], vr.count[AWR_UNIT_MISPLACED], vr.lost, vr.unjournaled);
	unlink(journal);
	if (ret)
		return FAILF(n, "awr_verify_run: %s", ename(ret));
	if (!sr.writes || !vr.count[AWR_UNIT_INTACT])
		return FAILF(n, "no intact unit after %" PRIu64 " writes", sr.writes);
	if (vr.count[AWR_UNIT_TORN] || vr.count[AWR_UNIT_CORRUPT] || vr.count[AWR_UNIT_MISPLACED] ||
	    vr.lost || vr.unjournaled)
		return FAILF(n,
			     "torn %" PRIu64 " corrupt %" PRIu64 " misplaced %" PRIu64
			     " lost %" PRIu64 " unjournaled %" PRIu64,
			     vr.count[AWR_UNIT_TORN], vr.count[AWR_UNIT_CORRUPT],
			     vr.count[AWR_UNIT_MISPLACED], vr.lost, vr.unjournaled);
	PASS(n);
}

static void cli_expect(const char *tag, const char *dev, const char *what, int want,
		       const char *const *args)
{
	const char *n = cname(tag, dev, what);
	int rc = run_awr(NULL, args);
	char cmd[512] = "awr";

	for (int i = 0; args[i]; i++) {
		strncat(cmd, " ", sizeof(cmd) - strlen(cmd) - 1);
		strncat(cmd, args[i], sizeof(cmd) - strlen(cmd) - 1);
	}
	if (rc != want)
		return FAILF(n, "'%s' exited %d, expected %d%s%s", cmd, rc, want,
			     awr_err[0] ? "; stderr: " : "", awr_err);
	PASS(n);
}

static void case_cli(const char *tag, const char *dev, const struct ksysfs *s)
{
	char a[8][32];
	uint64_t um = s->unit_min, uM = s->unit_max;

	{
		/* a probe that ran exits 0 whatever it found; --require asks about one size */
		const char *args[] = { "probe", dev, NULL };

		cli_expect(tag, dev, "cli.probe", 0, args);
	}
	{
		snprintf(a[0], 32, "%" PRIu64, um ? um : s->lbs);
		const char *args[] = { "probe", dev, "--require", a[0], NULL };

		cli_expect(tag, dev, "cli.probe_require", kernel_allows(s) ? 0 : 1, args);
	}
	if (!kernel_allows(s)) {
		snprintf(a[0], 32, "%" PRIu64, um ? um : s->lbs);
		const char *args[] = {"write",	  dev,	"--offset", "0",
				      "--length", a[0], "--force",  NULL};

		cli_expect(tag, dev, "cli.write_refused", 1, args);
		return;
	}
	snprintf(a[0], 32, "%" PRIu64, um);
	snprintf(a[1], 32, "%" PRIu64, uM);
	snprintf(a[2], 32, "%" PRIu64, 2 * uM);
	snprintf(a[3], 32, "%" PRIu64, 4 * uM);
	snprintf(a[4], 32, "%" PRIu64, 2 * um);
	{
		const char *args[] = {"write", dev,	   "--offset", a[0], "--length",
				      a[0],    "--verify", "--force",  NULL};

		cli_expect(tag, dev, "cli.write_unit_min", 0, args);
	}
	{
		const char *args[] = {"write", dev,	   "--offset", a[1],	  "--length",
				      a[1],    "--verify", "--force",  "--dsync", NULL};

		cli_expect(tag, dev, "cli.write_unit_max", 0, args);
	}
	{
		const char *args[] = {"write",	   dev,	     "--offset", a[2],	     "--length",
				      a[3],	   "--unit", a[1],	 "--verify", "--force",
				      "--pattern", "0x3c",   NULL};

		cli_expect(tag, dev, "cli.write_units", 0, args);
	}
	{
		const char *args[] = {"write", dev,	 "--offset", a[2],	 "--length",
				      a[3],    "--unit", a[0],	     "--engine", "uring",
				      "--qd",  "8",	 "--verify", "--force",	 NULL};

		cli_expect(tag, dev, "cli.write_uring", 0, args);
	}
	{
		const char *args[] = {"write",	  dev,	"--offset", "0",
				      "--length", a[2], "--force",  NULL};

		cli_expect(tag, dev, "cli.write_too_large", 1, args);
	}
	{
		const char *args[] = { "probe", dev, "--require", a[2], NULL };

		cli_expect(tag, dev, "cli.probe_require_too_large", 1, args);
	}
	if (2 * um <= uM) {
		const char *args[] = {"write",	  dev,	"--offset", a[0],
				      "--length", a[4], "--force",  NULL};
		const char *cargs[] = { "check", dev, "--offset", a[0], "--length", a[4], NULL };
		const char *okargs[] = { "check", dev, "--offset", a[4], "--length", a[4], NULL };

		cli_expect(tag, dev, "cli.write_misaligned", 1, args);
		cli_expect(tag, dev, "cli.check_misaligned", 1, cargs);
		cli_expect(tag, dev, "cli.check_ok", 0, okargs);
	}
}

/*
 * What every target runs: the kernel's view (statx, sysfs) against the library's (probe, JSON,
 * the derived limits, of the stack when @stacked) and a sweep of real atomic writes.
 */
static void case_views(const char *tag, const char *dev, const struct ksysfs *s, bool stacked)
{
	case_statx(tag, dev, s);
	case_probe(tag, dev, s);
	case_json(tag, dev, s);
	case_derived(tag, dev, s, stacked);
	case_sweep(tag, dev, s);
}

static int cmd_disk(const char *tag, const char *dev)
{
	struct ksysfs s = raw_sysfs(dev);

	if (!s.ok) {
		FAILF(cname(tag, dev, "sysfs"), "no sysfs atomic attributes for %s", dev);
		return 1;
	}
	info_sysfs(tag, &s);
	case_views(tag, dev, &s, false);
	case_errnos(tag, dev, &s);
	case_api_write(tag, dev, &s);
	case_uring(tag, dev, &s);
	case_stress(tag, dev, &s);
	case_cli(tag, dev, &s);
	return failures ? 1 : 0;
}

/*
 * A stacked device (dm, md, an NVMe multipath head): the kernel's view
 * (sysfs, statx) against the library's (probe, JSON) and a sweep of real
 * atomic writes; the destructive cases of a disk are left to its legs.
 */
static int cmd_stack(const char *tag, const char *dev)
{
	struct ksysfs s = raw_sysfs(dev);

	if (!s.ok) {
		FAILF(cname(tag, dev, "sysfs"), "no sysfs atomic attributes for %s", dev);
		return 1;
	}
	info_sysfs(tag, &s);
	case_views(tag, dev, &s, true);
	return failures ? 1 : 0;
}

/* ----------------------------------------------------------------- MBR */

static void mbr_entry(unsigned char *e, uint32_t start, uint32_t count)
{
	e[0] = 0x00;			/* not bootable */
	e[1] = 0xfe; e[2] = 0xff; e[3] = 0xff;	/* CHS: use LBA */
	e[4] = 0x83;			/* Linux */
	e[5] = 0xfe; e[6] = 0xff; e[7] = 0xff;
	memcpy(e + 8, &start, 4);	/* little-endian host */
	memcpy(e + 12, &count, 4);
}

/*
 * Partition 1 starts at 1 MiB (aligned) and is a quarter of the disk plus one
 * logical block (so a write can straddle its end); partition 2 starts one
 * logical block after a 1 MiB multiple (misaligned for any unit_min above one
 * block) and is a quarter of the disk. LBAs are in logical blocks.
 */
static int cmd_mbr(const char *dev)
{
	struct ksysfs s = raw_sysfs(dev);
	unsigned char *sec;
	uint64_t lbs, blocks, mib;
	uint32_t p1s, p1n, p2s, p2n;
	int fd, r;

	if (!s.ok || s.partition) {
		FAILF("mbr", "%s is not a whole disk with sysfs attributes", dev);
		return 1;
	}
	lbs = s.lbs;
	blocks = s.size / lbs;
	mib = (1 << 20) / lbs;
	p1s = (uint32_t)mib;
	p1n = (uint32_t)(blocks / 4 / mib * mib + 1);
	p2s = (uint32_t)(p1s + p1n + mib);
	p2n = p1n + 1;	/* neither size a multiple of a large unit: the end can be straddled */
	if (p2s + p2n > blocks) {
		FAILF("mbr", "%s is too small", dev);
		return 1;
	}
	sec = abuf(lbs);
	memset(sec, 0, lbs);
	mbr_entry(sec + 446, p1s, p1n);
	mbr_entry(sec + 462, p2s, p2n);
	sec[510] = 0x55;
	sec[511] = 0xaa;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0 || pwrite(fd, sec, lbs, 0) != (ssize_t)lbs || fsync(fd)) {
		printf("AWRVM: INFO mbr %s: write failed: %s\n", dev, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(sec);
		return 1;
	}
	r = ioctl(fd, BLKRRPART);
	close(fd);
	free(sec);
	printf("AWRVM: INFO mbr dev=%s p1_start=%" PRIu64 " p1_size=%" PRIu64 " p2_start=%" PRIu64
	       " p2_size=%" PRIu64 " rereadpt=%s\n", dev, (uint64_t)p1s * lbs, (uint64_t)p1n * lbs,
	       (uint64_t)p2s * lbs, (uint64_t)p2n * lbs, r ? strerror(errno) : "ok");
	fflush(stdout);
	return r ? 1 : 0;
}

static int cmd_part(const char *tag, const char *dev)
{
	struct ksysfs s = raw_sysfs(dev);

	if (!s.ok || !s.partition) {
		FAILF(cname(tag, dev, "sysfs"), "%s is not a partition with sysfs attributes", dev);
		return 1;
	}
	info_sysfs(tag, &s);
	printf("AWRVM: INFO partition %s dev=%s start=%" PRIu64 " kernel_allows=%d\n", tag, s.name,
	       s.start, kernel_allows(&s));
	case_views(tag, dev, &s, false);
	case_errnos(tag, dev, &s);
	if (kernel_allows(&s)) {
		case_api_write(tag, dev, &s);
		case_uring(tag, dev, &s);
	}
	case_cli(tag, dev, &s);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------ char devices */

static int cmd_chardev(const char *tag, const char *dev)
{
	const char *n = cname(tag, dev, "json");
	struct json_object *root, *t, *sup;
	char why[256] = "";
	int rc;

	root = probe_json(dev, why, sizeof(why), &rc);
	if (!root) {
		FAILF(n, "%s", why);
		return 1;
	}
	t = jget(root, "type");
	sup = jget(root, "effective.supported");
	printf("AWRVM: INFO chardev %s dev=%s exit=%d type=%s effective.supported=%s\n", tag, dev,
	       rc, t ? json_object_get_string(t) : "-", sup ? json_object_get_string(sup) : "-");
	if (!sup || !json_object_is_type(sup, json_type_boolean))
		FAILF(n, "effective.supported missing or not a boolean");
	else if (!jget(root, "findings"))
		FAILF(n, "findings missing");
	else if (rc != 0 && rc != 1)
		FAILF(n, "awr probe exit status %d", rc);
	else
		PASS(n);
	json_object_put(root);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------ device records */

/*
 * The raw device data (SCSI Block Limits VPD, NVMe Identify), read here with
 * the bytes decoded at their offsets in the standards, compared with what the
 * library decodes for the same device: awr_device_open(), the device view of
 * awr_probe_path(), and the "scsi"/"nvme" section of awr probe -o json.
 */
struct field {
	const char *name;	/* the key in awr probe -o json's device section */
	uint64_t raw;
};

/* First field that differs between @raw and @lib (both @n long): false, why filled. */
static bool fields_equal(const char *what, const struct field *raw, const uint64_t *lib, size_t n,
			 char *why, size_t wl)
{
	for (size_t i = 0; i < n; i++)
		if (raw[i].raw != lib[i]) {
			snprintf(why, wl, "%s %s %" PRIu64 ", raw %" PRIu64, what, raw[i].name,
				 lib[i], raw[i].raw);
			return false;
		}
	return true;
}

/* The JSON device section's integers for @raw's names. */
static bool json_fields(struct json_object *root, const char *section, const struct field *raw,
			size_t n, uint64_t *out, char *why, size_t wl)
{
	char key[96];
	int64_t v;

	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "%s.%s", section, raw[i].name);
		if (!jnum(root, key, false, &v, why, wl))
			return false;
		out[i] = (uint64_t)v;
	}
	return true;
}

/* awr probe -o json DEV: its @section fields equal @raw (case @n). */
static void json_case(const char *n, const char *dev, const char *section, const struct field *raw,
		      size_t nf)
{
	uint64_t lib[32];
	char why[256] = "";
	struct json_object *root;
	int rc;

	root = probe_json(dev, why, sizeof(why), &rc);
	if (!root)
		return FAILF(n, "%s", why);
	if (json_fields(root, section, raw, nf, lib, why, sizeof(why)))
		fields_equal("awr probe -o json", raw, lib, nf, why, sizeof(why));
	json_object_put(root);
	verdict(n, why);
}

/* How the library's decoding of one kind of device record is read back, for lib_cases(). */
struct lib_record {
	enum awr_device_type type;
	const char *kind;	/* "SCSI", "NVMe": the probe's device view */
	const char *decoded;	/* what awr_device_open() must have decoded */
	const char *section;	/* the device section of awr probe -o json */
	bool (*have)(const struct awr_device *d);	/* the record was decoded */
	void (*fields)(const struct awr_device *d, uint64_t *v); /* its fields, in @raw's order */
	size_t nf;
};

/* Case @n: @d's fields (decoded by @what) equal @raw. */
static void lib_fields_case(const char *n, const struct lib_record *lr, const char *what,
			    const struct awr_device *d, const struct field *raw)
{
	uint64_t lib[32];
	char why[256] = "";

	lr->fields(d, lib);
	fields_equal(what, raw, lib, lr->nf, why, sizeof(why));
	verdict(n, why);
}

/*
 * The library's decoding of the record equal to @raw, in cases TAG.DEV.PREFIX_library
 * (awr_device_open of @dev), TAG.DISK.PREFIX_probe (the device view of awr_probe_path of @disk)
 * and TAG.DISK.PREFIX_json (its section of awr probe -o json).
 */
static void lib_cases(const struct lib_record *lr, const struct field *raw, const char *tag,
		      const char *prefix, const char *dev, const char *disk)
{
	struct awr_device *d = NULL;
	struct awr_probe *p = NULL;
	char what[64];
	const char *n;
	int ret;

	snprintf(what, sizeof(what), "%s_library", prefix);
	n = cname(tag, dev, what);
	ret = awr_device_open(dev, &d);
	if (ret)
		FAILF(n, "awr_device_open(%s): %s", dev, ename(ret));
	else if (awr_device_type(d) != lr->type || !lr->have(d))
		FAILF(n, "awr_device_open(%s) gave no decoded %s", dev, lr->decoded);
	else
		lib_fields_case(n, lr, "awr_device_open", d, raw);
	awr_device_free(d);

	snprintf(what, sizeof(what), "%s_probe", prefix);
	n = cname(tag, disk, what);
	ret = awr_probe_path(disk, 0, &p);
	if (ret)
		FAILF(n, "awr_probe_path(%s): %s", disk, ename(ret));
	else if (!awr_probe_device(p) || awr_device_type(awr_probe_device(p)) != lr->type)
		FAILF(n, "the probe of %s has no %s device view", disk, lr->kind);
	else
		lib_fields_case(n, lr, "probe device view", awr_probe_device(p), raw);
	awr_probe_free(p);

	snprintf(what, sizeof(what), "%s_json", prefix);
	json_case(cname(tag, disk, what), disk, lr->section, raw, lr->nf);
}

#define VPD_NF 7

static void scsi_lib_fields(const struct awr_device *d, uint64_t *v)
{
	const struct awr_scsi_id *id = awr_device_scsi(d);

	v[0] = id->vpd_page_length;
	v[1] = id->max_transfer_length;
	v[2] = id->max_atomic_transfer_length;
	v[3] = id->atomic_alignment;
	v[4] = id->atomic_granularity;
	v[5] = id->max_atomic_transfer_length_with_boundary;
	v[6] = id->max_atomic_boundary_size;
}

static bool scsi_have_vpd(const struct awr_device *d)
{
	return awr_device_scsi(d)->have_vpd;
}

static const struct lib_record scsi_record = {
	AWR_DEVICE_SCSI, "SCSI", "Block Limits page", "scsi", scsi_have_vpd, scsi_lib_fields, VPD_NF
};

/* a scsi_debug module parameter, or -1 */
static int64_t sd_param(const char *name)
{
	uint64_t v;

	return sysfs_number("/sys/module/scsi_debug/parameters", name, &v) ? -1 : (int64_t)v;
}

/*
 * vpd TAG SGDEV DISK: the Block Limits VPD read raw from SGDEV equals the
 * scsi_debug module parameters that set it, and the library's decoding of the
 * same page (through SGDEV, and through the probe of DISK and its JSON).
 */
static int cmd_vpd(const char *tag, const char *dev, const char *disk)
{
	static const char *const params[] = {"atomic_wr_max_length", "atomic_wr_align",
					     "atomic_wr_gran", "atomic_wr_max_length_bndry",
					     "atomic_wr_max_bndry"};
	const char *n = cname(tag, dev, "vpd_raw");
	struct field raw[VPD_NF];
	unsigned char r[64];
	char why[256] = "";
	int fd, resid = 0, ret;

	fd = sg_cmds_open_device(dev, false, 0);
	if (fd < 0) {
		FAILF(n, "cannot open %s: %s", dev, strerror(-fd));
		return 1;
	}
	memset(r, 0, sizeof(r));
	ret = sg_ll_inquiry_v2(fd, true, 0xb0, r, sizeof(r), 0, &resid, true, 0);
	sg_cmds_close_device(fd);
	if (ret) {
		FAILF(n, "INQUIRY VPD B0h on %s failed: %d", dev, ret);
		return 1;
	}
	raw[0] = (struct field){ "vpd_page_length", sg_get_unaligned_be16(r + 2) };
	raw[1] = (struct field){ "max_transfer_length", sg_get_unaligned_be32(r + 8) };
	raw[2] = (struct field){ "max_atomic_transfer_length", sg_get_unaligned_be32(r + 44) };
	raw[3] = (struct field){ "atomic_alignment", sg_get_unaligned_be32(r + 48) };
	raw[4] = (struct field){ "atomic_granularity", sg_get_unaligned_be32(r + 52) };
	raw[5] = (struct field){"max_atomic_transfer_length_with_boundary",
				sg_get_unaligned_be32(r + 56)};
	raw[6] = (struct field){ "max_atomic_boundary_size", sg_get_unaligned_be32(r + 60) };
	printf("AWRVM: INFO vpd %s dev=%s page_length=%" PRIu64 " max_transfer_length=%" PRIu64
	       " max_atomic_transfer_length=%" PRIu64 " atomic_alignment=%" PRIu64
	       " atomic_granularity=%" PRIu64 " max_atomic_length_with_boundary=%" PRIu64
	       " max_atomic_boundary_size=%" PRIu64 "\n",
	       tag, dev, raw[0].raw, raw[1].raw, raw[2].raw, raw[3].raw, raw[4].raw, raw[5].raw,
	       raw[6].raw);
	fflush(stdout);

	/* raw page against the module parameters that made it */
	if (raw[0].raw < AWR_SCSI_VPD_BL_ATOMIC_LEN)
		snprintf(why, sizeof(why), "page length 0x%" PRIx64 ", the atomic fields need 0x%x",
			 raw[0].raw, AWR_SCSI_VPD_BL_ATOMIC_LEN);
	for (size_t i = 0; i < 5 && !why[0]; i++) {
		int64_t v = sd_param(params[i]);

		if (v < 0)
			snprintf(why, sizeof(why), "scsi_debug parameter %s unreadable", params[i]);
		else if ((uint64_t)v != raw[2 + i].raw)
			snprintf(why, sizeof(why), "raw %s %" PRIu64 ", scsi_debug %s=%" PRId64,
				 raw[2 + i].name, raw[2 + i].raw, params[i], v);
	}
	verdict(n, why);

	/* the library's decoding through the sg node, the probe's device view of the disk, its
	 * JSON */
	lib_cases(&scsi_record, raw, tag, "vpd", dev, disk);
	return failures ? 1 : 0;
}

#define NVME_NF 18

static uint16_t le16at(const unsigned char *b, size_t off)
{
	return (uint16_t)(b[off] | b[off + 1] << 8);
}

static void nvme_lib_fields(const struct awr_device *d, uint64_t *v)
{
	const struct awr_nvme_id *id = awr_device_nvme(d);

	v[0] = id->awun;
	v[1] = id->awupf;
	v[2] = id->acwu;
	v[3] = id->mdts;
	v[4] = id->nsid;
	v[5] = id->nsfeat;
	v[6] = id->nlbaf;
	v[7] = id->flbas;
	v[8] = id->lbaf_index;
	v[9] = id->nawun;
	v[10] = id->nawupf;
	v[11] = id->nacwu;
	v[12] = id->nabsn;
	v[13] = id->nabo;
	v[14] = id->nabspf;
	v[15] = id->noiob;
	v[16] = id->lba_size;
	v[17] = id->lba_ms;
}

static bool nvme_have_identify(const struct awr_device *d)
{
	return awr_device_nvme(d)->have_ctrl && awr_device_nvme(d)->have_ns;
}

static const struct lib_record nvme_record = {
	AWR_DEVICE_NVME, "NVMe", "Identify Controller and Namespace", "nvme", nvme_have_identify,
	nvme_lib_fields, NVME_NF
};

/*
 * nvmeid TAG CTRLDEV NSDEV [AWUN AWUPF]: Identify Controller and Namespace
 * read raw through CTRLDEV (AWUN/AWUPF equal the controller's configuration
 * when given), and the library's decoding of NSDEV (awr_device_open, the
 * probe's device view, awr probe -o json) equal to them field by field.
 */
static int cmd_nvmeid(const char *tag, const char *dev, const char *nsdev, const char *want_awun,
		      const char *want_awupf)
{
	const char *n = cname(tag, dev, "identify_raw");
	unsigned char c[4096], ns[4096];
	struct field raw[NVME_NF];
	__u32 nsid = 0;
	unsigned int idx, nlbaf, flbas;
	int fd, r1, r2;

	fd = open(nsdev, O_RDONLY);
	if (fd < 0 || nvme_get_nsid(fd, &nsid)) {
		FAILF(n, "no namespace id from %s: %s", nsdev, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	fd = open(dev, O_RDONLY);
	if (fd < 0) {
		FAILF(n, "cannot open %s: %s", dev, strerror(errno));
		return 1;
	}
	memset(c, 0, sizeof(c));
	memset(ns, 0, sizeof(ns));
	r1 = nvme_identify_ctrl(fd, (struct nvme_id_ctrl *)c);
	r2 = nvme_identify_ns(fd, nsid, (struct nvme_id_ns *)ns);
	close(fd);
	if (r1 || r2) {
		FAILF(n, "Identify on %s failed: controller %d, namespace %u %d", dev, r1, nsid,
		      r2);
		return 1;
	}
	nlbaf = ns[25];
	flbas = ns[26];
	/* FLBAS bits 3:0, and bits 6:5 as the high bits when there are more than 16 formats */
	idx = (flbas & 0x0f) | (nlbaf >= 16 ? (flbas & 0x60) >> 1 : 0);
	raw[0] = (struct field){ "awun", le16at(c, 526) };
	raw[1] = (struct field){ "awupf", le16at(c, 528) };
	raw[2] = (struct field){ "acwu", le16at(c, 532) };
	raw[3] = (struct field){ "mdts", c[77] };
	raw[4] = (struct field){ "nsid", nsid };
	raw[5] = (struct field){ "nsfeat", ns[24] };
	raw[6] = (struct field){ "nlbaf", nlbaf };
	raw[7] = (struct field){ "flbas", flbas };
	raw[8] = (struct field){ "lba_format", idx };
	raw[9] = (struct field){ "nawun", le16at(ns, 34) };
	raw[10] = (struct field){ "nawupf", le16at(ns, 36) };
	raw[11] = (struct field){ "nacwu", le16at(ns, 38) };
	raw[12] = (struct field){ "nabsn", le16at(ns, 40) };
	raw[13] = (struct field){ "nabo", le16at(ns, 42) };
	raw[14] = (struct field){ "nabspf", le16at(ns, 44) };
	raw[15] = (struct field){ "noiob", le16at(ns, 46) };
	raw[16] = (struct field){"lba_size", idx < 64 && ns[128 + 4 * idx + 2] < 32
						     ? 1ULL << ns[128 + 4 * idx + 2]
						     : 0};
	raw[17] = (struct field){ "metadata_size", idx < 64 ? le16at(ns, 128 + 4 * idx) : 0 };
	printf("AWRVM: INFO nvmeid %s dev=%s ns=%s", tag, dev, nsdev);
	for (size_t i = 0; i < NVME_NF; i++)
		printf(" %s=%" PRIu64, raw[i].name, raw[i].raw);
	printf("\n");
	fflush(stdout);

	if (want_awun && (strtoull(want_awun, NULL, 10) != raw[0].raw ||
			  strtoull(want_awupf, NULL, 10) != raw[1].raw))
		FAILF(n, "raw AWUN/AWUPF %" PRIu64 "/%" PRIu64 ", the controller was configured "
							       "with %s/%s",
		      raw[0].raw, raw[1].raw, want_awun, want_awupf);
	else if (!raw[16].raw)
		FAILF(n, "LBA format %u has no usable LBADS", idx);
	else
		PASS(n);

	lib_cases(&nvme_record, raw, tag, "identify", nsdev, nsdev);
	return failures ? 1 : 0;
}

static int cmd_sysfs(const char *tag, const char *dev)
{
	struct ksysfs s = raw_sysfs(dev);

	if (!s.ok) {
		printf("AWRVM: INFO sysfs %s dev=%s no atomic attributes\n", tag, dev);
		return 0;
	}
	info_sysfs(tag, &s);
	return 0;
}

/*
 * awr list -o json against this guest's sysfs, read here directly: every
 * disk of /sys/block listed once and nothing else (but hidden disks, sysfs
 * hidden 1: the paths nvmeXcYnZ of an NVMe multipath head, which have no
 * device node; awr list leaves them out and lists the head), each with the logical
 * block size and atomic limits of its queue/, its partitions (the entries
 * with a partition file: name, start, and aligned when the start is a
 * multiple of max(unit_min, boundary)) and its holders/ (dm, md).
 */
static bool list_disk(struct json_object *d, const char *name, char *why, size_t wl)
{
	static const char *const keys[] = {"logical_block_size", "unit_min", "unit_max",
					   "max_bytes", "boundary"};
	static const char *const attrs[] = {"logical_block_size", "atomic_write_unit_min_bytes",
					    "atomic_write_unit_max_bytes", "atomic_write_max_bytes",
					    "atomic_write_boundary_bytes"};
	struct json_object *parts = jget(d, "partitions"), *holders = jget(d, "holders");
	char dir[PATH_MAX], sub[PATH_MAX * 2];
	unsigned int nparts = 0, nholders = 0;
	uint64_t want, q[5], align;
	struct dirent *e;
	int64_t v;
	DIR *dd;

	snprintf(dir, sizeof(dir), "/sys/block/%s", name);
	for (size_t i = 0; i < 5; i++) {
		snprintf(sub, sizeof(sub), "%s/queue", dir);
		if (sysfs_number(sub, attrs[i], &want)) {
			snprintf(why, wl, "%s: queue/%s unreadable", name, attrs[i]);
			return false;
		}
		if (!jnum(d, keys[i], false, &v, why, wl)) {
			snprintf(why + strlen(why), wl - strlen(why), " (%s)", name);
			return false;
		}
		if ((uint64_t)v != want) {
			snprintf(why, wl, "%s %s %" PRId64 ", sysfs %" PRIu64, name, keys[i], v,
				 want);
			return false;
		}
		q[i] = want;
	}
	align = q[1] > q[4] ? q[1] : q[4]; /* a partition is aligned to max(unit_min, boundary) */
	if (!parts || !json_object_is_type(parts, json_type_array) || !holders ||
	    !json_object_is_type(holders, json_type_array)) {
		snprintf(why, wl, "%s: partitions or holders is not an array", name);
		return false;
	}
	dd = opendir(dir);
	while (dd && (e = readdir(dd))) {
		bool found = false;

		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || sysfs_number(sub, "start", &want) ||
		    access(strcat(sub, "/partition"), F_OK))
			continue;
		nparts++;
		for (size_t i = 0; i < json_object_array_length(parts); i++) {
			struct json_object *p = json_object_array_get_idx(parts, i),
					   *pn = jget(p, "name");

			if (pn && !strcmp(json_object_get_string(pn), e->d_name) &&
			    jnum(p, "start", false, &v, why, wl) && (uint64_t)v == want * 512 &&
			    jnum(p, "aligned", true, &v, why, wl) &&
			    !!v == (!align || want * 512 % align == 0))
				found = true;
		}
		why[0] = '\0';
		if (!found) {
			snprintf(why, wl,
				 "%.64s: partition %.64s (start %" PRIu64 ", %saligned to %" PRIu64
				 ") not listed so",
				 name, e->d_name, want * 512,
				 !align || want * 512 % align == 0 ? "" : "not ", align);
			break;
		}
	}
	if (dd)
		closedir(dd);
	if (!why[0] && nparts != json_object_array_length(parts))
		snprintf(why, wl, "%s: %zu partitions listed, sysfs has %u", name,
			 json_object_array_length(parts), nparts);
	snprintf(sub, sizeof(sub), "%s/holders", dir);
	dd = opendir(sub);
	while (!why[0] && dd && (e = readdir(dd))) {
		bool found = false;

		if (e->d_name[0] == '.')
			continue;
		nholders++;
		for (size_t i = 0; i < json_object_array_length(holders); i++)
			if (!strcmp(json_object_get_string(json_object_array_get_idx(holders, i)),
				    e->d_name))
				found = true;
		if (!found)
			snprintf(why, wl, "%.64s: holder %.64s not listed", name, e->d_name);
	}
	if (dd)
		closedir(dd);
	if (!why[0] && nholders != json_object_array_length(holders))
		snprintf(why, wl, "%s: %zu holders listed, sysfs has %u", name,
			 json_object_array_length(holders), nholders);
	return !why[0];
}

static void list_verdicts(const char *tag, struct json_object *devs, const char *need);
static void list_device_fields(const char *tag, struct json_object *devs);

static int cmd_list(const char *tag, const char *need)
{
	const char *args[] = { "list", "-o", "json", NULL };
	struct json_object *root, *devs;
	char n[128], why[512] = "", path[PATH_MAX], *out = NULL;
	unsigned int nsys = 0, nhidden = 0;
	struct dirent *e;
	bool hidden;
	uint64_t h;
	DIR *d;
	int rc;

	snprintf(n, sizeof(n), "%s.awr_list", tag);
	rc = run_awr(&out, args);
	root = out ? json_tokener_parse(out) : NULL;
	free(out);
	devs = root ? jget(root, "devices") : NULL;
	if (rc != 0 || !devs || !json_object_is_type(devs, json_type_array)) {
		FAILF(n, "awr list -o json: exit %d, %s (%.160s)", rc, devs ? "devices is not an "
									      "array" :
		      "no devices array", awr_err);
		json_object_put(root);
		return failures ? 1 : 0;
	}
	d = opendir("/sys/block");
	while (d && !why[0] && (e = readdir(d))) {
		struct json_object *dev = NULL;
		unsigned int seen = 0;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s", e->d_name);
		hidden = !sysfs_number(path, "hidden", &h) && h == 1;
		nsys += !hidden;
		nhidden += hidden;
		for (size_t i = 0; i < json_object_array_length(devs); i++) {
			struct json_object *x = json_object_array_get_idx(devs, i),
					   *xn = jget(x, "name");

			if (xn && !strcmp(json_object_get_string(xn), e->d_name)) {
				dev = x;
				seen++;
			}
		}
		if (seen != !hidden)
			snprintf(why, sizeof(why), "%s of /sys/block (hidden %d) listed %u times",
				 e->d_name, hidden, seen);
		else if (!hidden)
			list_disk(dev, e->d_name, why, sizeof(why));
	}
	if (d)
		closedir(d);
	if (!why[0] && (!nsys || nsys != json_object_array_length(devs)))
		snprintf(why, sizeof(why), "%zu devices listed, /sys/block has %u",
			 json_object_array_length(devs), nsys);
	printf("AWRVM: INFO list %s devices=%u hidden=%u\n", tag, nsys, nhidden);
	verdict(n, why);
	list_verdicts(tag, devs, need);
	list_device_fields(tag, devs);
	json_object_put(root);
	return failures ? 1 : 0;
}

/* a JSON member that is there (null included): true and *v (NULL for null); false when absent */
static bool jmember(struct json_object *o, const char *key, struct json_object **v)
{
	*v = NULL;
	return o && json_object_object_get_ex(o, key, v);
}

/*
 * awr list's normal output: the row of @name cut at the columns the header names
 * (DEVICE, PARTS, VERDICT, up to CACHE); false when there is no such row.
 */
static bool list_row(const char *text, const char *name, char *device, char *parts, char *verd,
		     size_t len)
{
	static const char *const names[] = { " DEVICE ", " PARTS ", " VERDICT ", " CACHE " };
	size_t at[4], hl = strcspn(text, "\n");
	char *cells[] = { device, parts, verd };
	size_t nl = strlen(name);

	/* each column starts where its (left-aligned) name starts in the header */
	for (int i = 0; i < 4; i++) {
		const char *w = strstr(text, names[i]);

		if (!w || (size_t)(w - text) >= hl)
			return false;
		at[i] = (size_t)(w - text) + 1;
	}
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t ll = strcspn(l, "\n");

		if (strncmp(l, name, nl) || l[nl] != ' ' || ll <= at[2])
			continue;
		for (int i = 0; i < 3; i++) {
			size_t a = at[i], b = at[i + 1] < ll ? at[i + 1] : ll, k = 0;

			while (a < b && l[a] == ' ')
				a++;
			while (b > a && l[b - 1] == ' ')
				b--;
			for (; a < b && k + 1 < len; a++)
				cells[i][k++] = l[a];
			cells[i][k] = '\0';
		}
		return true;
	}
	return false;
}

/* awr list (normal output), or NULL with a FAIL of case @n */
static char *list_text(const char *n)
{
	const char *args[] = { "list", NULL };
	char *out = NULL;
	int rc = run_awr(&out, args);

	if (rc != 0 || !out) {
		FAILF(n, "awr list: exit %d (%.160s)", rc, awr_err);
		free(out);
		return NULL;
	}
	return out;
}

/*
 * TAG.awr_list_verdict: every device's verdict, in JSON and in the normal
 * output, is the one the rule of awr_blockdev_verdict(3) gives for this
 * guest's sysfs, read here: unknown without queue/atomic_write_max_bytes, none
 * for unit_max 0, single_block (single-block in text) for unit_max up to the logical block size,
 * misaligned when a partition starts off max(unit_min, boundary), else
 * atomic; the PARTS column counts the aligned partitions. Every verdict named
 * in @need (comma separated) must be among them ("aligned-partitions": atomic
 * on a disk with partitions, all aligned).
 */
static void list_verdicts(const char *tag, struct json_object *devs, const char *need)
{
	char n[128], why[512] = "", seen[128] = ",", *text;

	snprintf(n, sizeof(n), "%s.awr_list_verdict", tag);
	text = list_text(n);
	if (!text)
		return;
	for (size_t i = 0; i < json_object_array_length(devs) && !why[0]; i++) {
		struct json_object *x = json_object_array_get_idx(devs, i), *jn = jget(x, "name"),
				   *jv = jget(x, "verdict");
		const char *name = jn ? json_object_get_string(jn) : "?", *want;
		char q[PATH_MAX], dir[PATH_MAX], sub[PATH_MAX * 2], cdev[64], cparts[64], cverd[64],
			wparts[32];
		uint64_t umin = 0, umax = 0, bnd = 0, lbs = 0, mb, start;
		unsigned int nparts = 0, aligned = 0;
		struct dirent *e;
		DIR *dd;

		snprintf(dir, sizeof(dir), "/sys/block/%s", name);
		snprintf(q, sizeof(q), "%s/queue", dir);
		if (sysfs_number(q, "atomic_write_max_bytes", &mb)) {
			want = "unknown";
		} else {
			sysfs_number(q, "atomic_write_unit_min_bytes", &umin);
			sysfs_number(q, "atomic_write_unit_max_bytes", &umax);
			sysfs_number(q, "atomic_write_boundary_bytes", &bnd);
			sysfs_number(q, "logical_block_size", &lbs);
			want = !umax ? "none" : umax <= lbs ? "single_block" : NULL;
		}
		dd = opendir(dir);
		while (dd && (e = readdir(dd))) {
			uint64_t al = umin > bnd ? umin : bnd;

			snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
			if (e->d_name[0] == '.' || sysfs_number(sub, "start", &start) ||
			    access(strcat(sub, "/partition"), F_OK))
				continue;
			nparts++;
			aligned += !al || start * 512 % al == 0;
		}
		if (dd)
			closedir(dd);
		if (!want)
			want = aligned < nparts ? "misaligned" : "atomic";
		if (nparts)
			snprintf(wparts, sizeof(wparts), "%u/%u", aligned, nparts);
		else
			snprintf(wparts, sizeof(wparts), "-");
		if (strlen(seen) + strlen(want) + 2 < sizeof(seen) && !strstr(seen, want))
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s,", want);
		if (!strcmp(want, "atomic") && nparts && !strstr(seen, ",aligned-partitions,") &&
		    strlen(seen) + 20 < sizeof(seen))
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
				 "aligned-partitions,");
		if (!jv || strcmp(json_object_get_string(jv), want))
			snprintf(why, sizeof(why),
				 "%s: awr list -o json verdict %s, expected %s "
				 "(sysfs unit_min %" PRIu64 " unit_max %" PRIu64
				 " boundary %" PRIu64 " logical block %" PRIu64
				 ", %u of %u partitions aligned)",
				 name, jv ? json_object_get_string(jv) : "(none)", want, umin, umax,
				 bnd, lbs, aligned, nparts);
		else if (!list_row(text, name, cdev, cparts, cverd, sizeof(cverd)))
			snprintf(why, sizeof(why), "%s: no row in awr list's normal output", name);
		else if (strcmp(cverd, strcmp(want, "single_block") ? want : "single-block") ||
			 strcmp(cparts, wparts))
			snprintf(why, sizeof(why), "%s: awr list shows PARTS %s VERDICT %s, "
						   "expected %s %s", name, cparts,
				 cverd, wparts, want);
	}
	for (const char *p = need; p && *p && !why[0];
	     p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		char w[40];

		snprintf(w, sizeof(w), ",%.*s,", (int)strcspn(p, ","), p);
		if (!strstr(seen, w))
			snprintf(why, sizeof(why), "no device with verdict %.*s among them (seen "
						   "%s)", (int)strcspn(p, ","),
				 p, seen);
	}
	printf("AWRVM: INFO list_verdict %s verdicts=%s\n", tag, seen);
	free(text);
	verdict(n, why);
}

/* The controller configuration run.sh wrote on the kernel command line for @serial
 * (awr_nvme=SERIAL:AWUN:AWUPF:NS,... NS "-" or NAWUN:NAWUPF:NABSN:NABSPF:NABO):
 * the number of values (2 or 7) in @v, 0 when the serial is not there. */
static int nvme_config(const char *serial, long *v)
{
	char cmd[4096], *arg, *save = NULL, *ent, *save2 = NULL;
	FILE *f = fopen("/proc/cmdline", "r");
	int nv = 0;

	if (!f)
		return 0;
	if (!fgets(cmd, sizeof(cmd), f))
		cmd[0] = '\0';
	fclose(f);
	for (arg = strtok_r(cmd, " \n", &save); arg; arg = strtok_r(NULL, " \n", &save)) {
		if (strncmp(arg, "awr_nvme=", 9))
			continue;
		for (ent = strtok_r(arg + 9, ",", &save2); ent; ent = strtok_r(NULL, ",", &save2)) {
			char *c = strchr(ent, ':');

			if (!c || (size_t)(c - ent) != strlen(serial) ||
			    strncmp(ent, serial, strlen(serial)))
				continue;
			for (char *t = c + 1; *t && nv < 7;
			     t += strcspn(t, ":") + (t[strcspn(t, ":")] == ':')) {
				if (*t == '-')
					break;
				v[nv++] = strtol(t, NULL, 10);
			}
			return nv;
		}
	}
	return 0;
}

/*
 * TAG.awr_list_device: each device's own field in awr list, in JSON (nvme.awupf,
 * nvme.nawupf, scsi.max_atomic_transfer_length) and the normal output's DEVICE
 * column, against what is read here without the library: NVMe Identify
 * Controller and Namespace through libnvme on the disk's node (AWUPF; NAWUPF
 * when NSFEAT bit 1 is set, else null) and the values run.sh configured the
 * controller with (by its serial); SCSI Block Limits VPD through sg3_utils and
 * scsi_debug's module parameter atomic_wr_max_length. Other disks: both null, "-".
 */
static void list_device_fields(const char *tag, struct json_object *devs)
{
	char n[128], why[512] = "", *text;
	unsigned int nvme = 0, scsi = 0, configured = 0;

	snprintf(n, sizeof(n), "%s.awr_list_device", tag);
	text = list_text(n);
	if (!text)
		return;
	for (size_t i = 0; i < json_object_array_length(devs) && !why[0]; i++) {
		struct json_object *x = json_object_array_get_idx(devs, i), *jn = jget(x, "name"),
				   *jt = jget(x, "transport");
		struct json_object *jnv, *jsc, *v;
		const char *name = jn ? json_object_get_string(jn) : "?",
			   *tr = jt ? json_object_get_string(jt) : "";
		char path[PATH_MAX], want_col[64] = "-", cdev[64], cparts[64], cverd[64],
				     serial[64] = "", got[128] = "";
		int64_t want_awupf = -1, want_nawupf = -1, want_matl = -1;

		if (!jmember(x, "nvme", &jnv) || !jmember(x, "scsi", &jsc)) {
			snprintf(why, sizeof(why), "%s: no nvme or scsi member", name);
			break;
		}
		snprintf(path, sizeof(path), "/dev/%s", name);
		if (!strcmp(tr, "nvme")) {
			unsigned char c[4096], ns[4096];
			__u32 nsid = 0;
			long conf[7];
			int fd = open(path, O_RDONLY), nc;
			FILE *sf;

			if (fd < 0 || nvme_get_nsid(fd, &nsid) ||
			    nvme_identify_ctrl(fd, (struct nvme_id_ctrl *)c) ||
			    nvme_identify_ns(fd, nsid, (struct nvme_id_ns *)ns)) {
				snprintf(why, sizeof(why), "%s: Identify through %s failed: %s",
					 name, path, strerror(errno));
				if (fd >= 0)
					close(fd);
				break;
			}
			close(fd);
			nvme++;
			want_awupf = le16at(c, 528);
			if (ns[24] & 2)
				want_nawupf = le16at(ns, 36);
			snprintf(path, sizeof(path), "/sys/block/%s/device/serial", name);
			sf = fopen(path, "r");
			if (sf) {
				if (!fgets(serial, sizeof(serial), sf))
					serial[0] = '\0';
				fclose(sf);
			}
			for (size_t k = strlen(serial);
			     k > 0 && (serial[k - 1] == ' ' || serial[k - 1] == '\n'); k--)
				serial[k - 1] = '\0';
			nc = *serial ? nvme_config(serial, conf) : 0;
			configured += nc > 0;
			if (nc >= 2 && conf[1] != want_awupf)
				snprintf(why, sizeof(why),
					 "%s (serial %s): Identify AWUPF %" PRId64
					 ", configured %ld",
					 name, serial, want_awupf, conf[1]);
			else if (nc == 7 && (!(ns[24] & 2) || conf[3] != want_nawupf))
				snprintf(why, sizeof(why), "%s (serial %s): Identify NSFEAT 0x%x "
							   "NAWUPF %u, configured NAWUPF %ld",
					 name, serial, ns[24], le16at(ns, 36), conf[3]);
			else if (nc == 2 && (ns[24] & 2))
				snprintf(why, sizeof(why), "%s (serial %s): NSFEAT bit 1 set, no "
							   "namespace fields configured",
					 name, serial);
			if (why[0])
				break;
			printf("AWRVM: INFO list_device %s dev=%s serial=%s awupf=%" PRId64
			       " nawupf=%" PRId64 " configured=%s\n",
			       tag, name, serial, want_awupf, want_nawupf, nc ? "yes" : "no");
			if (want_nawupf >= 0)
				snprintf(want_col, sizeof(want_col), "NAWUPF %" PRId64,
					 want_nawupf);
			else
				snprintf(want_col, sizeof(want_col), "AWUPF %" PRId64, want_awupf);
		} else if (!strcmp(tr, "scsi")) {
			unsigned char r[64];
			int resid = 0, fd = sg_cmds_open_device(path, true, 0);
			char model[64] = "";
			FILE *mf;

			memset(r, 0, sizeof(r));
			if (fd < 0 ||
			    sg_ll_inquiry_v2(fd, true, 0xb0, r, sizeof(r), 0, &resid, true, 0)) {
				snprintf(why, sizeof(why), "%s: INQUIRY VPD B0h through %s failed",
					 name, path);
				if (fd >= 0)
					sg_cmds_close_device(fd);
				break;
			}
			sg_cmds_close_device(fd);
			scsi++;
			if (sg_get_unaligned_be16(r + 2) >= AWR_SCSI_VPD_BL_ATOMIC_LEN) {
				want_matl = sg_get_unaligned_be32(r + 44);
				snprintf(want_col, sizeof(want_col), "MATL %" PRId64, want_matl);
			}
			snprintf(path, sizeof(path), "/sys/block/%s/device/model", name);
			mf = fopen(path, "r");
			if (mf) {
				if (!fgets(model, sizeof(model), mf))
					model[0] = '\0';
				fclose(mf);
			}
			if (!strncmp(model, "scsi_debug", 10) &&
			    sd_param("atomic_wr_max_length") != want_matl) {
				snprintf(why, sizeof(why),
					 "%s: VPD MATL %" PRId64
					 ", scsi_debug atomic_wr_max_length=%" PRId64,
					 name, want_matl, sd_param("atomic_wr_max_length"));
				break;
			}
			printf("AWRVM: INFO list_device %s dev=%s matl=%" PRId64 "\n", tag, name,
			       want_matl);
		}
		/* JSON */
		if (want_awupf >= 0) {
			struct json_object *a = jget(jnv, "awupf"), *na = NULL;
			bool nok =
				jmember(jnv, "nawupf", &na) &&
				(want_nawupf < 0 ? !na
						 : na && json_object_get_int64(na) == want_nawupf);

			snprintf(got, sizeof(got), "%s",
				 jnv ? json_object_to_json_string(jnv) : "null");
			if (!a || json_object_get_int64(a) != want_awupf || !nok)
				snprintf(why, sizeof(why),
					 "%s: awr list -o json nvme %s, Identify "
					 "AWUPF %" PRId64 " NAWUPF %" PRId64
					 " (-1: NSFEAT bit 1 clear, null)",
					 name, got, want_awupf, want_nawupf);
		} else if (jnv) {
			snprintf(why, sizeof(why), "%s: awr list -o json nvme %s for a %s disk",
				 name, json_object_to_json_string(jnv), tr);
		}
		if (!why[0] && want_matl >= 0) {
			v = jget(jsc, "max_atomic_transfer_length");
			if (!v || json_object_get_int64(v) != want_matl)
				snprintf(why, sizeof(why), "%s: awr list -o json scsi %s, VPD MATL "
							   "%" PRId64, name,
					 jsc ? json_object_to_json_string(jsc) : "null", want_matl);
		} else if (!why[0] && jsc) {
			snprintf(why, sizeof(why), "%s: awr list -o json scsi %s, the VPD page has "
						   "no atomic fields", name,
				 json_object_to_json_string(jsc));
		}
		/* the normal output's DEVICE column */
		if (!why[0] && !list_row(text, name, cdev, cparts, cverd, sizeof(cdev)))
			snprintf(why, sizeof(why), "%s: no row in awr list's normal output", name);
		else if (!why[0] && strcmp(cdev, want_col))
			snprintf(why, sizeof(why), "%s: awr list DEVICE column '%s', expected '%s'",
				 name, cdev, want_col);
	}
	printf("AWRVM: INFO list_device %s nvme=%u configured=%u scsi=%u\n", tag, nvme, configured,
	       scsi);
	free(text);
	verdict(n, why);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "mbr"))
		return cmd_mbr(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "statx")) {
		struct kstatx x = raw_statx(argv[2]);

		if (!x.ok)
			return 1;
		printf("0x%x %u %u %u %u\n", x.mask, x.unit_min, x.unit_max, x.segments_max,
		       x.unit_max_opt);
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "list"))
		return cmd_list(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 5 && !strcmp(argv[1], "vpd"))
		return cmd_vpd(argv[2], argv[3], argv[4]);
	if ((argc == 5 || argc == 7) && !strcmp(argv[1], "nvmeid"))
		return cmd_nvmeid(argv[2], argv[3], argv[4], argc == 7 ? argv[5] : NULL,
				  argc == 7 ? argv[6] : NULL);
	if (argc != 4) {
		fprintf(stderr, "usage: awr-vmtest disk|part|stack|chardev|sysfs TAG DEV | vpd TAG "
				"SGDEV DISK |"
			" nvmeid TAG CTRLDEV NSDEV [AWUN AWUPF] | mbr DEV | list TAG [VERDICT,...] "
			"| statx PATH\n");
		return 2;
	}
	if (!strcmp(argv[1], "disk"))
		return cmd_disk(argv[2], argv[3]);
	if (!strcmp(argv[1], "part"))
		return cmd_part(argv[2], argv[3]);
	if (!strcmp(argv[1], "stack"))
		return cmd_stack(argv[2], argv[3]);
	if (!strcmp(argv[1], "chardev"))
		return cmd_chardev(argv[2], argv[3]);
	if (!strcmp(argv[1], "sysfs"))
		return cmd_sysfs(argv[2], argv[3]);
	fprintf(stderr, "awr-vmtest: unknown command %s\n", argv[1]);
	return 2;
}
