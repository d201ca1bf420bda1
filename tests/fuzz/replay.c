// SPDX-License-Identifier: MIT
/*
 * Description: runs a libFuzzer harness over the files of a corpus directory
 * without libFuzzer, so the test suite (and its sanitizer pass) replays the
 * committed seeds: a harness that crashes or trips a sanitizer fails the test.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

int main(int argc, char **argv)
{
	static uint8_t buf[1 << 16];
	struct dirent *e;
	int files = 0;
	DIR *d;

	if (argc != 2 || !(d = opendir(argv[1]))) {
		printf("usage: %s CORPUS_DIR (a readable directory)\n", argv[0]);
		return 1;
	}
	while ((e = readdir(d))) {
		char path[4096];
		ssize_t n;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n < 0)
			continue;
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		files++;
	}
	closedir(d);
	printf("%d inputs of %s replayed\n", files, argv[1]);
	return files ? 0 : 1;
}
