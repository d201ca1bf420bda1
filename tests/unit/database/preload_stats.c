// SPDX-License-Identifier: MIT
/*
 * Description: awr_preload_stats_read() and awr_preload_stats_totals() (preload_stats.c) called
 * directly on counters files written here: the counters read back and summed (atomic: the
 * pwrite, io_uring and libaio page writes; plain: the six plain_* counters; refused by the kernel
 * or a named file refused); a file of another magic or size refused with -EINVAL and the
 * sentence naming AWR_PRELOAD_STATS, a missing one with -ENOENT, each in awr_last_error().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "helpers.h"

static char path[64];

static void put(const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		T_SKIP("cannot write %s", path);
}

static struct awr_preload_stats counters(void)
{
	struct awr_preload_stats s = { .version = AWR_PRELOAD_STATS_VERSION, .pid = 42,
				       .page_size = 16384, .atomic_pwrite = 1, .atomic_uring = 20,
				       .atomic_aio = 300, .plain_size = 1, .plain_misaligned = 2,
				       .plain_buffered = 4, .plain_segments = 8,
				       .plain_position = 16, .plain_append = 32,
				       .uring_fixed_files = 1000, .split_pwrite = 5000 };

	memcpy(s.magic, AWR_PRELOAD_STATS_MAGIC, sizeof(s.magic));
	return s;
}

static void sums(void)
{
	struct awr_preload_stats s = counters(), r;
	struct awr_preload_totals t;

	put(&s, sizeof(s));
	T_EXPECT_EQ(awr_preload_stats_read(path, &r), 0, "a counters file read");
	T_EXPECT(r.pid == 42 && r.atomic_aio == 300, "pid %llu, atomic_aio %llu",
		 (unsigned long long)r.pid, (unsigned long long)r.atomic_aio);
	awr_preload_stats_totals(&r, &t);
	T_EXPECT_EQ(t.atomic, 321, "atomic: pwrite + uring + aio");
	T_EXPECT_EQ(t.plain, 63, "plain: the six plain_* counters");
	T_EXPECT(!t.refused, "nothing refused");
	r.files_refused = 1;
	awr_preload_stats_totals(&r, &t);
	T_EXPECT(t.refused, "a named file refused");
	r.files_refused = 0;
	r.refused = 1;
	awr_preload_stats_totals(&r, &t);
	T_EXPECT(t.refused, "an atomic page write refused by the kernel");
}

static void refusals(void)
{
	struct awr_preload_stats s = counters(), r;

	s.magic[0] = 'X';
	put(&s, sizeof(s));
	T_EXPECT(awr_preload_stats_read(path, &r) == -EINVAL &&
		 strstr(awr_last_error(), "not a counters file of libatomicwr-preload") &&
		 strstr(awr_last_error(), "with %p replaced by the process id"),
		 "another magic: %s", awr_last_error());
	s = counters();
	put(&s, sizeof(s) - 8);
	T_EXPECT_EQ(awr_preload_stats_read(path, &r), -EINVAL, "a short file");
	unlink(path);
	T_EXPECT(awr_preload_stats_read(path, &r) == -ENOENT &&
		 !strcmp(awr_last_error(), strerror(ENOENT)), "missing: %s", awr_last_error());
}

int main(void)
{
	snprintf(path, sizeof(path), "preload_stats.%d", (int)getpid());
	sums();
	refusals();
	unlink(path);
	return t_done("preload_stats");
}
