// SPDX-License-Identifier: GPL-2.0
/*
 * The congestion-control core CDG calls into, with the semantics of Linux
 * 6.1 net/ipv4/tcp_cong.c and tcp_input.c: Reno growth, tcp_enter_cwr(),
 * the registry of tcp_congestion_ops and the per-socket lifecycle.
 */
#include <stdio.h>

#include <net/tcp.h>

#include "shim.h"

/* ---- tcp_cong.c: Reno ---- */

u32 tcp_slow_start(struct tcp_sock *tp, u32 acked)
{
	u32 cwnd = min(tcp_snd_cwnd(tp) + acked, tp->snd_ssthresh);

	acked -= cwnd - tcp_snd_cwnd(tp);
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
	return acked;
}

void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked)
{
	/* If credits accumulated at a higher w, apply them gently now. */
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + 1);
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= w) {
		u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp) + delta);
	}
	tcp_snd_cwnd_set(tp, min(tcp_snd_cwnd(tp), tp->snd_cwnd_clamp));
}

void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	(void)ack;
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked);
}

u32 tcp_reno_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return max(tcp_snd_cwnd(tp) >> 1U, 2U);
}

u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return max(tcp_snd_cwnd(tp), tp->prior_cwnd);
}

struct tcp_congestion_ops tcp_reno = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.name		= "reno",
};

/* ---- tcp_input.c: entering CWR ---- */

/* Static in tcp_input.c; shared here with the model (shim.h). */
void tcp_init_cwnd_reduction(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->high_seq = tp->snd_nxt;
	tp->tlp_high_seq = 0;
	tp->snd_cwnd_cnt = 0;
	tp->prior_cwnd = tcp_snd_cwnd(tp);
	tp->prr_delivered = 0;
	tp->prr_out = 0;
	tp->snd_ssthresh = inet_csk(sk)->icsk_ca_ops->ssthresh(sk);
}

void tcp_enter_cwr(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->prior_ssthresh = 0;
	if (inet_csk(sk)->icsk_ca_state < TCP_CA_CWR) {
		tp->undo_marker = 0;
		tcp_init_cwnd_reduction(sk);
		tcp_set_ca_state(sk, TCP_CA_CWR);
	}
}

/* ---- the registry ---- */

#define MAX_CC 8
static struct tcp_congestion_ops *registered[MAX_CC];
static int nregistered;
long shim_cc_bad_unregisters;

int shim_cc_registered(void)
{
	return nregistered;
}

const struct tcp_congestion_ops *tcp_ca_find(const char *name)
{
	int i;

	for (i = 0; i < nregistered; i++)
		if (!strcmp(registered[i]->name, name))
			return registered[i];
	return NULL;
}

int tcp_register_congestion_control(struct tcp_congestion_ops *ca)
{
	if (!ca->ssthresh || !ca->undo_cwnd || !(ca->cong_avoid || ca->cong_control)) {
		shim_printk("kernel", "err", "%s does not implement required ops\n", ca->name);
		return -EINVAL;
	}
	if (tcp_ca_find(ca->name) || nregistered == MAX_CC) {
		shim_printk("kernel", "notice", "%s already registered or non-unique key\n",
			    ca->name);
		return -EEXIST;
	}
	registered[nregistered++] = ca;
	return 0;
}

void tcp_unregister_congestion_control(struct tcp_congestion_ops *ca)
{
	int i;

	for (i = 0; i < nregistered; i++) {
		if (registered[i] == ca) {
			registered[i] = registered[--nregistered];
			return;
		}
	}
	/* The kernel would list_del_rcu() an unlinked entry: corruption. */
	shim_cc_bad_unregisters++;
	fprintf(stderr, "# shim: tcp_unregister_congestion_control(\"%s\") of an ops never registered\n",
		ca->name);
}

/* ---- per-socket lifecycle (tcp_cong.c) ---- */

void shim_cc_init(struct sock *sk, const struct tcp_congestion_ops *ops)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	icsk->icsk_ca_ops = ops;
	tcp_sk(sk)->prior_ssthresh = 0;
	if (ops->init)
		ops->init(sk);
	icsk->icsk_ca_initialized = 1;
}

void shim_cc_cleanup(struct sock *sk)
{
	const struct tcp_congestion_ops *ops = inet_csk(sk)->icsk_ca_ops;

	if (ops && ops->release)
		ops->release(sk);
}

/* setsockopt(TCP_CONGESTION): tcp_reinit_congestion_control(). */
void shim_cc_reinit(struct sock *sk, const struct tcp_congestion_ops *ops)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	shim_cc_cleanup(sk);
	icsk->icsk_ca_ops = ops;
	icsk->icsk_ca_setsockopt = 1;
	memset(icsk->icsk_ca_priv, 0, sizeof(icsk->icsk_ca_priv));
	icsk->icsk_ca_initialized = 0;
	if (!((1 << sk->sk_state) & ((1 << TCP_CLOSE) | (1 << TCP_LISTEN))))
		shim_cc_init(sk, ops);
}
