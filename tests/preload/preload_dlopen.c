// SPDX-License-Identifier: MIT
/*
 * Description: loads libatomicwr-preload with dlopen(3), for preload_secure.sh: a set-user-ID
 * copy of it runs the preload's start in an AT_SECURE process (the dynamic loader would drop a
 * LD_PRELOAD path there, and $ORIGIN in its run path: the libraries it needs come first,
 * by path). Prints "loaded PATH" when the library is mapped (/proc/self/maps).
 *
 *   preload_dlopen PRELOAD [NEEDED...]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

int main(int argc, char **argv)
{
	char line[4096];
	FILE *maps;
	int mapped = 0;

	for (int i = argc - 1; i >= 1; i--) {
		if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "preload_dlopen: %s\n", dlerror());
			return 2;
		}
	}
	if (argc < 2)
		return fprintf(stderr, "usage: preload_dlopen PRELOAD [NEEDED...]\n"), 2;
	maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof(line), maps))
		mapped |= strstr(line, argv[1]) != NULL;
	if (maps)
		fclose(maps);
	if (!mapped)
		return fprintf(stderr, "preload_dlopen: %s is not mapped\n", argv[1]), 1;
	printf("loaded %s, AT_SECURE %lu\n", argv[1], getauxval(AT_SECURE));
	return 0;
}
