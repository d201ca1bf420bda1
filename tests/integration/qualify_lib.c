// SPDX-License-Identifier: MIT
/*
 * Description: awr_qualify_run() called directly on a file of the scratch XFS: the typed report
 * (verdict PASS, each check's status, the sweep's sizes read back intact, the refusals as
 * predicted, the concurrent writers verified with nothing torn, the benchmark's modes measured, the
 * scope software_only over a loop device), a checks mask honoured, hardware atomics required making
 * that verdict FAIL, and the negative control: a raw loop device (no atomic writes) fails
 * discovery, skips the write checks and gets the verdict FAIL, scope none, each FAIL with what to
 * do. awr_qualify_target_open() takes PATH as awr qualify does: a directory gets a scratch file
 * that awr_qualify_target_close() and awr_qualify_cleanup() remove; a missing path is made only
 * when asked; a file holding data and a character device are refused with their sentences.
 *
 *   qualify_lib   (run under with-scratch-xfs.sh)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/loop.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"

static struct awr_qualify_report *run(const char *path, unsigned int checks, unsigned int flags)
{
	struct awr_qualify_report *r = NULL;
	struct awr_qualify_opts o;
	int fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC), ret;

	if (fd < 0)
		T_SKIP("cannot open %s for direct I/O: %s", path, strerror(errno));
	awr_qualify_opts_init(&o);
	o.flags = AWR_QUALIFY_QUICK | flags;
	if (checks)
		o.checks = checks;
	ret = awr_qualify_run(fd, path, &o, &r);
	close(fd);
	T_EXPECT(!ret && r, "awr_qualify_run(%s): %s", path, strerror(-ret));
	if (!r)
		exit(t_done("qualify_lib"));
	return r;
}

static enum awr_qualify_status status(const struct awr_qualify_report *r,
				      enum awr_qualify_check_id id)
{
	T_EXPECT(r->checks[id].ran, "%s did not run", awr_qualify_check_name(id));
	return r->checks[id].status;
}

static void expect(const struct awr_qualify_report *r, enum awr_qualify_check_id id,
		   enum awr_qualify_status want)
{
	enum awr_qualify_status got = status(r, id);

	T_EXPECT(got == want, "%s: %s, expected %s (%s)", awr_qualify_check_name(id),
		 awr_qualify_status_name(got), awr_qualify_status_name(want), r->checks[id].reason);
}

static void file_figures(const struct awr_qualify_report *r)
{
	const struct awr_verify_result *v = &r->concurrent.verify;

	T_EXPECT(r->nr_sweep >= 1 && r->sweep[0].size == r->limits.unit_min, "sweep from unit_min");
	for (unsigned int i = 0; i < r->nr_sweep; i++) {
		const struct awr_qualify_sweep_write *w = &r->sweep[i];

		T_EXPECT(w->size == (uint64_t)r->limits.unit_min << i && !w->write_error &&
			 !w->read_error && w->read_back == AWR_UNIT_INTACT, "sweep write %u: %"
			 PRIu64 " bytes, write %d, read %d", i, w->size, w->write_error,
			 w->read_error);
	}
	T_EXPECT(r->sweep[r->nr_sweep - 1].size == r->limits.unit_max, "sweep to unit_max");
	T_EXPECT(r->nr_refusals >= 3, "%u refusals", r->nr_refusals);
	for (unsigned int i = 0; i < r->nr_refusals; i++) {
		const struct awr_qualify_refusal *x = &r->refusals[i];

		T_EXPECT(x->predicted < 0 && x->kernel == x->predicted, "%s: kernel %" PRId64
			 ", predicted %d", x->name, x->kernel, x->predicted);
	}
	T_EXPECT(r->concurrent.ran && r->concurrent.verified, "the writers and verifier ran");
	T_EXPECT(v->count[AWR_UNIT_TORN] == 0 && v->lost == 0 && v->acked_writes > 0 &&
		 v->acked_writes == r->concurrent.result.writes, "verify: %" PRIu64 " torn, %"
		 PRIu64 " lost, %" PRIu64 " of %" PRIu64 " acknowledged", v->count[AWR_UNIT_TORN],
		 v->lost, v->acked_writes, r->concurrent.result.writes);
	T_EXPECT(r->crash.proves && strstr(r->crash.cannot_prove, "power cut"), "crash scope said");
	T_EXPECT(r->extent_map.present && r->extent_map.file_size > 0, "the extent map");
	T_EXPECT(r->perf && !r->perf_error, "the benchmark ran");
	for (int m = AWR_BENCH_ATOMIC; r->perf && m <= AWR_BENCH_DOUBLEWRITE; m++) {
		const struct awr_bench_mode_result *x = awr_bench_result_mode(r->perf, m);

		T_EXPECT(x->ran && !x->error && x->pages > 0 && x->p50_us <= x->p99_us,
			 "%s: %" PRIu64 " pages, p50 %.0f p99 %.0f us", awr_bench_mode_name(m),
			 x->pages, x->p50_us, x->p99_us);
	}
}

/* The scratch XFS on a loop device: everything passes, no hardware path below. */
static void on_file(const char *dir)
{
	struct awr_qualify_report *r;
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/qualify_lib.dat", dir);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	T_EXPECT(fd >= 0, "create %s: %s", path, strerror(errno));
	close(fd);
	r = run(path, 0, 0);
	T_EXPECT(r->size == sizeof(*r) && !r->block_device, "report of a file");
	if (!r->limits.supported) {
		awr_qualify_report_free(r);
		unlink(path);
		T_SKIP("no atomic writes on this kernel's XFS");
	}
	T_EXPECT(r->verdict == AWR_QUALIFY_VERDICT_PASS, "verdict FAIL");
	expect(r, AWR_QUALIFY_DISCOVERY, AWR_QUALIFY_PASS);
	expect(r, AWR_QUALIFY_SIZE_SWEEP, AWR_QUALIFY_PASS);
	expect(r, AWR_QUALIFY_KERNEL_REFUSALS, AWR_QUALIFY_PASS);
	expect(r, AWR_QUALIFY_CONCURRENT_TORN, AWR_QUALIFY_PASS);
	expect(r, AWR_QUALIFY_CRASH, AWR_QUALIFY_SKIP);	/* no AWR_QUALIFY_CRASH_TEST */
	expect(r, AWR_QUALIFY_PERFORMANCE, AWR_QUALIFY_INFO);	/* speed is never judged */
	expect(r, AWR_QUALIFY_HARDWARE_PATH, AWR_QUALIFY_SKIP);	/* a loop device below */
	T_EXPECT(!r->checks[AWR_QUALIFY_SHORT_PIN].ran, "short_pin ran on a file");
	T_EXPECT(r->count[AWR_QUALIFY_FAIL] == 0 && r->count[AWR_QUALIFY_PASS] == 4 &&
		 r->count[AWR_QUALIFY_INFO] == 1, "%u passed, %u failed, %u info",
		 r->count[AWR_QUALIFY_PASS], r->count[AWR_QUALIFY_FAIL],
		 r->count[AWR_QUALIFY_INFO]);
	/* a loop device below: XFS writes atomically by its software path alone */
	T_EXPECT(r->scope == AWR_QUALIFY_SCOPE_SOFTWARE_ONLY && r->requirement_met &&
		 strstr(r->scope_text, "software path only"), "scope %s: %s",
		 awr_qualify_scope_name(r->scope), r->scope_text);
	file_figures(r);
	awr_qualify_report_free(r);

	/* a mask: discovery and the sweep only; hardware atomics required make the verdict FAIL */
	r = run(path, 1U << AWR_QUALIFY_DISCOVERY | 1U << AWR_QUALIFY_SIZE_SWEEP,
		AWR_QUALIFY_REQUIRE_HARDWARE);
	expect(r, AWR_QUALIFY_SIZE_SWEEP, AWR_QUALIFY_PASS);
	T_EXPECT(!r->checks[AWR_QUALIFY_CONCURRENT_TORN].ran && !r->concurrent.ran &&
		 !r->checks[AWR_QUALIFY_PERFORMANCE].ran && !r->perf,
		 "checks ran outside the mask");
	T_EXPECT(r->verdict == AWR_QUALIFY_VERDICT_FAIL && r->count[AWR_QUALIFY_FAIL] == 0 &&
		 r->require_hardware && !r->requirement_met && r->requirement[0] &&
		 r->what_to_do[0], "hardware required on the software path: verdict %s, %s",
		 r->verdict == AWR_QUALIFY_VERDICT_FAIL ? "FAIL" : "PASS", r->requirement);
	awr_qualify_report_free(r);
	unlink(path);
}

