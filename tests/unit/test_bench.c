// SPDX-License-Identifier: GPL-2.0
/*
 * Per-ACK cost of ours and of the oracle in the same run.  The calls the
 * model makes into the congestion control over all traces are recorded
 * once (with the socket fields they read), then replayed against each
 * implementation alone, so the figure is the module's cost, not the
 * model's.  Best of 15 alternating runs; printed as "# bench:", not
 * asserted.  Only meaningful in the -O2 build: skipped under sanitizers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"
#include "testlib.h"

#ifdef __SANITIZE_ADDRESS__
#define REPEAT 1	/* only the replay check: timing means nothing here */
#else
#define REPEAT 40
#endif

enum { OP_ACKED, OP_CONG_AVOID, OP_EVENT, OP_SSTHRESH, OP_UNDO, OP_INIT, OP_RELEASE };

struct rec {
	u8 op, ca_state, limited;
	u32 a, b;
	s32 rtt;
	u32 cwnd, ssthresh, snd_nxt, snd_una, sacked_out, prior_cwnd, cwnd_cnt, max_out;
	u64 mstamp;
};

static struct rec *recs;
static size_t nrecs, cap, nacks;
static int depth;
static const struct tcp_congestion_ops *target;

static void record(struct sock *sk, u8 op, u32 a, u32 b, s32 rtt)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct rec *r;

	if (depth)
		return;		/* a call from inside the module (ssthresh in CWR) */
	if (nrecs == cap) {
		cap = cap ? 2 * cap : 65536;
		recs = realloc(recs, cap * sizeof(*recs));
		if (!recs)
			abort();
	}
	r = &recs[nrecs++];
	*r = (struct rec){ op, inet_csk(sk)->icsk_ca_state, tp->is_cwnd_limited, a, b, rtt,
			   tp->snd_cwnd, tp->snd_ssthresh, tp->snd_nxt, tp->snd_una,
			   tp->sacked_out, tp->prior_cwnd, tp->snd_cwnd_cnt,
			   tp->max_packets_out, tp->tcp_mstamp };
	nacks += op == OP_ACKED;
}

static void r_acked(struct sock *sk, const struct ack_sample *s)
{
	record(sk, OP_ACKED, s->pkts_acked, 0, s->rtt_us);
	depth++;
	target->pkts_acked(sk, s);
	depth--;
}

static void r_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	record(sk, OP_CONG_AVOID, ack, acked, 0);
	depth++;
	target->cong_avoid(sk, ack, acked);
	depth--;
}

static void r_event(struct sock *sk, enum tcp_ca_event ev)
{
	record(sk, OP_EVENT, ev, 0, 0);
	depth++;
	target->cwnd_event(sk, ev);
	depth--;
}

static u32 r_ssthresh(struct sock *sk)
{
	u32 v;

	record(sk, OP_SSTHRESH, 0, 0, 0);
	depth++;
	v = target->ssthresh(sk);
	depth--;
	return v;
}

static u32 r_undo(struct sock *sk)
{
	record(sk, OP_UNDO, 0, 0, 0);
	return target->undo_cwnd(sk);
}

static void r_init(struct sock *sk)
{
	record(sk, OP_INIT, 0, 0, 0);
	target->init(sk);
}

static void r_release(struct sock *sk)
{
	record(sk, OP_RELEASE, 0, 0, 0);
	target->release(sk);
}

static struct tcp_congestion_ops recorder = {
	.ssthresh = r_ssthresh, .cong_avoid = r_cong_avoid, .cwnd_event = r_event,
	.pkts_acked = r_acked, .undo_cwnd = r_undo, .init = r_init,
	.release = r_release, .name = "recorder",
};

/* Replays every record; returns a checksum of the decisions. */
static u64 replay(const struct cdg_impl *impl)
{
	static struct tsock s;
	struct tcp_sock *tp = &s.tp;
	struct sock *sk = tsk(&s);
	const struct tcp_congestion_ops *ops = impl->ops;
	u64 sum = 0;
	size_t i;

	memset(&s, 0, sizeof(s));
	tp->inet_conn.icsk_inet.sk.__sk_common.skc_net = &init_net;
	tp->inet_conn.icsk_ca_ops = ops;
	tp->snd_cwnd_clamp = ~0U;
	shim_rng_seed(&s.rng, 1);
	shim_rng_current = &s.rng;
	for (i = 0; i < nrecs; i++) {
		const struct rec *r = &recs[i];
		struct ack_sample a = { r->a, r->rtt, 0 };

		tp->snd_cwnd = r->cwnd;
		tp->snd_ssthresh = r->ssthresh;
		tp->snd_nxt = r->snd_nxt;
		tp->snd_una = r->snd_una;
		tp->sacked_out = r->sacked_out;
		tp->prior_cwnd = r->prior_cwnd;
		tp->snd_cwnd_cnt = r->cwnd_cnt;
		tp->max_packets_out = r->max_out;
		tp->is_cwnd_limited = r->limited;
		tp->tcp_mstamp = r->mstamp;
		tp->inet_conn.icsk_ca_state = r->ca_state;
		switch (r->op) {
		case OP_ACKED:
			ops->pkts_acked(sk, &a);
			break;
		case OP_CONG_AVOID:
			ops->cong_avoid(sk, r->a, r->b);
			break;
		case OP_EVENT:
			ops->cwnd_event(sk, r->a);
			break;
		case OP_SSTHRESH:
			sum += ops->ssthresh(sk);
			break;
		case OP_UNDO:
			sum += ops->undo_cwnd(sk);
			break;
		case OP_INIT:
			ops->init(sk);
			break;
		case OP_RELEASE:
			ops->release(sk);
			break;
		}
		sum = sum * 31 + tp->snd_cwnd + tp->snd_ssthresh;
	}
	return sum;
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
	double best[2] = { 1e9, 1e9 };
	u64 sum[2] = { 0, 0 };
	int i, k;

	if (!impl_oracle.available) {
		tap_skip("linux-source-6.1 not installed", "bench: ours vs oracle");
		return tap_done();
	}
	t_modules_load();
	target = impl_ours.ops;
	for (i = 0; i < model_ntraces; i++) {
		struct model m;

		model_init(&m, &model_traces[i], &recorder, &init_net);
		while (model_step(&m) != MODEL_END)
			;
		model_free(&m);
	}
	for (k = 0; k < REPEAT; k++) {
		for (i = 0; i < 2; i++) {
			double t0 = seconds(), dt;

			sum[i] = replay(impls[i]);
			dt = seconds() - t0;
			if (dt < best[i])
				best[i] = dt;
		}
	}
	tap_ok(sum[0] == sum[1], "bench replay: ours and the oracle took the same decisions "
	       "on %zu recorded calls (%zu ACKs)", nrecs, nacks);
	if (REPEAT > 1)
		printf("# bench: ours %.1f ns/ACK, oracle %.1f ns/ACK, ratio ours/oracle %.2f "
		       "(%zu ACKs, best of %d, -O2)\n", best[0] * 1e9 / nacks,
		       best[1] * 1e9 / nacks, best[0] / best[1], nacks, REPEAT);
	else
		tap_diag("bench: no timing in the sanitized build (see the -O2 run)");
	free(recs);
	t_modules_unload();
	return tap_done();
}
