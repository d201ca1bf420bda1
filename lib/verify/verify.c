// SPDX-License-Identifier: MIT
/*
 * The verifier: scan a stamped target with large O_DIRECT reads, classify
 * every unit, and with a stress journal find acknowledged writes that were
 * lost (the rule is in man/awr-stamp.5, "LOST WRITES").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "private.h"
#include "remote.h"
#include "verify/verify.h"

#define SCAN_CHUNK	(8U << 20)
#define NO_HORIZON	UINT64_MAX

#define GEN_INTENT	1U
#define GEN_ACKED	2U

/* One generation the journal names; several records of one are merged. */
struct gen_info {
	uint64_t gen;
	uint64_t seq;		/* record order, until merged */
	uint64_t unit;
	uint64_t horizon;	/* acked: the counter after the ack */
	uint8_t flags;		/* GEN_* */
};

/* The newest acknowledged generation of a unit in the span. */
struct unit_ack {
	uint64_t unit;
	uint64_t gen;
};

/*
 * The journal as the verifier needs it. Every table holds what records name,
 * sorted once the journal is read (binary search): memory in proportion to
 * the journal's records, whatever generation or unit numbers they carry.
 */
struct jmodel {
	uint32_t unit_size;	/* from the RUN records; 0 none seen */
	bool unit_mismatch;
	struct gen_info *gens;	/* sorted by generation, one per generation */
	uint64_t nr_gens, cap_gens;
	uint64_t *runs;		/* first generation of each run, sorted */
	uint64_t nr_runs, cap_runs;
	struct unit_ack *acks;	/* sorted by unit, one per unit */
	uint64_t nr_acks, cap_acks;
	uint64_t nr_units;
	uint64_t acked_writes;
	uint64_t acked_late;
	uint64_t crash_time_ns;	/* acks at or after it count as in flight */
};

/* Append room for one element of @elem bytes to *@p (*@nr used of *@cap). */
static void *push(void **p, uint64_t *nr, uint64_t *cap, size_t elem)
{
	uint64_t n = *cap ? *cap * 2 : 1024;
	void *q;

	if (*nr == *cap) {
		if (n > SIZE_MAX / elem)
			return NULL;
		q = realloc(*p, (size_t)n * elem);
		if (!q)
			return NULL;
		*p = q;
		*cap = n;
	}
	return (char *)*p + (*nr)++ * elem;
}

static int model_run(struct jmodel *m, const struct awr_jrec *r)
{
	uint64_t *run;

	if (m->unit_size && m->unit_size != r->unit)
		m->unit_mismatch = true;
	m->unit_size = (uint32_t)r->unit;
	run = push((void **)&m->runs, &m->nr_runs, &m->cap_runs, sizeof(*run));
	if (!run)
		return -ENOMEM;
	*run = r->generation;
	return 0;
}

