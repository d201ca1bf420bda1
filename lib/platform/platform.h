/* SPDX-License-Identifier: MIT */
/*
 * The platform layer: the system's mechanics every stage and the command line share, written
 * once. Mount tables (util-linux's libmount), sysfs attributes, the monotonic clock, CPU time,
 * path joins and small string helpers. It uses no other folder of the library.
 */
#ifndef AWR_PLATFORM_H
#define AWR_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ------------------------------------------------------------------ mountinfo.c */

/**
 * struct awr__mount - one line of a mountinfo table, every field unescaped
 * @major:	device number of the mounted filesystem (st_dev), major
 * @minor:	and minor
 * @root:	the directory of the filesystem mounted there ("/" unless a bind mount)
 * @target:	the mount point ("/mnt/a b", not "/mnt/a\040b")
 * @source:	the mount source ("/dev/loop0"), "" when none
 * @fstype:	the filesystem type ("xfs")
 * @fs_options:	the super options ("rw,attr2,inode64,..."), "" when none
 */
struct awr__mount {
	unsigned int major;
	unsigned int minor;
	const char *root;
	const char *target;
	const char *source;
	const char *fstype;
	const char *fs_options;
};

/* Return 0 to go on to the next mount, anything else to stop there with that value. */
typedef int (*awr__mount_fn)(const struct awr__mount *m, void *arg);

/**
 * awr__mountinfo_each() - call @fn for each mount of a mountinfo table, in its order
 * @path:	a mountinfo file ("/proc/PID/mountinfo"); NULL: /proc/self/mountinfo
 * @fn:		called with each mount; the strings live until it returns
 * @arg:	passed to @fn
 *
 * Return: 0 when every mount was seen, the first non-zero value @fn returned, or -errno when the
 * table cannot be read.
 */
int awr__mountinfo_each(const char *path, awr__mount_fn fn, void *arg);

/* ------------------------------------------------------------------ sysfs.c */

/**
 * awr__sysfs_root() - where discovery reads sysfs
 *
 * Return: "/sys", or in a build with -Dtest_hooks=true the fixture tree the tests set
 * (awr_set_sysfs_root(), AWR_SYSFS_ROOT).
 */
const char *awr__sysfs_root(void);

/**
 * awr__read_text() - the first line of a small file (a sysfs attribute), newline taken off
 * @path:	the file
 * @buf:	where the text goes
 * @len:	size of @buf, at least 2
 *
 * Return: 0, or -errno.
 */
int awr__read_text(const char *path, char *buf, size_t len);

/**
 * awr__sysfs_read_str() - one attribute's text, the trailing newline taken off
 * @dir:	a sysfs directory
 * @name:	the attribute, relative to @dir ("queue/fua", "dev")
 * @buf:	where the text goes
 * @len:	size of @buf, at least 2
 *
 * Return: 0, or -errno (-ENAMETOOLONG when @dir/@name does not fit a path).
 */
int awr__sysfs_read_str(const char *dir, const char *name, char *buf, size_t len);

/**
 * awr__sysfs_read_u64() - one attribute as a decimal number
 * @dir:	a sysfs directory
 * @name:	the attribute
 * @out:	the number
 *
 * Return: 0, or -errno (-EINVAL when the text is not a number).
 */
int awr__sysfs_read_u64(const char *dir, const char *name, uint64_t *out);

/**
 * awr__sysfs_read_u32() - one attribute as a 32-bit number, 0 when absent or larger
 * @dir:	a sysfs directory
 * @name:	the attribute (a queue limit: "atomic_write_unit_max_bytes")
 *
 * Return: the number, or 0.
 */
uint32_t awr__sysfs_read_u32(const char *dir, const char *name);

/* ------------------------------------------------------------------ clock.c */

/**
 * awr__now_ns() - the monotonic clock (CLOCK_MONOTONIC) in nanoseconds
 *
 * Return: nanoseconds since an arbitrary start; only differences mean anything.
 */
uint64_t awr__now_ns(void);

/**
 * awr__realtime_ns() - the wall clock (CLOCK_REALTIME) in nanoseconds since the epoch
 *
 * Return: nanoseconds since 1970-01-01 UTC.
 */
uint64_t awr__realtime_ns(void);

/* ------------------------------------------------------------------ cputime.c */

/**
 * awr__cpu_s() - the CPU time the process has used (getrusage(RUSAGE_SELF))
 * @user_only:	user time only; false: user and system time
 *
 * Return: seconds of CPU time, all threads together.
 */
double awr__cpu_s(bool user_only);

/**
 * awr__io_read_bytes() - the bytes this process has read from storage so far
 *
 * Return: read_bytes of /proc/self/io (proc_pid_io_accounting()), 0 when it cannot be read.
 */
uint64_t awr__io_read_bytes(void);

/* ------------------------------------------------------------------ str.c */

/**
 * awr__strjoin() - @a followed by @b into @dst, cut to fit
 * @dst:	the result
 * @len:	size of @dst, at least 1
 * @a:		the first part ("/dev/")
 * @b:		the second part ("nvme0n1")
 */
void awr__strjoin(char *dst, size_t len, const char *a, const char *b);

/**
 * awr__strcopy() - @src into @dst, cut to fit (a sysfs name, a d_name)
 * @dst:	the result
 * @len:	size of @dst, at least 1
 * @src:	the string
 */
