// SPDX-License-Identifier: MIT
/*
 * Description: awr_db_qualify() called directly on a real MariaDB data directory
 * (mariadb-install-db, 16 KiB pages) on the scratch XFS: the page size read from
 * the engine's files in every file, the redo log left out, the verdict not safe
 * without atomic writes (the loop device has none) with the reason named, and
 * guaranteed with AWR_DB_ATOMIC_WRITES (statx: XFS takes RWF_ATOMIC pages).
 * Each of three checks then changes the answer: the same files on tmpfs (statx:
 * no atomic writes) are not safe, a tablespace whose page 0 is damaged makes the
 * directory unknown and is named, and the directory is only read. A file, a
 * missing directory and a directory of no InnoDB file are refused. The report groups the files'
 * reasons: one sentence that every file gives, once; and counts the files of each verdict.
 *
 *   db_verdict_lib   (run under with-scratch-xfs.sh)
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"

#define PAGE 16384

static char work[256];
static char shm[300];

static void unmount_shm(void)
{
	if (shm[0])
		umount2(shm, MNT_DETACH);
}

/* A shell command, formatted: its exit status, -1 when it did not exit. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (ret < 0 || (size_t)ret >= sizeof(cmd))
		return -1;
	ret = system(cmd);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

static struct awr_db_report *qualify(const char *dir, unsigned int flags)
{
	struct awr_db_report *r = NULL;
	int ret = awr_db_qualify(dir, AWR_DB_INNODB, flags, &r);

	T_EXPECT(!ret && r, "awr_db_qualify(%s, %#x): %s", dir, flags, strerror(-ret));
	if (!r)
		exit(t_done("db_verdict_lib"));
	return r;
}

static bool any_reason(const struct awr_db_file *f, const char *text)
{
	for (unsigned int i = 0; i < f->nr_reasons; i++)
		if (strstr(f->reasons[i], text))
			return true;
	return false;
}

static bool skipped(const struct awr_db_report *r, const char *name)
{
	for (unsigned int i = 0; i < r->nr_skipped; i++)
		if (strstr(r->skipped[i], name))
			return true;
	return false;
}

/* Without the preload: plain page writes on a device with no atomic writes. */
/* The report's reason groups: every file's reason in one group, counted once per file */
static void grouped(const struct awr_db_report *r)
{
	unsigned int given = 0, counted = 0;

	for (unsigned int i = 0; i < r->nr_files; i++)
		given += r->files[i].nr_reasons;
	for (unsigned int j = 0; j < r->nr_reason_groups; j++)
		counted += r->reason_groups[j].files;
	T_EXPECT(r->nr_reason_groups && r->nr_reason_groups < given,
		 "%u reason groups of %u reasons", r->nr_reason_groups, given);
	T_EXPECT_EQ(counted + r->reason_groups_more, given, "reasons counted in their groups");
	T_EXPECT(r->nr_reason_groups && r->reason_groups[0].files == r->nr_files &&
		 any_reason(&r->files[0], r->reason_groups[0].text),
		 "the first group given by every file");
}

static void not_safe(const char *my)
{
	struct awr_db_report *r = qualify(my, 0);

	T_EXPECT_EQ(r->engine, AWR_DB_INNODB, "engine");
	T_EXPECT_EQ(r->page_size, PAGE, "the page size read from ibdata1");
	T_EXPECT(strstr(r->page_size_from, "ibdata1"), "page_size_from: %s", r->page_size_from);
	T_EXPECT(!r->atomic_writes, "atomic_writes without the flag");
	T_EXPECT_EQ(r->verdict, AWR_DB_NOT_SAFE, "verdict without atomic writes");
	T_EXPECT(r->nr_files >= 2, "%u data files (ibdata1, the mysql tablespaces)", r->nr_files);
	T_EXPECT(skipped(r, "ib_logfile0"), "the redo log ib_logfile0 not among the skipped");
	for (unsigned int i = 0; i < r->nr_files; i++) {
		const struct awr_db_file *f = &r->files[i];

		T_EXPECT(f->page_size == PAGE, "%s: page size %u", f->path, f->page_size);
		T_EXPECT(!strcmp(f->fs, "xfs"), "%s: fs %s", f->path, f->fs);
		T_EXPECT(f->verdict == AWR_DB_NOT_SAFE &&
			 any_reason(f, "writes nothing atomically"),
			 "%s: %s, %s", f->path, awr_db_verdict_name(f->verdict),
			 f->nr_reasons ? f->reasons[0] : "no reason");
		T_EXPECT(!f->hw_atomic, "%s: the loop device taken as atomic", f->path);
	}
	grouped(r);
	T_EXPECT(r->nr_files_by_verdict[AWR_DB_NOT_SAFE] == r->nr_files &&
		 !r->nr_files_by_verdict[AWR_DB_GUARANTEED], "files by verdict: %u not safe of %u",
		 r->nr_files_by_verdict[AWR_DB_NOT_SAFE], r->nr_files);
	printf("ok: not safe without atomic writes, %u files of %u bytes pages\n", r->nr_files,
	       r->page_size);
	awr_db_report_free(r);
}

