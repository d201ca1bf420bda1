// SPDX-License-Identifier: MIT
/*
 * Stamped stress writers: threads overwrite overlapping units with atomic
 * writes of unique increasing generations; with a journal each generation
 * is recorded durably before its write (intent) and after it (ack), so a
 * verifier can tell lost writes after a crash (man/awr-stamp.5).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "journal.h"
#include "private.h"
#include "remote.h"

#define HOT_UNITS	8

struct stress {
	const struct awr_stress_opts *o;
	struct awr_file *f;
	struct awr_journal j;
	bool journaled;
	unsigned int wflags;	/* AWR_WRITE_* */
	uint64_t nosync_from;	/* fault point: generations from here go without RWF_DSYNC */
	uint64_t span;		/* o->span, or the default for an empty file; 0: its size */
	uint64_t nr_units;
	uint64_t deadline;	/* ns, 0 none */
	uint64_t next_gen;	/* atomic: the next generation to issue */
	uint64_t issued;	/* atomic: writes started (for o->writes) */
	uint64_t done;		/* atomic: writes acknowledged */
	int stop;		/* atomic */
	pthread_mutex_t err_lock;
	int error;
	uint64_t error_offset;
	int journal_error;
};

struct writer {
	struct stress *s;
	uint32_t id;
	uint64_t rng;
	void *buf;
};

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t pick_unit(struct writer *w)
{
	uint64_t r = next_rand(&w->rng), n = w->s->nr_units;

	if ((r & 1) && n > HOT_UNITS)
		n = HOT_UNITS;	/* half the writes on a few hot units: writers overlap */
	return (r >> 1) % n;
}

static void set_error(struct stress *s, int err, uint64_t offset)
{
	pthread_mutex_lock(&s->err_lock);
	if (!s->error) {
		s->error = err;
		s->error_offset = offset;
	}
	pthread_mutex_unlock(&s->err_lock);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
}

static void set_journal_error(struct stress *s, int err)
{
	pthread_mutex_lock(&s->err_lock);
	if (!s->journal_error)
		s->journal_error = err;
	pthread_mutex_unlock(&s->err_lock);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
}

/* Set by awr_stress_stop() (a signal handler): every run in the process ends its writers. */
static volatile sig_atomic_t stop_requested;

void awr_stress_stop(void)
{
	stop_requested = 1;
}

