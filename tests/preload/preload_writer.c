// SPDX-License-Identifier: MIT
/*
 * A program that knows nothing of atomic writes, for the preload tests: it writes
 * pages of FILE (written in full beforehand) in every way the preload looks at, one
 * case a page, and prints which page each case wrote and whether the preload should
 * make it atomic:
 *
 *   preload_writer FILE PAGE_SIZE [MODE ARG...]
 *   page 0 pwrite atomic ...
 *
 * Cases: pwrite, pwrite64 through pwritev, pwritev2, io_uring WRITE and WRITEV
 * (liburing), libaio PWRITE and PWRITEV: one page, aligned, O_DIRECT (atomic);
 * two pages in one pwrite (split into two atomic page writes); a page at half a
 * page's offset, a page in two iovecs,
 * a page through a buffered descriptor, two pages through io_uring and libaio
 * (left as they were); a descriptor opened where the preload does not see
 * (a raw openat system call) and given O_DIRECT by F_SETFL (atomic). The
 * buffers are page-aligned for O_DIRECT. Exit 0 when every write returned its
 * length, 1 otherwise (the error printed).
 *
 * MODEs (one way of writing each, for the preload's other tests):
 *   uring-batch N ROUNDS  N page writes queued before each io_uring_submit, every CQE checked
 *   dup-direct            O_DIRECT set and cleared through a dup(): the open file description's
 *   reuse OTHER           a named descriptor closed where the preload does not see (fclose
 *                         after fdopen, close_range, closefrom, syscall(SYS_close)), its number
 *                         given to OTHER by fopen: OTHER's page writes must succeed
 *   append                O_APPEND and RWF_APPEND page writes (they land at the end)
 *   loop SECONDS          a page write every 2 ms for SECONDS; "wrote N" at the end
 *   fd N                  one page write (page 0) through the inherited descriptor N
 *   misaligned-buffer     a page write from a buffer off the O_DIRECT alignment (EINVAL expected)
 *   split                 several pages in one write (one pwrite of 4 pages, one pwritev of 4 page
 *                         iovecs, one pwritev2 RWF_DSYNC of two 2-page iovecs: split, atomic) and
 *                         several that cannot be split (a page across iovecs, 2.5 pages, half a
 *                         page off): one line "range OFFSET LENGTH HOW WHAT" a write, page P of
 *                         the file written with the byte 0x20 + P
 *   fsize K N             one pwritev of N page iovecs at 0, RLIMIT_FSIZE at K pages (SIGXFSZ
 *                         ignored at K 0 only): "fsize RETURN ERRNO" (pwritev gives K pages with
 *                         no signal, or -1 EFBIG)
 *   unmapped K N          one pwritev of N page iovecs at 0, page K of the memory unmapped:
 *                         "unmapped RETURN ERRNO"
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int failed;
static size_t P;

static void said(int page, const char *how, const char *what, ssize_t ret, size_t len)
{
	if (ret != (ssize_t)len) {
		fprintf(stderr, "preload_writer: %s of page %d: %s\n", how, page,
			ret < 0 ? strerror((int)-ret) : "short write");
		failed = 1;
	}
	printf("page %d %s %s\n", page, how, what);
}

static ssize_t rc(ssize_t r)
{
	return r < 0 ? -errno : r;
}

static void uring_case(int fd, char *buf, int page, int op, size_t len)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct iovec iov = { buf, len };
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret) {
		said(page, "io_uring", "-", ret, len);
		return;
	}
	sqe = io_uring_get_sqe(&ring);
	if (op == IORING_OP_WRITE)
		io_uring_prep_write(sqe, fd, buf, (unsigned int)len, (uint64_t)page * P);
	else
		io_uring_prep_writev(sqe, fd, &iov, 1, (uint64_t)page * P);
	ret = io_uring_submit(&ring);
	if (ret == 1)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret >= 0) {
		ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	said(page, op == IORING_OP_WRITE ? "io_uring-write" : "io_uring-writev",
	     len == P ? "atomic" : "plain-size", ret, len);
	io_uring_queue_exit(&ring);
}

static void aio_case(int fd, char *buf, int page, int vec, size_t len)
{
	io_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct iovec iov = { buf, len };
	long ret = io_setup(4, &ctx);

	if (ret) {
		said(page, "libaio", "-", ret, len);
		return;
	}
	if (vec)
		io_prep_pwritev(&cb, fd, &iov, 1, (long long)page * (long long)P);
	else
		io_prep_pwrite(&cb, fd, buf, len, (long long)page * (long long)P);
	ret = io_submit(ctx, 1, cbs);
	if (ret == 1)
		do	/* a signal (the machine under load) interrupts the wait, not the write */
			ret = io_getevents(ctx, 1, 1, &ev, NULL);
		while (ret == -EINTR);
	if (ret == 1)
		ret = (long)ev.res;
	said(page, vec ? "libaio-pwritev" : "libaio-pwrite", len == P ? "atomic" : "plain-size",
	     ret, len);
	io_destroy(ctx);
}

