// SPDX-License-Identifier: MIT
/*
 * Description: the verifier's lost-write rule on fixture targets and journals built from
 * awr-stamp(5): overlapping writers, in-flight writes, run boundaries, the crash instant,
 * unjournaled generations, a torn journal tail, a damaged journal, a unit size mismatch.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "libatomicwr.h"
#include "helpers.h"

#define U	4096
#define NR	8

enum { RUN = 1, INTENT = 2, ACK = 3 };

static char dir[] = "/tmp/awr-verify-rule.XXXXXX", target[64], journal[64];

static void put32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }

/* One journal record as awr-stamp(5) lays it out. */
static void rec(int fd, uint32_t type, uint64_t unit, uint64_t gen, uint64_t value, uint64_t time)
{
	uint8_t b[48];

	put32(b, 0x4a525741U ^ (type << 24));
	put32(b + 4, 0);
	put64(b + 8, unit);
	put64(b + 16, gen);
	put64(b + 24, value);
	put64(b + 32, time);
	put64(b + 40, XXH3_64bits(b, 40));
	T_EXPECT_EQ(write(fd, b, sizeof(b)), 48, "journal record");
}

static int new_journal(void)
{
	int fd = open(journal, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		T_SKIP("cannot create %s", journal);
	return fd;
}

/* A write issued at @gen for @unit and acknowledged with @horizon (0: never acknowledged). */
static void write_rec(int fd, uint64_t unit, uint64_t gen, uint64_t horizon, uint64_t time)
{
	rec(fd, INTENT, unit, gen, 0, time);
	if (horizon)
		rec(fd, ACK, unit, gen, horizon, time + 1);
}

/* The target: unit i holds generation gens[i] (0: zeros). */
static void make_target(const uint64_t *gens)
{
	uint8_t buf[U];
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	for (int i = 0; i < NR; i++) {
		if (gens[i])
			awr_stamp_fill(buf, U, (uint64_t)i, gens[i], 0);
		else
			memset(buf, 0, U);
		T_EXPECT_EQ(pwrite(fd, buf, U, (off_t)i * U), U, "target write");
	}
	close(fd);
}

struct seen {
	bool lost[NR], unjournaled[NR];
};

static int keep(const struct awr_verify_issue *is, void *arg)
{
	struct seen *s = arg;

	s->lost[is->unit] = is->lost;
	s->unjournaled[is->unit] = is->unjournaled;
	return 0;
}

static int verify(struct awr_verify_result *r, struct seen *s, uint64_t crash_ns)
{
	struct awr_verify_opts o = { .unit = U, .journal = journal, .crash_time_ns = crash_ns,
				     .issue = keep, .arg = s };

	memset(s, 0, sizeof(*s));
	return awr_verify_run(target, &o, r);
}

static void test_rule(void)
{
	/* unit: 0 overlap, 1 superseded, 2 in flight, 3 never written + ack, 4 unjournaled,
	 * 5 newest acked, 6 never written without ack, 7 older run in flight then newer run */
	const uint64_t gens[NR] = { 10, 12, 21, 0, 99, 30, 0, 5 };
	struct awr_verify_result r;
	struct seen s;
	int fd = new_journal();

	rec(fd, RUN, U, 1, NR * U, 100);
	write_rec(fd, 7, 5, 0, 100);		/* in flight when run 1 ended */
	write_rec(fd, 0, 10, 16, 110);		/* 10 acked after 11..15 were issued */
	write_rec(fd, 0, 11, 12, 111);		/* 11 issued while 10 in flight: 10 may land last */
	write_rec(fd, 1, 12, 13, 112);		/* 12 done (horizon 13) ... */
	write_rec(fd, 1, 14, 15, 114);		/* ... then 14 issued and acked: 12 is superseded */
	write_rec(fd, 2, 20, 21, 120);		/* 20 acked, 21 in flight at the crash */
	write_rec(fd, 2, 21, 0, 121);
	write_rec(fd, 3, 22, 23, 122);		/* acked, but the unit holds nothing */
	write_rec(fd, 5, 29, 30, 129);
	write_rec(fd, 5, 30, 31, 130);
	rec(fd, RUN, U, 40, NR * U, 200);	/* run 2: everything of run 1 is over */
	write_rec(fd, 7, 41, 42, 210);		/* unit 7 holds run 1's in-flight 5: lost */
	close(fd);
	make_target(gens);
	T_EXPECT_EQ(verify(&r, &s, 0), 0, "verify");
	T_EXPECT(!s.lost[0], "an overlapping older write may land last");
	T_EXPECT(s.lost[1], "a write complete before an acked newer one began is lost");
	T_EXPECT(!s.lost[2], "an in-flight generation may appear");
	T_EXPECT(s.lost[3], "an acked write to a unit with no stamp is lost");
	T_EXPECT(s.unjournaled[4] && !s.lost[4], "a generation never issued is unjournaled");
	T_EXPECT(!s.lost[5], "the newest acked generation is fine");
	T_EXPECT(!s.lost[6] && !s.unjournaled[6], "a never written unit without acks is fine");
	T_EXPECT(s.lost[7], "a run boundary ends the writes in flight before it");
	T_EXPECT_EQ(r.lost, 3, "lost units");
	T_EXPECT_EQ(r.unjournaled, 1, "unjournaled units");
	T_EXPECT_EQ(r.acked_writes, 9, "acknowledged writes");
	T_EXPECT_EQ(r.journal_records, 22, "records");
	T_EXPECT_EQ(r.count[AWR_UNIT_INTACT], 6, "intact units");
	T_EXPECT_EQ(r.count[AWR_UNIT_NEVER_WRITTEN], 2, "never written units");

	/* with the crash at time 114, the ack of 14 came after it: 12 is no longer lost */
	T_EXPECT_EQ(verify(&r, &s, 114), 0, "verify with a crash instant");
	T_EXPECT(!s.lost[1], "an ack after the crash instant counts as in flight");
	T_EXPECT(r.acked_late > 0, "late acks counted");
}

/*
 * The horizon itself: a write whose generation equals the horizon of g was
 * issued after g was complete ("at or above the horizon", awr-stamp(5)), so a
 * unit still holding g lost it; one generation below the horizon overlapped g.
 */
static void test_horizon_edge(void)
{
	/* unit: 0 newest == horizon, 1 newest == horizon - 1, 2 newest == the next run's
	 * first generation, 3 newest == run start - 1 (same run, acked before it) */
	const uint64_t gens[NR] = { 10, 20, 5, 6 };
	struct awr_verify_result r;
	struct seen s;
	int fd = new_journal();

	rec(fd, RUN, U, 1, NR * U, 100);
	write_rec(fd, 2, 5, 0, 100); /* in flight when run 1 ended (run 2 starts at 40) */
	write_rec(fd, 3, 6, 0, 101);		/* in flight, and ... */
	write_rec(fd, 3, 39, 40, 102);		/* ... 39 issued while 6 was in flight */
	write_rec(fd, 0, 10, 11, 110);		/* 10 done, the counter then 11 ... */
	write_rec(fd, 0, 11, 12, 111);		/* ... 11 issued after it and acked */
	write_rec(fd, 1, 19, 20, 119);
	write_rec(fd, 1, 20, 22, 120);		/* 20 acked after 21 was issued ... */
	write_rec(fd, 1, 21, 23, 121);		/* ... so 21 overlapped 20 */
	rec(fd, RUN, U, 40, NR * U, 200);
	write_rec(fd, 2, 40, 41, 210);		/* the run's first generation */
	close(fd);
	make_target(gens);
	T_EXPECT_EQ(verify(&r, &s, 0), 0, "verify");
	T_EXPECT(s.lost[0], "an acked write at exactly the horizon began after g: g is lost");
	T_EXPECT(!s.lost[1], "an acked write just below the horizon overlapped g");
	T_EXPECT(s.lost[2], "an acked write at exactly the next run's first generation began after "
			    "g");
	T_EXPECT(!s.lost[3], "an in-flight write of the same run may land after a later one");
	T_EXPECT_EQ(r.lost, 2, "lost units");
}

static void test_journal_damage(void)
{
	const uint64_t gens[NR] = { 2 };
	struct awr_verify_result r;
	struct seen s;
	uint8_t junk[20] = { 1, 2, 3 };
	int fd = new_journal();

	rec(fd, RUN, U, 1, NR * U, 1);
	write_rec(fd, 0, 1, 2, 2);
	write_rec(fd, 0, 2, 3, 3);
	T_EXPECT_EQ(write(fd, junk, sizeof(junk)), 20, "torn tail");
	close(fd);
	make_target(gens);
	T_EXPECT_EQ(verify(&r, &s, 0), 0, "a torn last record is ignored");
	T_EXPECT_EQ(r.journal_records, 5, "records before the torn tail");

	fd = open(journal, O_WRONLY);
	T_EXPECT_EQ(pwrite(fd, "\xff", 1, 60), 1, "damage record 1");
	close(fd);
	T_EXPECT_EQ(verify(&r, &s, 0), -EBADMSG, "damage before valid records");

	fd = new_journal();
	rec(fd, RUN, 8192, 1, NR * U, 1);
	close(fd);
	T_EXPECT_EQ(verify(&r, &s, 0), -EINVAL, "journal of another unit size");
	T_EXPECT_EQ(r.journal_unit, 8192, "the journal's unit size");
}

static void cleanup(void)
{
	unlink(target);
	unlink(journal);
	rmdir(dir);
}

int main(void)
{
	if (!mkdtemp(dir))
		T_SKIP("cannot make a directory in /tmp");
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(journal, sizeof(journal), "%s/journal", dir);
	atexit(cleanup);
	test_rule();
	test_horizon_edge();
	test_journal_damage();
	return t_done("verify_rule");
}
