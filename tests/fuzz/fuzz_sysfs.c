// SPDX-License-Identifier: MIT
/*
 * Description: libFuzzer harness for sysfs attribute text: the input, cut at NUL bytes, becomes the
 * queue and partition attributes of a sysfs tree in a scratch directory, read by
 * awr_sysfs_lookup().
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

static const char *const attrs[] = {
	"disk/queue/atomic_write_max_bytes", "disk/queue/atomic_write_unit_min_bytes",
	"disk/queue/atomic_write_unit_max_bytes", "disk/queue/atomic_write_boundary_bytes",
	"disk/queue/logical_block_size", "disk/queue/physical_block_size",
	"disk/queue/max_hw_sectors_kb", "disk/queue/max_segments", "disk/size",
	"disk/part1/partition", "disk/part1/start", "disk/part1/size",
};
#define NATTRS (sizeof(attrs) / sizeof(attrs[0]))

static char root[64];

static void remove_tree(void)
{
	char p[256];

	for (size_t a = 0; a < NATTRS; a++) {
		snprintf(p, sizeof(p), "%s/%s", root, attrs[a]);
		unlink(p);
	}
	for (const char *const *d = (const char *const[]){"dev/block/8:0", "dev/block/8:1", NULL};
	     *d; d++) {
		snprintf(p, sizeof(p), "%s/%s", root, *d);
		unlink(p);
	}
	for (const char *const *d = (const char *const[]){"dev/block", "dev", "disk/queue",
							  "disk/part1", "disk", "", NULL};
	     *d; d++) {
		snprintf(p, sizeof(p), "%s/%s", root, *d);
		rmdir(p);
	}
}

static void mk(const char *rel, bool dir)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (dir ? mkdir(p, 0700) : 0)
		abort();
}

/* The tree, made once: ROOT/dev/block/8:0 -> disk, 8:1 -> disk/part1. */
static void make_tree(void)
{
	char p[256];

	snprintf(root, sizeof(root), "/tmp/awr-fuzz-sysfs.XXXXXX");
	if (!mkdtemp(root))
		abort();
	mk("dev", true);
	mk("dev/block", true);
	mk("disk", true);
	mk("disk/queue", true);
	mk("disk/part1", true);
	snprintf(p, sizeof(p), "%s/dev/block/8:0", root);
	if (symlink("../../disk", p))
		abort();
	snprintf(p, sizeof(p), "%s/dev/block/8:1", root);
	if (symlink("../../disk/part1", p))
		abort();
	awr_set_sysfs_root(root);
	atexit(remove_tree);
}

static void put(const char *rel, const uint8_t *text, size_t len)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (len && write(fd, text, len) != (ssize_t)len))
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct awr_sysfs_view v;
	size_t i = 0, start = 0;

	if (size > 4096)
		return 0;
	if (!*root)
		make_tree();
	for (size_t a = 0; a < NATTRS; a++) {
		while (i < size && data[i])
			i++;
		put(attrs[a], data + start, i - start);
		if (i < size)
			i++;
		start = i;
	}
	for (unsigned int minor = 0; minor < 2; minor++) {
		if (awr_sysfs_lookup(8, minor, &v))
			abort();	/* the tree is there: only the values are hostile */
		if (strnlen(v.disk, sizeof(v.disk)) == sizeof(v.disk) ||
		    strnlen(v.partition, sizeof(v.partition)) == sizeof(v.partition))
			abort();
		if (minor == 0 && !v.part_aligned)
			abort();	/* a whole disk is aligned */
	}
	return 0;
}
