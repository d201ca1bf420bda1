/* SPDX-License-Identifier: MIT */
/*
 * xxHash, header-only: XXH_INLINE_ALL compiles its functions into each user as static inline, so
 * the library has no DT_NEEDED on libxxhash (a database that only writes pages does not load it).
 * The one place the library includes xxhash.h.
 */
#ifndef AWR_PLATFORM_HASH_H
#define AWR_PLATFORM_HASH_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#endif /* AWR_PLATFORM_HASH_H */
