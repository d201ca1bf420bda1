// SPDX-License-Identifier: MIT
/*
 * Description: a database report's reasons grouped across its files (reasons.c, the report's
 * reason_groups that awr database prints): each distinct sentence once in the order the files
 * give it first, with how many files give it and the first of them; a report of no reason has
 * no group; past AWR_DB_MAX_REASON_GROUPS distinct sentences each further reason is counted in
 * reason_groups_more, and a second grouping starts afresh.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "database/reasons.h"

/* A report of @n files named f0, f1, ...; no reasons yet */
static struct awr_db_report *report(unsigned int n)
{
	struct awr_db_report *r = calloc(1, sizeof(*r));

	if (!r || !(r->files = calloc(n, sizeof(*r->files))))
		T_SKIP("out of memory");
	r->nr_files = n;
	for (unsigned int i = 0; i < n; i++)
		snprintf(r->files[i].path, sizeof(r->files[i].path), "f%u", i);
	return r;
}

/* Group @j of @r: @text, first given by @first, in @files files */
static bool group_is(const struct awr_db_report *r, unsigned int j, const char *text,
		     const char *first, unsigned int files)
{
	const struct awr_db_reason_group *g = &r->reason_groups[j];

	return g->text && g->first && !strcmp(g->text, text) && !strcmp(g->first, first) &&
	       g->files == files;
}

static void give(struct awr_db_file *f, const char *text)
{
	snprintf(f->reasons[f->nr_reasons++], sizeof(f->reasons[0]), "%s", text);
}

/* Three files: "torn" given by f0 and f2, "split" by f1 and f2, "cached" by f2 only */
static void three_files(void)
{
	struct awr_db_report *r = report(3);

	give(&r->files[0], "torn");
	give(&r->files[1], "split");
	give(&r->files[1], "torn");
	give(&r->files[2], "split");
	give(&r->files[2], "cached");
	give(&r->files[2], "torn");
	awr__db_group_reasons(r);
	T_EXPECT_EQ(r->nr_reason_groups, 3, "three distinct reasons");
	T_EXPECT(group_is(r, 0, "torn", "f0", 3), "torn: 3 files from f0");
	T_EXPECT(group_is(r, 1, "split", "f1", 2), "split: 2 files from f1");
	T_EXPECT(group_is(r, 2, "cached", "f2", 1), "cached: f2 alone");
	T_EXPECT_EQ(r->reason_groups_more, 0, "nothing past the groups");
	awr_db_report_free(r);
}

static void no_reason(void)
{
	struct awr_db_report *r = report(2);

	r->nr_reason_groups = 5;	/* left from an earlier grouping */
	awr__db_group_reasons(r);
	T_EXPECT_EQ(r->nr_reason_groups, 0, "files of no reason: no group");
	awr_db_report_free(r);
}

/* 70 files of a sentence each, then each of the first 3 again in one more file */
static void past_the_room(void)
{
	unsigned int n = AWR_DB_MAX_REASON_GROUPS + 6;
	struct awr_db_report *r = report(n + 1);
	char text[32];

	for (unsigned int i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "reason %u", i);
		give(&r->files[i], text);
	}
	give(&r->files[n], "reason 0");
	give(&r->files[n], "reason 69");
	give(&r->files[n], "reason 68");
	awr__db_group_reasons(r);
	T_EXPECT_EQ(r->nr_reason_groups, AWR_DB_MAX_REASON_GROUPS, "the groups' room full");
	T_EXPECT(group_is(r, 0, "reason 0", "f0", 2), "reason 0 in two files");
	T_EXPECT(group_is(r, 63, "reason 63", "f63", 1), "the last group: reason 63");
	T_EXPECT_EQ(r->reason_groups_more, 8, "6 sentences past the room, two of them twice");
	awr__db_group_reasons(r);
	T_EXPECT_EQ(r->reason_groups_more, 8, "a second grouping starts afresh");
	T_EXPECT_EQ(r->reason_groups[0].files, 2, "and counts afresh");
	awr_db_report_free(r);
}

int main(void)
{
	three_files();
	no_reason();
	past_the_room();
	return t_done("db_reasons");
}
