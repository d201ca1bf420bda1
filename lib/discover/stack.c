// SPDX-License-Identifier: MIT
/*
 * Stacked block devices: dm (linear, stripe, mirror, crypt, multipath), md (raid0/1/10) and
 * NVMe multipath head nodes. The legs come from sysfs (slaves/; for a head
 * multipath/, or its paths by name before 6.15: see head_paths()), their
 * limits from their queue/, and the stacked result follows
 * the running kernel's blk_stack_atomic_writes_limits() (block/blk-settings.c):
 *  - only a top device with BLK_FEAT_ATOMIC_WRITES_STACKED stacks: md raid0,
 *    raid1, raid10 from 6.13, dm-linear/stripe/mirror from 6.14, the NVMe
 *    multipath head from 6.15 (6.14.10), dm-crypt from 6.19, dm-multipath
 *    from 7.0 (the targets' DM_TARGET_ATOMIC_WRITES); any other reads 0;
 *  - a leg without atomics, or whose data start is not a multiple of
 *    max(hw_unit_min, hw_boundary) (blk_atomic_write_start_sect_aligned),
 *    turns them off;
 *  - the first leg gives the limits (blk_stack_atomic_writes_head), every
 *    other must have the same boundary and overlapping units, and narrows
 *    them (blk_stack_atomic_writes_tail: unit_min the largest, unit_max and
 *    hw_max the smallest);
 *  - a stripe chunk: up to 6.16 the top's io_min (when above 512 bytes)
 *    halves unit_max until it divides it and caps hw_max; from 6.17
 *    ("block: use chunk_sectors when evaluating stacked atomic write limits",
 *    63d092d1c1b1, with md raid0/raid10 and dm-stripe setting chunk_sectors)
 *    unit_max is at most the largest power of two dividing chunk_sectors and
 *    hw_max at most the chunk; a boundary and the chunk must be multiples of
 *    each other (blk_stack_atomic_writes_boundary_head);
 *  - then the top device's own blk_validate_limits() (its max_segments,
 *    max_hw_sectors, chunk_sectors) as for any disk.
 * Sysfs shows a leg's limits after its own caps, not its hw_* values: they
 * stand in for them (the same unless a leg's caps narrowed its units).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/device.h"
#include "kernel.h"
#include "discover/discover.h"

/*
 * A leg's limits from the queue/ of the block device at @dir (a sysfs path);
 * a partition's queue/ is its disk's, and its start counts in the leg's data
 * start (dm_set_device_limits passes get_start_sect() + the table offset).
 */
static void read_leg(const char *dir, const char *name, struct awr_stack_leg *leg)
{
	char disk[PATH_MAX], *slash;
	struct awr_sysfs_view q;
	uint64_t v;

	memset(leg, 0, sizeof(*leg));
	awr__strcopy(leg->name, sizeof(leg->name), name);
	awr__pathf(disk, sizeof(disk), "%s", dir);
	if (!awr__sysfs_read_u64(dir, "partition", &v) && (slash = strrchr(disk, '/'))) {
		*slash = '\0';
		if (!awr__sysfs_read_u64(dir, "start", &v))
			leg->start = v * 512;
	}
	awr__sysfs_read_queue(disk, &q);
	leg->has_atomic_attrs = q.has_atomic_attrs;
	leg->unit_min = q.unit_min;
	leg->unit_max = q.unit_max;
	leg->max_bytes = q.max_bytes;
	leg->boundary = q.boundary;
	leg->logical_block_size = q.logical_block_size;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of @dir (not . and ..) in name order, at most @max. */
static unsigned int list_dir(const char *dir, char names[][64], unsigned int max)
{
	char *ptrs[AWR_STACK_MAX_LEGS];
	char tmp[AWR_STACK_MAX_LEGS][64];
	struct dirent *e;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max && n < AWR_STACK_MAX_LEGS) {
		if (e->d_name[0] == '.')
			continue;
		awr__strcopy(tmp[n], sizeof(tmp[n]), e->d_name);
		ptrs[n] = tmp[n];
		n++;
	}
	closedir(d);
	qsort(ptrs, n, sizeof(ptrs[0]), cmp_names);
	for (unsigned int i = 0; i < n; i++)
		awr__strcopy(names[i], 64, ptrs[i]);
	return n;
}