/* A free loop device over @img; its fd (autoclear: it detaches when closed), or -1. */
static int attach(const char *img, char *dev, size_t len)
{
	struct loop_config cfg = { .info = { .lo_flags = LO_FLAGS_AUTOCLEAR } };
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), ifd, lfd = -1, n;

	ifd = open(img, O_RDWR | O_CLOEXEC);
	n = ctl < 0 || ifd < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (n >= 0) {
		snprintf(dev, len, "/dev/loop%d", n);
		lfd = open(dev, O_RDWR | O_CLOEXEC);
		cfg.fd = (uint32_t)ifd;
		if (lfd >= 0 && ioctl(lfd, LOOP_CONFIGURE, &cfg)) {
			close(lfd);
			lfd = -1;
		}
	}
	if (ifd >= 0)
		close(ifd);
	if (ctl >= 0)
		close(ctl);
	return lfd;
}

/* The negative control: a raw loop device has no atomic writes, discovery must fail. */
static void on_raw_loop(const char *dir)
{
	struct awr_qualify_report *r;
	char img[4200], dev[32];
	int fd, lfd;

	snprintf(img, sizeof(img), "%s/qualify_lib.img", dir);
	fd = open(img, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0600);
	T_EXPECT(fd >= 0 && !ftruncate(fd, 64 << 20), "image %s: %s", img, strerror(errno));
	close(fd);
	lfd = attach(img, dev, sizeof(dev));
	unlink(img);
	if (lfd < 0)
		T_SKIP("no free loop device for the negative control");
	r = run(dev, 0, 0);
	close(lfd);
	T_EXPECT(r->block_device && r->device_size == 64 << 20, "a 64 MiB block device");
	T_EXPECT(r->verdict == AWR_QUALIFY_VERDICT_FAIL, "verdict PASS on a raw loop device");
	expect(r, AWR_QUALIFY_DISCOVERY, AWR_QUALIFY_FAIL);
	T_EXPECT(strstr(r->checks[AWR_QUALIFY_DISCOVERY].reason, "refuses atomic writes"), "%s",
		 r->checks[AWR_QUALIFY_DISCOVERY].reason);
	expect(r, AWR_QUALIFY_SIZE_SWEEP, AWR_QUALIFY_SKIP);
	expect(r, AWR_QUALIFY_KERNEL_REFUSALS, AWR_QUALIFY_SKIP);
	expect(r, AWR_QUALIFY_CONCURRENT_TORN, AWR_QUALIFY_SKIP);
	expect(r, AWR_QUALIFY_SHORT_PIN, AWR_QUALIFY_SKIP);
	expect(r, AWR_QUALIFY_PERFORMANCE, AWR_QUALIFY_SKIP);
	T_EXPECT(!r->perf, "a benchmark without a sweep");
	T_EXPECT(!r->checks[AWR_QUALIFY_HARDWARE_PATH].ran, "hardware_path ran on a block device");
	T_EXPECT(r->nr_sweep == 0 && !r->extent_map.present, "figures of checks that did not run");
	T_EXPECT(r->scope == AWR_QUALIFY_SCOPE_NONE, "scope %s", awr_qualify_scope_name(r->scope));
	for (unsigned int id = 0; id < AWR_QUALIFY__CHECKS; id++) {
		const struct awr_qualify_check *c = &r->checks[id];

		T_EXPECT((c->status == AWR_QUALIFY_FAIL) == !!c->what_to_do[0],
			 "%s: %s, what to do \"%s\"", awr_qualify_check_name(id),
			 awr_qualify_status_name(c->status), c->what_to_do);
	}
	awr_qualify_report_free(r);
}

