// SPDX-License-Identifier: GPL-2.0
/*
 * lib/win_minmax.c's running maximum, with its semantics: a sample at
 * least as large as the best replaces all three; the best expires once
 * it is older than the window, and the second and third take its place;
 * the second and third are refreshed with newer samples a quarter and
 * half a window on, so that something recent is there to take over.
 * Times and the window are u32 and compared as differences (they wrap).
 */
#include <linux/win_minmax.h>

static u32 subwin_update(struct minmax *m, u32 win,
			 const struct minmax_sample *val)
{
	u32 dt = val->t - m->s[0].t;

	if (dt > win) {
		/* The best expired: promote the others, take val as third. */
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2] = *val;
		if (val->t - m->s[0].t > win) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
			m->s[2] = *val;
		}
	} else if (m->s[1].t == m->s[0].t && dt > win / 4) {
		/* A quarter window on and no second choice yet: take val. */
		m->s[2] = m->s[1] = *val;
	} else if (m->s[2].t == m->s[1].t && dt > win / 2) {
		/* Half a window on and no third choice yet: take val. */
		m->s[2] = *val;
	}
	return m->s[0].v;
}

u32 minmax_running_max(struct minmax *m, u32 win, u32 t, u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };

	if (val.v >= m->s[0].v || val.t - m->s[2].t > win)
		return minmax_reset(m, t, meas);	/* a new best, or all old */

	if (val.v >= m->s[1].v)
		m->s[2] = m->s[1] = val;
	else if (val.v >= m->s[2].v)
		m->s[2] = val;

	return subwin_update(m, win, &val);
}
