// SPDX-License-Identifier: MIT
/*
 * The CPU time the process has used: what a benchmark divides by the work it did; and the bytes
 * it has read from storage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include "platform/platform.h"

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

double awr__cpu_s(bool user_only)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return tv_s(&ru.ru_utime) + (user_only ? 0 : tv_s(&ru.ru_stime));
}

uint64_t awr__io_read_bytes(void)
{
	char line[128];
	uint64_t v = 0;
	FILE *io = fopen("/proc/self/io", "re");

	while (io && fgets(line, sizeof(line), io))
		if (sscanf(line, "read_bytes: %" SCNu64, &v) == 1)
			break;
	if (io)
		fclose(io);
	return v;
}