/* The sysfs directory @base/@group/@name of a leg: slaves/ or multipath/ of the top, or /sys/block
 * (links resolved). */
static int leg_dir(const char *base, const char *group, const char *name, char *out)
{
	char link[PATH_MAX];

	awr__pathf(link, sizeof(link), "%s/%s/%s", base, group, name);
	return realpath(link, out) ? 0 : -errno;
}

/*
 * An NVMe multipath head and its paths on kernels without multipath/.
 * drivers/nvme/host/multipath.c (6.12, 7.0): nvme_mpath_set_live() adds the
 * head's disk under the subsystem device (device_add_disk(&head->subsys->dev,
 * ...)), so sysfs holds it in .../nvme-subsystem/nvme-subsysS/; a namespace of
 * a single-controller subsystem has no head (nvme_mpath_alloc_disk) and sits
 * under its controller. nvme_set_disk_name() names the head nvmeSnH and each
 * path nvmeScCnH (S the subsystem's instance, H the head's; the paths are
 * hidden disks, still listed in /sys/block). The multipath/ links from the
 * head to its paths (nvme_mpath_add_sysfs_link) exist only from 6.15
 * ("nvme-multipath: Add visibility for round-robin io-policy"); before that
 * the paths are found by that name rule.
 */
static bool is_nvme_head(const char *top)
{
	char real[PATH_MAX], *slash;

	if (!realpath(top, real) || !(slash = strrchr(real, '/')))
		return false;
	*slash = '\0';
	slash = strrchr(real, '/');
	return slash && !strncmp(slash + 1, "nvme-subsys", 11);
}

/* The paths nvmeScCnH of head nvmeSnH in /sys/block, in name order. */
static unsigned int head_paths(const char *disk, char names[][64])
{
	char tmp[AWR_STACK_MAX_LEGS][64], dir[PATH_MAX], end;
	unsigned int s, h, ps, pc, ph, n = 0, all;

	if (sscanf(disk, "nvme%un%u%c", &s, &h, &end) != 2)
		return 0;
	awr__pathf(dir, sizeof(dir), "%s/block", awr__sysfs_root());
	all = list_dir(dir, tmp, AWR_STACK_MAX_LEGS);
	for (unsigned int i = 0; i < all; i++)
		if (sscanf(tmp[i], "nvme%uc%un%u%c", &ps, &pc, &ph, &end) == 3 && ps == s &&
		    ph == h)
			awr__strcopy(names[n++], 64, tmp[i]);
	return n;
}

/*
 * The dm table through DM_TABLE_STATUS (needs CAP_SYS_ADMIN; the real
 * /dev/mapper/control, never a fixture): the target type and, per leg
 * "MAJ:MIN OFFSET", the offset; dm-stripe's chunk. dm-crypt's table is
 * "CIPHER KEY IV_OFFSET MAJ:MIN OFFSET ...": its three first words are skipped.
 * dm-multipath's paths ("... MAJ:MIN REPEAT ...") have no offset: none is read.
 */
struct dm_leg_start {
	unsigned int maj, min;
	uint64_t start;		/* sectors */
};