/* With the preload: XFS takes RWF_ATOMIC writes of a page (statx), the kernel enforces them. */
static void guaranteed(const char *my)
{
	struct awr_db_report *r = qualify(my, AWR_DB_ATOMIC_WRITES);

	T_EXPECT(r->atomic_writes, "atomic_writes: %s", r->atomic_why);
	T_EXPECT(r->verdict == AWR_DB_GUARANTEED, "verdict %s with atomic writes (%s)",
		 awr_db_verdict_name(r->verdict), r->nr_files && r->files[0].nr_reasons ?
		 r->files[0].reasons[0] : "no reason");
	for (unsigned int i = 0; i < r->nr_files; i++) {
		const struct awr_db_file *f = &r->files[i];

		T_EXPECT(f->verdict == AWR_DB_GUARANTEED && f->statx_atomic &&
			 f->unit_min <= PAGE && PAGE <= f->unit_max && !f->by_provider &&
			 !f->nr_reasons,
			 "%s: %s, statx %d %u..%u", f->path, awr_db_verdict_name(f->verdict),
			 f->statx_atomic, f->unit_min, f->unit_max);
	}
	T_EXPECT(!strncmp(r->advice, "Turn the doublewrite buffer off", 31), "advice: %s",
		 r->advice);
	T_EXPECT(r->nr_conditions >= 1, "no condition named for the guarantee");
	T_EXPECT(r->nr_files_by_verdict[AWR_DB_GUARANTEED] == r->nr_files, "files by verdict: %u "
		 "guaranteed of %u", r->nr_files_by_verdict[AWR_DB_GUARANTEED], r->nr_files);
	printf("ok: guaranteed with atomic writes: %s\n", r->advice);
	awr_db_report_free(r);
}

/* The same files on tmpfs: statx says no atomic writes, so not safe even with them. */
static void on_tmpfs(const char *my)
{
	char copy[320];
	struct awr_db_report *r;

	snprintf(shm, sizeof(shm), "%s/shm", work);
	if (mkdir(shm, 0700) || mount("tmpfs", shm, "tmpfs", 0, "size=256m")) {
		T_EXPECT(0, "tmpfs at %s: %s", shm, strerror(errno));
		shm[0] = 0;
		return;
	}
	atexit(unmount_shm);
	T_EXPECT(!run("cp -a %s %s/my", my, shm), "cp -a %s %s/my", my, shm);
	snprintf(copy, sizeof(copy), "%s/my", shm);
	r = qualify(copy, AWR_DB_ATOMIC_WRITES);
	T_EXPECT(r->verdict == AWR_DB_NOT_SAFE, "tmpfs with atomic writes: %s",
		 awr_db_verdict_name(r->verdict));
	T_EXPECT(r->nr_files && !r->files[0].statx_atomic &&
		 any_reason(&r->files[0], "takes no atomic writes"), "tmpfs: %s",
		 r->nr_files && r->files[0].nr_reasons ? r->files[0].reasons[0] : "no reason");
	printf("ok: the same files on tmpfs: not safe (%s)\n",
	       r->nr_files && r->files[0].nr_reasons ? r->files[0].reasons[0] : "");
	awr_db_report_free(r);
}

/* A tablespace whose page 0 is not an FSP header page: that file, and the directory, unknown. */
static void damaged(const char *my)
{
	static const unsigned char type7[2] = { 0, 7 };	/* FIL_PAGE_TYPE 7, not 8 (FSP_HDR) */
	char path[600];
	struct awr_db_report *r;
	const struct awr_db_file *hit = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/mysql/innodb_table_stats.ibd", my);
	fd = open(path, O_WRONLY);
	T_EXPECT(fd >= 0 && pwrite(fd, type7, 2, 24) == 2 && !fsync(fd), "damage %s: %s", path,
		 strerror(errno));
	if (fd >= 0)
		close(fd);
	r = qualify(my, AWR_DB_ATOMIC_WRITES);
	T_EXPECT(r->verdict == AWR_DB_UNKNOWN, "a damaged page 0: the directory %s",
		 awr_db_verdict_name(r->verdict));
	for (unsigned int i = 0; i < r->nr_files; i++)
		if (!strcmp(r->files[i].path, "mysql/innodb_table_stats.ibd"))
			hit = &r->files[i];
	T_EXPECT(hit && hit->verdict == AWR_DB_UNKNOWN && hit->nr_reasons &&
		 strstr(hit->reasons[0], "page 0 is of type 7"), "the damaged file: %s",
		 hit && hit->nr_reasons ? hit->reasons[0] : "not listed");
	printf("ok: a damaged page 0: unknown, named: %s\n", hit && hit->nr_reasons ?
	       hit->reasons[0] : "");
	awr_db_report_free(r);
}

