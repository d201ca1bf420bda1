// SPDX-License-Identifier: MIT
/*
 * Description: awr_journal_serve() called directly: served on 127.0.0.1 port 0
 * from a thread of the test, a stress run on a file of the scratch XFS journals
 * to it over tcp://, and the journal is read back twice, through the server
 * (awr_verify_run() with the tcp:// journal) and from the server's own file
 * (DIR/NAME.journal): every acknowledged write found, nothing torn or lost, the
 * same records both ways. Negative controls, each of which must fail: a client
 * with another secret is refused and the server logs it; units the journal
 * acknowledges, zeroed, are counted lost; a copy of the journal with one record
 * damaged is refused (-EBADMSG). awr_journal_serve_stop() ends the server with 0.
 *
 *   journal_serve_lib   (run under with-scratch-xfs.sh)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libatomicwr.h"
#include "../helpers.h"

#define UNIT	16384U
#define SPAN	(4ULL << 20)
#define WRITES	2000U

static char bound[128];
static char log_text[16384];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int serve_ret = 1;

static void ready(const char *addr, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	snprintf(bound, sizeof(bound), "%s", addr);
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void logline(const char *line, void *arg)
{
	size_t n;

	(void)arg;
	pthread_mutex_lock(&lock);
	n = strlen(log_text);
	snprintf(log_text + n, sizeof(log_text) - n, "%s\n", line);
	pthread_mutex_unlock(&lock);
}

static void *serve(void *arg)
{
	int ret = awr_journal_serve(arg);

	pthread_mutex_lock(&lock);
	serve_ret = ret;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* A secret file: 64 characters of the base64 alphabet drawn by getrandom(), mode 0600. */
static void secret(const char *path)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char raw[48];
	char text[65];
	int fd;

	if (getrandom(raw, sizeof(raw), 0) != sizeof(raw))
		T_SKIP("getrandom: %s", strerror(errno));
	for (unsigned int i = 0; i < 64; i++)
		text[i] = b64[raw[i * 3 / 4] >> (i % 4) & 63];
	text[64] = '\n';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, sizeof(text)) != sizeof(text) || close(fd))
		T_SKIP("writing %s: %s", path, strerror(errno));
}

static void stress(const char *target, const char *journal, const char *key,
		   struct awr_stress_result *out, int *ret)
{
	struct awr_stress_opts o = { .unit = UNIT, .threads = 4, .span = SPAN, .writes = WRITES,
				     .journal = journal, .journal_secret_file = key };

	memset(out, 0, sizeof(*out));
	*ret = awr_stress_run(target, &o, out);
}

static struct awr_verify_result verify(const char *target, const char *journal, const char *key,
				       int *ret)
{
	struct awr_verify_opts o = { .unit = UNIT, .span = SPAN, .journal = journal,
				     .journal_secret_file = key };
	struct awr_verify_result r;

	memset(&r, 0, sizeof(r));
	*ret = awr_verify_run(target, &o, &r);
	return r;
}

static void check_clean(const char *how, const struct awr_verify_result *v, int ret,
			const struct awr_stress_result *s)
{
	T_EXPECT(!ret, "verify through %s: %s", how, strerror(-ret));
	T_EXPECT(!v->failed && !v->lost && !v->unjournaled && !v->count[AWR_UNIT_TORN],
		 "verify through %s: failed %u, lost %" PRIu64 ", unjournaled %" PRIu64 ", torn %"
		 PRIu64, how, v->failed, v->lost, v->unjournaled, v->count[AWR_UNIT_TORN]);
	T_EXPECT(v->acked_writes == s->writes, "through %s: %" PRIu64 " acknowledged writes, "
		 "the run made %" PRIu64, how, v->acked_writes, s->writes);
	T_EXPECT_EQ(v->journal_unit, UNIT, "the journal's unit");
	printf("ok: through %s: %" PRIu64 " records, %" PRIu64 " acknowledged writes on %" PRIu64
	       " units, none lost or torn\n", how, v->journal_records, v->acked_writes,
	       v->acked_units);
}