static int dm_table(unsigned int maj, unsigned int min, char *type, size_t tlen,
		    uint64_t *chunk_sectors, struct dm_leg_start *starts, unsigned int *nr)
{
	static _Thread_local char buf[16384];
	struct dm_ioctl *io = (struct dm_ioctl *)buf;
	struct dm_target_spec *spec;
	unsigned int n = 0;
	int fd, ret;

	*nr = 0;
	memset(buf, 0, sizeof(buf));
	io->version[0] = DM_VERSION_MAJOR;
	io->data_size = sizeof(buf);
	io->data_start = sizeof(*io);
	io->flags = DM_STATUS_TABLE_FLAG;
	io->dev = makedev(maj, min);
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, DM_TABLE_STATUS, io);
	close(fd);
	if (ret < 0)
		return -errno;
	if (!io->target_count || (io->flags & DM_BUFFER_FULL_FLAG))
		return -ENODATA;
	spec = (struct dm_target_spec *)(buf + io->data_start);
	snprintf(type, tlen, "%.*s", (int)sizeof(spec->target_type), spec->target_type);
	for (unsigned int t = 0; t < io->target_count; t++) {
		const char *params = (const char *)(spec + 1);
		unsigned int a, b;
		unsigned long long off;
		int used = 0, stripes = 0;
		const char *p = params;

		if (!strcmp(spec->target_type, "striped") &&
		    sscanf(p, "%d %" SCNu64 "%n", &stripes, chunk_sectors, &used) == 2)
			p += used;
		if (!strcmp(spec->target_type, "crypt"))
			for (int w = 0; w < 3 && *p; w++) {	/* cipher, key, iv_offset */
				p += strspn(p, " ");
				p += strcspn(p, " ");
			}
		if (!strcmp(spec->target_type, "multipath"))
			p = "";
		while (n < AWR_STACK_MAX_LEGS &&
		       sscanf(p, " %u:%u %llu%n", &a, &b, &off, &used) == 3) {
			starts[n].maj = a;
			starts[n].min = b;
			starts[n++].start = off;
			p += used;
		}
		if ((size_t)io->data_start + spec->next >= sizeof(buf) || !spec->next)
			break;
		spec = (struct dm_target_spec *)(buf + io->data_start + spec->next);
	}
	*nr = n;
	return 0;
}