void awr__strcopy(char *dst, size_t len, const char *src);

/**
 * awr__pathf() - a formatted path into @buf; truncation is an error, never a silent cut
 * @buf:	the path
 * @len:	size of @buf
 * @fmt:	printf format
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int awr__pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * awr__rtrim() - trailing blanks (spaces, tabs, newlines) taken off @s in place
 * @s:		the string
 */
void awr__rtrim(char *s);

/**
 * awr__unmangle() - undo the kernel's \ooo escapes in place (mangle(), fs/proc_namespace.c;
 *		     seq_escape() of /proc/swaps): "\040" becomes a space
 * @s:		the string
 *
 * Return: @s.
 */
char *awr__unmangle(char *s);

/**
 * awr__human_bytes() - a byte count for people: "512 B", "16 KiB", "11.9 MiB", "2 GiB"
 * @bytes:	the count
 * @buf:	where the text goes (32 bytes hold any count)
 * @len:	size of @buf
 *
 * Binary units; a whole multiple of a unit prints without decimals, anything else with three
 * significant digits. Text and HTML use it; JSON keeps the exact bytes.
 *
 * Return: @buf.
 */
char *awr__human_bytes(uint64_t bytes, char *buf, size_t len);

/**
 * awr__human_usec() - a duration for people: "850 us", "72.9 ms", "1.25 s", "3 min 20 s"
 * @usec:	the duration in microseconds (negative prints as 0)
 * @buf:	where the text goes (32 bytes hold any duration)
 * @len:	size of @buf
 *
 * Three significant digits below a minute. Return: @buf.
 */
char *awr__human_usec(double usec, char *buf, size_t len);

/**
 * awr__errno_name() - an errno's name (glibc's strerrorname_np())
 * @err:	the errno, negative or not
 *
 * Return: "EINVAL" for -EINVAL or EINVAL, "0" for 0, "errno" for a number without a name.
 */
const char *awr__errno_name(int err);

/**
 * awr__write_cache_text() - a disk's write cache and FUA in words
 * @write_back:	1: queue/write_cache says "write back", 0: "write through", -1: not read
 * @fua:	1: queue/fua is 1, 0: it is 0, -1: not read
 * @buf:	where the text goes (40 bytes hold any)
 * @len:	size of @buf
 *
 * Return: @buf: "write back, FUA 0", "write through, FUA 1", "write back" (FUA not read), or
 * "unknown (no queue/write_cache)".
 */
char *awr__write_cache_text(int write_back, int fua, char *buf, size_t len);

/**
 * awr__utf8_len() - the length of the valid UTF-8 sequence at @s
 * @s:		the bytes (NUL-terminated)
 *
 * Return: 1 to 4, or 0 where none starts: a stray continuation byte, an overlong form, a
 * surrogate, beyond U+10FFFF, or cut short (RFC 3629, section 4).
 */
size_t awr__utf8_len(const unsigned char *s);

/**
 * awr__utf8_spelled() - @s with each byte that is not part of valid UTF-8 spelled \xff
 * @s:		the string
 *
 * As Python's "backslashreplace" spells it: two strings that differ in such bytes stay two.
 *
 * Return: a new string (free() it), or NULL when @s is valid UTF-8 (or memory ran out).
 */
char *awr__utf8_spelled(const char *s);

/* ------------------------------------------------------------------ fd.c */

/**
 * awr__reopen() - another open file description of what @fd has open
 * @fd:		an open descriptor
 * @oflags:	open(2) flags of the new one (O_CLOEXEC is added)
 *
 * Opens /proc/self/fd/@fd, never the path by name: nothing can swap the file underneath, and the
 * new description has flags of its own (O_DIRECT or not, read-only or not).
 *
 * Return: the new descriptor, or -errno.
 */
int awr__reopen(int fd, int oflags);

/**
 * awr__file_type_name() - what a file that is not the kind asked for is, in words
 * @mode:	st_mode of the file (lstat(2) or fstat(2))
 * @other:	the words for a type not named below (a regular file, and any other)
 *
 * The refusals of a journal path and of a write target say what the file is: "a symbolic link",
 * "a directory", "a block device", "a character device", "a FIFO", "a socket".
 *
 * Return: a static string, or @other.
 */
const char *awr__file_type_name(mode_t mode, const char *other);

/**
 * awr__same_file() - does @path still name the file open as @fd?
 * @path:	the name (a symbolic link is not followed)
 * @fd:		the open file
 *
 * Return: true when both are the same inode of the same device (not another file put in its
 * place since it was opened).
 */
bool awr__same_file(const char *path, int fd);

/**
 * awr__fd_size() - the bytes a regular file or block device holds
 * @fd:		an open descriptor
 * @size:	set to the file's size, or the block device's (BLKGETSIZE64)
 *
 * Return: 0, or -errno.
 */
int awr__fd_size(int fd, uint64_t *size);

/**
 * awr__path_size() - awr__fd_size() of a path, opened read-only for the look only
 * @path:	a regular file or block device (O_NONBLOCK: a FIFO does not wait)
 * @size:	set to its size
 *
 * Return: 0, or -errno.
 */
int awr__path_size(const char *path, uint64_t *size);

#endif /* AWR_PLATFORM_H */
