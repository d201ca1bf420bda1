// SPDX-License-Identifier: MIT
/*
 * The crash check of awr qualify: journaled atomic writers on a scratch XFS
 * (a loop device), the filesystem shut down mid-write without flushing its
 * log, unmounted and mounted again (log recovery), then verified: no torn
 * unit, no lost acknowledged write.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "qualify.h"

#ifndef XFS_IOC_GOINGDOWN
#define XFS_IOC_GOINGDOWN		_IOR('X', 125, uint32_t)
#endif
#ifndef XFS_FSOP_GOING_FLAGS_NOLOGFLUSH
#define XFS_FSOP_GOING_FLAGS_NOLOGFLUSH	0x2
#endif
#define XFS_MAGIC	0x58465342
#define LOOP_MAJOR_NR	7
#define CRASH_SPAN	(4ULL << 20)

struct mnt {
	char point[PATH_MAX];
	char source[PATH_MAX];
	char fstype[64];
	char super_opts[1024];
	unsigned long flags;
};

static unsigned long mount_flags(const char *opts)
{
	static const struct { const char *name; unsigned long flag; } map[] = {
		{ "noatime", MS_NOATIME }, { "relatime", MS_RELATIME }, { "nodiratime", MS_NODIRATIME },
		{ "nodev", MS_NODEV }, { "nosuid", MS_NOSUID }, { "noexec", MS_NOEXEC },
	};
	unsigned long f = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strstr(opts, map[i].name))
			f |= map[i].flag;
	return f;
}

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo: undo it in place. */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* The mountinfo entry of the filesystem holding @dev (the last one, as the kernel stacks them). */
static int find_mount(dev_t dev, struct mnt *m)
{
	char line[4096], mopts[1024], *sep;
	unsigned int maj, min;
	struct mnt cur;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* parse into a scratch entry: *m changes only for a line of @dev */
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s %1023s", &maj, &min, cur.point, mopts) != 4 ||
		    makedev(maj, min) != dev || !(sep = strstr(line, " - ")))
			continue;
		if (sscanf(sep + 3, "%63s %4095s %1023s", cur.fstype, cur.source, cur.super_opts) != 3)
			continue;
		unescape_octal(cur.point);
		unescape_octal(cur.source);
		cur.flags = mount_flags(mopts);
		*m = cur;
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* The filesystem options to mount again with: the super options but rw/ro. */
static void mount_data(const char *super, char *out, size_t len)
{
	char tmp[1024], *save, *tok;
	size_t used = 0;

	snprintf(tmp, sizeof(tmp), "%s", super);
	out[0] = '\0';
	for (tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "rw") || !strcmp(tok, "ro"))
			continue;
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s", used ? "," : "", tok);
	}
}

/* Why this target may not be crashed, or NULL when it may. */
static const char *crash_refusal(struct qctx *q, struct mnt *m, char *why, size_t len)
{
	struct statfs sf;
	struct stat st, src;
	char cwd[PATH_MAX];

	if (!q->crash)
		return "--crash not given: the crash test shuts the filesystem down";
	if (q->is_blk)
		return "the target is a block device: the crash test needs a file on a scratch XFS";
	if (!q->writes_ok)
		return "the size sweep did not pass";
	if (statfs(q->dir, &sf) || sf.f_type != XFS_MAGIC || stat(q->dir, &st) || find_mount(st.st_dev, m)) {
		snprintf(why, len, "%.200s is not on XFS: the crash test shuts down an XFS filesystem", q->dir);
		return why;
	}
	if (stat(m->source, &src) || !S_ISBLK(src.st_mode) || major(src.st_rdev) != LOOP_MAJOR_NR) {
		snprintf(why, len, "XFS at %.200s is on %.200s, not a loop device: qualify shuts down only a scratch XFS",
			 m->point, m->source);
		return why;
	}
	if (getcwd(cwd, sizeof(cwd)) && !strncmp(cwd, m->point, strlen(m->point)) &&
	    (cwd[strlen(m->point)] == '/' || !cwd[strlen(m->point)])) {
		snprintf(why, len, "the current directory is on %.200s, which then cannot be unmounted: run qualify from elsewhere",
			 m->point);
		return why;
	}
	return NULL;
}

struct crash_run {
	const char *target;
	struct awr_stress_opts so;
	struct awr_stress_result sr;
	int ret;
};

static void *stress_thread(void *arg)
{
	struct crash_run *r = arg;

	r->ret = awr_stress_run(r->target, &r->so, &r->sr);
	return NULL;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Shut down without flushing the log; the instant just before it is the crash. */
static int shutdown_fs(const char *point, uint64_t *crash_ns)
{
	uint32_t flags = XFS_FSOP_GOING_FLAGS_NOLOGFLUSH;
	int ret = 0, fd = open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*crash_ns = realtime_ns();
	if (ioctl(fd, XFS_IOC_GOINGDOWN, &flags))
		ret = -errno;
	close(fd);
	return ret;
}

/* The backing file of a loop device, from sysfs. */
static void loop_backing(const char *dev, char *out, size_t len)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "/sys/block/%.64s/loop/backing_file", strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev);
	out[0] = '\0';
	f = fopen(p, "re");
	if (!f)
		return;
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	fclose(f);
}

/*
 * Unmount and mount again. The caller holds the loop device open, so it
 * stays attached to the same image; mount only when it still is.
 */