static void dm_type(const char *top, struct awr_stack_view *s, const char (*names)[64])
{
	struct dm_leg_start starts[AWR_STACK_MAX_LEGS];
	char path[PATH_MAX], target[32] = "", buf[32];
	unsigned int maj, min, nr = 0;
	uint64_t chunk = 0;

	snprintf(s->type, sizeof(s->type), "dm");
	awr__pathf(path, sizeof(path), "%s/dev", top);
	if (strcmp(awr__sysfs_root(), "/sys") || awr__read_text(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", &maj, &min) != 2 ||
	    dm_table(maj, min, target, sizeof(target), &chunk, starts, &nr))
		return;		/* type unknown: a fixture tree, or no CAP_SYS_ADMIN */
	s->table_read = true;
	if (!strcmp(target, "linear"))
		snprintf(s->type, sizeof(s->type), "dm-linear");
	else if (!strcmp(target, "striped"))
		snprintf(s->type, sizeof(s->type), "dm-stripe");
	else if (!strcmp(target, "mirror"))
		snprintf(s->type, sizeof(s->type), "dm-mirror");
	else
		snprintf(s->type, sizeof(s->type), "dm-%s", target);
	if (chunk)
		s->chunk_bytes = chunk * 512;
	for (unsigned int i = 0; i < s->nr_legs; i++) {
		awr__pathf(path, sizeof(path), "%s/slaves/%s/dev", top, names[i]);
		if (awr__read_text(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &maj, &min) != 2)
			continue;
		for (unsigned int j = 0; j < nr; j++)
			if (starts[j].maj == maj && starts[j].min == min)
				s->legs[i].start += starts[j].start * 512;
	}
}

static void md_type(const char *top, struct awr_stack_view *s, const char (*names)[64])
{
	char path[PATH_MAX], level[32] = "";
	uint64_t v;

	awr__pathf(path, sizeof(path), "%s/md/level", top);
	awr__read_text(path, level, sizeof(level));
	snprintf(s->type, sizeof(s->type), "md-%s", level[0] ? level : "unknown");
	awr__pathf(path, sizeof(path), "%s/md", top);
	if (!awr__sysfs_read_u64(path, "chunk_size", &v) &&
	    (!strcmp(level, "raid0") || !strcmp(level, "raid10")))
		s->chunk_bytes = v;
	for (unsigned int i = 0; i < s->nr_legs; i++) {
		awr__pathf(path, sizeof(path), "%s/md/dev-%s", top, names[i]);
		if (!awr__sysfs_read_u64(path, "offset", &v))
			s->legs[i].start += v * 512;
	}
}

/* The kernel rule under which @type stacks atomic limits, -1 for a type no kernel stacks. */
static int type_rule(const char *type)
{
	if (!strcmp(type, "md-raid0") || !strcmp(type, "md-raid1") || !strcmp(type, "md-raid10"))
		return AWR_KRULE_MD_STACK;
	if (!strcmp(type, "dm-linear") || !strcmp(type, "dm-stripe") ||
	    !strcmp(type, "dm-mirror") || !strcmp(type, "dm"))
		return AWR_KRULE_DM_STACK;
	if (!strcmp(type, "dm-crypt"))
		return AWR_KRULE_DM_CRYPT_STACK;
	if (!strcmp(type, "dm-multipath"))
		return AWR_KRULE_DM_MPATH_STACK;
	if (!strcmp(type, "nvme-multipath"))
		return AWR_KRULE_NVME_MPATH_HEAD;
	return -1;
}

/* The devices a stacking rule covers, for the sentences. */
static const char *rule_devices(int rule)
{
	switch (rule) {
	case AWR_KRULE_NVME_MPATH_HEAD: return "NVMe multipath heads";
	case AWR_KRULE_MD_STACK: return "md raid0/1/10 devices";
	case AWR_KRULE_DM_CRYPT_STACK: return "dm-crypt devices";
	case AWR_KRULE_DM_MPATH_STACK: return "dm-multipath devices";
	default: return "dm-linear/stripe/mirror devices";
	}
}

static bool type_stacks(const char *type, uint32_t kernel)
{
	int rule = type_rule(type);

	return rule >= 0 && awr_kernel_has(kernel, (enum awr_kernel_rule)rule);
}

static uint32_t pow2_factor(uint64_t v)
{
	return v ? (uint32_t)(v & -v) : 0;
}

/* blk_stack_atomic_writes_head(): the first leg, with the chunk of @kernel's rule. */
static const char *stack_head(struct awr_device_limits *t, const struct awr_stack_leg *b,
			      uint64_t chunk, bool by_chunk_sectors)
{
	if (b->boundary && chunk &&
	    ((b->boundary > chunk && b->boundary % chunk) ||
	     (chunk > b->boundary && chunk % b->boundary)))
		return "the boundary and the stripe chunk are not multiples of each other";
	t->hw_boundary = b->boundary;
	t->hw_unit_min = b->unit_min;
	t->hw_unit_max = b->unit_max;
	t->hw_max = b->max_bytes;
	if (!chunk)
		return NULL;
	if (by_chunk_sectors) {
		if (t->hw_unit_max > pow2_factor(chunk))
			t->hw_unit_max = pow2_factor(chunk);
	} else {
		while (t->hw_unit_max && chunk % t->hw_unit_max)
			t->hw_unit_max /= 2;
	}
	if (t->hw_unit_min > t->hw_unit_max)
		t->hw_unit_min = t->hw_unit_max;
	if (t->hw_max > chunk)
		t->hw_max = (uint32_t)chunk;
	return NULL;
}

/* blk_stack_atomic_writes_tail(): every further leg. */
static const char *stack_tail(struct awr_device_limits *t, const struct awr_stack_leg *b)
{
	if (t->hw_boundary != b->boundary)
		return "the legs' boundaries differ";
	if (t->hw_unit_min > b->unit_max || t->hw_unit_max < b->unit_min)
		return "the legs' unit ranges do not overlap";
	if (b->max_bytes < t->hw_max)
		t->hw_max = b->max_bytes;
	if (b->unit_min > t->hw_unit_min)
		t->hw_unit_min = b->unit_min;
	if (b->unit_max < t->hw_unit_max)
		t->hw_unit_max = b->unit_max;
	return NULL;
}

/* The stacked result and why it is off (s->why), for s->kernel. */
static void stack_derive(struct awr_stack_view *s, const struct awr_queue_caps *top, uint32_t lbs,
			 uint64_t io_min)
{
	struct awr_device_limits *t = &s->derived;
	bool by_chunk = awr_kernel_has(s->kernel, AWR_KRULE_CHUNK_LIMIT) &&
			s->kernel >= AWR_KERNEL(6, 17, 0);
	uint64_t chunk = by_chunk ? top->chunk_bytes : (io_min > 512 ? io_min : 0);
	const char *why = NULL;

	memset(t, 0, sizeof(*t));
	s->why[0] = '\0';
	s->why_leg = -1;
	if (!s->kernel_stacks) {
		int rule = type_rule(s->type);
		char since[64], kv[16];

		awr_kernel_format(s->kernel, kv, sizeof(kv));
		if (rule < 0)
			snprintf(s->why, sizeof(s->why), "no kernel stacks %s atomic limits",
				 s->type);
		else
			snprintf(s->why, sizeof(s->why),
				 "%s stack atomic limits from %s; this is "
				 "%s",
				 rule_devices(rule),
				 awr_kernel_rule_since((enum awr_kernel_rule)rule, since,
						       sizeof(since)),
				 kv);
		return;
	}
	for (unsigned int i = 0; i < s->nr_legs && !why; i++) {
		const struct awr_stack_leg *b = &s->legs[i];
		uint64_t align = b->unit_min > b->boundary ? b->unit_min : b->boundary;

		s->why_leg = (int)i;
		if (!b->unit_min)
			why = "the leg has no atomic write support";
		else if (align && b->start % align)
			why = "the leg's data does not start at a multiple of its unit_min and "
			      "boundary";
		else
			why = i ? stack_tail(t, b) : stack_head(t, b, chunk, by_chunk);
	}
	if (why) {
		snprintf(s->why, sizeof(s->why), "%s", why);
		memset(t, 0, sizeof(*t));
		return;
	}
	s->why_leg = -1;
	why = awr__blk_finish(t, top, lbs, s->kernel);
	if (why)
		snprintf(s->why, sizeof(s->why), "%s", why);
}

int awr_stack_lookup(const char *disk, uint32_t kernel, struct awr_stack_view *out)
{
	char top[PATH_MAX], dir[PATH_MAX], names[AWR_STACK_MAX_LEGS][64];
	const char *group = "slaves", *base = top;
	struct awr_queue_caps caps = { 0 };
	uint64_t io_min = 0;
	uint32_t lbs;

	if (!disk || !*disk || !out || strchr(disk, '/'))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	awr__pathf(top, sizeof(top), "%s/block/%s", awr__sysfs_root(), disk);
	awr__strcopy(out->disk, sizeof(out->disk), disk);
	awr__pathf(dir, sizeof(dir), "%s/multipath", top);
	out->nr_legs = list_dir(dir, names, AWR_STACK_MAX_LEGS);
	if (out->nr_legs) {
		group = "multipath";
	} else if (is_nvme_head(top)) {
		base = awr__sysfs_root();	/* before 6.15: the paths by name, in /sys/block */
		group = "block";
		out->nr_legs = head_paths(disk, names);
	} else {
		awr__pathf(dir, sizeof(dir), "%s/slaves", top);
		out->nr_legs = list_dir(dir, names, AWR_STACK_MAX_LEGS);
	}
	if (!out->nr_legs)
		return -ENOENT;
	for (unsigned int i = 0; i < out->nr_legs; i++) {
		if (leg_dir(base, group, names[i], dir))
			return -ENOENT;
		read_leg(dir, names[i], &out->legs[i]);
	}
	awr__pathf(dir, sizeof(dir), "%s/dm", top);
	if (strcmp(group, "slaves")) {
		snprintf(out->type, sizeof(out->type), "nvme-multipath");
	} else if (!access(dir, F_OK)) {
		dm_type(top, out, (const char (*)[64])names);
	} else {
		awr__pathf(dir, sizeof(dir), "%s/md", top);
		if (access(dir, F_OK))
			return -ENOENT; /* slaves of another kind (bcache, loop over dm ...) */
		md_type(top, out, (const char (*)[64])names);
	}
	awr__pathf(dir, sizeof(dir), "%s/queue", top);
	if (awr__caps_from_sysfs(disk, &caps))
		memset(&caps, 0, sizeof(caps));
	awr__sysfs_read_u64(dir, "minimum_io_size", &io_min);
	lbs = awr__sysfs_read_u32(dir, "logical_block_size");
	out->kernel = awr__kernel_or_running(kernel);
	out->kernel_stacks = type_stacks(out->type, out->kernel);
	stack_derive(out, &caps, lbs ? lbs : 512, io_min);
	return 0;
}

static bool same_as_sysfs(const struct awr_device_limits *l, const struct awr_sysfs_view *y)
{
	return l->unit_min == y->unit_min && l->unit_max == y->unit_max &&
	       l->max_bytes == y->max_bytes && l->boundary == y->boundary;
}

/* The smallest unit_max of the legs: what the chunk narrows when it caps. */
static uint32_t legs_unit_max(const struct awr_stack_view *s)
{
	uint32_t m = UINT32_MAX;

	for (unsigned int i = 0; i < s->nr_legs; i++)
		if (s->legs[i].unit_max < m)
			m = s->legs[i].unit_max;
	return m;
}

/* One sentence per disagreement: a leg, the chunk, the boundaries, the kernel, sysfs. */
void awr__stack_findings(struct awr_probe *p, const struct awr_stack_view *s)
{
	const struct awr_stack_leg *leg = s->why_leg >= 0 ? &s->legs[s->why_leg] : NULL;
	char kv[16], since[64];

	awr_kernel_format(s->kernel, kv, sizeof(kv));
	if (!strcmp(s->type, "dm") && !s->table_read)
		awr__probe_finding(p, AWR_FIND(stack_dm_table_unread),
				 s->disk);
	if (!s->kernel_stacks && type_stacks(s->type, AWR_KERNEL(999, 0, 0)))
		awr__probe_finding(p, AWR_FIND(stack_kernel_too_old), kv, s->type,
				   awr_kernel_rule_since((enum awr_kernel_rule)type_rule(s->type),
							 since, sizeof(since)),
				   s->disk);
	else if (!s->kernel_stacks)
		awr__probe_finding(p, AWR_FIND(stack_type_no_atomic), s->disk, s->type);
	else if (leg && !leg->unit_min)
		awr__probe_finding(p, AWR_FIND(stack_leg_no_atomic),
				 leg->name, s->disk, s->type);
	else if (leg && strstr(s->why, "start"))
		awr__probe_finding(p, AWR_FIND(stack_leg_misaligned),
				 s->disk, leg->start, leg->name, leg->unit_min, leg->boundary);
	else if (leg && strstr(s->why, "boundaries"))
		awr__probe_finding(p, AWR_FIND(stack_boundaries_differ), leg->name, leg->boundary,
				   s->legs[0].name, s->legs[0].boundary, s->disk);
	else if (leg && strstr(s->why, "overlap"))
		awr__probe_finding(p, AWR_FIND(stack_units_disjoint),
				 leg->name, leg->unit_min, leg->unit_max, s->disk);
	else if (s->why[0])
		awr__probe_finding(p, AWR_FIND(stack_off),
				 s->disk, s->type, s->why);
	if (s->derived.supported && s->chunk_bytes && s->derived.hw_unit_max < legs_unit_max(s))
		awr__probe_finding(p, AWR_FIND(stack_chunk_caps),
				 s->chunk_bytes, s->derived.hw_unit_max, legs_unit_max(s));
	if (p->have_sysfs && p->sysfs.has_atomic_attrs && !strcmp(p->sysfs.disk, s->disk) &&
	    !same_as_sysfs(&s->derived, &p->sysfs))
		awr__probe_finding(p, AWR_FIND(stack_sysfs_mismatch),
				 kv, s->derived.unit_min, s->derived.unit_max, s->derived.max_bytes,
				 s->derived.boundary, s->disk, p->sysfs.unit_min, p->sysfs.unit_max,
				 p->sysfs.max_bytes, p->sysfs.boundary);
}

void awr__probe_stack(struct awr_probe *p)
{
	struct awr_stack_view *s;

	if (!p->have_sysfs || !p->sysfs.disk[0])
		return;
	s = malloc(sizeof(*s));
	if (!s)
		return;
	if (awr_stack_lookup(p->sysfs.disk, 0, s)) {
		free(s);
		return;
	}
	p->stack = s;
	awr__stack_findings(p, s);
}

const struct awr_stack_view *awr_probe_stack(const struct awr_probe *p)
{
	return p->stack;
}
