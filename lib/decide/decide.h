/* SPDX-License-Identifier: MIT */
/* Private declarations of the decisions (lib/decide/): the passthrough checks, target safety. */
#ifndef AWR_DECIDE_H
#define AWR_DECIDE_H

#include "private.h"
#include "device/device.h"
#include "device/nvme_format.h"

/* passthru.c */
int awr__pt_verdict(struct awr_verdict *v, enum awr_rule rule, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int awr__pt_node(const char *path, struct awr_devnode *n);

/* pt_check.c: pure checks of the passthrough engines */
int awr__pt_check_blocks(size_t len, uint64_t offset, uint32_t bs, uint64_t nr_blocks,
			 struct awr_verdict *v);
int awr__nvme_pt_check(const struct awr_nvme_id *id, size_t len, uint64_t offset,
		       struct awr_verdict *v);
uint32_t awr__scsi_boundary(const struct awr_scsi_id *s, uint64_t nlb, uint32_t boundary);
int awr__scsi_pt_shape(const struct awr_scsi_id *s, size_t len, uint64_t offset,
		       struct awr_verdict *v);
int awr__scsi_pt_check(const struct awr_scsi_id *s, size_t len, uint64_t offset, uint32_t boundary,
		       struct awr_verdict *v);
/*
 * pt_check.c: -EOPNOTSUPP (rule unsupported, naming MS and PI in @v) when the
 * format has metadata or protection information, else 0.
 */
int awr__nvme_pt_format(const struct awr__nvme_format *f, struct awr_verdict *v);

/* safety.c: unlink @path only while it still names @fd's inode (-ESTALE otherwise) */
int awr__unlink_if_same(const char *path, int fd);

#endif /* AWR_DECIDE_H */