static int remount(const struct mnt *m, const char *backing, char *why, size_t len)
{
	char data[1024], now[PATH_MAX];
	struct mnt other;
	struct stat st;
	int tries = 0;

	while (umount2(m->point, 0)) {
		if (errno != EBUSY || ++tries > 20) {
			snprintf(why, len, "the filesystem at %.200s is shut down and cannot be unmounted (%s): "
				 "unmount it and mount %.200s again by hand", m->point, strerror(errno), m->source);
			return -1;
		}
		usleep(100000);
	}
	if (!stat(m->source, &st) && !find_mount(st.st_rdev, &other)) {
		snprintf(why, len, "%.100s is still mounted at %.160s after the unmount: that mount keeps the "
			 "shut-down filesystem alive; unmount it and mount the device again by hand",
			 m->source, other.point);
		return -1;
	}
	loop_backing(m->source, now, sizeof(now));
	if (strcmp(now, backing)) {
		snprintf(why, len, "%.200s no longer holds the image it held (detached by another program?): "
			 "the filesystem is left unmounted", m->source);
		return -1;
	}
	mount_data(m->super_opts, data, sizeof(data));
	if (mount(m->source, m->point, m->fstype, m->flags, data) &&
	    mount(m->source, m->point, m->fstype, m->flags, NULL)) {
		snprintf(why, len, "mounting %.200s on %.200s again failed (%s): the filesystem is left unmounted",
			 m->source, m->point, strerror(errno));
		return -1;
	}
	return 0;
}

struct cycle_sum {
	uint64_t writes, acked, late, torn, lost;
	char issue[240];
};

/* One cycle: writers, shutdown mid-flight, remount, verify. */
static int crash_cycle(struct qctx *q, const struct mnt *m, const char *tmp, unsigned int n,
		       struct cycle_sum *sum, struct json_object *list, char *why, size_t len)
{
	char target[PATH_MAX + 64], journal[4200];
	struct crash_run r = { target, { .unit = q->unit, .threads = 4, .span = CRASH_SPAN,
					 .duration_ms = 3000 }, { 0 }, 0 };
	struct awr_verify_result vr;
	struct json_object *fig = json_object_new_object();
	char backing[PATH_MAX];
	uint64_t crash_ns = 0;
	pthread_t t;
	int ret, hold;

	json_object_array_add(list, fig);
	snprintf(target, sizeof(target), "%s/awr-qualify-crash.%d.dat", q->dir, (int)getpid());
	q_journal_path(journal, sizeof(journal), tmp, n + 1);
	r.so.journal = journal;
	unlink(target);
	if (pthread_create(&t, NULL, stress_thread, &r)) {
		snprintf(why, len, "cannot start the writers");
		return -1;
	}
	usleep(300000 + (unsigned int)(rand() % 700) * 1000);
	hold = open(m->source, O_RDONLY | O_CLOEXEC);	/* keeps the loop device attached */
	loop_backing(m->source, backing, sizeof(backing));
	ret = shutdown_fs(m->point, &crash_ns);
	pthread_join(t, NULL);
	if (ret) {
		snprintf(why, len, "XFS_IOC_GOINGDOWN on %.200s failed: %s", m->point, strerror(-ret));
		ret = -1;
	} else {
		ret = remount(m, backing, why, len);
	}
	if (hold >= 0)
		close(hold);
	if (ret)
		return -1;
	if (r.ret || r.sr.journal_error) {
		snprintf(why, len, "the writers %s: %s", r.ret ? "could not start" : "lost their journal",
			 strerror(-(r.ret ? r.ret : r.sr.journal_error)));
		return -1;
	}
	q_stress_figures(fig, &r.so, &r.sr);
	ret = q_verify(target, r.so.unit, r.so.span, journal, crash_ns, &vr, fig, sum->issue, sizeof(sum->issue));
	unlink(target);
	if (ret) {
		snprintf(why, len, "cannot verify after the crash: %s", strerror(-ret));
		return -1;
	}
	sum->writes += r.sr.writes;
	sum->acked += vr.acked_writes;
	sum->late += vr.acked_late;
	sum->torn += vr.count[AWR_UNIT_TORN] + vr.count[AWR_UNIT_CORRUPT] + vr.count[AWR_UNIT_MISPLACED];
	sum->lost += vr.lost + vr.unjournaled;
	return 0;
}

void q_crash(struct qctx *q, struct qcheck *c)
{
	unsigned int cycles = q->quick ? 1 : 3, i;
	struct json_object *list = json_object_new_array();
	struct cycle_sum sum = { 0 };
	char why[512], tmp[4096], a[32];
	const char *no;
	struct mnt m;

	no = crash_refusal(q, &m, why, sizeof(why));
	if (no) {
		q_set(c, Q_SKIP, "%s", no);
		json_object_put(list);
		return;
	}
	json_object_object_add(c->figures, "cycles", list);
	if (q_tmpdir(tmp, sizeof(tmp))) {
		q_set(c, Q_FAIL, "cannot make a journal directory in $TMPDIR or /tmp");
		return;
	}
	srand((unsigned int)realtime_ns());
	for (i = 0; i < cycles; i++) {
		if (crash_cycle(q, &m, tmp, i, &sum, list, why, sizeof(why))) {
			q_set(c, Q_FAIL, "cycle %u: %s", i + 1, why);
			goto out;
		}
		if (sum.torn || sum.lost)
			break;
	}
	if (sum.torn || sum.lost)
		q_set(c, Q_FAIL, "after crash %u: %" PRIu64 " torn, corrupt or misplaced and %" PRIu64
		      " lost units; first: %s", i + 1, sum.torn, sum.lost, sum.issue);
	else
		q_set(c, Q_PASS, "%u crash%s (shutdown without log flush during %s atomic writes, log recovery): "
		      "0 torn, 0 lost of %" PRIu64 " acknowledged writes (%" PRIu64 " acknowledged after the crash "
		      "instant counted in flight)", cycles, cycles == 1 ? "" : "es", out_size(q->unit, a, sizeof(a)),
		      sum.acked, sum.late);
out:
	q_rmdir();
}
