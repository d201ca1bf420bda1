// SPDX-License-Identifier: MIT
/*
 * Description: the page store without storage: AWR_PAGES_FAULT specs parsed or refused, mode names,
 * and awr_pages_open's refusal of bad arguments with a reason (a negative control: a good spec must
 * parse, so a parser that refuses everything fails too).
 */
#include <stdint.h>
#include <stdlib.h>

#include "pages/pages.h"
#include "helpers.h"

int main(void)
{
	static const struct {
		const char *spec;
		int ret;
		enum awr__pages_fault_kind kind;
		uint64_t n;
	} cases[] = {
		{"crash:0", 0, AWR_PAGES_FAULT_CRASH, 0},
		{"crash:17", 0, AWR_PAGES_FAULT_CRASH, 17},
		{"tear:3", 0, AWR_PAGES_FAULT_TEAR, 3},
		{"area:64", 0, AWR_PAGES_FAULT_AREA, 64},
		{"synced:1", 0, AWR_PAGES_FAULT_SYNCED, 1},
		{"nosync:0", 0, AWR_PAGES_FAULT_NOSYNC, 0},
		{"nosync:48", 0, AWR_PAGES_FAULT_NOSYNC, 48},
		{"nosync", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"nosync:", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"nosyncs:1", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"", 0, AWR_PAGES_FAULT_NONE, 0},
		{"crash", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"crash:", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"crash:-1", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"crash:1x", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"crashes:1", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"cras:1", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
		{"tear:99999999999999999999", -EINVAL, AWR_PAGES_FAULT_NONE, 0},
	};
	struct awr__pages_fault f;
	struct awr_pages *s = (struct awr_pages *)&f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = awr__pages_fault_parse(cases[i].spec, &f);

		T_EXPECT_EQ(ret, cases[i].ret, cases[i].spec);
		if (!ret) {
			T_EXPECT_EQ(f.kind, cases[i].kind, cases[i].spec);
			T_EXPECT_EQ(f.n, cases[i].n, cases[i].spec);
		}
	}
	/* nosync:N: batches not durable once N in-place writes were issued, not before */
	{
		struct awr_pages *st = calloc(1, sizeof(*st));

		T_EXPECT(st && !awr__pages_fault_parse("nosync:3", &st->fault), "nosync:3");
		st->issued = 2;
		T_EXPECT(!awr__pages_fault_nosync(st), "nosync:3, 2 writes: durable");
		st->issued = 3;
		T_EXPECT(awr__pages_fault_nosync(st), "nosync:3, 3 writes: not");
		T_EXPECT(!awr__pages_fault_parse("crash:0", &st->fault), "crash:0");
		T_EXPECT(!awr__pages_fault_nosync(st), "crash:0 leaves every batch durable");
		free(st);
	}
	T_EXPECT(!strcmp(awr_pages_mode_name(AWR_PAGES_MODE_HARDWARE), "hardware"), "hardware");
	T_EXPECT(!strcmp(awr_pages_mode_name(AWR_PAGES_MODE_SOFTWARE), "software"), "software");
	T_EXPECT(!strcmp(awr_pages_mode_name(AWR_PAGES_MODE_DOUBLEWRITE), "doublewrite"),
		 "doublewrite");
	T_EXPECT(!strcmp(awr_pages_mode_name((enum awr_pages_mode)0), "unknown"), "unknown");
	/* bad arguments are refused before any file is touched, with a reason, and *out cleared */
	T_EXPECT_EQ(awr_pages_open("/nonexistent/x", 16384 + 512, 0, &s), -EINVAL,
		    "page size not a power of two");
	T_EXPECT(s == NULL, "*out cleared on failure");
	T_EXPECT(strstr(awr_last_error(), "power of two"), "reason: %s", awr_last_error());
	T_EXPECT_EQ(awr_pages_open("/nonexistent/x", 256, 0, &s), -EINVAL, "page size below 512");
	T_EXPECT_EQ(awr_pages_open("/nonexistent/x", 2U << 20, 0, &s), -EINVAL,
		    "page size above 1 MiB");
	T_EXPECT_EQ(awr_pages_open("/nonexistent/x", 16384, AWR_PAGES_HARDWARE | AWR_PAGES_SOFTWARE,
				   &s),
		    -EINVAL, "two modes");
	T_EXPECT_EQ(awr_pages_open("/nonexistent/x", 16384, 1U << 20, &s), -EINVAL, "unknown flag");
	T_EXPECT_EQ(awr_pages_open(NULL, 16384, 0, &s), -EINVAL, "no path");
	T_EXPECT_EQ(awr_pages_open("/nonexistent/x", 16384, 0, &s), -ENOENT, "a missing store "
									     "without CREATE");
	T_EXPECT(strstr(awr_last_error(), "/nonexistent/x"), "reason names the path: %s",
		 awr_last_error());
	T_EXPECT_EQ(awr_pages_close(NULL), 0, "close NULL");
	return t_done("pages_args");
}
