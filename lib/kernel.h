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

#endif /* AWR_KERNEL_H */
