// SPDX-License-Identifier: MIT
/*
 * The crash check of qualification, on a filesystem it makes itself: a sparse
 * image in a private directory on the target's filesystem, attached to a
 * loop device, formatted XFS (mkfs.xfs) and mounted on a directory beside
 * it that is a private bind mount (so the mount propagates into no other
 * mount namespace). Journaled atomic writers run there; the
 * filesystem is shut down without flushing its log, unmounted and mounted
 * again (log recovery), then verified against the journal. No filesystem of
 * the user's is ever shut down: before every shutdown the check makes sure
 * that the mount it shuts down is exactly its own (one mount of the device in
 * every namespace a process is in, root "/", its own mount point, holding only
 * its own file),
 * and refuses otherwise, naming what it found.
 *
 * What it proves: writes acknowledged before the crash survive the shutdown
 * and log recovery, and the verifier agrees with the journal. It cannot show
 * untornness: a shutdown cannot tear a write that was sent on this stack.
 * Nor a power cut: the device and its cache run on through the shutdown, so
 * nothing a volatile write cache holds is lost (untorn is not durable). Both
 * are said in the figures (proves, cannot_prove) and a note.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/loop.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "private.h"
#include "qualify.h"

#ifndef XFS_IOC_GOINGDOWN
#define XFS_IOC_GOINGDOWN		_IOR('X', 125, uint32_t)
#endif
#ifndef XFS_FSOP_GOING_FLAGS_NOLOGFLUSH
#define XFS_FSOP_GOING_FLAGS_NOLOGFLUSH	0x2
#endif
#define XFS_MAGIC	0x58465342
#define CRASH_SPAN	(4ULL << 20)
#define CRASH_THREADS	4
#define IMAGE_SIZE	(512ULL << 20)	/* sparse; mkfs.xfs wants 300 MB at least */
#define IMAGE_ROOM	(96ULL << 20)	/* free space the image may come to use */
#define TARGET_NAME	"crash.dat"
#define RUN_LIMIT_MS	10000	/* the writers' time limit: the shutdown must come first */
extern char **environ;

/* The scratch filesystem; static so that a signal handler can take it down. */
static struct scratch {
	char dir[PATH_MAX];	/* private directory (mkdtemp) on the target's filesystem */
	char img[PATH_MAX + 16], mnt[PATH_MAX + 16], log[PATH_MAX + 16];
	char journal[4][PATH_MAX + 16];	/* journal-1..3 (index 0 unused) */
	char dev[32];			/* /dev/loopN */
	dev_t rdev;
	int loop_fd;			/* held open from attach to the end: the device is ours */
	volatile int bound;		/* sc.mnt is bind-mounted on itself (private) */
} sc = { .loop_fd = -1 };

/* ---------------------------------------------------------------- set-up */

