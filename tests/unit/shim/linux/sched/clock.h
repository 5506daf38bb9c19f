/* SPDX-License-Identifier: GPL-2.0 */
/* local_clock(): the 2015 CDG used it; the 6.1 one only includes this. */
#ifndef _SHIM_LINUX_SCHED_CLOCK_H
#define _SHIM_LINUX_SCHED_CLOCK_H
#include <linux/types.h>
u64 local_clock(void);
#endif
