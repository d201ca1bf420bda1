/* SPDX-License-Identifier: MIT */
/* The kernel rules table (kernel.c): which rule applies on which release. */
#ifndef AWR_KERNEL_H
#define AWR_KERNEL_H

#include "private.h"

/* @kernel, or the running kernel when it is 0 (and 6.11 when uname fails). */
static inline uint32_t awr__kernel_or_running(uint32_t kernel)
{
	uint32_t k = kernel ? kernel : awr_kernel_running();

	return k ? k : AWR_KERNEL(6, 11, 0);
}

/*
 * What blk_atomic_write_start_sect_aligned() (block/blk.h) of @kernel checks a partition's start
 * against: the boundary and unit_min, from 6.14 (6.13.2) hw_unit_min, the driver's value before the
 * bio caps of blk_atomic_writes_update_limits() (AWR_KRULE_PART_HW_UNIT_MIN). @hw_unit_min 0: not
 * known (sysfs shows the capped unit_min only), unit_min stands in for it.
 */
uint32_t awr__part_start_align(uint32_t kernel, uint32_t unit_min, uint32_t hw_unit_min,
			       uint32_t boundary);

#endif /* AWR_KERNEL_H */
