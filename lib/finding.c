// SPDX-License-Identifier: MIT
/* Appending a finding to a bounded list: shared by the probe's and the device view's findings. */
#include <stdarg.h>
#include <stdio.h>

#include "private.h"

void awr__findings_vadd(struct awr_finding *arr, unsigned int *nr, const char *id,
			enum awr_severity sev, const char *fmt, va_list ap)
{
	struct awr_finding *f;

	if (*nr >= AWR_MAX_FINDINGS)
		return;
	f = &arr[(*nr)++];
	f->id = id;
	f->severity = sev;
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
}