static bool keep_going(struct stress *s)
{
	if (stop_requested || __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
		return false;
	if (s->deadline && awr__now_ns() >= s->deadline)
		return false;
	if (s->o->writes && __atomic_fetch_add(&s->issued, 1, __ATOMIC_RELAXED) >= s->o->writes)
		return false;
	return true;
}

static int journal_intent(struct stress *s, uint32_t id, uint64_t unit, uint64_t gen)
{
	struct awr_jrec r = { AWR_JREC_INTENT, id, unit, gen, 0, awr__realtime_ns() };
	uint64_t seq;
	int ret;

	if (!s->journaled)
		return 0;
	ret = awr__journal_append(&s->j, &r, &seq);
	return ret ? ret : awr__journal_sync(&s->j, seq);
}

/* The ack carries the counter after the write returned: its horizon. */
static int journal_ack(struct stress *s, uint32_t id, uint64_t unit, uint64_t gen)
{
	struct awr_jrec r = { AWR_JREC_ACK, id, unit, gen, 0, awr__realtime_ns() };

	if (!s->journaled)
		return 0;
	r.value = __atomic_load_n(&s->next_gen, __ATOMIC_ACQUIRE);
	return awr__journal_append(&s->j, &r, NULL);
}

int awr__stress_fault_parse(const char *spec, uint64_t *from)
{
	char *end;

	*from = UINT64_MAX;
	if (!spec || !*spec)
		return 0;
	if (strncmp(spec, "nosync:", 7) || !spec[7] || spec[7] == '-')
		return -EINVAL;
	errno = 0;
	*from = strtoull(spec + 7, &end, 10);
	if (errno || *end) {
		*from = UINT64_MAX;
		return -EINVAL;
	}
	return 0;
}

/* The flags of generation @gen's write: without RWF_DSYNC from the fault point's write on. */
static unsigned int write_flags(const struct stress *s, uint64_t gen)
{
	return gen >= s->nosync_from ? s->wflags & ~AWR_WRITE_DSYNC : s->wflags;
}

static ssize_t plain_write(struct stress *s, void *buf, uint64_t off, uint64_t gen)
{
	struct iovec iov = { buf, s->o->unit };
	int rwf = write_flags(s, gen) & AWR_WRITE_DSYNC ? RWF_DSYNC : 0;
	ssize_t ret = pwritev2(awr_file_fd(s->f), &iov, 1, (off_t)off, rwf);

	if (ret < 0)
		return -errno;
	return ret == (ssize_t)s->o->unit ? ret : -EIO;
}

static int write_one(struct writer *w)
{
	struct stress *s = w->s;
	uint64_t unit = pick_unit(w), off = unit * s->o->unit;
	uint64_t gen = __atomic_fetch_add(&s->next_gen, 1, __ATOMIC_ACQ_REL);
	ssize_t ret;

	ret = journal_intent(s, w->id, unit, gen);
	if (ret)
		return (int)ret;
	awr_stamp_fill(w->buf, s->o->unit, unit, gen, w->id);
	if (s->o->flags & AWR_STRESS_PLAIN)
		ret = plain_write(s, w->buf, off, gen);
	else
		ret = awr_pwrite(s->f, w->buf, s->o->unit, off, write_flags(s, gen), NULL);
	if (ret < 0) {
		set_error(s, (int)ret, off);
		return 0;
	}
	__atomic_fetch_add(&s->done, 1, __ATOMIC_RELAXED);
	return journal_ack(s, w->id, unit, gen);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	int ret;

	while (keep_going(w->s)) {
		ret = write_one(w);	/* data write errors are set inside */
		if (ret)
			set_journal_error(w->s, ret);
	}
	return NULL;
}

static int open_target(int fd, const struct awr_stress_opts *o, struct stress *s)
{
	uint64_t size;
	int ret;

	ret = awr__fd_size(fd, &size);
	if (ret)
		return ret;
	/* an empty (new) file gets the default span, decided before it is extended */
	s->span = o->span ? o->span : size ? 0 : AWR_STRESS_DEFAULT_SPAN;
	s->nr_units = (s->span ? s->span : size) / o->unit;
	return awr_file_from_fd(fd, &s->f);
}

/*
 * The unit's shape first, then extend a regular file to the span (a block
 * device cannot grow: it is found too small): a refused run leaves the file
 * as it was.
 */
static int check_target(struct stress *s, struct awr_stress_result *out)
{
	int fd = awr_file_fd(s->f);
	void *probe_buf;
	struct stat st;
	uint64_t size;
	int ret = 0;

	if (posix_memalign(&probe_buf, 4096, s->o->unit))
		return -ENOMEM;
	if (!(s->o->flags & AWR_STRESS_PLAIN))
		ret = awr_file_check(s->f, probe_buf, s->o->unit, 0, &out->verdict);
	free(probe_buf);
	if (ret)
		return ret;
	if (fstat(fd, &st))
		return -errno;
	ret = awr__fd_size(fd, &size);
	if (ret)
		return ret;
	if (!s->nr_units || s->nr_units > UINT64_MAX / s->o->unit)
		return -ENOSPC;
	if (S_ISREG(st.st_mode) && s->span > size) {
		if (ftruncate(fd, (off_t)s->span))
			return -errno;
		size = s->span;
	}
	if (s->nr_units * s->o->unit > size)
		return -ENOSPC;
	return 0;
}

static int start_journal(struct stress *s)
{
	struct awr_jrec r = { AWR_JREC_RUN, 0, s->o->unit, 0, 0, awr__realtime_ns() };
	uint64_t seq;
	int ret;

	if (!s->o->journal)
		return 0;
	ret = awr__journal_open_at(s->o->journal, s->o->journal_secret_file, s->o->journal_force,
				   &s->j);
	if (ret)
		return ret;
	s->journaled = true;
	s->next_gen = s->j.max_generation + 1;
	r.generation = s->next_gen;
	r.value = s->nr_units * s->o->unit;
	ret = awr__journal_append(&s->j, &r, &seq);
	if (!ret)
		ret = awr__journal_sync(&s->j, seq);
	return ret;
}

static int run_writers(struct stress *s)
{
	unsigned int n = s->o->threads ? s->o->threads : 4;
	struct writer *w;
	pthread_t *t;
	unsigned int started = 0;
	int ret = 0;

	/* the journal reader allows 256 unrecorded generations per run: one per writer */
	if (n > 256)
		return -EINVAL;
	w = calloc(n, sizeof(*w));
	t = calloc(n, sizeof(*t));
	if (!w || !t) {
		ret = -ENOMEM;
		goto err;
	}
	for (; started < n; started++) {
		w[started] = (struct writer){ .s = s, .id = started,
					      .rng = 0x9e3779b97f4a7c15ULL * (started + 1) ^
						     awr__now_ns() };
		if (posix_memalign(&w[started].buf, 4096, s->o->unit) ||
		    pthread_create(&t[started], NULL, writer_main, &w[started])) {
			free(w[started].buf);
			set_error(s, -EAGAIN, 0);
			ret = -EAGAIN;
			break;
		}
	}
	for (unsigned int i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		free(w[i].buf);
	}
err:
	free(w);
	free(t);
	return ret;
}

static void finish(struct stress *s, struct awr_stress_result *out, uint64_t start)
{
	out->nsec = awr__now_ns() - start;
	out->writes = s->done;
	out->bytes = s->done * s->o->unit;
	out->units = s->nr_units;
	out->last_generation = s->next_gen - 1;
	out->error = s->error;
	out->error_offset = s->error_offset;
	out->journal_error = s->journal_error;
	if (s->journaled) {
		int ret = awr__journal_sync(&s->j, s->j.appended);

		if (ret && !out->journal_error)
			out->journal_error = ret;
		out->journal_syncs = s->j.syncs;
	}
}

/* Why a run could not start, in words (awr_last_error()); returns @ret. */
static int explain(const struct awr_stress_opts *o, const struct awr_stress_result *r, int ret)
{
	if (r->verdict.rule != AWR_RULE_OK)
		return awr__fail(ret, "a unit of %u bytes: %s (rule %s)", o->unit,
				 r->verdict.message, awr_rule_name(r->verdict.rule));
	if (o->journal && awr__rj_explain("stress", o->journal, o->journal_secret_file, ret))
		return ret;
	if (ret == -ENOSPC)
		return awr__fail(ret, "the target is smaller than the span of %" PRIu64 " bytes: "
				 "give a smaller --size", o->span);
	if (ret == -EBADMSG)
		return awr__fail(ret, "journal %s is damaged before its end, forged, or a record "
				 "was refused (a generation no stress run could issue): awr never "
				 "empties a journal; keep it for awr verify, move it away, and "
				 "give a new journal file", o->journal);
	if (o->journal && ret == -ENOEXEC)
		return awr__fail(ret, "refusing to use %s as the journal: it holds data that is "
				 "not an awr journal (its first record is not valid). Give a new "
				 "file or the journal of an earlier awr stress run, or "
				 "--journal-force to replace the file's content.", o->journal);
	if (o->journal && ret == -ELOOP)
		return awr__fail(ret, "refusing to use %s as the journal: it is a symbolic link; "
				 "give the path of the file itself", o->journal);
	return awr__fail(ret, "%s", strerror(-ret));
}

int awr_stress_opts_check(const struct awr_stress_opts *o)
{
	int ret;

	if (!o)
		return awr__fail(-EINVAL, "no options");
	ret = awr_stamp_unit_check(o->unit);
	if (ret)
		return ret;
	if (o->span % o->unit)
		return awr__fail(-EINVAL, "--size %" PRIu64 " is not a multiple of --unit %" PRIu32
				 ": the span holds whole units, such as --size %" PRIu64, o->span,
				 o->unit, (o->span / o->unit + 1) * o->unit);
	if (o->span > INT64_MAX)
		return awr__fail(-EINVAL, "--size %" PRIu64 " ends past the largest offset "
				 "(2^63 - 1)", o->span);
	if (!o->writes && !o->duration_ms)
		return awr__fail(-EINVAL, "give --seconds S or --writes N (one, positive)");
	if (o->threads > 256)
		return awr__fail(-EINVAL, "--threads %" PRIu32 " must be between 1 and 256",
				 o->threads);
	return 0;
}

int awr_stress_run_fd(int fd, const struct awr_stress_opts *o, struct awr_stress_result *out)
{
	struct stress s = { .o = o, .next_gen = 1 };
	uint64_t start;
	int ret;

	if (fd < 0)
		return awr__fail(-EBADF, "stress: no target descriptor");
	if (!out)
		return awr__fail(-EINVAL, "stress: no result to fill");
	ret = awr_stress_opts_check(o);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	stop_requested = 0;
	s.wflags = (o->flags & AWR_STRESS_DSYNC) || o->journal ? AWR_WRITE_DSYNC : 0;
	pthread_mutex_init(&s.err_lock, NULL);
	ret = awr__stress_fault_parse(awr__test_env("AWR_STRESS_FAULT"), &s.nosync_from);
	if (!ret)
		ret = open_target(fd, o, &s);
	if (!ret)
		ret = check_target(&s, out);
	if (!ret)
		ret = start_journal(&s);
	if (ret)
		goto err;
	out->first_generation = s.next_gen;
	if (s.nosync_from <= UINT64_MAX - s.next_gen)	/* a run's write N: generation first + N */
		s.nosync_from += s.next_gen;
	start = awr__now_ns();
	s.deadline = o->duration_ms ? start + o->duration_ms * 1000000ULL : 0;
	ret = run_writers(&s);
	finish(&s, out, start);
err:
	if (s.journaled)
		awr__journal_close(&s.j);
	awr_file_close(s.f);
	pthread_mutex_destroy(&s.err_lock);
	return ret ? explain(o, out, ret) : 0;
}

int awr_stress_run(const char *path, const struct awr_stress_opts *o,
		   struct awr_stress_result *out)
{
	int fd, ret;

	if (!path || !o || !out)
		return -EINVAL;
	fd = awr_target_open(path, O_RDWR | O_DIRECT, AWR_TARGET_CREATE |
			     ((o->flags & AWR_STRESS_FORCE) ? AWR_TARGET_FORCE : 0), NULL);
	if (fd < 0)
		return fd;
	ret = awr_stress_run_fd(fd, o, out);
	close(fd);
	return ret;
}
