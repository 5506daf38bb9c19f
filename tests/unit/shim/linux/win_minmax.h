/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/win_minmax.h>: Kathleen Nichols' windowed min/max filter, the
 * three best samples of a window (best, and the best of the later
 * quarter and half).  Only minmax_running_max() is declared: it is what
 * 6.1 exports to modules (for tcp_bbr); minmax_running_min() is not
 * exported there, so a module that called it would not load.
 */
#ifndef _SHIM_LINUX_WIN_MINMAX_H
#define _SHIM_LINUX_WIN_MINMAX_H

#include <linux/types.h>

struct minmax_sample {
	u32 t;		/* when it was taken */
	u32 v;		/* its value */
};

struct minmax {
	struct minmax_sample s[3];
};

static inline u32 minmax_get(const struct minmax *m)
{
	return m->s[0].v;
}

static inline u32 minmax_reset(struct minmax *m, u32 t, u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };

	m->s[2] = m->s[1] = m->s[0] = val;
	return m->s[0].v;
}

u32 minmax_running_max(struct minmax *m, u32 win, u32 t, u32 meas);

#endif
