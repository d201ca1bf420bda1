// SPDX-License-Identifier: MIT
/*
 * Description: awr_stress_opts_check() and awr_stamp_unit_check() (stress.c, stamp.c) called
 * directly: a run's options taken as they are; each refusal (a unit not a multiple of 512 or
 * past 1 GiB, a span not whole units or past 2^63 - 1, no count and no time, more than 256
 * threads) with -EINVAL and awr stress's sentence in awr_last_error(); a count and a time
 * together, and threads 0 (four), taken. awr_verify_run() refuses a unit the same way.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libatomicwr.h"
#include "helpers.h"

static const struct awr_stress_opts good = { .unit = 16384, .threads = 4, .span = 1 << 20,
					     .writes = 8 };

/* @o refused with @sentence */
static void refused(const struct awr_stress_opts *o, const char *sentence)
{
	int ret = awr_stress_opts_check(o);

	T_EXPECT(ret == -EINVAL && !strcmp(awr_last_error(), sentence), "%s: %d, \"%s\"",
		 sentence, ret, awr_last_error());
}

static void stress_opts(void)
{
	struct awr_stress_opts o = good;

	T_EXPECT_EQ(awr_stress_opts_check(&good), 0, "a count of writes, whole units");
	o.writes = 0;
	o.duration_ms = 1000;
	o.threads = 0;
	o.span = 0;
	T_EXPECT_EQ(awr_stress_opts_check(&o), 0, "a time, threads 0 (four), the whole target");
	o.writes = 8;
	T_EXPECT_EQ(awr_stress_opts_check(&o), 0, "a count and a time: the first reached ends it");
	o = good;
	o.unit = 1000;
	refused(&o, "--unit 1000 must be a multiple of 512 up to 1 GiB, such as 16k");
	o.unit = 0;
	refused(&o, "--unit 0 must be a multiple of 512 up to 1 GiB, such as 16k");
	o = good;
	o.span = 100000;
	refused(&o, "--size 100000 is not a multiple of --unit 16384: the span holds whole units, "
		"such as --size 114688");
	o.span = 1ULL << 63;
	refused(&o, "--size 9223372036854775808 ends past the largest offset (2^63 - 1)");
	o = good;
	o.writes = 0;
	refused(&o, "give --seconds S or --writes N (one, positive)");
	o = good;
	o.threads = 257;
	refused(&o, "--threads 257 must be between 1 and 256");
	o.threads = 256;
	T_EXPECT_EQ(awr_stress_opts_check(&o), 0, "256 threads");
	T_EXPECT_EQ(awr_stress_opts_check(NULL), -EINVAL, "no options");
}

static void stamp_unit(void)
{
	T_EXPECT_EQ(awr_stamp_unit_check(512), 0, "512");
	T_EXPECT_EQ(awr_stamp_unit_check(AWR_STAMP_UNIT_MAX), 0, "1 GiB");
	T_EXPECT(awr_stamp_unit_check(AWR_STAMP_UNIT_MAX + 512ULL) == -EINVAL &&
		 !strcmp(awr_last_error(), "--unit 1073742336 must be a multiple of 512 up to "
			 "1 GiB, such as 16k"), "past 1 GiB: %s", awr_last_error());
	T_EXPECT_EQ(awr_stamp_unit_check(1ULL << 32), -EINVAL, "4 GiB, past 32 bits");
	T_EXPECT_EQ(awr_stamp_unit_check(768), -EINVAL, "768: a multiple of 512? no");
}

/* awr_verify_run() judges its unit the same way, before it opens anything */
static void verify_unit(void)
{
	struct awr_verify_opts o = { .unit = 1000 };
	struct awr_verify_result r;

	T_EXPECT(awr_verify_run("no-such-target", &o, &r) == -EINVAL &&
		 !strcmp(awr_last_error(), "--unit 1000 must be a multiple of 512 up to 1 GiB, "
			 "such as 16k"), "verify, unit 1000: %s", awr_last_error());
	o.unit = 2 * AWR_STAMP_UNIT_MAX;
	T_EXPECT_EQ(awr_verify_run("no-such-target", &o, &r), -EINVAL, "verify, unit 2 GiB");
}

int main(void)
{
	stress_opts();
	stamp_unit();
	verify_unit();
	return t_done("stress_opts");
}
