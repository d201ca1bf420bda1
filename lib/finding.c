// SPDX-License-Identifier: MIT
/*
 * The finding catalogue (findings.def) as a table, and appending a finding to a
 * bounded list: shared by the probe's, the filesystem view's and the device view's findings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "private.h"

/* A warn or error finding without what to do does not build. */
#define VARIANT(key, id, sev, tmpl, todo)						\
	_Static_assert(AWR_SEV_##sev == AWR_SEV_INFO || sizeof(todo) > 1,		\
		       "findings.def: " #key " (" #sev ") needs what to do");
#define FINDING(id, sev, tmpl, todo) VARIANT(id, #id, sev, tmpl, todo)
#include "findings.def"
#undef VARIANT

#define VARIANT(key, id, sev, tmpl, todo)						\
	[AWR__F_##key] = { id, AWR_SEV_##sev, sizeof(todo) > 1 ? todo : NULL },
const struct awr__finding_entry awr__findings[AWR__F_NR] = {
#include "findings.def"
};
#undef VARIANT
#undef FINDING

const char *awr_severity_name(enum awr_severity s)
{
	return s == AWR_SEV_ERROR ? "error" : s == AWR_SEV_WARN ? "warn" : "info";
}

void awr__finding_vadd(struct awr_finding *arr, unsigned int *nr, unsigned int max,
		       enum awr__finding_key key, const char *fmt, va_list ap)
{
	const struct awr__finding_entry *e = &awr__findings[key];
	struct awr_finding *f;

	if (*nr >= max)
		return;
	f = &arr[(*nr)++];
	f->id = e->id;
	f->severity = e->severity;
	f->what_to_do = e->what_to_do;
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
}

void awr__finding_copy(struct awr_finding *arr, unsigned int *nr, unsigned int max,
		       const struct awr_finding *f)
{
	if (*nr < max)
		arr[(*nr)++] = *f;
}
