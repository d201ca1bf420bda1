// SPDX-License-Identifier: MIT
/*
 * The verifier: scan a stamped target with large O_DIRECT reads, classify
 * every unit, and with a stress journal find acknowledged writes that were
 * lost (the rule is in man/awr-stamp.5, "LOST WRITES").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "private.h"

#define SCAN_CHUNK	(8U << 20)
#define NO_HORIZON	UINT64_MAX

#define GEN_INTENT	1U
#define GEN_ACKED	2U

struct gen_info {
	uint64_t unit;
	uint64_t horizon;	/* acked: the counter after the ack */
	uint8_t flags;		/* GEN_* */
};

/* The journal as the verifier needs it. */
struct jmodel {
	uint32_t unit_size;	/* from the RUN records; 0 none seen */
	bool unit_mismatch;
	struct gen_info *gens;	/* indexed by generation */
	uint64_t nr_gens;
	uint64_t *runs;		/* first generation of each run, ascending */
	size_t nr_runs;
	uint64_t *newest_ack;	/* per unit in the span */
	uint64_t nr_units;
	uint64_t acked_writes;
	uint64_t acked_late;
	uint64_t crash_time_ns;	/* acks at or after it count as in flight */
};

/*
 * More generations than any journal can hold: a damaged or hostile journal.
 * (The journal reader already refuses generations its record count cannot
 * explain; this keeps the table's size computation in range regardless.)
 */
#define AWR_MAX_GENERATION (1ULL << 32)

/* Make room for element @need (zeroed) in *@p of *@cap elements of @elem bytes. */
static int grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
	uint64_t n = *cap ? *cap : 1024;
	void *q;

	if (need < *cap)
		return 0;
	if (need >= AWR_MAX_GENERATION)
		return -EBADMSG;
	while (n <= need)
		n *= 2;		/* n <= 2 * AWR_MAX_GENERATION: no wrap */
	if (n > SIZE_MAX / elem)
		return -ENOMEM;
	q = realloc(*p, (size_t)n * elem);
	if (!q)
		return -ENOMEM;
	memset((char *)q + *cap * elem, 0, (n - *cap) * elem);
	*p = q;
	*cap = n;
	return 0;
}

static int model_run(struct jmodel *m, const struct awr_jrec *r)
{
	uint64_t cap = m->nr_runs;
	int ret;

	if (m->unit_size && m->unit_size != r->unit)
		m->unit_mismatch = true;
	m->unit_size = (uint32_t)r->unit;
	ret = grow((void **)&m->runs, &cap, m->nr_runs + 1, sizeof(*m->runs));
	if (ret)
		return ret;
	m->runs[m->nr_runs++] = r->generation;
	return 0;
}

static int model_cb(const struct awr_jrec *r, void *arg)
{
	struct jmodel *m = arg;
	struct gen_info *g;
	int ret;

	if (r->type == AWR_JREC_RUN)
		return model_run(m, r);
	ret = grow((void **)&m->gens, &m->nr_gens, r->generation, sizeof(*m->gens));
	if (ret)
		return ret;	/* -EBADMSG: a generation no journal can hold */
	g = &m->gens[r->generation];
	g->unit = r->unit;
	if (r->type == AWR_JREC_INTENT)
		g->flags |= GEN_INTENT;
	if (r->type != AWR_JREC_ACK)
		return 0;
	if (m->crash_time_ns && r->time_ns >= m->crash_time_ns) {
		m->acked_late++;	/* acknowledged while the crash was under way */
		return 0;
	}
	g->flags |= GEN_ACKED;
	g->horizon = r->value;
	if (r->unit < m->nr_units) {
		m->acked_writes++;
		if (r->generation > m->newest_ack[r->unit])
			m->newest_ack[r->unit] = r->generation;
	}
	return 0;
}

static void model_free(struct jmodel *m)
{
	free(m->gens);
	free(m->runs);
	free(m->newest_ack);
}

static int model_load(struct jmodel *m, const char *path, uint32_t unit, uint64_t nr_units,
		      struct awr_verify_result *out)
{
	int64_t n;

	m->nr_units = nr_units;
	m->newest_ack = calloc(nr_units ? nr_units : 1, sizeof(*m->newest_ack));
	if (!m->newest_ack)
		return -ENOMEM;
	n = awr__journal_read(path, model_cb, m);
	if (n < 0)
		return (int)n;
	out->journal_records = (uint64_t)n;
	out->journal_unit = m->unit_size;
	out->acked_writes = m->acked_writes;
	out->acked_late = m->acked_late;
	for (uint64_t u = 0; u < nr_units; u++)
		out->acked_units += m->newest_ack[u] != 0;
	return m->unit_mismatch || (m->unit_size && m->unit_size != unit) ? -EINVAL : 0;
}

/*
 * When was generation @g's write certainly finished? At its ack (the
 * counter value recorded then), else when the next run started, else never
 * known (still in flight at the crash).
 */
static uint64_t horizon(const struct jmodel *m, uint64_t g)
{
	if (m->gens[g].flags & GEN_ACKED)
		return m->gens[g].horizon;
	for (size_t i = 0; i < m->nr_runs; i++)
		if (m->runs[i] > g)
			return m->runs[i];
	return NO_HORIZON;
}

static void judge(const struct jmodel *m, struct awr_verify_issue *is)
{
	uint64_t newest = m->newest_ack[is->unit], g = is->state.generation;

	if (is->state.cls == AWR_UNIT_NEVER_WRITTEN) {
		is->lost = newest != 0;
	} else if (is->state.cls == AWR_UNIT_INTACT) {
		if (g >= m->nr_gens || !(m->gens[g].flags & GEN_INTENT) || m->gens[g].unit != is->unit)
			is->unjournaled = true;
		else
			is->lost = newest && newest >= horizon(m, g);
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
	if (!is.lost && !is.unjournaled &&
	    (is.state.cls == AWR_UNIT_NEVER_WRITTEN || is.state.cls == AWR_UNIT_INTACT))
		return 0;
	return s->o->issue ? s->o->issue(&is, s->o->arg) : 0;
}

static int open_for_scan(const char *path, bool *direct)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	*direct = fd >= 0;
	if (fd < 0 && errno == EINVAL)	/* no O_DIRECT here (tmpfs): read through the cache */
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
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

int awr_verify_run(const char *path, const struct awr_verify_opts *o,
		   struct awr_verify_result *out)
{
	struct jmodel m = { 0 };
	struct scan s = { o, out, NULL };
	uint64_t size, span, start;
	int fd, ret;

	if (!path || !o || !out || !o->unit || o->unit % AWR_STAMP_SECTOR)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	fd = open_for_scan(path, &out->direct);
	if (fd < 0)
		return fd;
	ret = awr__fd_size(fd, &size);
	if (ret)
		goto err;
	span = o->span ? o->span : size;
	out->units = span / o->unit;
	if (o->journal) {
		m.crash_time_ns = o->crash_time_ns;
		ret = model_load(&m, o->journal, o->unit, out->units, out);
		if (ret)
			goto err;
		s.m = &m;
	}
	start = awr__now_ns();
	ret = scan_all(&s, fd, out->units);
	out->nsec = awr__now_ns() - start;
err:
	model_free(&m);
	close(fd);
	return ret;
}
