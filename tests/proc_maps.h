/* SPDX-License-Identifier: MIT */
/*
 * Is a shared object mapped into this process? Read from /proc/self/maps, not through the library
 * under test: for tests/unit/lib/optlib.c and the guest's nvme-dlopen
 * (tests/vm/guest/nvme-dlopen.c, which includes it by a relative path).
 */
#ifndef AWR_TEST_PROC_MAPS_H
#define AWR_TEST_PROC_MAPS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A mapping whose file name starts with @prefix ("libnvme.so"). */
static inline bool t_mapped(const char *prefix)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *name = strrchr(line, '/');

		found = name && !strncmp(name + 1, prefix, strlen(prefix));
	}
	fclose(f);
	return found;
}

#endif
