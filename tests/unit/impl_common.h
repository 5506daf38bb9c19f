/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included at the end of a wrapper, after the module's source: describes
 * that module as a struct cdg_impl named impl_<SHIM_IMPL>.  Both modules
 * name these things alike (struct cdg, tcp_cdg, nexp_u32, window); if one
 * renames them, only this file needs to follow.
 */
#include "impl.h"

static void impl_view(const struct sock *sk, struct cdg_view *v)
{
	const struct cdg *ca = inet_csk_ca(sk);

	v->rtt_min = ca->rtt.min;
	v->rtt_max = ca->rtt.max;
	v->prev_min = ca->rtt_prev.min;
	v->prev_max = ca->rtt_prev.max;
	v->gsum_min = ca->gsum.min;
	v->gsum_max = ca->gsum.max;
	v->gradients = ca->gradients;
	v->gfilled = ca->gfilled;
	v->tail = ca->tail;
	v->state = ca->state;
	v->delack = ca->delack;
	v->rtt_seq = ca->rtt_seq;
	v->shadow_wnd = ca->shadow_wnd;
	v->backoff_cnt = ca->backoff_cnt;
	v->sample_cnt = ca->sample_cnt;
	v->delay_min = ca->delay_min;
	v->last_ack = ca->last_ack;
	v->round_start = ca->round_start;
}

static void impl_set(struct sock *sk, const struct cdg_view *v)
{
	struct cdg *ca = inet_csk_ca(sk);

	ca->rtt.min = v->rtt_min;
	ca->rtt.max = v->rtt_max;
	ca->rtt_prev.min = v->prev_min;
	ca->rtt_prev.max = v->prev_max;
	ca->gsum.min = v->gsum_min;
	ca->gsum.max = v->gsum_max;
	ca->gfilled = v->gfilled;
	ca->tail = v->tail;
	ca->state = v->state;
	ca->delack = v->delack;
	ca->rtt_seq = v->rtt_seq;
	ca->shadow_wnd = v->shadow_wnd;
	ca->backoff_cnt = v->backoff_cnt;
	ca->sample_cnt = v->sample_cnt;
	ca->delay_min = v->delay_min;
	ca->last_ack = v->last_ack;
	ca->round_start = v->round_start;
}

static bool impl_ring(const struct sock *sk, int i, s32 *min, s32 *max)
{
	const struct cdg *ca = inet_csk_ca(sk);

	if (!ca->gradients || i < 0 || i >= window)
		return false;
	*min = ca->gradients[i].min;
	*max = ca->gradients[i].max;
	return true;
}

const struct cdg_impl __PASTE(impl_, SHIM_IMPL) = {
	.name		= SHIM_IMPL_NAME,
	.available	= true,
	.ops		= &tcp_cdg,
	.module_init	= __PASTE(SHIM_IMPL, _module_init),
	.module_exit	= __PASTE(SHIM_IMPL, _module_exit),
	.nexp		= nexp_u32,
	.priv_size	= sizeof(struct cdg),
	.window		= &window,
	.view		= impl_view,
	.set		= impl_set,
	.ring		= impl_ring,
};