static bool gone(const char *path)
{
	struct stat st;

	return stat(path, &st) && errno == ENOENT;
}

/* A directory: a scratch file made in it, qualified, removed at close or by the cleanup call. */
static void target_of_dir(const char *dir)
{
	struct awr_qualify_report *r = NULL;
	struct awr_qualify_target t;
	struct awr_qualify_opts o;
	char made[4200];
	int ret = awr_qualify_target_open(dir, 0, &t);

	T_EXPECT(!ret && t.size == sizeof(t) && t.fd >= 0 && t.created && !t.block_device &&
		 strstr(t.path, "/awr-qualify.") && !gone(t.path), "target of %s: %d %s", dir, ret,
		 t.path);
	if (ret)
		return;
	awr_qualify_opts_init(&o);
	o.flags = AWR_QUALIFY_QUICK;
	o.checks = 1U << AWR_QUALIFY_DISCOVERY | 1U << AWR_QUALIFY_SIZE_SWEEP;
	ret = awr_qualify_run(t.fd, t.path, &o, &r);
	T_EXPECT(!ret && r && !r->block_device && !strcmp(r->target, t.path) &&
		 r->checks[AWR_QUALIFY_SIZE_SWEEP].ran, "qualify the scratch file: %d", ret);
	awr_qualify_report_free(r);
	snprintf(made, sizeof(made), "%s", t.path);
	awr_qualify_target_close(&t);
	T_EXPECT(gone(made) && t.fd < 0, "the scratch file %s is left after close", made);
	/* a signal handler's call removes it too */
	ret = awr_qualify_target_open(dir, 0, &t);
	awr_qualify_cleanup();
	T_EXPECT(!ret && gone(t.path), "the scratch file %s is left after the cleanup", t.path);
	awr_qualify_target_close(&t);
}

