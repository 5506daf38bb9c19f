/* SPDX-License-Identifier: GPL-2.0 */
/*
 * get_random_u32() draws from the current shim_rng (shim.h): each simulated
 * sender owns a stream and selects it before calling into an
 * implementation, so ours and the oracle see the same numbers.
 */
#ifndef _SHIM_LINUX_RANDOM_H
#define _SHIM_LINUX_RANDOM_H
#include <linux/types.h>
u32 get_random_u32(void);
#endif
