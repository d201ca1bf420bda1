// SPDX-License-Identifier: MIT
/*
 * A data directory's reasons across its files: a thousand tablespaces on one
 * filesystem give the same sentence a thousand times, and what an operator (or
 * a caller reading the report) needs is each distinct reason once, with how
 * many files give it and the first of them.
 */
#include <string.h>

#include "database/reasons.h"

/* The group holding @text among the first @n of @g, or @n when none does */
static unsigned int group_of(const struct awr_db_reason_group *g, unsigned int n,
			     const char *text)
{
	unsigned int j = 0;

	while (j < n && strcmp(g[j].text, text))
		j++;
	return j;
}

/* One file's reason: counted in its group, a new group, or past the groups' room */
static void add_reason(struct awr_db_report *r, const struct awr_db_file *f, const char *text)
{
	unsigned int j = group_of(r->reason_groups, r->nr_reason_groups, text);

	if (j < r->nr_reason_groups)
		r->reason_groups[j].files++;
	else if (j < AWR_DB_MAX_REASON_GROUPS)
		r->reason_groups[r->nr_reason_groups++] =
			(struct awr_db_reason_group){ text, f->path, 1 };
	else
		r->reason_groups_more++;
}

void awr__db_group_reasons(struct awr_db_report *r)
{
	r->nr_reason_groups = 0;
	r->reason_groups_more = 0;
	for (unsigned int i = 0; i < r->nr_files; i++) {
		const struct awr_db_file *f = &r->files[i];

		for (unsigned int k = 0; k < f->nr_reasons; k++)
			add_reason(r, f, f->reasons[k]);
	}
}
