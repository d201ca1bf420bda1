// SPDX-License-Identifier: MIT
/*
 * Description: the verifier's memory follows the journal's record count, not
 * the generation numbers in it. A 10 MB journal crafted for the widest
 * generation spread the reader accepts (every record but the last a RUN
 * record, then an intent at records + 256 per RUN: generation 56 million)
 * once made verify allocate a per-generation table of 1.6 GB; its peak RSS
 * must now stay under 10 times the journal's size, and the records still
 * count (the intent is judged, the target has no unit of it).
 */
#include <endian.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "helpers.h"
#include "libatomicwr.h"

#define U		4096
#define RECORDS		(10 * 1000 * 1000 / 48)	/* a 10 MB journal */

static char dir[] = "/tmp/awr-verify-memory.XXXXXX";

static void record(uint8_t *b, uint32_t type, uint64_t unit, uint64_t gen, uint64_t value)
{
	uint32_t tag = htole32(0x4a525741U ^ (type << 24));
	uint64_t v[4] = { htole64(unit), htole64(gen), htole64(value), htole64(1) }, sum;

	memset(b, 0, 48);
	memcpy(b, &tag, 4);
	memcpy(b + 8, v, sizeof(v));
	sum = htole64(XXH3_64bits(b, 40));
	memcpy(b + 40, &sum, 8);
}

/* RUN records, then one intent at the highest generation the reader accepts. */
static uint64_t make_hostile(const char *path)
{
	uint8_t *b = malloc((size_t)RECORDS * 48);
	uint64_t gen = RECORDS + 256ULL * (RECORDS - 1);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	T_EXPECT(b && fd >= 0, "journal buffer and file");
	if (!b || fd < 0)
		exit(T_EXIT_FAIL);
	for (size_t i = 0; i + 1 < RECORDS; i++)
		record(b + i * 48, 1, U, 1, 1 << 20);
	record(b + (size_t)(RECORDS - 1) * 48, 2, 3, gen, 0);
	T_EXPECT(write(fd, b, (size_t)RECORDS * 48) == (ssize_t)RECORDS * 48, "write the journal");
	close(fd);
	free(b);
	return gen;
}

int main(void)
{
	char journal[4200], target[4200], cmd[4300];
	struct awr_verify_opts o = { .unit = U, .span = 1 << 20 };
	struct awr_verify_result r;
	struct rusage ru;
	uint64_t gen, limit_kb;
	int status = 0, fd;
	pid_t pid;

	if (!mkdtemp(dir))
		T_SKIP("cannot create a directory in /tmp: %s", strerror(errno));
	snprintf(journal, sizeof(journal), "%s/hostile.journal", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_CREAT | O_RDWR, 0644);
	T_EXPECT(fd >= 0 && !ftruncate(fd, 1 << 20), "target");
	close(fd);
	gen = make_hostile(journal);
	limit_kb = 10ULL * RECORDS * 48 / 1024;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		int ret;

		o.journal = journal;
		ret = awr_verify_run(target, &o, &r);
		if (ret || r.journal_records != RECORDS || r.unjournaled || r.lost) {
			printf("verify: %d (%s), %llu records, %llu unjournaled, %llu lost\n", ret,
			       strerror(-ret), (unsigned long long)r.journal_records,
			       (unsigned long long)r.unjournaled, (unsigned long long)r.lost);
			_exit(1);
		}
		_exit(0);
	}
	T_EXPECT(pid > 0 && wait4(pid, &status, 0, &ru) == pid, "run verify in a child");
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "verify read the %d records "
								"(status 0x%x)",
		 RECORDS, status);
	printf("journal %d bytes (%d records, highest generation %llu): verify peak RSS %ld KiB, "
	       "limit %llu KiB\n",
	       RECORDS * 48, RECORDS, (unsigned long long)gen, ru.ru_maxrss,
	       (unsigned long long)limit_kb);
	T_EXPECT((uint64_t)ru.ru_maxrss < limit_kb, "peak RSS %ld KiB is not under 10x the journal "
						    "(%llu KiB)",
		 ru.ru_maxrss, (unsigned long long)limit_kb);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		t_failures++;
	return t_done("journal_verify_memory");
}
