/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr - discover, check, perform and verify Linux atomic (untorn)
 * block writes (RWF_ATOMIC, Linux 6.11+).
 *
 * Data flows one way: discover -> decide -> write -> verify. The per-area
 * headers below follow that order; each compiles on its own, including the
 * earlier ones it needs.
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; errno is never relied upon. Where a write or a check is refused,
 * struct awr_verdict says why: the rule (awr_rule_name()), the errno and one
 * sentence with the numbers.
 */
#ifndef LIBATOMICWR_H
#define LIBATOMICWR_H

#define AWR_VERSION_MAJOR 0
#define AWR_VERSION_MINOR 1

#include <libatomicwr/common.h>		/* version, sizes, kernel rules, limits, findings */
#include <libatomicwr/device.h>		/* device views: NVMe / SCSI identify, derived limits */
#include <libatomicwr/discover.h>	/* statx, sysfs, the probe, filesystems, extents */
#include <libatomicwr/decide.h>		/* the rule checker, target safety */
#include <libatomicwr/write.h>		/* open targets, pwrite, io_uring, prepare */
#include <libatomicwr/queue.h>		/* the queue: io_uring, NVMe and SCSI engines */
#include <libatomicwr/pages.h>		/* the untorn page store */
#include <libatomicwr/database.h>	/* database verdicts, preload counters */
#include <libatomicwr/verify.h>		/* stamps, stress, verification, journal server */
#include <libatomicwr/bench.h>		/* the benchmark engine: atomic vs plain vs doublewrite */
#include <libatomicwr/qualify.h>	/* qualification: the checks and the verdict */

#endif /* LIBATOMICWR_H */
