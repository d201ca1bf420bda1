// SPDX-License-Identifier: MIT
/*
 * Description: libFuzzer harness for the stress journal reader and the verifier's journal tables:
 * the input is a journal file, verified against a small stamped target.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "verify/journal.h"

#define FUZZ_UNIT	4096U
#define FUZZ_UNITS	8U

static int target_fd = -1;

static int count_cb(const struct awr_jrec *r, void *arg)
{
	(void)r;
	++*(uint64_t *)arg;
	return 0;
}

/* The target: 8 stamped units (generations 1..8, unit 5 never written, unit 6 torn). */
static int make_target(void)
{
	static uint8_t unit[FUZZ_UNIT], other[FUZZ_UNIT];
	int fd = memfd_create("awr-fuzz-target", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	for (uint32_t u = 0; u < FUZZ_UNITS; u++) {
		memset(unit, 0, sizeof(unit));
		if (u != 5 && awr_stamp_fill(unit, FUZZ_UNIT, u, u + 1, u % 3))
			abort();
		if (u == 6) {
			awr_stamp_fill(other, FUZZ_UNIT, u, u + 100, 1);
			memcpy(unit + FUZZ_UNIT / 2, other + FUZZ_UNIT / 2, FUZZ_UNIT / 2);
		}
		if (pwrite(fd, unit, FUZZ_UNIT, (off_t)u * FUZZ_UNIT) != FUZZ_UNIT)
			abort();
	}
	return fd;
}

static int issue_cb(const struct awr_verify_issue *is, void *arg)
{
	(void)arg;
	if (is->unit >= FUZZ_UNITS)
		abort();	/* an issue outside the span */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char jpath[64], tpath[64];
	struct awr_verify_opts o = { .unit = FUZZ_UNIT, .issue = issue_cb };
	struct awr_verify_result res;
	uint64_t n = 0;
	int64_t got;
	int jfd;

	if (size > (1 << 20))
		return 0;
	if (target_fd < 0)
		target_fd = make_target();
	jfd = memfd_create("awr-fuzz-journal", MFD_CLOEXEC);
	if (jfd < 0)
		abort();
	if (size && write(jfd, data, size) != (ssize_t)size)
		abort();
	snprintf(jpath, sizeof(jpath), "/proc/self/fd/%d", jfd);
	snprintf(tpath, sizeof(tpath), "/proc/self/fd/%d", target_fd);
	got = awr__journal_read(jpath, count_cb, &n);
	if (got >= 0 && (uint64_t)got != n)
		abort();	/* the count returned is not the records delivered */
	if (got > (int64_t)(size / AWR_JREC_SIZE))
		abort();	/* more records than the file holds */
	if (got >= 0) {		/* a journal the reader refuses is refused by the verifier too */
		o.journal = jpath;
		o.crash_time_ns = size & 1 ? 0 : UINT64_MAX / 2;
		awr_verify_run(tpath, &o, &res);
	}
	close(jfd);
	return 0;
}
