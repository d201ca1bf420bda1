// SPDX-License-Identifier: MIT
#include "private.h"
#include "config.h"

const char *awr_version(void)
{
	return AWR_VERSION_STRING;
}
