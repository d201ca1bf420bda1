/* SPDX-License-Identifier: MIT */
/* Shared test helpers: exit codes (meson: 77 = skipped) and assertions that report. */
#ifndef AWR_TEST_HELPERS_H
#define AWR_TEST_HELPERS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

static int t_failures;

/*
 * Skip: the test cannot run here (say why). A skip after a recorded failure is
 * a failure: the failures came first and a skip must not hide them.
 */
#define T_SKIP(...) do {							\
	if (t_failures) {							\
		printf("FAIL %s:%d: skip requested after %d failure(s) "	\
		       "(the failures came first): ", __FILE__, __LINE__,	\
		       t_failures);						\
		printf(__VA_ARGS__);						\
		printf("\n");							\
		fflush(stdout);							\
		exit(T_EXIT_FAIL);						\
	}									\
	printf("SKIP: ");							\
	printf(__VA_ARGS__);							\
	printf("\n");								\
	fflush(stdout);								\
	exit(T_EXIT_SKIP);							\
} while (0)

#define T_EXPECT(cond, ...) do {						\
	if (!(cond)) {								\
		t_failures++;							\
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);		\
		printf(__VA_ARGS__);						\
		printf("\n");							\
	}									\
} while (0)

#define T_EXPECT_EQ(a, b, what) do {						\
	long long _a = (long long)(a), _b = (long long)(b);			\
	if (_a != _b) {								\
		t_failures++;							\
		printf("FAIL %s:%d: %s: got %lld, expected %lld\n",		\
		       __FILE__, __LINE__, (what), _a, _b);			\
	}									\
} while (0)

static inline int t_done(const char *name)
{
	if (t_failures) {
		printf("%s: %d failure(s)\n", name, t_failures);
		return T_EXIT_FAIL;
	}
	printf("%s: ok\n", name);
	return T_EXIT_PASS;
}

#endif /* AWR_TEST_HELPERS_H */