/* A missing path, a file holding data, a character device: each refused with its sentence. */
static void target_refusals(const char *dir)
{
	struct awr_qualify_target t;
	char path[4200];
	int ret, fd;

	snprintf(path, sizeof(path), "%s/qualify_lib.missing", dir);
	ret = awr_qualify_target_open(path, 0, &t);
	T_EXPECT(ret == -ENOENT && t.fd < 0 && gone(path) &&
		 strstr(awr_last_error(), "does not exist: give an existing directory"),
		 "missing path: %d, %s", ret, awr_last_error());
	ret = awr_qualify_target_open(path, AWR_QUALIFY_TARGET_CREATE, &t);
	T_EXPECT(!ret && t.created && !gone(path), "--create: %d, %s", ret, awr_last_error());
	awr_qualify_target_close(&t);
	T_EXPECT(gone(path), "the file made for the run is left: %s", path);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	T_EXPECT(fd >= 0 && write(fd, "data", 4) == 4, "write %s", path);
	close(fd);
	ret = awr_qualify_target_open(path, 0, &t);
	T_EXPECT(ret == -EEXIST && strstr(awr_last_error(), "(awr qualify): it holds 4 bytes"),
		 "a file holding data: %d, %s", ret, awr_last_error());
	ret = awr_qualify_target_open(path, AWR_QUALIFY_TARGET_FORCE, &t);
	T_EXPECT(!ret && !t.created && t.safety.reasons, "forced: %d, %s", ret, awr_last_error());
	awr_qualify_target_close(&t);
	T_EXPECT(!gone(path), "close removed a file it did not make");
	unlink(path);
	ret = awr_qualify_target_open("/dev/null", 0, &t);
	T_EXPECT(ret == -EINVAL && strstr(awr_last_error(), "is neither a directory"),
		 "/dev/null: %d, %s", ret, awr_last_error());
}

int main(void)
{
	const char *dir = getenv("AWR_SCRATCH_DIR");

	if (!dir)
		T_SKIP("run under with-scratch-xfs.sh");
	target_of_dir(dir);
	target_refusals(dir);
	on_file(dir);
	on_raw_loop(dir);
	return t_done("qualify_lib");
}
