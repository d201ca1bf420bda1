// SPDX-License-Identifier: MIT
/*
 * Description: qualification's short_pin probe (lib/qualify/short_pin.c): its decision on every
 * outcome (an error with the range kept is refused, a short count with part of it new is torn: the
 * 12288 of 16384 bytes seen in the guests' NVMe namespaces, an error with a page changed is torn
 * too, the whole count is impossible), and the probe on a scratch XFS file of the host kernel,
 * whose software path must not tear (6.18: EFAULT, every page old).
 *
 * qualify_short_pin DEVICE (the guests: a scratch block device taking 16 KiB atomic writes): the
 * probe on the raw device, its outcome printed (INFO) and a case, then awr_pwrite() of the same
 * buffer: where the kernel returns a short count the library must return -EIO with a verdict
 * naming a short atomic write (never the count), where it refuses the library must return that
 * errno.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"
#include "qualify/short_pin.h"

struct row {
	const char *what;
	struct pin_result r;
	enum awr_qualify_pin_outcome want;
};

/* unit, pages, ret, read_err, pages_new, pages_old, first_new */
static const struct row rows[] = {
	{ "EFAULT, all old (XFS, 6.18)", { 16384, 4, -EFAULT, 0, 0, 4, 0 },
	  AWR_QUALIFY_PIN_REFUSED },
	{ "EINVAL, all old (scsi_debug, unit_min 8 KiB)", { 16384, 4, -EINVAL, 0, 0, 4, 0 },
	  AWR_QUALIFY_PIN_REFUSED },
	{ "12288 returned, 3 new 1 old (NVMe, 6.12 and 7.3)", { 16384, 4, 12288, 0, 3, 1, 0 },
	  AWR_QUALIFY_PIN_TORN },
	{ "8192 returned, 2 new 2 old", { 16384, 4, 8192, 0, 2, 2, 0 }, AWR_QUALIFY_PIN_TORN },
	{ "0 returned, all old", { 16384, 4, 0, 0, 0, 4, 0 }, AWR_QUALIFY_PIN_SHORT_KEPT },
	{ "12288 returned, all old", { 16384, 4, 12288, 0, 0, 4, 0 }, AWR_QUALIFY_PIN_SHORT_KEPT },
	{ "EIO, one page new", { 16384, 4, -EIO, 0, 1, 3, 0 }, AWR_QUALIFY_PIN_TORN },
	{ "EFAULT, a page neither old nor new", { 16384, 4, -EFAULT, 0, 0, 3, 0 },
	  AWR_QUALIFY_PIN_TORN },
	{ "the whole count", { 16384, 4, 16384, 0, 4, 0, 0 }, AWR_QUALIFY_PIN_WHOLE },
	{ "no read-back", { 16384, 4, 12288, -EIO, 0, 0, 0 }, AWR_QUALIFY_PIN_NO_READ },
};

static void test_decide(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum awr_qualify_pin_outcome o = awr__pin_decide(&rows[i].r);

		T_EXPECT(o == rows[i].want, "%s: %s, expected %s", rows[i].what,
			 awr_qualify_pin_outcome_name(o),
			 awr_qualify_pin_outcome_name(rows[i].want));
	}
}

/* The probe on a file of the scratch XFS: the software path fails it whole. */
static void test_xfs(const char *dir)
{
	struct pin_result r;
	struct utsname u;
	char path[4200];
	int wfd, rfd, ret;

	snprintf(path, sizeof(path), "%s/short_pin.dat", dir);
	wfd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0644);
	rfd = open(path, O_RDONLY | O_DIRECT);
	if (wfd < 0 || rfd < 0 || ftruncate(wfd, 1 << 20)) {
		T_EXPECT(0, "open or size %s: %s", path, strerror(errno));
		return;
	}
	ret = awr__pin_try(wfd, rfd, 16384, 16384, &r);
	if (ret) {
		T_EXPECT(0, "pin_try on %s: %s", path, strerror(-ret));
		return;
	}
	uname(&u);
	printf("INFO %s XFS file: returned %zd%s%s, %u pages new, %u old of %u: %s\n", u.release,
	       r.ret, r.ret < 0 ? " " : "", r.ret < 0 ? strerror((int)-r.ret) : "", r.pages_new,
	       r.pages_old, r.pages, awr_qualify_pin_outcome_name(awr__pin_decide(&r)));
	T_EXPECT(awr__pin_decide(&r) == AWR_QUALIFY_PIN_REFUSED, "the XFS file: %s (returned %zd, "
		 "%u pages new), expected refused whole",
		 awr_qualify_pin_outcome_name(awr__pin_decide(&r)), r.ret, r.pages_new);
	T_EXPECT(awr__pin_try(wfd, rfd, 0, 4096, &r) == -EINVAL,
		 "one page cannot pin in part: refused");
	close(wfd);
	close(rfd);
	unlink(path);
}

