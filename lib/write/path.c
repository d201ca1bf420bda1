// SPDX-License-Identifier: MIT
/*
 * The route a write took (awr_pwrite_route): the unit's extent mapping read
 * before and after its atomic write and compared (awr_route_compare()).
 */
#include <errno.h>
#include <sys/stat.h>

#include "private.h"

ssize_t awr_pwrite_route(struct awr_file *f, const void *buf, size_t len, uint64_t off,
			 unsigned int flags, struct awr_verdict *v, enum awr_write_route *route)
{
	struct awr_unit_map before, after;
	bool mapped = false;
	struct stat st;
	ssize_t ret;

	if (!f || !route)
		return -EINVAL;
	*route = AWR_ROUTE_UNKNOWN;
	if (fstat(awr_file_fd(f), &st))
		return -errno;
	if (S_ISREG(st.st_mode))
		mapped = !awr_unit_map_read(awr_file_fd(f), off, len, &before);
	ret = awr_pwrite(f, buf, len, off, flags, v);
	if (ret < 0) {
		*route = AWR_ROUTE_REFUSED;
		return ret;
	}
	if (S_ISBLK(st.st_mode))
		*route = AWR_ROUTE_HARDWARE;	/* a block device has no other route */
	else if (mapped && !awr_unit_map_read(awr_file_fd(f), off, len, &after))
		*route = awr_route_compare(&before, &after);
	return ret;
}