static int model_cb(const struct awr_jrec *r, void *arg)
{
	struct jmodel *m = arg;
	struct gen_info *g;
	struct unit_ack *a;

	if (r->type == AWR_JREC_RUN)
		return model_run(m, r);
	g = push((void **)&m->gens, &m->nr_gens, &m->cap_gens, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*g = (struct gen_info){ .gen = r->generation, .seq = m->nr_gens, .unit = r->unit };
	if (r->type == AWR_JREC_INTENT)
		g->flags = GEN_INTENT;
	if (r->type != AWR_JREC_ACK)
		return 0;
	if (m->crash_time_ns && r->time_ns >= m->crash_time_ns) {
		m->acked_late++;	/* acknowledged while the crash was under way */
		return 0;
	}
	g->flags = GEN_ACKED;
	g->horizon = r->value;
	if (r->unit < m->nr_units) {
		m->acked_writes++;
		a = push((void **)&m->acks, &m->nr_acks, &m->cap_acks, sizeof(*a));
		if (!a)
			return -ENOMEM;
		*a = (struct unit_ack){ r->unit, r->generation };
	}
	return 0;
}

static int cmp_gen(const void *a, const void *b)
{
	const struct gen_info *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_ack(const void *a, const void *b)
{
	const struct unit_ack *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/*
 * Sort the tables and merge the records of one generation in journal order
 * (flags add up; the last record's unit and ack horizon count, as they
 * would have had the records been applied one after the other).
 */
/* qsort() of @nr elements; none: the array may be NULL, which qsort() must not get. */
static void sort(void *base, uint64_t nr, size_t elem, int (*cmp)(const void *, const void *))
{
	if (nr > 1)
		qsort(base, (size_t)nr, elem, cmp);
}

static void model_finish(struct jmodel *m)
{
	uint64_t n = 0;

	sort(m->gens, m->nr_gens, sizeof(*m->gens), cmp_gen);
	for (uint64_t i = 0; i < m->nr_gens; i++) {
		struct gen_info *g = &m->gens[i];

		if (n && m->gens[n - 1].gen == g->gen) {
			struct gen_info *d = &m->gens[n - 1];

			d->unit = g->unit;
			d->flags |= g->flags;
			if (g->flags & GEN_ACKED)
				d->horizon = g->horizon;
		} else {
			m->gens[n++] = *g;
		}
	}
	m->nr_gens = n;
	sort(m->runs, m->nr_runs, sizeof(*m->runs), cmp_u64);
	sort(m->acks, m->nr_acks, sizeof(*m->acks), cmp_ack);
	n = 0;
	for (uint64_t i = 0; i < m->nr_acks; i++) {
		if (n && m->acks[n - 1].unit == m->acks[i].unit)
			m->acks[n - 1].gen = m->acks[i].gen;	/* sorted: the newest last */
		else
			m->acks[n++] = m->acks[i];
	}
	m->nr_acks = n;
}

static const struct gen_info *find_gen(const struct jmodel *m, uint64_t gen)
{
	uint64_t lo = 0, hi = m->nr_gens;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (m->gens[mid].gen < gen)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr_gens && m->gens[lo].gen == gen ? &m->gens[lo] : NULL;
}

/* The newest acknowledged generation of @unit, 0 none. */
static uint64_t newest_ack(const struct jmodel *m, uint64_t unit)
{
	uint64_t lo = 0, hi = m->nr_acks;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (m->acks[mid].unit < unit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr_acks && m->acks[lo].unit == unit ? m->acks[lo].gen : 0;
}

static void model_free(struct jmodel *m)
{
	free(m->gens);
	free(m->runs);
	free(m->acks);
}

static int model_load(struct jmodel *m, const struct awr_verify_opts *o, uint64_t nr_units,
		      struct awr_verify_result *out)
{
	int64_t n;

	m->nr_units = nr_units;
	n = awr__journal_read_at(o->journal, o->journal_secret_file, model_cb, m);
	if (n < 0)
		return (int)n;
	model_finish(m);
	out->journal_records = (uint64_t)n;
	out->journal_unit = m->unit_size;
	out->acked_writes = m->acked_writes;
	out->acked_late = m->acked_late;
	for (uint64_t i = 0; i < m->nr_acks; i++)
		out->acked_units += m->acks[i].gen != 0;
	return m->unit_mismatch || (m->unit_size && m->unit_size != o->unit) ? -EINVAL : 0;
}

/*
 * When was generation @g's write certainly finished? At its ack (the
 * counter value recorded then), else when the next run started, else never
 * known (still in flight at the crash).
 */
static uint64_t horizon(const struct jmodel *m, const struct gen_info *g)
{
	uint64_t lo = 0, hi = m->nr_runs;

	if (g->flags & GEN_ACKED)
		return g->horizon;
	while (lo < hi) {	/* the first run that starts after g */
		uint64_t mid = lo + (hi - lo) / 2;

		if (m->runs[mid] > g->gen)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < m->nr_runs ? m->runs[lo] : NO_HORIZON;
}

static void judge(const struct jmodel *m, struct awr_verify_issue *is)
{
	uint64_t newest = newest_ack(m, is->unit), g = is->state.generation;
	const struct gen_info *gi;

	if (is->state.cls == AWR_UNIT_NEVER_WRITTEN) {
		is->lost = newest != 0;
	} else if (is->state.cls == AWR_UNIT_INTACT) {
		gi = find_gen(m, g);
		if (!gi || !(gi->flags & GEN_INTENT) || gi->unit != is->unit)
			is->unjournaled = true;
		else
			is->lost = newest && newest >= horizon(m, gi);
	}
	if (is->lost)
		is->acked_generation = newest;
}

struct scan {
	const struct awr_verify_opts *o;
	struct awr_verify_result *out;
	const struct jmodel *m;		/* NULL: no journal */
};

static int scan_unit(struct scan *s, const uint8_t *p, uint64_t unit)
{
	struct awr_verify_issue is = { .unit = unit, .offset = unit * s->o->unit };

	awr_stamp_classify(p, s->o->unit, unit, &is.state);
	s->out->count[is.state.cls]++;
	if (s->m)
		judge(s->m, &is);
	s->out->lost += is.lost;
	s->out->unjournaled += is.unjournaled;
	if (is.state.cls == AWR_UNIT_MISPLACED && is.state.found_unit_size != s->o->unit &&
	    !s->out->stamped_unit)
		s->out->stamped_unit = is.state.found_unit_size;
	if (!is.lost && !is.unjournaled &&
	    (is.state.cls == AWR_UNIT_NEVER_WRITTEN || is.state.cls == AWR_UNIT_INTACT))
		return 0;
	return s->o->issue ? s->o->issue(&is, s->o->arg) : 0;
}

/*
 * A file or block device only: O_NONBLOCK so that a FIFO does not block the
 * open (it waited for a writer for ever), then its type; a directory, FIFO,
 * character device or socket is refused.
 */
static int open_for_scan(const char *path, bool *direct)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	*direct = fd >= 0;
	if (fd < 0 && errno == EINVAL)	/* no O_DIRECT here (tmpfs): read through the cache */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
		int ret = S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;

		close(fd);
		return ret;
	}
	return fd;
}

static int scan_all(struct scan *s, int fd, uint64_t nr_units)
{
	uint32_t u = s->o->unit;
	size_t chunk = (SCAN_CHUNK / u ? SCAN_CHUNK / u : 1) * (size_t)u;
	struct awr__readahead *ra = NULL;
	const uint8_t *buf;
	uint64_t off;
	ssize_t len, got;
	int ret = awr__ra_start(&ra, fd, nr_units * u, chunk);

	while (!ret && (len = awr__ra_next(ra, &buf, &off, &got)) > 0) {
		s->out->bytes += (uint64_t)got;
		for (uint64_t i = 0; i < (uint64_t)len / u && !ret; i++)
			ret = scan_unit(s, buf + i * u, off / u + i);
	}
	if (!ret && len < 0)
		ret = (int)len;
	awr__ra_stop(ra);
	return ret;
}

/* Whether a scan failed: a unit not as a completed atomic write leaves it, or a write lost */
static uint32_t verdict_failed(const struct awr_verify_result *r)
{
	return r->count[AWR_UNIT_TORN] || r->count[AWR_UNIT_CORRUPT] ||
	       r->count[AWR_UNIT_MISPLACED] || r->lost || r->unjournaled;
}

/* A failed scan's one sentence of what to do, by what it found (the worst first). */
static void what_to_do(struct awr_verify_result *r)
{
	const char *say = NULL;

	if (r->count[AWR_UNIT_TORN] || r->count[AWR_UNIT_CORRUPT])
		say = "writes of this unit size are not atomic on this target: do not rely on it "
		      "for atomic writes of this size (awr probe shows the limits the kernel "
		      "derived), and report the device's model and firmware";
	else if (r->stamped_unit)
		say = "the target was stamped with another unit size: verify it with the unit "
		      "size awr stress used";
	else if (r->count[AWR_UNIT_MISPLACED])
		say = "writes landed at the wrong place: check the device's firmware and the "
		      "filesystem (xfs_repair -n) before trusting this target with data";
	else if (r->lost)
		say = "the target lost writes it had acknowledged: its write cache does not keep "
		      "what it acknowledged across a crash; do not trust it with data before "
		      "the cache is made power-safe or turned off";
	else if (r->unjournaled)
		say = "units hold writes this journal never issued: give the journal of the "
		      "stress run that wrote this target";
	if (say)
		snprintf(r->what_to_do, sizeof(r->what_to_do), "%s", say);
}

/* A journal file's size, -1 when it cannot be read; whether it is a regular file. */
static long long file_size(const char *path, bool *regular)
{
	struct stat st;

	*regular = !stat(path, &st) && S_ISREG(st.st_mode);
	return *regular ? (long long)st.st_size : -1;
}

/* Why a scan could not run, in words (awr_last_error()); returns @ret. */
static int explain(const struct awr_verify_opts *o, const struct awr_verify_result *r, int ret)
{
	bool remote = o->journal && !strncmp(o->journal, "tcp://", 6), regular = false;
	long long size = o->journal && !remote ? file_size(o->journal, &regular) : -1;

	if (remote && !r->journal_unit &&
	    awr__rj_explain("verify", o->journal, o->journal_secret_file, ret))
		return ret;
	if (ret == -EINVAL && o->journal && r->journal_unit)
		return awr__fail(ret, "journal %s was written with --unit %u, not %u: give --unit "
				 "%u", o->journal, r->journal_unit, o->unit, r->journal_unit);
	if (ret == -EBADMSG)
		return awr__fail(ret, "journal %s is damaged or forged (a damaged record before "
				 "its end, or a generation no stress run could have issued): give "
				 "the journal awr stress wrote", o->journal);
	if (remote && ret == -ENOEXEC)
		return awr__fail(ret, "%s is not an awr journal: its first 48 bytes are not a "
				 "valid journal record; give the URL awr stress used", o->journal);
	if (o->journal && ret == -ENOEXEC)
		return awr__fail(ret, "%s is not an awr journal: it holds %lld bytes whose first "
				 "48 are not a valid journal record; give the journal awr stress "
				 "wrote", o->journal, size);
	if (o->journal && !remote && (ret == -EINVAL || ret == -EISDIR) && !regular)
		return awr__fail(ret, "%s is not an awr journal: it is not a regular file; give "
				 "the journal file awr stress wrote", o->journal);
	if (ret == -EISDIR || ret == -ENODEV)
		return awr__fail(ret, "it is %s; give the file or block device awr stress wrote",
				 ret == -EISDIR ? "a directory" : "not a regular file or a block "
				 "device (a FIFO, character device or socket)");
	return awr__fail(ret, "%s", strerror(-ret));
}

int awr_verify_run(const char *path, const struct awr_verify_opts *o,
		   struct awr_verify_result *out)
{
	struct jmodel m = { 0 };
	struct scan s = { o, out, NULL };
	uint64_t size, span, start;
	int fd, ret;

	if (!path || !o || !out)
		return awr__fail(-EINVAL, "verify: no path, options or result");
	ret = awr_stamp_unit_check(o->unit);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	fd = open_for_scan(path, &out->direct);
	if (fd < 0)
		return explain(o, out, fd);
	ret = awr__fd_size(fd, &size);
	if (ret)
		goto err;
	span = o->span ? o->span : size;
	out->units = span / o->unit;
	if (o->journal) {
		m.crash_time_ns = o->crash_time_ns;
		ret = model_load(&m, o, out->units, out);
		if (ret)
			goto err;
		s.m = &m;
	}
	start = awr__now_ns();
	ret = scan_all(&s, fd, out->units);
	out->nsec = awr__now_ns() - start;
	out->mb_per_s = out->nsec ? (double)out->bytes * 1e3 / (double)out->nsec : 0;
	out->failed = verdict_failed(out);
	if (out->failed)
		what_to_do(out);
err:
	model_free(&m);
	close(fd);
	return ret ? explain(o, out, ret) : 0;
}

int awr_verify_issue_text(const struct awr_verify_issue *is, uint32_t unit, char *buf, size_t len)
{
	const struct awr_unit_state *s = &is->state;
	uint64_t sec_off = is->offset + (uint64_t)s->bad_sector * AWR_STAMP_SECTOR;
	int n = snprintf(buf, len, "unit %" PRIu64 " at %" PRIu64 ": ", is->unit, is->offset);
	size_t at = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len;

	buf += at;
	len -= at;
	if (s->cls == AWR_UNIT_TORN)
		n = snprintf(buf, len, "torn: sector 0 holds generation %" PRIu64 ", sector %u "
			     "(offset %" PRIu64 ") generation %" PRIu64, s->generation,
			     s->bad_sector, sec_off, s->other_generation);
	else if (s->cls == AWR_UNIT_CORRUPT)
		n = snprintf(buf, len, "corrupt: generation %" PRIu64 ", checksum wrong, sector %u "
			     "(offset %" PRIu64 ") differs", s->generation, s->bad_sector, sec_off);
	else if (s->cls == AWR_UNIT_MISPLACED)
		n = snprintf(buf, len, "misplaced: sector %u holds sector %u of unit %" PRIu64
			     " of size %u (expected unit %" PRIu64 " of size %u)", s->bad_sector,
			     s->found_sector, s->found_unit, s->found_unit_size, is->unit, unit);
	else if (is->lost)
		n = snprintf(buf, len, "lost: holds generation %" PRIu64 " but generation %" PRIu64
			     " was acknowledged after it", s->generation, is->acked_generation);
	else
		n = snprintf(buf, len, "unjournaled: holds generation %" PRIu64 ", which the "
			     "journal never issued for it", s->generation);
	return n < 0 ? -EINVAL : (int)at + n;
}