/* The same partly pinned buffer through awr_pwrite(): a short count is never passed on. */
static void device_library(const char *dev, const struct pin_result *raw)
{
	struct awr_verdict v = { 0 };
	struct awr_file *f = NULL;
	char *m;
	ssize_t got;
	int ret = awr_file_open(dev, 0, &f);

	if (ret) {
		printf("FAIL library_short_is_error: awr_file_open(%s): %s\n", dev, strerror(-ret));
		return;
	}
	m = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + 12288, 4096, PROT_NONE)) {
		printf("FAIL library_short_is_error: mmap: %s\n", strerror(errno));
		awr_file_close(f);
		return;
	}
	memset(m, PIN_FILL_NEW, 12288);
	got = awr_pwrite(f, m, 16384, 32768, AWR_WRITE_DSYNC, &v);
	if (raw->ret >= 0 && raw->ret < 16384 &&
	    (got != -EIO || !strstr(v.message, "short atomic write")))
		printf("FAIL library_short_is_error: the kernel returned %zd, awr_pwrite %zd (%s), "
		       "expected -EIO naming a short atomic write\n", raw->ret, got, v.message);
	else if (raw->ret < 0 && got != raw->ret)
		printf("FAIL library_short_is_error: the kernel refused with %zd, awr_pwrite "
		       "returned %zd\n", raw->ret, got);
	else
		printf("PASS library_short_is_error: awr_pwrite returned %zd%s%s\n", got,
		       v.message[0] ? ": " : "", v.message);
	munmap(m, 16384);
	awr_file_close(f);
}

/* The probe on a raw block device (the guests): what this kernel does, and the library's answer. */
static int device_mode(const char *dev)
{
	struct pin_result r;
	struct utsname u;
	int wfd = open(dev, O_RDWR | O_DIRECT), rfd = open(dev, O_RDONLY | O_DIRECT), ret;
	enum awr_qualify_pin_outcome o;

	if (wfd < 0 || rfd < 0) {
		printf("FAIL probe: open %s: %s\n", dev, strerror(errno));
		return T_EXIT_FAIL;
	}
	ret = awr__pin_try(wfd, rfd, 16384, 16384, &r);
	uname(&u);
	o = awr__pin_decide(&r);
	if (ret) {
		printf("FAIL probe: pin_try on %s: %s\n", dev, strerror(-ret));
		return T_EXIT_FAIL;
	}
	printf("AWRVM: INFO short_pin kernel=%s dev=%s unit=16384 returned=%zd pages_new=%u "
	       "pages_old=%u outcome=%s\n", u.release, dev, r.ret, r.pages_new, r.pages_old,
	       awr_qualify_pin_outcome_name(o));
	/* the probe's own consistency: a count the kernel returned matches the pages changed */
	if (o == AWR_QUALIFY_PIN_TORN && r.ret > 0 &&
	    (uint64_t)r.ret != (uint64_t)r.pages_new * 4096)
		printf("FAIL probe: %zd bytes returned, %u pages new\n", r.ret, r.pages_new);
	else
		printf("PASS probe: %s\n", awr_qualify_pin_outcome_name(o));
	device_library(dev, &r);
	close(wfd);
	close(rfd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("AWR_SCRATCH_DIR");

	if (argc > 1)
		return device_mode(argv[1]);

	test_decide();
	if (!dir)
		T_SKIP("AWR_SCRATCH_DIR not set (run under with-scratch-xfs.sh)");
	test_xfs(dir);
	return t_done("qualify_short_pin");
}