/* mkfs.xfs on the image; 1: not installed. */
static int make_xfs(char *why, size_t len)
{
	char *argv[] = { "mkfs.xfs", "-f", "-q", sc.img, NULL };
	posix_spawn_file_actions_t fa;
	int status, ret;
	pid_t pid;
	FILE *f;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, sc.log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	ret = posix_spawnp(&pid, "mkfs.xfs", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret == ENOENT)
		return 1;
	if (ret) {
		snprintf(why, len, "cannot run mkfs.xfs: %s", strerror(ret));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	snprintf(why, len, "mkfs.xfs on its scratch image failed (status %d): ", status);
	f = fopen(sc.log, "re");
	if (f) {
		size_t n = strlen(why);

		if (!fgets(why + n, (int)(len - n), f))
			why[n] = '\0';
		why[strcspn(why, "\n")] = '\0';
		fclose(f);
	}
	return -1;
}

/* Attach the image to a free loop device (autoclear: it detaches itself when no longer used). */
static int attach_loop(char *why, size_t len)
{
	struct loop_config cfg = { .info = { .lo_flags = LO_FLAGS_AUTOCLEAR } };
	int ctl, img, n, ret = -1;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		snprintf(why, len, "cannot open /dev/loop-control: %s", strerror(errno));
		return errno == ENOENT ? 1 : (errno == EACCES || errno == EPERM) ? 2 : -1;
	}
	img = open(sc.img, O_RDWR | O_CLOEXEC);
	if (img < 0) {
		snprintf(why, len, "cannot open the scratch image: %s", strerror(errno));
		close(ctl);
		return -1;
	}
	cfg.fd = (uint32_t)img;
	for (int tries = 0; tries < 10 && ret; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			snprintf(why, len, "no free loop device: %s", strerror(errno));
			break;
		}
		snprintf(sc.dev, sizeof(sc.dev), "/dev/loop%d", n);
		sc.loop_fd = open(sc.dev, O_RDWR | O_CLOEXEC);
		if (sc.loop_fd < 0) {
			snprintf(why, len, "cannot open %s: %s", sc.dev, strerror(errno));
			break;
		}
		if (!ioctl(sc.loop_fd, LOOP_CONFIGURE, &cfg)) {
			ret = 0;
			break;
		}
		snprintf(why, len, "cannot attach the scratch image to %s: %s", sc.dev,
			 strerror(errno));
		close(sc.loop_fd);
		sc.loop_fd = -1;
		if (errno != EBUSY)	/* taken by someone else meanwhile: try the next */
			break;
	}
	close(img);
	close(ctl);
	if (!ret) {
		struct stat st;

		if (fstat(sc.loop_fd, &st))
			return -1;
		sc.rdev = st.st_rdev;
	}
	return ret;
}

/*
 * The mount point: a private bind mount of the directory on itself, so that
 * the scratch XFS mounted on it propagates into no other mount namespace
 * (a shared parent would copy it into every peer).
 */
