// SPDX-License-Identifier: MIT
/*
 * Description: the platform layer's string helpers: joins and copies cut to fit, a formatted
 * path that does not fit is an error, trailing blanks trimmed, \ooo escapes undone (and a
 * backslash that starts none kept), sizes and durations for people, errno names, a disk's
 * write cache in words, another open of a descriptor (its own flags, the same file), what kind
 * of file a mode is in words, and the clocks and CPU time move forward.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "platform/platform.h"

static void check_join(void)
{
	char b[8];

	awr__strjoin(b, sizeof(b), "/dev/", "nvme0n1");
	T_EXPECT(!strcmp(b, "/dev/nv"), "cut to fit: %s", b);
	awr__strjoin(b, sizeof(b), "/dev/", "sg");
	T_EXPECT(!strcmp(b, "/dev/sg"), "joined: %s", b);
	awr__strcopy(b, sizeof(b), "loop12345");
	T_EXPECT(!strcmp(b, "loop123"), "copy cut to fit: %s", b);
	awr__strcopy(b, 1, "x");
	T_EXPECT(!b[0], "a 1-byte buffer holds the empty string");
}

static void check_pathf(void)
{
	char b[16];

	T_EXPECT_EQ(awr__pathf(b, sizeof(b), "%s/%s", "/sys", "block"), 0, "a path that fits");
	T_EXPECT(!strcmp(b, "/sys/block"), "the path: %s", b);
	T_EXPECT_EQ(awr__pathf(b, sizeof(b), "%s/%s", "/sys/block", "nvme0n1"), -ENAMETOOLONG,
		    "a path that does not fit");
}

static void check_text(void)
{
	char t[] = "Samsung SSD  \t\n", u[] = "a\\040b\\011c\\134d\\012e\\x\\8", v[] = "\\04";

	awr__rtrim(t);
	T_EXPECT(!strcmp(t, "Samsung SSD"), "trimmed: '%s'", t);
	T_EXPECT(!strcmp(awr__unmangle(u), "a b\tc\\d\ne\\x\\8"), "unmangled: %s", u);
	T_EXPECT(!strcmp(awr__unmangle(v), "\\04"), "a short escape kept: %s", v);
}

static void check_human(void)
{
	static const struct { uint64_t b; const char *s; } bytes[] = {
		{ 0, "0 B" }, { 512, "512 B" }, { 1023, "1023 B" }, { 16384, "16 KiB" },
		{ 4097, "4.00 KiB" }, { 12582912, "12 MiB" }, { 12480000, "11.9 MiB" },
		{ 2147483648ULL, "2 GiB" }, { 1048575, "1.00 MiB" }, { 1536, "1.50 KiB" },
	};
	static const struct { double us; const char *s;
	} times[] = {
		{0, "0 us"},	     {-3, "0 us"},	 {850, "850 us"},	{72876, "72.9 ms"},
		{1250000, "1.25 s"}, {999.7, "1.00 ms"}, {200e6, "3 min 20 s"}, {5.5, "5.50 us"},
	};
	char b[32];

	for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++)
		T_EXPECT(!strcmp(awr__human_bytes(bytes[i].b, b, sizeof(b)), bytes[i].s),
			 "%llu bytes: '%s', want '%s'", (unsigned long long)bytes[i].b, b,
			 bytes[i].s);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		T_EXPECT(!strcmp(awr__human_usec(times[i].us, b, sizeof(b)), times[i].s),
			 "%g us: '%s', want '%s'", times[i].us, b, times[i].s);
}

static void check_words(void)
{
	char b[40];

	T_EXPECT(!strcmp(awr__errno_name(-EINVAL), "EINVAL") &&
		 !strcmp(awr__errno_name(EOPNOTSUPP), "EOPNOTSUPP") &&
		 !strcmp(awr__errno_name(0), "0") && !strcmp(awr__errno_name(-4000), "errno"),
		 "errno names");
	T_EXPECT(!strcmp(awr__write_cache_text(1, 0, b, sizeof(b)), "write back, FUA 0"), "%s", b);
	T_EXPECT(!strcmp(awr__write_cache_text(0, 1, b, sizeof(b)), "write through, FUA 1"), "%s",
		 b);
	T_EXPECT(!strcmp(awr__write_cache_text(1, -1, b, sizeof(b)), "write back"), "%s", b);
	T_EXPECT(!strcmp(awr__write_cache_text(-1, 1, b, sizeof(b)),
			 "unknown (no queue/write_cache)"), "%s", b);
}

static void check_reopen(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), nfd;
	struct stat a, b;

	T_EXPECT(fd >= 0, "open /proc/self/exe");
	nfd = awr__reopen(fd, O_RDONLY | O_NONBLOCK);
	T_EXPECT(nfd >= 0 && nfd != fd, "reopen: %d", nfd);
	T_EXPECT(!fstat(fd, &a) && !fstat(nfd, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev,
		 "the same file");
	T_EXPECT((fcntl(nfd, F_GETFL) & O_NONBLOCK) && !(fcntl(fd, F_GETFL) & O_NONBLOCK),
		 "flags of its own");
	T_EXPECT(fcntl(nfd, F_GETFD) & FD_CLOEXEC, "close-on-exec");
	close(nfd);
	T_EXPECT(awr__reopen(-1, O_RDONLY) == -ENOENT, "a closed descriptor: -ENOENT");
	close(fd);
}

/* The refusals of a journal and of a write target name the file's type the same way. */
static void check_file_type(void)
{
	static const struct {
		mode_t mode;
		const char *want;
	} t[] = {
		{ S_IFLNK, "a symbolic link" }, { S_IFDIR, "a directory" },
		{ S_IFBLK, "a block device" }, { S_IFCHR, "a character device" },
		{ S_IFIFO, "a FIFO" }, { S_IFSOCK, "a socket" }, { S_IFREG, "other" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = awr__file_type_name(t[i].mode | 0644, "other");

		T_EXPECT(!strcmp(got, t[i].want), "mode %o: %s, expected %s", (unsigned)t[i].mode,
			 got, t[i].want);
	}
}

static void check_clocks(void)
{
	uint64_t t0 = awr__now_ns(), r = awr__realtime_ns();
	double c0 = awr__cpu_s(false);
	volatile uint64_t spin = 0;

	while (awr__cpu_s(false) - c0 < 0.01)
		spin++;
	T_EXPECT(awr__now_ns() > t0, "the monotonic clock moves");
	T_EXPECT(r > 1600000000ULL * 1000000000ULL, "the wall clock is past 2020: %llu",
		 (unsigned long long)r);
	T_EXPECT(awr__cpu_s(true) <= awr__cpu_s(false), "user time within user + system time");
}

int main(void)
{
	check_join();
	check_pathf();
	check_text();
	check_human();
	check_words();
	check_reopen();
	check_file_type();
	check_clocks();
	return t_done("str");
}
