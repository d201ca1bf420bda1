// SPDX-License-Identifier: MIT
/*
 * Description: AWR_STRESS_FAULT specs parsed or refused (nosync:N, the fault point of the replayed
 * power cuts), and the fault reaching a run: a stress run given a malformed spec refuses to start
 * (a negative control: a good spec must parse, so a parser that refuses everything fails too).
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"
#include "verify/journal.h"

int main(void)
{
	static const struct { const char *spec; int ret; uint64_t from; } cases[] = {
		{ NULL, 0, UINT64_MAX },
		{ "", 0, UINT64_MAX },
		{ "nosync:0", 0, 0 },
		{ "nosync:25", 0, 25 },
		{ "nosync", -EINVAL, UINT64_MAX },
		{ "nosync:", -EINVAL, UINT64_MAX },
		{ "nosync:-1", -EINVAL, UINT64_MAX },
		{ "nosync:3x", -EINVAL, UINT64_MAX },
		{ "nosyncs:3", -EINVAL, UINT64_MAX },
		{ "crash:3", -EINVAL, UINT64_MAX },
		{ "nosync:99999999999999999999", -EINVAL, UINT64_MAX },
	};
	struct awr_stress_opts o = { .unit = 4096, .writes = 1, .span = 4096 };
	struct awr_stress_result r;
	char path[] = "/tmp/awr-stress-fault.XXXXXX";
	int fd;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t from = 7;
		const char *what = cases[i].spec ? cases[i].spec : "(unset)";

		T_EXPECT_EQ(awr__stress_fault_parse(cases[i].spec, &from), cases[i].ret, what);
		T_EXPECT_EQ(from, cases[i].from, what);
	}
	/* a run reads it at its start: a malformed spec stops it before any write */
	fd = mkstemp(path);
	T_EXPECT(fd >= 0, "mkstemp");
	setenv("AWR_STRESS_FAULT", "nosync", 1);
	T_EXPECT_EQ(awr_stress_run_fd(fd, &o, &r), -EINVAL, "a run under AWR_STRESS_FAULT=nosync");
	T_EXPECT_EQ(lseek(fd, 0, SEEK_END), 0, "nothing written under a malformed spec");
	close(fd);
	unlink(path);
	return t_done("stress_fault");
}
