// SPDX-License-Identifier: MIT
/*
 * Description: the library's CPU cost per write: the whole rule check
 * (awr_file_check), and a queued atomic write (awr_queue_write on a uring
 * queue: the per-write check its open left, slot + SQE), against liburing's
 * own get_sqe + prep_write as the floor. Nothing is submitted: each round
 * fills a fresh queue and closes it unsubmitted.
 *
 *   queue_cost FILE [UNIT] [ROUNDS]
 *
 * FILE must support atomic writes of UNIT bytes (default 16384); it is never
 * written. Prints "check_ns=.. queue_ns=.. liburing_prep_ns=.. library_ns=.." (medians;
 * library_ns: queue minus liburing's floor, per round, what the library adds).
 */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libatomicwr.h"

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040
#endif

#define DEPTH 4096U
#define MAX_ROUNDS 1000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static double round_check(struct awr_file *f, const void *buf, unsigned int unit)
{
	uint64_t t0 = now_ns();
	int bad = 0;

	for (unsigned int i = 0; i < DEPTH; i++)
		bad |= awr_file_check(f, buf, unit, (uint64_t)(i % 256) * unit, NULL);
	if (bad)
		return -1;
	return (double)(now_ns() - t0) / DEPTH;
}

static double round_queue(struct awr_file *f, const void *buf, unsigned int unit)
{
	struct awr_queue *q;
	uint64_t t0;
	double ns;
	int bad = 0;

	if (awr_queue_open(AWR_QUEUE_URING, NULL, f, DEPTH, AWR_QUEUE_REGISTER_FILE, &q))
		return -1;
	t0 = now_ns();
	for (unsigned int i = 0; i < DEPTH; i++)
		bad |= awr_queue_write(q, buf, unit, (uint64_t)(i % 256) * unit, i, 0, NULL);
	ns = (double)(now_ns() - t0) / DEPTH;
	awr_queue_close(q);
	return bad ? -1 : ns;
}

static double round_liburing(int fd, void *buf, unsigned int unit)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	uint64_t t0;
	double ns;

	if (io_uring_queue_init(DEPTH, &ring, 0))
		return -1;
	t0 = now_ns();
	for (unsigned int i = 0; i < DEPTH; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_write(sqe, fd, buf, unit, (uint64_t)(i % 256) * unit);
		sqe->rw_flags = RWF_ATOMIC;
		io_uring_sqe_set_data64(sqe, i);
	}
	ns = (double)(now_ns() - t0) / DEPTH;
	io_uring_queue_exit(&ring);
	return ns;
}

int main(int argc, char **argv)
{
	static double check[MAX_ROUNDS], queue[MAX_ROUNDS], raw[MAX_ROUNDS], own[MAX_ROUNDS];
	unsigned int unit = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 16384;
	int rounds = argc > 3 ? atoi(argv[3]) : 200;
	struct awr_file *f;
	void *buf;
	int ret;

	if (argc < 2 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: %s FILE [UNIT] [ROUNDS 1..%d]\n", argv[0], MAX_ROUNDS);
		return 2;
	}
	ret = awr_file_open(argv[1], 0, &f);
	if (ret || posix_memalign(&buf, 4096, unit)) {
		fprintf(stderr, "cannot open %s: %s\n", argv[1], strerror(-ret));
		return 2;
	}
	for (int i = 0; i < rounds; i++) {
		check[i] = round_check(f, buf, unit);
		queue[i] = round_queue(f, buf, unit);
		raw[i] = round_liburing(awr_file_fd(f), buf, unit);
		own[i] = queue[i] - raw[i];
		if (check[i] < 0 || queue[i] < 0 || raw[i] < 0) {
			fprintf(stderr, "%s does not take atomic writes of %u bytes, or io_uring "
					"failed\n",
				argv[1], unit);
			return 1;
		}
	}
	printf("check_ns=%.1f queue_ns=%.1f liburing_prep_ns=%.1f library_ns=%.1f "
	       "writes_per_round=%u rounds=%d\n",
	       median(check, rounds), median(queue, rounds), median(raw, rounds),
	       median(own, rounds), DEPTH, rounds);
	awr_file_close(f);
	free(buf);
	return 0;
}
