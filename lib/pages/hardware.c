// SPDX-License-Identifier: MIT
/*
 * Hardware mode on a file: do the store's pages take the device's own atomic
 * writes, in place? From the filesystem view and the file's extents
 * (lib/discover/fs.c, extents.c):
 * - ext4 writes atomically only in place (ext4_iomap_begin(), fs/ext4/inode.c,
 *   Linux 6.16): every page the kernel accepts is a hardware write;
 * - XFS (6.16+) writes a page in place when one extent spans it, its start
 *   block is a multiple of the page's blocks and the page is within the
 *   device's atomic unit_max; a hole of more than one block, a shared extent,
 *   anything else goes by copy-on-write (xfs_bmap_hw_atomic_write_possible(),
 *   xfs_direct_write_iomap_begin(); the rule is awr_route_predict()).
 * So on XFS the store's file must be allocated already, every page of it
 * inside such an extent: judged extent by extent (the first page of each,
 * the others follow from its alignment), never page by page.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "discover/discover.h"
#include "pages/pages.h"

/* Is every page of [0, size) in place on XFS? Else @why names the first that is not. */
bool awr__pages_xfs_in_place(const struct awr_fs_view *fs, const struct awr_extent_report *r,
			     uint32_t ps, char *why, size_t len)
{
	uint64_t next = 0;
	char rule[256];

	if (!r->file_size || r->file_size % ps) {
		awr__pages_say(why, len,
			       "the store file is %s (%" PRIu64 " bytes): XFS writes a "
			       "page in place "
			       "only where it is already allocated in an aligned extent",
			       r->file_size ? "not a whole number of pages" : "empty",
			       r->file_size);
		return false;
	}
	for (unsigned int i = 0; i < r->nr_extents && next < r->file_size; i++) {
		const struct awr_extent *e = &r->extents[i];

		if (e->logical != next || e->logical % ps ||
		    (e->length % ps && e->logical + e->length < r->file_size)) {
			awr__pages_say(why, len, "the store's extents do not cover its pages in "
						 "whole, aligned "
				       "pieces (at byte %" PRIu64 "): those pages would be "
								  "copy-on-write",
				       next);
			return false;
		}
		if (awr__route_predict(fs, r, e->logical, ps, rule, sizeof(rule)) !=
		    AWR_ROUTE_HARDWARE) {
			awr__pages_say(why, len, "the page at byte %" PRIu64 " would not go in "
									     "place: %s",
				       e->logical, rule);
			return false;
		}
		next = e->logical + e->length;
	}
	if (next < r->file_size) {
		awr__pages_say(why, len,
			       "the store file is not allocated from byte %" PRIu64 ": those pages "
			       "would be copy-on-write",
			       next);
		return false;
	}
	return true;
}

bool awr__pages_hardware_file(const struct awr_pages *s, char *why, size_t len)
{
	struct awr_extent_report *r = NULL;
	struct awr_fs_view fs;
	char ps[24];
	bool ok;
	int ret;

	awr_format_size(s->page_size, ps, sizeof(ps));
	ret = awr_fs_view_fd(s->fd, &fs);
	if (ret) {
		awr__pages_say(why, len, "cannot read the filesystem view: %s", strerror(-ret));
		return false;
	}
	if (fs.type == AWR_FS_EXT4) {
		awr__pages_say(why, len, "ext4 writes %s pages atomically only in place (the "
					 "device's units "
			       "%u..%u)", ps, fs.hw_unit_min, fs.hw_unit_max);
		return true;
	}
	if (fs.type != AWR_FS_XFS) {
		awr__pages_say(why, len, "the path of an atomic write on %s is not known",
			       fs.type_name);
		return false;
	}
	if (!fs.hardware_max) {
		awr__pages_say(why, len, "the device below has no atomic writes of its own: XFS "
					 "writes %s "
			       "pages by copy-on-write", ps);
		return false;
	}
	if (fs.hardware_max < s->page_size) {
		awr__pages_say(why, len,
			       "the device below writes at most %" PRIu64
			       " bytes atomically itself: "
			       "XFS writes %s pages by copy-on-write",
			       fs.hardware_max, ps);
		return false;
	}
	ret = awr_extents_read(s->fd, s->page_size, &r);
	if (ret) {
		awr__pages_say(why, len, "cannot read the store's extents (FIEMAP): %s",
			       strerror(-ret));
		return false;
	}
	ok = awr__pages_xfs_in_place(&fs, r, s->page_size, why, len);
	if (ok)
		awr__pages_say(why, len,
			       "every %s page of the store is in one aligned extent "
			       "within the "
			       "device's atomic limit %" PRIu64 ": XFS writes it in place",
			       ps, fs.hardware_max);
	awr_extent_report_free(r);
	return ok;
}
