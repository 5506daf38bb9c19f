/* SPDX-License-Identifier: GPL-2.0 */
/* Shim of <linux/log2.h>: the helpers CDG's parameter checks use. */
#ifndef _SHIM_LINUX_LOG2_H
#define _SHIM_LINUX_LOG2_H

#include <linux/types.h>

static inline __attribute__((const)) bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline __attribute__((const)) int ilog2(unsigned long n)
{
	return n ? (int)(8 * sizeof(n) - 1 - __builtin_clzl(n)) : -1;
}

#endif