static int cases(const char *path, char *buf)
{
	struct iovec iov[2];
	int fd, bfd, ufd;

	fd = open(path, O_RDWR);
	bfd = open(path, O_RDWR);
	ufd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR);	/* not through open(): unseen */
	if (fd < 0 || bfd < 0 || ufd < 0) {
		perror(path);
		return 2;
	}
	/* O_DIRECT set afterwards, as InnoDB does (os_file_set_nocache) */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT)) {
		perror("fcntl O_DIRECT");
		return 2;
	}
	said(0, "pwrite", "atomic", rc(pwrite(fd, buf, P, 0)), P);
	iov[0] = (struct iovec){ buf, P };
	said(1, "pwritev", "atomic", rc(pwritev(fd, iov, 1, (off_t)P)), P);
	said(2, "pwritev2", "atomic", rc(pwritev2(fd, iov, 1, (off_t)(2 * P), 0)), P);
	uring_case(fd, buf, 3, IORING_OP_WRITE, P);
	uring_case(fd, buf, 4, IORING_OP_WRITEV, P);
	aio_case(fd, buf, 5, 0, P);
	aio_case(fd, buf, 6, 1, P);
	if (fcntl(ufd, F_SETFL, fcntl(ufd, F_GETFL) | O_DIRECT))
		return 2;
	said(17, "pwrite-unseen-open", "atomic", rc(pwrite(ufd, buf, P, (off_t)(17 * P))), P);
	/*
	 * split: two atomic page writes, beside page 17 (XFS keeps the CoW fork's preallocation,
	 * cowextsize 128 KiB by default, after an atomic write: a later buffered write there,
	 * page 12's, would land in it and move too)
	 */
	said(18, "pwrite-2-pages", "atomic", rc(pwrite(fd, buf, 2 * P, (off_t)(18 * P))), 2 * P);
	printf("page 19 pwrite-2-pages atomic\n");
	/* left as they were */
	said(9, "pwrite", "plain-misaligned", rc(pwrite(fd, buf, P, (off_t)(9 * P + P / 2))), P);
	iov[0] = (struct iovec){ buf, P / 2 };
	iov[1] = (struct iovec){ buf + P / 2, P / 2 };
	said(11, "pwritev", "plain-segments", rc(pwritev(fd, iov, 2, (off_t)(11 * P))), P);
	said(12, "pwrite", "plain-buffered", rc(pwrite(bfd, buf, P, (off_t)(12 * P))), P);
	if (fdatasync(bfd))
		failed = 1;
	uring_case(fd, buf, 13, IORING_OP_WRITE, 2 * P);
	aio_case(fd, buf, 15, 0, 2 * P);
	close(bfd);
	close(fd);
	close(ufd);
	return failed;
}

