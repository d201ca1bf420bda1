// SPDX-License-Identifier: MIT
/*
 * Description: a journal record whose generation its record count cannot explain (more than the
 * records plus 256 per RUN record before it) is refused with -EBADMSG by the reader, by a stress
 * run opening the journal and by the verifier; generations at the bound are accepted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "helpers.h"
#include "verify/journal.h"
#include "libatomicwr.h"

#define GAP	256	/* generations a run may take without a record (awr-stamp(5)) */

static char dir[4096], path[4200], target[4200];

static int count_cb(const struct awr_jrec *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

/* A fresh journal of @nr records; types[i] with generation gens[i] for unit 0. */
static void make_journal(const uint32_t *types, const uint64_t *gens, int nr)
{
	struct awr_journal j;
	uint64_t seq = 0;

	unlink(path);
	T_EXPECT_EQ(awr__journal_open(path, &j), 0, "open an empty journal");
	for (int i = 0; i < nr; i++) {
		struct awr_jrec r = { .type = types[i], .generation = gens[i], .time_ns = 1 };
		uint8_t b[AWR_JREC_SIZE];
		uint64_t bound =
			(uint64_t)(i + 1) + GAP * (uint64_t)(j.runs + (types[i] == AWR_JREC_RUN));

		if (types[i] == AWR_JREC_RUN) {
			r.unit = 4096;
			r.value = 1 << 20;
		}
		if (gens[i] <= bound) {
			T_EXPECT_EQ(awr__journal_append(&j, &r, &seq), 0, "append");
			continue;
		}
		/* beyond the bound: refused by the append itself, written raw for the reader */
		T_EXPECT(awr__journal_append(&j, &r, &seq) == -EBADMSG,
			 "append of generation %llu beyond %llu: not refused",
			 (unsigned long long)gens[i], (unsigned long long)bound);
		awr__jrec_encode(b, &r);
		T_EXPECT(write(j.fd, b, sizeof(b)) == (ssize_t)sizeof(b), "write the record raw");
		j.records++;
		j.runs += types[i] == AWR_JREC_RUN;
	}
	T_EXPECT_EQ(awr__journal_sync(&j, seq), 0, "sync");
	awr__journal_close(&j);
}

/* The journal is read whole (@ok) or refused with -EBADMSG everywhere. */
static void expect(bool ok, int nr, const char *what)
{
	struct awr_verify_opts o = { .unit = 4096, .journal = path };
	struct awr_verify_result res;
	struct awr_journal j;
	int n = 0, ret;

	printf("%s\n", what);
	T_EXPECT_EQ(awr__journal_read(path, count_cb, &n), ok ? nr : -EBADMSG, "journal read");
	ret = awr__journal_open(path, &j);
	T_EXPECT_EQ(ret, ok ? 0 : -EBADMSG, "journal open for a stress run");
	if (!ret)
		awr__journal_close(&j);
	T_EXPECT_EQ(awr_verify_run(target, &o, &res), ok ? 0 : -EBADMSG, "verify");
	if (ok)
		T_EXPECT_EQ(res.journal_records, nr, "verify read every record");
}

int main(void)
{
	const uint32_t ri[] = { AWR_JREC_RUN, AWR_JREC_INTENT };
	const uint32_t rri[] = { AWR_JREC_RUN, AWR_JREC_RUN, AWR_JREC_INTENT };
	const uint32_t ir[] = { AWR_JREC_INTENT, AWR_JREC_RUN };
	char cmd[4300];
	int fd;

	snprintf(dir, sizeof(dir), "%s/awr-jgen.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		T_SKIP("cannot create a directory in %s", dir);
	snprintf(path, sizeof(path), "%s/journal", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_CREAT | O_RDWR, 0644);
	T_EXPECT(fd >= 0 && !ftruncate(fd, 1 << 20), "target");
	close(fd);

	make_journal(ri, (uint64_t[]){ 1, 2 + GAP }, 2);
	expect(true, 2, "RUN, INTENT at the bound (2 records + 256)");
	make_journal(ri, (uint64_t[]){ 1, 3 + GAP }, 2);
	expect(false, 2, "RUN, INTENT one past the bound");
	make_journal(rri, (uint64_t[]){ 1, 2, 3 + 2 * GAP }, 3);
	expect(true, 3, "two RUN records allow two gaps");
	make_journal(rri, (uint64_t[]){ 1, 2, 4 + 2 * GAP }, 3);
	expect(false, 3, "two RUN records, one past the bound");
	make_journal(ir, (uint64_t[]){ 3, 1 }, 2);
	expect(false, 2, "an intent before any RUN record past the record count");
	make_journal(ri, (uint64_t[]){ 1, 1ULL << 60 }, 2);
	expect(false, 2, "generation 2^60");
	make_journal(ri, (uint64_t[]){ 1, 1ULL << 63 }, 2);
	expect(false, 2, "generation 2^63");
	make_journal(ri, (uint64_t[]){ 1, UINT64_MAX }, 2);
	expect(false, 2, "generation 2^64-1 (a stress run would wrap to 0)");
	make_journal(ri, (uint64_t[]){ UINT64_MAX, 2 }, 2);
	expect(false, 2, "a RUN record at 2^64-1");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		t_failures++;
	return t_done("journal_generation_bound");
}