/* Zero the units the journal acknowledges writes to: each is a lost write. */
static void zero_units(const char *target)
{
	static char zero[SPAN];
	int fd = open(target, O_WRONLY);

	T_EXPECT(fd >= 0 && pwrite(fd, zero, sizeof(zero), 0) == sizeof(zero) && !fsync(fd),
		 "zeroing %s: %s", target, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* A copy of @src with one byte of a record in its middle flipped. */
static void damaged_copy(const char *src, const char *dst)
{
	char cmd[1300];
	struct stat st;
	unsigned char b;
	int fd;

	snprintf(cmd, sizeof(cmd), "cp %s %s", src, dst);
	T_EXPECT(!system(cmd), "%s", cmd);
	fd = open(dst, O_RDWR);
	T_EXPECT(fd >= 0 && !fstat(fd, &st) && st.st_size > 4096, "the journal copy: %s",
		 strerror(errno));
	if (fd < 0)
		return;
	if (pread(fd, &b, 1, st.st_size / 2) == 1) {
		b ^= 0x5a;
		T_EXPECT(pwrite(fd, &b, 1, st.st_size / 2) == 1, "damaging the copy");
	}
	close(fd);
}

int main(void)
{
	const char *dir = getenv("AWR_SCRATCH_DIR");
	char key[512], other[512], jdir[512], target[512], fresh[512], url[256], local[600];
	char copy[600];
	struct awr_journal_serve_opts so = { .listen = "127.0.0.1:0", .ready = ready,
					      .log = logline };
	struct awr_stress_result s, refused;
	struct awr_verify_result v, v2;
	pthread_t t;
	int ret;

	if (!dir)
		T_SKIP("run under with-scratch-xfs.sh (AWR_SCRATCH_DIR)");
	snprintf(key, sizeof(key), "%s/secret", dir);
	snprintf(other, sizeof(other), "%s/other-secret", dir);
	snprintf(jdir, sizeof(jdir), "%s/journals", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(fresh, sizeof(fresh), "%s/fresh-target", dir);
	secret(key);
	secret(other);
	if (mkdir(jdir, 0700))
		T_SKIP("mkdir %s: %s", jdir, strerror(errno));
	so.dir = jdir;
	so.secret_file = key;
	if (pthread_create(&t, NULL, serve, &so))
		T_SKIP("no thread for the server");
	pthread_mutex_lock(&lock);
	while (!bound[0] && serve_ret == 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	T_EXPECT(bound[0], "awr_journal_serve: %s", strerror(-serve_ret));
	if (!bound[0])
		return t_done("journal_serve_lib");
	snprintf(url, sizeof(url), "tcp://%s/lib", bound);

	stress(target, url, key, &s, &ret);
	if (ret == -EINVAL && s.verdict.rule)
		T_SKIP("no atomic writes of %u bytes on XFS here (Linux 6.16+)", UNIT);
	T_EXPECT(!ret && !s.error && !s.journal_error && s.writes == WRITES,
		 "stress to %s: %s, error %d, journal error %d, %" PRIu64 " writes", url,
		 strerror(-ret), s.error, s.journal_error, s.writes);
	printf("ok: stress journalled to %s: %" PRIu64 " writes, generations %" PRIu64 "..%" PRIu64
	       "\n", url, s.writes, s.first_generation, s.last_generation);

	v = verify(target, url, key, &ret);
	check_clean("the server", &v, ret, &s);
	snprintf(local, sizeof(local), "%s/lib.journal", jdir);
	v2 = verify(target, local, NULL, &ret);
	check_clean("the server's file", &v2, ret, &s);
	T_EXPECT(v2.journal_records == v.journal_records, "records: %" PRIu64 " in the file, %"
		 PRIu64 " through the server", v2.journal_records, v.journal_records);

	/* a client with another secret: refused, and the server says so */
	stress(fresh, url, other, &refused, &ret);
	T_EXPECT(ret == -EKEYREJECTED && !refused.writes, "another secret: %s, %" PRIu64
		 " writes", strerror(-ret), refused.writes);
	pthread_mutex_lock(&lock);
	T_EXPECT(strstr(log_text, "refused") || strstr(log_text, "secret"),
		 "the server logged no refusal:\n%s", log_text);
	pthread_mutex_unlock(&lock);
	printf("ok: another secret refused: %s\n", strerror(-ret));

	/* a damaged record: the journal is refused, not read as shorter */
	snprintf(copy, sizeof(copy), "%s/damaged.journal", dir);
	damaged_copy(local, copy);
	verify(target, copy, NULL, &ret);
	T_EXPECT(ret == -EBADMSG, "a damaged journal: %s", strerror(-ret));
	printf("ok: a damaged journal refused: %s\n", strerror(-ret));

	/* acknowledged units zeroed: lost, through the server */
	zero_units(target);
	v = verify(target, url, key, &ret);
	T_EXPECT(!ret && v.failed && v.lost == v2.acked_units, "zeroed units: %s, failed %u, "
		 "lost %" PRIu64 " of %" PRIu64 " acknowledged", strerror(-ret), v.failed, v.lost,
		 v2.acked_units);
	printf("ok: %" PRIu64 " acknowledged units zeroed: %" PRIu64 " lost\n", v2.acked_units,
	       v.lost);

	awr_journal_serve_stop();
	pthread_join(t, NULL);
	T_EXPECT(serve_ret == 0, "awr_journal_serve() after stop: %s", strerror(-serve_ret));
	return t_done("journal_serve_lib");
}
