// SPDX-License-Identifier: MIT
/* The clocks: monotonic for durations and deadlines, the wall clock for timestamps. */
#include <time.h>

#include "platform/platform.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t awr__now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t awr__realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}
