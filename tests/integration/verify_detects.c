// SPDX-License-Identifier: MIT
/*
 * Description: negative controls: after a real stress run on scratch XFS the verifier finds a
 * torn unit (half a new generation written without RWF_ATOMIC), a corrupted sector, a dropped
 * acknowledged write, a misplaced unit and an unjournaled generation, each at its unit.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify/journal.h"
#include "libatomicwr.h"
#include "../helpers.h"

#define UNIT	16384
#define SPAN	(1U << 20)
#define NR	(SPAN / UNIT)

static char target[4096], jdir[] = "/tmp/awr-neg.XXXXXX", journal[4096];
static uint8_t *buf;

struct found {
	struct awr_verify_issue is[NR];
	unsigned int nr;
};

static int keep(const struct awr_verify_issue *is, void *arg)
{
	struct found *f = arg;

	if (f->nr < NR)
		f->is[f->nr++] = *is;
	return 0;
}

static int verify(struct awr_verify_result *r, struct found *f)
{
	struct awr_verify_opts o = { .unit = UNIT, .journal = journal, .issue = keep, .arg = f };

	memset(f, 0, sizeof(*f));
	return awr_verify_run(target, &o, r);
}

static void read_unit(int fd, uint64_t u)
{
	T_EXPECT_EQ(pread(fd, buf, UNIT, (off_t)(u * UNIT)), UNIT, "read unit");
}

/* Plain O_DIRECT write, no RWF_ATOMIC: the way a torn unit comes about. */
static void write_plain(int fd, const void *p, size_t len, uint64_t off)
{
	T_EXPECT_EQ(pwrite(fd, p, len, (off_t)off), (long long)len, "plain write");
}

static unsigned int intact_units(int fd, uint64_t *units, uint64_t *gens, unsigned int want)
{
	struct awr_unit_state st;
	unsigned int n = 0;

	for (uint64_t u = 0; u < NR && n < want; u++) {
		read_unit(fd, u);
		awr_stamp_classify(buf, UNIT, u, &st);
		if (st.cls != AWR_UNIT_INTACT)
			continue;
		units[n] = u;
		gens[n++] = st.generation;
	}
	return n;
}

static void drop_ack(uint64_t unit, uint64_t gen)
{
	struct awr_journal j;
	struct awr_jrec intent = { AWR_JREC_INTENT, 9, unit, gen, 0 };
	struct awr_jrec ack = { AWR_JREC_ACK, 9, unit, gen, gen + 1 };

	T_EXPECT_EQ(awr__journal_open(journal, &j), 0, "journal open");
	T_EXPECT_EQ(awr__journal_append(&j, &intent, NULL), 0, "append intent");
	T_EXPECT_EQ(awr__journal_append(&j, &ack, NULL), 0, "append ack");
	awr__journal_close(&j);
}

static const struct awr_verify_issue *issue_at(const struct found *f, uint64_t unit)
{
	for (unsigned int i = 0; i < f->nr; i++)
		if (f->is[i].unit == unit)
			return &f->is[i];
	return NULL;
}