/* N page writes (pages 0..N-1) queued before each submit, ROUNDS times; every CQE checked */
static int uring_batch(int fd, char *buf, unsigned int n, unsigned int rounds)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int ret = io_uring_queue_init(n, &ring, 0), bad = 0;

	if (ret)
		return fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret)), 1;
	for (unsigned int r = 0; r < rounds && !bad; r++) {
		for (unsigned int i = 0; i < n; i++)
			io_uring_prep_write(io_uring_get_sqe(&ring), fd, buf, (unsigned int)P,
					    (uint64_t)i * P);
		ret = io_uring_submit(&ring);
		if (ret != (int)n)
			return fprintf(stderr, "io_uring_submit: %d of %u\n", ret, n), 1;
		for (unsigned int i = 0; i < n; i++) {
			if (io_uring_wait_cqe(&ring, &cqe))
				return 1;
			if (cqe->res != (int)P) {
				fprintf(stderr, "round %u: a CQE has %d (%s)\n", r, cqe->res,
					cqe->res < 0 ? strerror(-cqe->res) : "short");
				bad = 1;
			}
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	printf("uring-batch %u\n", n * rounds);
	return bad;
}

/* O_DIRECT lives in the open file description: set and cleared through a dup() */
static int dup_direct(const char *path, char *buf)
{
	int fd = open(path, O_RDWR), d, fl;

	if (fd < 0 || (d = dup(fd)) < 0 || (fl = fcntl(fd, F_GETFL)) < 0)
		return perror(path), 2;
	fcntl(d, F_SETFL, fl | O_DIRECT);	/* the original has O_DIRECT now too */
	said(0, "pwrite-direct-via-dup", "atomic", rc(pwrite(fd, buf, P, 0)), P);
	fcntl(d, F_SETFL, fl & ~O_DIRECT);	/* and no longer */
	said(1, "pwrite-buffered-via-dup", "plain-buffered", rc(pwrite(fd, buf, P, (off_t)P)), P);
	fcntl(fd, F_SETFL, fl | O_DIRECT);
	said(2, "pwrite-dup-direct", "atomic", rc(pwrite(d, buf, P, (off_t)(2 * P))), P);
	if (fdatasync(fd))
		failed = 1;
	close(d);
	close(fd);
	return failed;
}

/* closed where the preload does not see: each way, then @other takes the number by fopen() */
static int reuse(const char *path, const char *other, char *buf)
{
	static const char *const how[] = { "fclose", "close_range", "closefrom", "syscall-close" };

	for (int i = 0; i < 4; i++) {
		int fd = open(path, O_RDWR | O_DIRECT);
		FILE *f;

		if (fd < 0)
			return perror(path), 2;
		said(i, "pwrite-named", "atomic", rc(pwrite(fd, buf, P, (off_t)i * (off_t)P)), P);
		if (i == 0)
			fclose(fdopen(fd, "r+"));
		else if (i == 1)
			close_range((unsigned int)fd, (unsigned int)fd, 0);
		else if (i == 2)
			closefrom(fd);
		else
			syscall(SYS_close, fd);
		f = fopen(other, "r+");
		if (!f || fileno(f) != fd)
			return fprintf(stderr, "%s: not given number %d again\n", other, fd), 2;
		printf("other %d %s ", i, how[i]);
		said(i, "pwrite-other", "not-named",
		     rc(pwrite(fileno(f), buf, P, (off_t)i * (off_t)P)), P);
		fclose(f);
	}
	return failed;
}

/* an O_APPEND descriptor, and RWF_APPEND: the page lands at the end, whatever the offset */
static int append(const char *path, char *buf)
{
	struct iovec iov = { buf, P };
	int fd = open(path, O_RDWR | O_DIRECT | O_APPEND), d = open(path, O_RDWR | O_DIRECT);

	if (fd < 0 || d < 0)
		return perror(path), 2;
	said(0, "pwrite-o-append", "plain-append", rc(pwrite(fd, buf, P, 0)), P);
	said(0, "pwritev2-rwf-append", "plain-append", rc(pwritev2(d, &iov, 1, 0, RWF_APPEND)), P);
	close(fd);
	close(d);
	return failed;
}

/* a page write every 2 ms for @secs seconds (a long-running writer) */
static int loop(const char *path, char *buf, double secs)
{
	struct timespec t0, t, nap = { 0, 2000000 };
	unsigned long n = 0;
	int fd = open(path, O_RDWR | O_DIRECT);

	if (fd < 0)
		return perror(path), 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (pwrite(fd, buf, P, (off_t)(n % 16) * (off_t)P) != (ssize_t)P)
			return perror("pwrite"), 1;
		n++;
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("wrote %lu\n", n);
	return 0;
}

/* the pages of the file as "split" writes them: page P of the buffer holds 0x20 + P */
static char *mirror(unsigned int pages)
{
	char *m;

	if (posix_memalign((void **)&m, 4096, pages * P))
		return NULL;
	for (unsigned int i = 0; i < pages; i++)
		memset(m + i * P, 0x20 + (int)i, P);
	return m;
}

static void ranged(size_t off, size_t len, const char *how, const char *what, ssize_t ret)
{
	if (ret != (ssize_t)len) {
		fprintf(stderr, "preload_writer: %s at %zu: %s\n", how, off,
			ret < 0 ? strerror((int)-ret) : "short write");
		failed = 1;
	}
	printf("range %zu %zu %s %s\n", off, len, how, what);
}

/* several pages in one write: split into atomic page writes, or left as it was if it cannot be */
static int split(const char *path)
{
	char *m = mirror(24);
	struct iovec v[4];
	int fd = open(path, O_RDWR | O_DIRECT);

	if (fd < 0 || !m)
		return perror(path), 2;
	ranged(0, 4 * P, "pwrite-4-pages", "atomic", rc(pwrite(fd, m, 4 * P, 0)));
	for (int i = 0; i < 4; i++)
		v[i] = (struct iovec){ m + (4 + i) * P, P };
	ranged(4 * P, 4 * P, "pwritev-4-iovecs", "atomic", rc(pwritev(fd, v, 4, (off_t)(4 * P))));
	v[0] = (struct iovec){ m + 8 * P, 2 * P };
	v[1] = (struct iovec){ m + 10 * P, 2 * P };
	ranged(8 * P, 4 * P, "pwritev2-dsync-2x2", "atomic",
	       rc(pwritev2(fd, v, 2, (off_t)(8 * P), RWF_DSYNC)));
	v[0] = (struct iovec){ m + 12 * P, P / 2 };
	v[1] = (struct iovec){ m + 12 * P + P / 2, P };
	v[2] = (struct iovec){ m + 13 * P + P / 2, P / 2 };
	ranged(12 * P, 2 * P, "pwritev-mixed", "plain-segments",
	       rc(pwritev(fd, v, 3, (off_t)(12 * P))));
	ranged(14 * P, 5 * P / 2, "pwrite-2.5-pages", "plain-size",
	       rc(pwrite(fd, m + 14 * P, 5 * P / 2, (off_t)(14 * P))));
	v[0] = (struct iovec){ m + 18 * P + P / 2, P };
	v[1] = (struct iovec){ m + 19 * P + P / 2, P };
	ranged(18 * P + P / 2, 2 * P, "pwritev-half-off", "plain-misaligned",
	       rc(pwritev(fd, v, 2, (off_t)(18 * P + P / 2))));
	close(fd);
	return failed;
}

/* one pwritev of @n page iovecs at 0 running into RLIMIT_FSIZE after @k pages */
static int fsize(const char *path, unsigned int k, unsigned int n)
{
	struct rlimit r = { (rlim_t)k * P, RLIM_INFINITY };
	struct iovec v[64];
	char *m = n <= 64 ? mirror(n) : NULL;
	int fd = open(path, O_RDWR | O_DIRECT), err;
	ssize_t ret;

	if (fd < 0 || !m)
		return perror(path), 2;
	for (unsigned int i = 0; i < n; i++)
		v[i] = (struct iovec){ m + i * P, P };
	if (!k)
		signal(SIGXFSZ, SIG_IGN); /* the write starts at the limit: EFBIG and the signal */
	if (setrlimit(RLIMIT_FSIZE, &r))
		return perror("setrlimit"), 2;
	errno = 0;
	ret = pwritev(fd, v, (int)n, 0);
	err = errno;
	r.rlim_cur = RLIM_INFINITY;	/* stdout may be a file too */
	setrlimit(RLIMIT_FSIZE, &r);
	errno = err;
	printf("fsize %zd %s\n", ret, ret < 0 ? strerrorname_np(errno) : "-");
	close(fd);
	return 0;
}

/* one pwritev of @n page iovecs at 0 whose page @k is not mapped (EFAULT there) */
static int unmapped(const char *path, unsigned int k, unsigned int n)
{
	struct iovec v[64];
	char *m = mmap(NULL, n * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(path, O_RDWR | O_DIRECT);
	ssize_t ret;

	if (fd < 0 || m == MAP_FAILED || n > 64 || k >= n)
		return perror(path), 2;
	for (unsigned int i = 0; i < n; i++)
		memset(m + i * P, 0x20 + (int)i, P);
	munmap(m + k * P, P);
	for (unsigned int i = 0; i < n; i++)
		v[i] = (struct iovec){ m + i * P, P };
	errno = 0;
	ret = pwritev(fd, v, (int)n, 0);
	printf("unmapped %zd %s\n", ret, ret < 0 ? strerrorname_np(errno) : "-");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 3 ? argv[3] : "cases";
	char *buf;

	if (argc < 3) {
		fprintf(stderr, "usage: preload_writer FILE PAGE_SIZE [MODE ARG...]\n");
		return 2;
	}
	P = strtoul(argv[2], NULL, 0);
	if (!P || posix_memalign((void **)&buf, 4096, 2 * P + 4096))
		return 2;
	memset(buf, 0x5a, 2 * P + 4096);
	if (!strcmp(mode, "cases"))
		return cases(argv[1], buf);
	if (!strcmp(mode, "uring-batch") && argc == 6) {
		int fd = open(argv[1], O_RDWR | O_DIRECT);

		return fd < 0 ? 2 : uring_batch(fd, buf, (unsigned int)atoi(argv[4]),
						 (unsigned int)atoi(argv[5]));
	}
	if (!strcmp(mode, "dup-direct"))
		return dup_direct(argv[1], buf);
	if (!strcmp(mode, "reuse") && argc == 5)
		return reuse(argv[1], argv[4], buf);
	if (!strcmp(mode, "append"))
		return append(argv[1], buf);
	if (!strcmp(mode, "loop") && argc == 5)
		return loop(argv[1], buf, atof(argv[4]));
	if (!strcmp(mode, "fd") && argc == 5) {
		said(0, "pwrite-inherited", "atomic", rc(pwrite(atoi(argv[4]), buf, P, 0)), P);
		return failed;
	}
	if (!strcmp(mode, "split"))
		return split(argv[1]);
	if (!strcmp(mode, "fsize") && argc == 6)
		return fsize(argv[1], (unsigned int)atoi(argv[4]), (unsigned int)atoi(argv[5]));
	if (!strcmp(mode, "unmapped") && argc == 6)
		return unmapped(argv[1], (unsigned int)atoi(argv[4]), (unsigned int)atoi(argv[5]));
	if (!strcmp(mode, "misaligned-buffer")) {
		int fd = open(argv[1], O_RDWR | O_DIRECT);

		printf("misaligned-buffer %zd\n", fd < 0 ? -2 : rc(pwrite(fd, buf + 1, P, 0)));
		return 0;
	}
	fprintf(stderr, "preload_writer: unknown mode %s\n", mode);
	return 2;
}