static void refusals(const char *my)
{
	struct awr_db_report *r = NULL;
	char path[600];
	int ret;

	snprintf(path, sizeof(path), "%s/ibdata1", my);
	ret = awr_db_qualify(path, AWR_DB_INNODB, 0, &r);
	T_EXPECT(ret == -ENOTDIR, "a file: %s", strerror(-ret));
	snprintf(path, sizeof(path), "%s/nope", my);
	ret = awr_db_qualify(path, AWR_DB_INNODB, 0, &r);
	T_EXPECT(ret == -ENOENT, "a missing directory: %s", strerror(-ret));
	T_EXPECT(!strcmp(strrchr(awr_last_error(), ':'), ": No such file or directory"),
		 "it says why: %s", awr_last_error());
	snprintf(path, sizeof(path), "%s/performance_schema", my);
	ret = awr_db_qualify(path, AWR_DB_INNODB, 0, &r);
	T_EXPECT(ret == -ENODATA, "a directory of no InnoDB file: %s", strerror(-ret));
	T_EXPECT(strstr(awr_last_error(), "/performance_schema holds no innodb data file (ibdata1, "
			"undoNNN, *.ibd): is it the data directory") != NULL, "it says why: %s",
		 awr_last_error());
	ret = awr_db_qualify(path, AWR_DB_ANY, 0, &r);
	T_EXPECT(ret == -EMEDIUMTYPE && strstr(awr_last_error(), "holds the files of neither"),
		 "no engine's files: %s", awr_last_error());
	ret = awr_db_qualify(my, AWR_DB_POSTGRESQL, 0, &r);
	T_EXPECT(ret == -ENODATA, "InnoDB files read as PostgreSQL: %s", strerror(-ret));
	printf("ok: a file, a missing directory and a directory of no data file refused\n");
}

/* Every entry's size, mtime and inode: the verdict only reads. */
static int snapshot(const char *my, const char *name)
{
	return run("find %s -printf '%%P %%s %%T@ %%i\\n' | sort >%s/%s", my, work, name);
}

/* The names: words for text, snake_case for JSON, an engine's name read back by the parser */
static void names(void)
{
	T_EXPECT(!strcmp(awr_db_verdict_text(AWR_DB_NOT_SAFE), "not safe") &&
		 !strcmp(awr_db_verdict_text(AWR_DB_DEVICE_IMPLICIT), "device-implicit") &&
		 !strcmp(awr_db_verdict_text(AWR_DB_GUARANTEED), "guaranteed") &&
		 !strcmp(awr_db_verdict_text(AWR_DB_UNKNOWN), "unknown"), "verdicts in words");
	T_EXPECT(!strcmp(awr_db_verdict_name(AWR_DB_NOT_SAFE), "not_safe"), "not_safe in JSON");
	for (int e = AWR_DB_INNODB; e <= AWR_DB_POSTGRESQL; e++)
		T_EXPECT((int)awr_db_engine_parse(awr_db_engine_name((enum awr_db_engine)e)) == e,
			 "engine %d's name parses back", e);
	T_EXPECT(!strcmp(awr_db_engine_name(AWR_DB_INNODB), "innodb"), "innodb");
}

int main(void)
{
	const char *scratch = getenv("AWR_SCRATCH_DIR");
	char my[300];

	names();

	if (!scratch)
		T_SKIP("run under with-scratch-xfs.sh (AWR_SCRATCH_DIR)");
	if (run("command -v mariadb-install-db >/dev/null"))
		T_SKIP("MariaDB is not installed (package mariadb-server: mariadb-install-db)");
	snprintf(work, sizeof(work), "%s/dbv", scratch);
	snprintf(my, sizeof(my), "%s/my", work);
	if (run("mkdir -p %s/tmp && mariadb-install-db --no-defaults --tmpdir=%s/tmp --datadir=%s "
		"--user=root --auth-root-authentication-method=normal --skip-test-db "
		"--innodb-page-size=%d >%s/install.log 2>&1", work, work, my, PAGE, work)) {
		run("tail -n 20 %s/install.log", work);
		T_SKIP("mariadb-install-db failed (its log above)");
	}
	T_EXPECT(!snapshot(my, "before"), "find %s", my);
	not_safe(my);
	guaranteed(my);
	refusals(my);
	T_EXPECT(!snapshot(my, "after"), "find %s", my);
	T_EXPECT(!run("cmp -s %s/before %s/after", work, work),
		 "the data directory changed under awr_db_qualify()");
	on_tmpfs(my);
	damaged(my);
	return t_done("db_verdict_lib");
}