static void run(void)
{
	struct awr_stress_opts so = { .unit = UNIT, .threads = 4, .span = SPAN, .writes = 1500,
				      .journal = journal };
	struct awr_stress_result sr;
	struct awr_verify_result vr;
	const struct awr_verify_issue *is;
	uint64_t u[5], g[5], next;
	struct found *f = calloc(1, sizeof(*f));
	int fd;

	T_EXPECT_EQ(awr_stress_run(target, &so, &sr), 0, "stress run");
	T_EXPECT_EQ(sr.error, 0, "no write failed");
	T_EXPECT_EQ(verify(&vr, f), 0, "verify clean");
	T_EXPECT(vr.count[AWR_UNIT_TORN] + vr.count[AWR_UNIT_CORRUPT] +
		 vr.count[AWR_UNIT_MISPLACED] + vr.lost + vr.unjournaled == 0,
		 "a clean run has no issue (found %u)", f->nr);
	T_EXPECT_EQ(vr.failed, 0, "a clean run is not failed");
	T_EXPECT(!vr.what_to_do[0], "a clean run has nothing to do: %s", vr.what_to_do);
	T_EXPECT(vr.acked_writes == sr.writes, "every write acknowledged: %llu of %llu",
		 (unsigned long long)vr.acked_writes, (unsigned long long)sr.writes);

	fd = open(target, O_RDWR | O_DIRECT);
	if (fd < 0 || intact_units(fd, u, g, 5) < 5)
		T_SKIP("fewer than 5 intact units after the stress run");
	next = sr.last_generation + 1;

	/* torn: the first half of a new generation, written without RWF_ATOMIC */
	awr_stamp_fill(buf, UNIT, u[0], next, 7);
	write_plain(fd, buf, UNIT / 2, u[0] * UNIT);
	/* corrupt: one byte of sector 3's filler */
	read_unit(fd, u[1]);
	buf[3 * 512 + 200] ^= 0x40;
	write_plain(fd, buf, UNIT, u[1] * UNIT);
	/* dropped acknowledged write: the journal acknowledges a generation the unit lacks */
	drop_ack(u[2], next + 1);
	/* misplaced: unit u[3]'s content written at u[4] */
	read_unit(fd, u[3]);
	write_plain(fd, buf, UNIT, u[4] * UNIT);
	close(fd);

	T_EXPECT_EQ(verify(&vr, f), 0, "verify after tampering");
	T_EXPECT_EQ(vr.count[AWR_UNIT_TORN], 1, "one torn unit");
	T_EXPECT_EQ(vr.count[AWR_UNIT_CORRUPT], 1, "one corrupt unit");
	T_EXPECT_EQ(vr.count[AWR_UNIT_MISPLACED], 1, "one misplaced unit");
	T_EXPECT_EQ(vr.lost, 1, "one lost write");
	T_EXPECT_EQ(vr.failed, 1, "the tampered run is failed");
	T_EXPECT(strstr(vr.what_to_do, "not atomic on this target"),
		 "a torn unit says what to do: '%s'", vr.what_to_do);
	is = issue_at(f, u[0]);
	T_EXPECT(is && is->state.cls == AWR_UNIT_TORN && is->state.bad_sector == UNIT / 1024 &&
		 is->state.generation == next && is->state.other_generation == g[0],
		 "torn unit %llu found at sector %u", (unsigned long long)u[0], UNIT / 1024);
	is = issue_at(f, u[1]);
	T_EXPECT(is && is->state.cls == AWR_UNIT_CORRUPT && is->state.bad_sector == 3,
		 "corrupt unit %llu found at sector 3", (unsigned long long)u[1]);
	is = issue_at(f, u[2]);
	T_EXPECT(is && is->lost && is->acked_generation == next + 1 && is->state.generation == g[2],
		 "lost write on unit %llu found", (unsigned long long)u[2]);
	is = issue_at(f, u[4]);
	T_EXPECT(is && is->state.cls == AWR_UNIT_MISPLACED && is->state.found_unit == u[3],
		 "misplaced unit %llu carries unit %llu", (unsigned long long)u[4],
		 (unsigned long long)u[3]);
	free(f);
}

static void unjournaled(void)
{
	struct awr_verify_result vr;
	struct found *f = calloc(1, sizeof(*f));
	const struct awr_verify_issue *is;
	int fd = open(target, O_RDWR | O_DIRECT);

	/* an intact stamp of a generation the journal never issued */
	awr_stamp_fill(buf, UNIT, NR - 1, 1ULL << 40, 3);
	write_plain(fd, buf, UNIT, (uint64_t)(NR - 1) * UNIT);
	close(fd);
	T_EXPECT_EQ(verify(&vr, f), 0, "verify");
	is = issue_at(f, NR - 1);
	T_EXPECT(is && is->unjournaled && vr.unjournaled == 1, "unjournaled generation found");
	free(f);
}

static void cleanup(void)
{
	unlink(journal);
	rmdir(jdir);
	unlink(target);
}

int main(void)
{
	const char *dir = getenv("AWR_SCRATCH_DIR");
	int ret;

	if (!dir)
		T_SKIP("AWR_SCRATCH_DIR not set: run under with-scratch-xfs.sh");
	if (!mkdtemp(jdir) || posix_memalign((void **)&buf, 4096, UNIT))
		T_SKIP("cannot make a journal directory in /tmp");
	snprintf(target, sizeof(target), "%s/neg.dat", dir);
	snprintf(journal, sizeof(journal), "%s/journal", jdir);
	atexit(cleanup);
	run();
	unjournaled();
	ret = t_done("verify_detects");
	free(buf);
	return ret;
}