static int private_mountpoint(char *why, size_t len)
{
	if (mount(sc.mnt, sc.mnt, NULL, MS_BIND, NULL)) {
		snprintf(why, len, "cannot bind-mount %.300s on itself: %s", sc.mnt,
			 strerror(errno));
		return errno == EPERM ? 2 : -1;
	}
	sc.bound = 1;
	if (mount(NULL, sc.mnt, NULL, MS_PRIVATE, NULL)) {
		snprintf(why, len, "cannot make %.300s a private mount: %s", sc.mnt,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int mount_scratch(char *why, size_t len)
{
	if (mount(sc.dev, sc.mnt, "xfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		snprintf(why, len, "mounting its scratch XFS (%s on %.300s) failed: %s", sc.dev,
			 sc.mnt, strerror(errno));
		return -1;
	}
	return 0;
}

/* Also called from a signal handler: system calls only. */
void awr__q_crash_cleanup(void)
{
	if (!sc.dir[0])
		return;
	/*
	 * The scratch XFS (whether or not its mount call had returned), then the
	 * private bind under it; on a directory that is no mount root umount2()
	 * fails (EINVAL), so nothing else can be unmounted here.
	 */
	if (sc.bound) {
		umount2(sc.mnt, MNT_DETACH);
		umount2(sc.mnt, MNT_DETACH);
		sc.bound = 0;
	}
	if (sc.loop_fd >= 0) {
		ioctl(sc.loop_fd, LOOP_CLR_FD, 0);	/* deferred by autoclear while mounted */
		close(sc.loop_fd);
		sc.loop_fd = -1;
	}
	unlink(sc.img);
	unlink(sc.log);
	for (int i = 1; i < 4; i++)
		unlink(sc.journal[i]);
	rmdir(sc.mnt);
	rmdir(sc.dir);
	sc.dir[0] = '\0';
}

/*
 * Image, loop device, XFS, mount. 0: ready; 1: SKIP (why says the missing
 * piece); -1: FAIL.
 */
static int scratch_up(const struct awr__qctx *q, char *why, size_t len)
{
	struct statvfs vf;
	int fd, ret;

	if (statvfs(q->dir, &vf) == 0 && (uint64_t)vf.f_bavail * vf.f_frsize < IMAGE_ROOM) {
		snprintf(why, len, "%.200s has less than %llu MiB free for the scratch image",
			 q->dir,
			 (unsigned long long)(IMAGE_ROOM >> 20));
		return 1;
	}
	snprintf(sc.dir, sizeof(sc.dir), "%.4000s/.awr-crash.XXXXXX", q->dir);
	if (!mkdtemp(sc.dir)) {
		snprintf(why, len, "cannot make a private directory in %.200s: %s", q->dir,
			 strerror(errno));
		sc.dir[0] = '\0';
		return -1;
	}
	snprintf(sc.img, sizeof(sc.img), "%s/xfs.img", sc.dir);
	snprintf(sc.mnt, sizeof(sc.mnt), "%s/mnt", sc.dir);
	snprintf(sc.log, sizeof(sc.log), "%s/mkfs.log", sc.dir);
	for (int i = 1; i < 4; i++)
		snprintf(sc.journal[i], sizeof(sc.journal[i]), "%s/journal-%d", sc.dir, i);
	if (mkdir(sc.mnt, 0700)) {
		snprintf(why, len, "cannot make %.300s: %s", sc.mnt, strerror(errno));
		return -1;
	}
	fd = open(sc.img, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)IMAGE_SIZE)) {
		snprintf(why, len, "cannot make the scratch image in %.300s: %s", sc.dir,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	ret = make_xfs(why, len);
	if (ret == 1) {
		snprintf(why, len, "mkfs.xfs is not installed (xfsprogs): the crash check formats "
			 "its own scratch XFS");
		return 1;
	}
	if (ret)
		return -1;
	ret = attach_loop(why, len);
	if (ret == 0)
		ret = private_mountpoint(why, len);
	if (ret > 0) {	/* 1: no loop support, 2: not privileged */
		if (ret == 2)
			snprintf(why + strlen(why), len - strlen(why), " (the crash check needs "
				 "root for loop devices and mounts)");
		return 1;
	}
	if (ret)
		return -1;
	unlink(sc.img);		/* the loop device holds it: nothing is left if qualify dies */
	return mount_scratch(why, len);
}

/* -------------------------------------------------- is the mount exactly ours? */

struct found {
	unsigned int own;	/* lines in our namespace: the mount itself (root "/", our point) */
	unsigned int foreign;	/* other lines: other mount points, bind mounts, other namespaces */
	char what[400];		/* the first few foreign ones, named */
};

static void add_foreign(struct found *fd, const char *one)
{
	size_t n = strlen(fd->what);

	if (++fd->foreign <= 3)
		snprintf(fd->what + n, sizeof(fd->what) - n, "%s%s", n ? "; " : "", one);
}

struct scan {
	struct found *fd;
	bool own_ns;
	long pid;
};

/* One mount (awr__mountinfo_each(): libmount, unescaped): ours, foreign, or another device. */
static int scan_one(const struct awr__mount *m, void *arg)
{
	const struct scan *s = arg;
	char one[PATH_MAX];

	if (makedev(m->major, m->minor) != sc.rdev)
		return 0;
	if (s->own_ns && !strcmp(m->root, "/") && !strcmp(m->target, sc.mnt)) {
		s->fd->own++;
		return 0;
	}
	if (s->own_ns)
		snprintf(one, sizeof(one), "%.200s (root %.200s)", m->target, m->root);
	else
		snprintf(one, sizeof(one), "%.200s (root %.100s) in the mount namespace of "
			 "pid %ld", m->target, m->root, s->pid);
	add_foreign(s->fd, one);
	return 0;
}

/* Scan one mountinfo for lines of our device; a table that cannot be read adds nothing. */
static void scan_mountinfo(const char *path, bool own_ns, long pid, struct found *fd)
{
	struct scan s = { fd, own_ns, pid };

	awr__mountinfo_each(path, scan_one, &s);
}

/* Every mount of our device: ours, and others in any namespace a process lives in. */
static void find_mounts(struct found *fd)
{
	struct stat self, other;
	ino_t seen[64];
	unsigned int nseen = 0;
	char path[64];
	struct dirent *d;
	DIR *proc;

	memset(fd, 0, sizeof(*fd));
	scan_mountinfo("/proc/self/mountinfo", true, 0, fd);
	if (stat("/proc/self/ns/mnt", &self))
		return;
	proc = opendir("/proc");
	if (!proc)
		return;
	while ((d = readdir(proc))) {
		long pid = strtol(d->d_name, NULL, 10);
		bool dup = false;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", pid);
		if (stat(path, &other) || other.st_ino == self.st_ino)
			continue;
		for (unsigned int i = 0; i < nseen && !dup; i++)
			dup = seen[i] == other.st_ino;
		if (dup)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = other.st_ino;
		snprintf(path, sizeof(path), "/proc/%ld/mountinfo", pid);
		scan_mountinfo(path, false, pid, fd);
	}
	closedir(proc);
}

/* Names in the scratch filesystem's root other than our target. */
static int foreign_files(int root_fd, char *names, size_t len)
{
	struct dirent *d;
	int n = 0, dfd = dup(root_fd);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;

	names[0] = '\0';
	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		snprintf(names, len, "(cannot read it: %s)", strerror(errno));
		return 1;
	}
	while ((d = readdir(dir))) {
		size_t used = strlen(names);

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    !strcmp(d->d_name, TARGET_NAME))
			continue;
		if (n++ < 3)
			snprintf(names + used, len - used, "%s%.100s", used ? ", " : "", d->d_name);
	}
	closedir(dir);
	return n;
}

/*
 * AWR_QUALIFY_CRASH_PAUSE=1 (a test seam: read only in a -Dtest_hooks=true build,
 * awr__test_env()): stop (SIGSTOP) once,
 * before the first check of the scratch XFS, so that a test can change what
 * the check sees at a known point and let qualify go on with SIGCONT. Without
 * it a test racing a polling loop against the first shutdown lost under load.
 */
static void pause_for_test(void)
{
	static bool paused;
	const char *e = awr__test_env("AWR_QUALIFY_CRASH_PAUSE");

	if (!paused && e && !strcmp(e, "1")) {
		paused = true;
		raise(SIGSTOP);
	}
}

/*
 * Open the root of the filesystem to shut down, and only when it is exactly
 * our scratch XFS: our device, mounted once in all namespaces, at our mount
 * point with root "/", holding nothing but our target. Returns the fd, or
 * -1 with the refusal in @why.
 */
static int open_own_root(char *why, size_t len)
{
	struct found fd;
	struct statfs sf;
	struct stat st;
	char names[300];
	int root;

	pause_for_test();
	find_mounts(&fd);
	if (fd.foreign || fd.own != 1) {
		snprintf(why, len, "refusing to shut down its scratch XFS: %s is mounted %u time%s "
			 "at %.300s and %u time%s elsewhere%s%s; only a filesystem mounted once, "
			 "by qualify, is shut down", sc.dev, fd.own, fd.own == 1 ? "" : "s", sc.mnt,
			 fd.foreign, fd.foreign == 1 ? "" : "s",
			 fd.foreign ? ": " : "", fd.what);
		return -1;
	}
	root = open(sc.mnt, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0 || fstat(root, &st) || fstatfs(root, &sf) || st.st_dev != sc.rdev ||
	    sf.f_type != XFS_MAGIC) {
		snprintf(why, len, "refusing to shut down: %.300s is not the root of its scratch "
			 "XFS on %s (something is mounted over it?)", sc.mnt, sc.dev);
		if (root >= 0)
			close(root);
		return -1;
	}
	if (foreign_files(root, names, sizeof(names))) {
		snprintf(why, len, "refusing to shut down its scratch XFS at %.300s: it holds "
			 "files qualify did not make: %s", sc.mnt, names);
		close(root);
		return -1;
	}
	return root;
}

/* ---------------------------------------------------------------- cycles */

struct crash_run {
	const char *target;
	struct awr_stress_opts so;
	struct awr_stress_result sr;
	int ret;
	volatile int done;
};

static void *stress_thread(void *arg)
{
	struct crash_run *r = arg;

	r->ret = awr_stress_run(r->target, &r->so, &r->sr);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Wait until the journal holds an acknowledgement: before the first ACK it
 * has the RUN record and at most one INTENT per writer (48 bytes each).
 */
static bool first_ack(const char *journal, struct crash_run *r)
{
	off_t need = 48 * (CRASH_THREADS + 2);
	struct stat st;

	for (int i = 0; i < 2000; i++) {
		if (!stat(journal, &st) && st.st_size >= need)
			return true;
		if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
			return false;
		usleep(5000);
	}
	return false;
}

/* Unmount the shut-down filesystem and mount it again (log recovery), only when ours alone. */
static int remount(char *why, size_t len)
{
	struct found fd;
	int tries = 0;

	while (umount2(sc.mnt, 0)) {
		if (errno != EBUSY || ++tries > 50) {
			snprintf(why, len, "its shut-down scratch XFS at %.300s cannot be "
				 "unmounted: %s", sc.mnt, strerror(errno));
			return -1;
		}
		usleep(100000);
	}
	find_mounts(&fd);
	if (fd.own || fd.foreign) {
		snprintf(why, len, "after its unmount %s is still mounted (%.400s): not "
			 "mounting it again", sc.dev, fd.foreign ? fd.what : sc.mnt);
		return -1;
	}
	return mount_scratch(why, len);
}

struct cycle_sum {
	uint64_t writes, acked, late, torn, lost;
	char issue[240];
};

/* After the remount: the writers stopped by the shutdown, everything acknowledged is there. */
static int cycle_verify(const char *target, struct awr_qualify_cycle *cy, struct cycle_sum *sum,
			char *why, size_t len)
{
	const struct awr_stress_result *sr = &cy->stress.result;
	const struct awr_verify_result *vr = &cy->stress.verify;
	int ret;

	if (sr->error != -EIO) {
		snprintf(why, len, "no crash: the writers were not stopped by EIO from the "
			 "shutdown but %s",
			 sr->error ? strerror(-sr->error) : "by their time limit");
		return -1;
	}
	ret = awr__q_verify(target, &cy->stress, cy->crash_ns, sum->issue, sizeof(sum->issue));
	unlink(target);
	if (ret) {
		snprintf(why, len, "cannot verify after the crash: %s", strerror(-ret));
		return -1;
	}
	if (vr->acked_late > CRASH_THREADS) {
		snprintf(why, len, "%" PRIu64 " writes acknowledged after the crash instant, more "
			 "than one per writer: the filesystem went on taking writes",
			 vr->acked_late);
		return -1;
	}
	if (vr->acked_writes + vr->acked_late != sr->writes) {
		snprintf(why, len, "the journal holds %" PRIu64 " + %" PRIu64 " acknowledged "
			 "writes, the writers made %" PRIu64, vr->acked_writes, vr->acked_late,
			 sr->writes);
		return -1;
	}
	sum->writes += sr->writes;
	sum->acked += vr->acked_writes;
	sum->late += vr->acked_late;
	sum->torn += vr->count[AWR_UNIT_TORN] + vr->count[AWR_UNIT_CORRUPT] +
		     vr->count[AWR_UNIT_MISPLACED];
	sum->lost += vr->lost + vr->unjournaled;
	return 0;
}

/* Shut the scratch XFS down (only when it is ours alone); the writers run on until EIO. */
static int shut_down(struct awr_qualify_cycle *cy, char *why, size_t len)
{
	uint32_t flags = XFS_FSOP_GOING_FLAGS_NOLOGFLUSH;
	int ret = 0, root = open_own_root(why, len);

	if (root < 0)
		return -1;	/* refused: the writers run out their time on the live filesystem */
	cy->crash_ns = awr__realtime_ns();	/* the crash instant: just before the shutdown */
	if (ioctl(root, XFS_IOC_GOINGDOWN, &flags)) {
		snprintf(why, len, "XFS_IOC_GOINGDOWN on its scratch XFS failed: %s",
			 strerror(errno));
		ret = -1;
	}
	close(root);
	return ret;
}

/* One cycle: writers, shutdown mid-flight, remount, verify. */
static int crash_cycle(unsigned int n, uint32_t unit, struct awr_qualify_cycle *cy,
		       struct cycle_sum *sum, char *why, size_t len)
{
	char target[PATH_MAX + 64];
	struct crash_run r = { target, { .unit = unit, .threads = CRASH_THREADS,
					 .span = CRASH_SPAN, .duration_ms = RUN_LIMIT_MS,
					 .journal = sc.journal[n] }, { 0 }, 0, 0 };
	unsigned int delay_ms = 100 + (unsigned int)(rand() % 700);
	pthread_t t;
	int ret;

	snprintf(target, sizeof(target), "%s/" TARGET_NAME, sc.mnt);
	unlink(target);
	if (pthread_create(&t, NULL, stress_thread, &r)) {
		snprintf(why, len, "cannot start the writers");
		return -1;
	}
	if (!first_ack(sc.journal[n], &r)) {
		__atomic_store_n(&r.done, 1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		snprintf(why, len, "the writers made no acknowledged write%s%s",
			 r.ret ? ": " : " within 10 s", r.ret ? strerror(-r.ret) : "");
		return -1;
	}
	usleep(delay_ms * 1000);
	ret = shut_down(cy, why, len);
	pthread_join(t, NULL);
	if (ret)
		return -1;
	cy->crashed = true;
	cy->delay_ms = delay_ms;
	if (remount(why, len))
		return -1;
	if (r.ret || r.sr.journal_error) {
		snprintf(why, len, "the writers %s: %s", r.ret ? "could not start" :
			 "lost their journal", strerror(-(r.ret ? r.ret : r.sr.journal_error)));
		return -1;
	}
	cy->stress.ran = true;
	cy->stress.opts = r.so;
	cy->stress.result = r.sr;
	return cycle_verify(target, cy, sum, why, len);
}

#define CRASH_PROVES "after XFS is shut down mid-write without a log flush and recovered, " \
	"every write acknowledged with RWF_DSYNC is there and no unit is torn, corrupt or " \
	"misplaced"
#define CRASH_CANNOT "a power cut: the device and its write cache run on through the " \
	"shutdown, so what a volatile cache (\"write back\") holds is never lost here, nor " \
	"anything torn inside the device; a power pull shows those"

/* The target's write cache in words (queue/write_cache, fua), as awr probe says it. */
static const char *write_cache_text(const struct awr_sysfs_view *y, char *buf, size_t len)
{
	int wb = y->write_cache == AWR_WRITE_CACHE_UNKNOWN ? -1 :
		 y->write_cache == AWR_WRITE_CACHE_WRITE_BACK;

	return awr__write_cache_text(wb, y->fua == AWR_FUA_UNKNOWN ? -1 : y->fua == AWR_FUA_YES,
				     buf, len);
}

/* What the check proves and cannot, with the target's write cache: figures and one note. */
static void crash_scope(struct awr__qctx *q)
{
	const struct awr_sysfs_view *y = awr_probe_sysfs(q->r->probe);
	char words[64];

	q->r->crash.proves = CRASH_PROVES;
	q->r->crash.cannot_prove = CRASH_CANNOT;
	if (!(q->flags & AWR_QUALIFY_CRASH_TEST))
		return;
	awr__q_note(q, "crash check: proves that %s; cannot prove %s (%s: %s)", CRASH_PROVES,
		    CRASH_CANNOT, y ? y->disk : "the target's disk",
		    y ? write_cache_text(y, words, sizeof(words)) : "unknown");
}

/* The unit: the qualify unit within what XFS offers on this kernel; 0 when it offers none. */
static uint32_t scratch_unit(const struct awr__qctx *q, char *why, size_t len)
{
	struct awr_probe *p;
	const struct awr_limits *l;
	uint32_t u = q->r->unit ? q->r->unit : 16384;
	char file[PATH_MAX + 64];
	int fd, ret;

	/* a file there, as the writers make it */
	snprintf(file, sizeof(file), "%s/" TARGET_NAME, sc.mnt);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, len, "cannot make a file on its scratch XFS: %s", strerror(errno));
		return 0;
	}
	close(fd);
	ret = awr_probe_path(file, AWR_PROBE_NO_DEVICE, &p);
	unlink(file);
	if (ret) {
		snprintf(why, len, "cannot probe a file on its scratch XFS: %s", strerror(-ret));
		return 0;
	}
	l = awr_probe_effective(p);
	if (!l->supported) {
		snprintf(why, len, "XFS on this kernel offers no atomic writes (its scratch XFS "
			 "on %s)", sc.dev);
		u = 0;
	} else if (u < l->unit_min) {
		u = l->unit_min;
	} else if (u > l->unit_max) {
		u = l->unit_max;
	}
	awr_probe_free(p);
	return u;
}

static void scratch_figures(struct awr_qualify_crash *x)
{
	x->scratch_tried = true;
	snprintf(x->directory, sizeof(x->directory), "%s", sc.dir);
	x->image_size = IMAGE_SIZE;
	snprintf(x->device, sizeof(x->device), "%s", sc.dev);
	snprintf(x->mount, sizeof(x->mount), "%s", sc.mnt);
}

/* The cycles; the check's verdict. */
static void run_cycles(struct awr__qctx *q, struct awr_qualify_check *c, uint32_t unit)
{
	unsigned int cycles = q->flags & AWR_QUALIFY_QUICK ? 1 : 3, i;
	struct awr_qualify_crash *x = &q->r->crash;
	struct cycle_sum sum = { 0 };
	char why[1280], a[32];

	srand((unsigned int)awr__realtime_ns());
	for (i = 0; i < cycles; i++) {
		x->nr_cycles = i + 1;
		if (crash_cycle(i + 1, unit, &x->cycles[i], &sum, why, sizeof(why))) {
			awr__q_set(c, AWR_QUALIFY_FAIL, "cycle %u: %s", i + 1, why);
			return;
		}
		if (sum.torn || sum.lost)
			break;
	}
	if (sum.torn || sum.lost)
		awr__q_set(c, AWR_QUALIFY_FAIL, "after crash %u: %" PRIu64 " torn, corrupt or "
			   "misplaced and %" PRIu64 " lost units; first: %s", i + 1, sum.torn,
			   sum.lost, sum.issue);
	else
		awr__q_set(c, AWR_QUALIFY_PASS, "%u crash%s of its own scratch XFS (%s in %s): "
			   "shut down without log flush during %s atomic writes, writers stopped "
			   "by EIO, log recovery: 0 lost of %" PRIu64 " acknowledged writes (%"
			   PRIu64 " acknowledged after the crash instant, in flight); shows "
			   "durability through a shutdown and the verifier agreeing with the "
			   "journal, not untornness, which a shutdown cannot provoke, nor a power "
			   "cut (see the note)", cycles, cycles == 1 ? "" : "es", sc.dev, q->dir,
			   awr_format_size(unit, a, sizeof(a)), sum.acked, sum.late);
}

void awr__q_crash(struct awr__qctx *q, struct awr_qualify_check *c)
{
	char why[1280];
	uint32_t unit;
	int ret;

	crash_scope(q);
	if (!(q->flags & AWR_QUALIFY_CRASH_TEST)) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "--crash not given: the crash check formats and "
			   "shuts down a scratch XFS of its own");
		return;
	}
	if (q->r->block_device || !q->dir[0]) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "the target is a block device: the crash check "
			   "makes its scratch XFS image on the target's filesystem; give a "
			   "directory");
		return;
	}
	ret = scratch_up(q, why, sizeof(why));
	scratch_figures(&q->r->crash);
	if (ret) {
		awr__q_set(c, ret > 0 ? AWR_QUALIFY_SKIP : AWR_QUALIFY_FAIL, "%s", why);
		goto out;
	}
	unit = scratch_unit(q, why, sizeof(why));
	if (!unit)
		awr__q_set(c, AWR_QUALIFY_SKIP, "%s", why);
	else
		run_cycles(q, c, unit);
out:
	awr__q_crash_cleanup();
}
