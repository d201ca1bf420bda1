// SPDX-License-Identifier: MIT
/*
 * A program that knows nothing of atomic writes, for the preload tests: it writes
 * pages of FILE (written in full beforehand) in every way the preload looks at, one
 * case a page, and prints which page each case wrote and whether the preload should
 * make it atomic:
 *
 *   preload_writer FILE PAGE_SIZE
 *   page 0 pwrite atomic ...
 *
 * Cases: pwrite, pwrite64 through pwritev, pwritev2, io_uring WRITE and WRITEV
 * (liburing), libaio PWRITE and PWRITEV: one page, aligned, O_DIRECT (atomic);
 * two pages in one pwrite, a page at half a page's offset, a page in two iovecs,
 * a page through a buffered descriptor, two pages through io_uring and libaio
 * (left as they were). The buffers are page-aligned for O_DIRECT. Exit 0 when
 * every write returned its length, 1 otherwise (the error printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
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
	said(page, vec ? "libaio-pwritev" : "libaio-pwrite", len == P ? "atomic" : "plain-size", ret, len);
	io_destroy(ctx);
}

int main(int argc, char **argv)
{
	struct iovec iov[2];
	char *buf;
	int fd, bfd;

	if (argc != 3) {
		fprintf(stderr, "usage: preload_writer FILE PAGE_SIZE\n");
		return 2;
	}
	P = strtoul(argv[2], NULL, 0);
	if (!P || posix_memalign((void **)&buf, 4096, 2 * P))
		return 2;
	memset(buf, 0x5a, 2 * P);
	fd = open(argv[1], O_RDWR);
	bfd = open(argv[1], O_RDWR);
	if (fd < 0 || bfd < 0) {
		perror(argv[1]);
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
	/* left as they were */
	said(7, "pwrite", "plain-size", rc(pwrite(fd, buf, 2 * P, (off_t)(7 * P))), 2 * P);
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
	return failed;
}
