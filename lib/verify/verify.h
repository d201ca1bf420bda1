/* SPDX-License-Identifier: MIT */
/* Private declarations of verification (lib/verify/) shared by its files: read-ahead. */
#ifndef AWR_VERIFY_H
#define AWR_VERIFY_H

#include "private.h"

/* readahead.c: two-slot read-ahead of a span */
struct awr__readahead;
int awr__ra_start(struct awr__readahead **out, int fd, uint64_t total, size_t chunk);
ssize_t awr__ra_next(struct awr__readahead *ra, const uint8_t **buf, uint64_t *off, ssize_t *got);
void awr__ra_stop(struct awr__readahead *ra);

#endif /* AWR_VERIFY_H */
