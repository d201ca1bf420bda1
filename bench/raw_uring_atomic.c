// SPDX-License-Identifier: MIT
/*
 * Description: the overhead reference for awr bench: a minimal liburing loop
 * of RWF_ATOMIC page writes at random (or sequential) page offsets, queue
 * depth kept full, no library, no checks, the same page order as awr bench.
 *
 *   raw_uring_atomic FILE UNIT QD SECONDS SPAN [plain] [sequential] [once]
 *
 * once: every page of SPAN written once in order (what awr write --engine
 * uring does for a range), SECONDS ignored; for whole-process timing.
 * Prints "pages_per_s=N pages=N seconds=S". Exit 0, 1 on a failed write, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040
#endif

static uint64_t rng = 0x9E3779B97F4A7C15ULL, seq;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The same xorshift64* page order as awr bench (cli/bench.c). */
static uint64_t next_page(uint64_t npages, int sequential)
{
	if (sequential)
		return seq++ % npages;
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint64_t)(((unsigned __int128)(rng * 0x2545F4914F6CDD1DULL) * npages) >> 64);
}

static void prep(struct io_uring *ring, unsigned char *buf, unsigned int unit, uint64_t slot,
		 uint64_t npages, int plain, int sequential)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_write(sqe, 0, buf + slot * unit, unit, next_page(npages, sequential) * unit);
	sqe->rw_flags = plain ? 0 : RWF_ATOMIC;
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = slot;
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	struct io_uring_cqe *cqes[64];
	unsigned int unit, qd, n;
	uint64_t span, npages, pages = 0, start, deadline, now;
	int plain = 0, sequential = 0, once = 0, fd, ret, inflight = 0, failed = 0;
	uint64_t queued = 0;
	unsigned char *buf;
	double seconds;

	if (argc < 6) {
		fprintf(stderr, "usage: %s FILE UNIT QD SECONDS SPAN [plain] [sequential]\n",
			argv[0]);
		return 2;
	}
	unit = (unsigned int)strtoul(argv[2], NULL, 0);
	qd = (unsigned int)strtoul(argv[3], NULL, 0);
	seconds = strtod(argv[4], NULL);
	span = strtoull(argv[5], NULL, 0);
	for (int i = 6; i < argc; i++) {
		plain |= !strcmp(argv[i], "plain");
		sequential |= !strcmp(argv[i], "sequential");
		once |= !strcmp(argv[i], "once");
	}
	sequential |= once;
	npages = unit ? span / unit : 0;
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || !qd || !npages || posix_memalign((void **)&buf, 4096, (size_t)qd * unit)) {
		fprintf(stderr, "%s: bad arguments or cannot open %s\n", argv[0], argv[1]);
		return 2;
	}
	memset(buf, 0x5a, (size_t)qd * unit);
	ret = io_uring_queue_init(qd, &ring, 0);
	if (!ret)
		ret = io_uring_register_files(&ring, &fd, 1);
	if (ret) {
		fprintf(stderr, "io_uring setup: %s\n", strerror(-ret));
		return 2;
	}
	start = now_ns();
	deadline = start + (uint64_t)(seconds * 1e9);
	for (unsigned int s = 0; s < qd && (!once || queued < npages); s++, inflight++, queued++)
		prep(&ring, buf, unit, s, npages, plain, sequential);
	while (inflight) {
		ret = io_uring_submit_and_wait(&ring, 1);
		if (ret < 0 && ret != -EINTR)
			break;
		n = io_uring_peek_batch_cqe(&ring, cqes, 64);
		now = now_ns();
		for (unsigned int i = 0; i < n; i++) {
			uint64_t s = cqes[i]->user_data;

			inflight--;
			if (cqes[i]->res != (int)unit) {
				failed = cqes[i]->res;
				continue;
			}
			pages++;
			if ((once ? queued >= npages : now >= deadline) || failed)
				continue;
			prep(&ring, buf, unit, s, npages, plain, sequential);
			inflight++;
			queued++;
		}
		io_uring_cq_advance(&ring, n);
	}
	now = now_ns();
	io_uring_queue_exit(&ring);
	close(fd);
	free(buf);
	if (failed) {
		fprintf(stderr, "a write failed: %s\n", strerror(failed < 0 ? -failed : EIO));
		return 1;
	}
	printf("pages_per_s=%.1f pages=%" PRIu64 " seconds=%.3f\n",
	       (double)pages / ((double)(now - start) / 1e9), pages, (double)(now - start) / 1e9);
	return 0;
}
