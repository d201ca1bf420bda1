// SPDX-License-Identifier: MIT
/*
 * Description: the library's half of the bad-input table (run by cli_bad_input.sh): bad
 * paths through every public open, bad sizes and write shapes through the rule checker and
 * the write calls, bad stress and verify options. Each must return a negative errno (with a
 * verdict message where the call gives one) and never crash; cli_bad_input.sh hashes the
 * targets before and after.
 *
 *   bad_input_lib BAD_PATH... -- GOOD_FILE
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"

static void bad_path(const char *p)
{
	struct awr_safety why;
	struct awr_verdict v = { 0 };
	struct awr_stress_opts so = {
		.unit = 16384, .span = 1 << 20, .writes = 8, .flags = AWR_STRESS_FORCE};
	struct awr_stress_result sr;
	struct awr_verify_opts vo = { .unit = 16384 };
	struct awr_verify_result vr;
	struct awr_file *f;
	void *buf;
	int r, fd;

	/* the write path: refused at open, or the write is refused with a reason */
	r = awr_file_open(p, 0, &f);
	if (!r) {
		if (posix_memalign(&buf, 4096, 16384))
			abort();
		memset(buf, 0x5a, 16384);
		ssize_t w = awr_pwrite(f, buf, 16384, 0, 0, &v);

		T_EXPECT(w < 0, "%s: awr_pwrite of 16 KiB at 0 returned %zd, expected a refusal", p,
			 w);
		T_EXPECT(w >= 0 || v.message[0] || v.error, "%s: refused without a verdict", p);
		awr_file_close(f);
		free(buf);
	} else {
		T_EXPECT(r < 0 && r > -4096, "%s: awr_file_open returned %d, not a negative errno",
			 p, r);
	}
	fd = awr_target_open(p, O_RDWR, 0, &why);
	if (fd >= 0) {
		/* a target that can be opened must still refuse an atomic write */
		struct awr_file *a;

		T_EXPECT(!awr_file_adopt(fd, &a) , "%s: awr_file_adopt", p);
		if (posix_memalign(&buf, 4096, 16384))
			abort();
		memset(buf, 0x5a, 16384);
		T_EXPECT(awr_pwrite(a, buf, 16384, 0, 0, &v) < 0,
			 "%s: a write through "
			 "awr_target_open() went through",
			 p);
		awr_file_close(a);
		free(buf);
	}
	r = awr_stress_run(p, &so, &sr);
	T_EXPECT(r < 0, "%s: awr_stress_run returned %d, expected a negative errno", p, r);
	r = awr_verify_run(p, &vo, &vr);
	/* verify reads: a readable regular file is scanned (its units are never_written or
	 * corrupt) */
	T_EXPECT(r <= 0, "%s: awr_verify_run returned %d", p, r);
	printf("%s: open %d, stress refused, verify %d\n", p,
	       awr_file_open(p, 0, &f) ?: (awr_file_close(f), 0), r);
}

static void bad_shapes(const char *p)
{
	static const struct { size_t len; uint64_t off; size_t buf_off; const char *what; } t[] = {
		{ 0, 0, 0, "length 0" },
		{ 12288, 0, 0, "length not a power of two" },
		{ 16384, 4096, 0, "offset not a multiple of the length" },
		{ 16384, 512, 0, "offset 512" },
		{ 16384, UINT64_MAX - 16383, 0, "offset near 2^64" },
		{ 16384, 1ULL << 63, 0, "offset 2^63" },
		{ 64U << 20, 0, 0, "length above unit_max" },
		{ 4096, 0, 1, "buffer misaligned by one byte" },
		{ 1000, 0, 0, "length below a sector" },
	};
	struct awr_verdict v;
	struct awr_file *f;
	uint8_t *buf;
	int r = awr_file_open(p, 0, &f);

	T_EXPECT(!r, "%s: awr_file_open: %d", p, r);
	if (r)
		return;
	if (posix_memalign((void **)&buf, 4096, (64U << 20) + 4096))
		abort();
	memset(buf, 0xa5, (64U << 20) + 4096);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&v, 0, sizeof(v));
		r = awr_file_check(f, buf + t[i].buf_off, t[i].len, t[i].off, &v);
		T_EXPECT(r < 0 && v.message[0], "%s: awr_file_check returned %d (%s)", t[i].what, r,
			 v.message);
		memset(&v, 0, sizeof(v));
		ssize_t w =
			awr_pwrite(f, buf + t[i].buf_off, t[i].len, t[i].off, AWR_WRITE_DSYNC, &v);

		T_EXPECT(w < 0 && v.message[0], "%s: awr_pwrite returned %zd (%s)", t[i].what, w,
			 v.message);
		printf("%s: %s\n", t[i].what, v.message);
	}
	awr_file_close(f);
	free(buf);
}

static void bad_sizes(void)
{
	static const char *const s[] = {
		"abc",	"",	"-1",	"-4k",	  "18446744073709551616",	"16E",
		"1.5k", "0x10", "16 k", "12junk", "99999999999999999999999999", "k"};
	uint64_t v = 12345;

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		int r = awr_parse_size(s[i], &v);

		T_EXPECT(r == -EINVAL || r == -ERANGE, "awr_parse_size(\"%s\") returned %d", s[i],
			 r);
		T_EXPECT(v == 12345, "awr_parse_size(\"%s\") changed the output", s[i]);
	}
}

static void bad_options(const char *p)
{
	static const struct awr_stress_opts so[] = {
		{.unit = 0, .span = 1 << 20, .writes = 8, .flags = AWR_STRESS_FORCE},
		{.unit = 12288, .span = 1 << 20, .writes = 8, .flags = AWR_STRESS_FORCE},
		{.unit = 100, .span = 1 << 20, .writes = 8, .flags = AWR_STRESS_FORCE},
		{.unit = 16384, .span = UINT64_MAX - 16383, .writes = 8, .flags = AWR_STRESS_FORCE},
		{.unit = 16384,
		 .span = 1 << 20,
		 .threads = 100000,
		 .writes = 8,
		 .flags = AWR_STRESS_FORCE},
		{.unit = 1U << 31, .span = 1ULL << 32, .writes = 8, .flags = AWR_STRESS_FORCE},
	};
	static const struct awr_verify_opts vo[] = { { .unit = 0 }, { .unit = 100 } };
	struct awr_stress_result sr;
	struct awr_verify_result vr;

	for (size_t i = 0; i < sizeof(so) / sizeof(so[0]); i++) {
		int r = awr_stress_run(p, &so[i], &sr);

		T_EXPECT(r < 0, "stress option set %zu (unit %u span %llu threads %u) returned %d",
			 i, so[i].unit, (unsigned long long)so[i].span, so[i].threads, r);
	}
	for (size_t i = 0; i < sizeof(vo) / sizeof(vo[0]); i++) {
		int r = awr_verify_run(p, &vo[i], &vr);

		T_EXPECT(r < 0, "verify option set %zu (unit %u span %llu) returned %d", i,
			 vo[i].unit, (unsigned long long)vo[i].span, r);
	}
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		bad_path(argv[i]);
	if (i + 1 != argc - 1) {
		printf("usage: %s BAD_PATH... -- GOOD_FILE\n", argv[0]);
		return T_EXIT_FAIL;
	}
	bad_shapes(argv[i + 1]);
	bad_sizes();
	bad_options(argv[i + 1]);
	return t_done("bad_input_lib");
}
