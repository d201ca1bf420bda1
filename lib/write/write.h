/* SPDX-License-Identifier: MIT */
/* Private declarations of writing (lib/write/): the open target. */
#ifndef AWR_WRITE_H
#define AWR_WRITE_H

#include "private.h"
#include "discover/discover.h"
#include "decide/decide.h"

struct awr_file {
	int fd;
	bool owns_fd;
	int open_flags;			/* fcntl(F_GETFL), read once */
	struct awr_probe *probe;
	struct awr_limits limits;
};

#endif /* AWR_WRITE_H */
