// SPDX-License-Identifier: MIT
/*
 * Description: the error channel (lib/error.c): a failing call leaves its sentence in
 * awr_last_error() of its own thread only; a later success in that thread keeps it; the
 * thread's next failure replaces it; a thread that never failed reads "".
 */
#include <pthread.h>
#include <string.h>

#include "helpers.h"
#include "libatomicwr.h"

static pthread_barrier_t failed, checked;

/* A write the kernel refuses: 12 KiB is not a power of two. */
static enum awr_write_route refused_route(void)
{
	struct awr_fs_view v = { .type = AWR_FS_BLOCK, .atomic = true, .unit_min = 4096,
				 .unit_max = 65536 };

	return awr_route_predict(&v, NULL, 0, 12288);
}

static void *thread_a(void *arg)
{
	struct awr_fs_view v = { .type = AWR_FS_BLOCK, .atomic = true, .unit_min = 4096,
				 .unit_max = 65536 };
	struct awr_pages *s;
	char mine[256];

	(void)arg;
	T_EXPECT_EQ(awr_pages_open("x", 3, 0, &s), -EINVAL, "a page size of 3");
	snprintf(mine, sizeof(mine), "%s", awr_last_error());
	T_EXPECT(strstr(mine, "power of two") != NULL, "thread A's sentence: '%s'", mine);
	pthread_barrier_wait(&failed);
	pthread_barrier_wait(&checked);	/* the main thread failed in between */
	T_EXPECT(!strcmp(awr_last_error(), mine), "thread A's sentence changed to '%s'",
		 awr_last_error());
	T_EXPECT_EQ(awr_route_predict(&v, NULL, 0, 16384), AWR_ROUTE_HARDWARE, "a good write");
	T_EXPECT(!strcmp(awr_last_error(), mine), "a success cleared or changed it: '%s'",
		 awr_last_error());
	T_EXPECT_EQ(refused_route(), AWR_ROUTE_REFUSED, "thread A: 12 KiB");
	T_EXPECT(strstr(awr_last_error(), "12288") != NULL, "the next failure replaces it: '%s'",
		 awr_last_error());
	return NULL;
}

int main(void)
{
	pthread_t a;

	T_EXPECT(awr_last_error() && !strcmp(awr_last_error(), ""), "a new thread reads \"\"");
	pthread_barrier_init(&failed, NULL, 2);
	pthread_barrier_init(&checked, NULL, 2);
	T_EXPECT_EQ(pthread_create(&a, NULL, thread_a, NULL), 0, "thread A");
	pthread_barrier_wait(&failed);
	T_EXPECT(!strcmp(awr_last_error(), ""), "thread A's failure shows in main: '%s'",
		 awr_last_error());
	T_EXPECT_EQ(refused_route(), AWR_ROUTE_REFUSED, "main: 12 KiB");
	T_EXPECT(strstr(awr_last_error(), "not a naturally aligned power of two") != NULL,
		 "main's sentence: '%s'", awr_last_error());
	printf("main: %s\n", awr_last_error());
	pthread_barrier_wait(&checked);
	pthread_join(a, NULL);
	T_EXPECT(strstr(awr_last_error(), "not a naturally aligned") != NULL,
		 "thread A's failures changed main's sentence: '%s'", awr_last_error());
	return t_done("error");
}
