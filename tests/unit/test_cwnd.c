// SPDX-License-Identifier: GPL-2.0
/*
 * Window decisions (spec sections 9-11): ssthresh() in every state and
 * parameter combination against the spec's formula, undo_cwnd(), the
 * shadow window (growth, saturation, halving, application-limited clamp,
 * backoff), both HyStart exits with their SNMP and /proc counters, and
 * ours' opt-in backoff_drain, also after the path got longer.
 */
#include <stdio.h>
#include <stdlib.h>

#include "testlib.h"

static const struct cdg_impl *impl;

static void params(const struct t_params *p)
{
	if (t_params_set(impl, p))
		tap_diag("%s: cannot set parameters", impl->name);
}

/* Spec 10, in exact arithmetic. */
static u32 spec_ssthresh(u8 state, bool tol, bool shadow, u32 beta, u32 cwnd,
			 u32 *shadow_wnd)
{
	u64 s;

	if (state == CDG_S_BACKOFF) {
		s = (u64)cwnd * (beta < 1024 ? beta : 1024) / 1024;
		return s > 2 ? (u32)s : 2;
	}
	if (state == CDG_S_NONFULL && tol)
		return cwnd;
	*shadow_wnd = *shadow_wnd / 2 < cwnd ? *shadow_wnd / 2 : cwnd;
	s = cwnd / 2;
	if (shadow && *shadow_wnd > s)
		s = *shadow_wnd;
	return s > 2 ? (u32)s : 2;
}

static void test_ssthresh(void)
{
	static const char *const betas[] = { "0", "1", "512", "724", "1023", "1024" };
	static const u32 cwnds[] = { 1, 2, 3, 4, 10, 101, 65535, 1u << 22,
				     (1u << 22) + 1, 1u << 23, 0x7fffffff };
	static const u32 shadows[] = { 0, 1, 7, 100, 1u << 22, 1u << 30, U32_MAX };
	long cases = 0, bad = 0, overflow_only = 0, tolerated = 0;
	long tol0 = t_proc("LossesTolerated");
	u8 state;
	int tol, sh;
	size_t b, c, w;

	for (state = 0; state < 4; state++)
	for (tol = 0; tol < 2; tol++)
	for (sh = 0; sh < 2; sh++)
	for (b = 0; b < ARRAY_SIZE(betas); b++) {
		struct t_params p = { .backoff_beta = betas[b],
				      .use_tolerance = tol ? "1" : "0",
				      .use_shadow = sh ? "1" : "0" };

		params(&p);
		for (c = 0; c < ARRAY_SIZE(cwnds); c++)
		for (w = 0; w < ARRAY_SIZE(shadows); w++) {
			struct tsock s;
			struct cdg_view v;
			u32 want_shadow = shadows[w], want, got;

			t_open(&s, impl, cwnds[c], 1);
			t_view(&s, &v);
			v.state = state;
			v.shadow_wnd = shadows[w];
			impl->set(tsk(&s), &v);
			got = impl->ops->ssthresh(tsk(&s));
			want = spec_ssthresh(state, tol, sh, atoi(betas[b]), cwnds[c],
					     &want_shadow);
			t_view(&s, &v);
			cases++;
			tolerated += state == CDG_S_NONFULL && tol;
			if (got != want || v.shadow_wnd != want_shadow) {
				bool ovf = state == CDG_S_BACKOFF &&
					   (u64)cwnds[c] * atoi(betas[b]) > U32_MAX;

				overflow_only += ovf;
				bad++;
				if (ovf ? overflow_only == 1 : bad - overflow_only <= 2)
					tap_diag("%s ssthresh state %u tol %d shadow %d beta %s cwnd %u "
						 "shadow_wnd %u: got %u (shadow %u), spec %u (shadow %u)",
						 impl->name, state, tol, sh, betas[b], cwnds[c],
						 shadows[w], got, v.shadow_wnd, want, want_shadow);
			}
			t_close(&s);
		}
	}
	tap_ok(bad == overflow_only, "%s ssthresh: %ld cases of state x use_tolerance x "
	       "use_shadow x backoff_beta x cwnd x shadow_wnd follow spec 10 "
	       "(%ld differ, %ld of them BACKOFF with cwnd*beta > 2^32)",
	       impl->name, cases, bad, overflow_only);
	t_spec(impl, overflow_only == 0,
	       "[spec 10] BACKOFF ssthresh = cwnd*beta/1024 also for cwnd*beta >= 2^32 "
	       "(%ld cases wrap in u32)", overflow_only);
	if (impl == &impl_ours)
		tap_ok(t_proc("LossesTolerated") - tol0 == tolerated,
		       "ours /proc/net/stat/tcp_cdg LossesTolerated counts each loss use_tolerance "
		       "kept cwnd for (%ld, want %ld)", t_proc("LossesTolerated") - tol0, tolerated);
	params(&(struct t_params){ 0 });
}

static void test_undo(void)
{
	static const u32 pairs[][2] = { { 10, 20 }, { 20, 10 }, { 15, 15 }, { 2, 0 },
					{ 1, U32_MAX } };
	bool ok = true;
	size_t i;
	u8 state;

	for (state = 0; state < 4; state++) {
		for (i = 0; i < ARRAY_SIZE(pairs); i++) {
			struct tsock s;
			struct cdg_view v;
			u32 want = max(pairs[i][0], pairs[i][1]);

			t_open(&s, impl, pairs[i][0], 1);
			s.tp.prior_cwnd = pairs[i][1];
			t_view(&s, &v);
			v.state = state;
			impl->set(tsk(&s), &v);
			ok &= impl->ops->undo_cwnd(tsk(&s)) == want;
			t_close(&s);
		}
	}
	tap_ok(ok, "%s undo_cwnd = max(cwnd, prior_cwnd) in every CDG state", impl->name);
}

/* cong_avoid inside a round (the ACK does not pass rtt_seq). */
static void ack_in_round(struct tsock *s, u32 acked)
{
	struct cdg_view v;

	t_view(s, &v);
	shim_rng_current = &s->rng;
	impl->ops->cong_avoid(tsk(s), v.rtt_seq, acked);
}

static void test_shadow(void)
{
	struct tsock s;
	struct cdg_view v;
	bool grow_ok = true;
	u32 cwnd0;
	int i;

	t_open(&s, impl, 10, 1);
	t_view(&s, &v);
	tap_ok(v.shadow_wnd == 10 && v.rtt_seq == s.tp.snd_nxt && !v.state,
	       "%s init: shadow_wnd = cwnd, rtt_seq = snd_nxt, state UNKNOWN", impl->name);
	for (i = 0; i < 200; i++) {
		cwnd0 = s.tp.snd_cwnd;
		t_view(&s, &v);
		ack_in_round(&s, 1);
		{
			struct cdg_view w;

			t_view(&s, &w);
			grow_ok &= w.shadow_wnd - v.shadow_wnd == s.tp.snd_cwnd - cwnd0;
		}
	}
	tap_ok(grow_ok && s.tp.snd_cwnd > 10,
	       "%s congestion avoidance: shadow grows by exactly cwnd's Reno increase "
	       "(cwnd 10 -> %u)", impl->name, s.tp.snd_cwnd);

	s.tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
	t_view(&s, &v);
	cwnd0 = s.tp.snd_cwnd;
	v.shadow_wnd = U32_MAX - 1;
	impl->set(tsk(&s), &v);
	ack_in_round(&s, 3);
	t_view(&s, &v);
	tap_ok(s.tp.snd_cwnd == cwnd0 + 3 && v.shadow_wnd >= U32_MAX - 1,
	       "%s slow start: shadow grows without wrapping at U32_MAX (%u)",
	       impl->name, v.shadow_wnd);

	/* Application limited: no growth, shadow clamped to cwnd. */
	s.tp.snd_ssthresh = s.tp.snd_cwnd;
	s.tp.is_cwnd_limited = 0;
	cwnd0 = s.tp.snd_cwnd;
	ack_in_round(&s, 2);
	t_view(&s, &v);
	tap_ok(s.tp.snd_cwnd == cwnd0 && v.shadow_wnd == cwnd0,
	       "%s application limited: cwnd kept, shadow clamped to cwnd (%u)",
	       impl->name, v.shadow_wnd);
	s.tp.max_packets_out = cwnd0;
	s.tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
	ack_in_round(&s, 2);
	tap_ok(s.tp.snd_cwnd == cwnd0 + 2,
	       "%s slow start below 2 * max_packets_out counts as cwnd-limited (6.1)",
	       impl->name);
	t_close(&s);

	/* Halving on loss: shadow = min(shadow / 2, cwnd). */
	{
		struct t_params p = { .use_shadow = "1" };

		params(&p);
		t_open(&s, impl, 40, 1);
		t_view(&s, &v);
		v.shadow_wnd = 100;
		impl->set(tsk(&s), &v);
		tap_ok(impl->ops->ssthresh(tsk(&s)) == 40, "%s loss with shadow 100, cwnd 40: "
		       "ssthresh = max(2, min(50, 40), 20) = 40", impl->name);
		t_view(&s, &v);
		tap_ok(v.shadow_wnd == 40, "%s ... and the shadow is halved and capped to 40 (%u)",
		       impl->name, v.shadow_wnd);
		tap_ok(impl->ops->ssthresh(tsk(&s)) == 20 && (t_view(&s, &v), v.shadow_wnd == 20),
		       "%s a second loss halves it again: 20", impl->name);
		t_close(&s);
	}

	/* A backoff: shadow = max(shadow, cwnd), BACKOFF, CWR via ssthresh. */
	{
		struct t_params p = { .window = "1", .backoff_factor = "1000",
				      .use_ineff = "0", .hystart_detect = "0" };

		params(&p);
		t_open(&s, impl, 50, 1);
		t_round(&s, 10000, 11000);
		t_view(&s, &v);
		v.shadow_wnd = 20;
		impl->set(tsk(&s), &v);
		s.rng.forced = true;
		s.rng.forced_val = U32_MAX;
		tap_ok(t_round(&s, 40000, 41000), "%s a forced backoff enters CWR", impl->name);
		t_view(&s, &v);
		tap_ok(v.shadow_wnd == 50 && v.state == CDG_S_BACKOFF &&
		       s.tp.snd_ssthresh == 50 * 724 / 1024 && s.tp.prior_cwnd == 50 &&
		       s.tp.snd_cwnd == 50,
		       "%s backoff: shadow = max(shadow, cwnd) = %u, state BACKOFF, "
		       "ssthresh = cwnd*724/1024 = %u, cwnd left to PRR", impl->name,
		       v.shadow_wnd, s.tp.snd_ssthresh);
		t_complete_cwr(&s);
		t_view(&s, &v);
		tap_ok(v.state == CDG_S_UNKNOWN && v.rtt_seq == s.tp.snd_nxt &&
		       !v.rtt_min && !v.rtt_max,
		       "%s COMPLETE_CWR: state UNKNOWN, a new round from snd_nxt", impl->name);
		t_close(&s);
		params(&(struct t_params){ 0 });
	}
}

/* Slow start with hystart_detect = mode after a first round of min rtt0. */
static void hs_open(struct tsock *s, const char *mode, s32 rtt0)
{
	struct t_params p = { .hystart_detect = mode };

	params(&p);
	t_open(s, impl, 10, 1);
	s->tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
	t_round(s, rtt0, rtt0 + 1000);	/* delay_min = rtt0 */
}

static void hs_ack(struct tsock *s, u64 t, s32 rtt)
{
	struct ack_sample a = { .pkts_acked = 2, .rtt_us = rtt };

	s->tp.tcp_mstamp = t;
	shim_rng_current = &s->rng;
	impl->ops->pkts_acked(tsk(s), &a);
	ack_in_round(s, 1);
}

static void test_hystart(void)
{
	unsigned long *mib = init_net.mib;
	struct tsock s;
	struct cdg_view v;
	unsigned long det, cwnds;
	long proc0 = t_proc("HystartTrainExits");
	u64 t0 = 5000000;
	u32 cwnd;
	int i;

	/* Train: ACKs 1 ms apart; exit once longer than delay_min / 2 = 20 ms. */
	hs_open(&s, "1", 40000);
	det = mib[LINUX_MIB_TCPHYSTARTTRAINDETECT];
	cwnds = mib[LINUX_MIB_TCPHYSTARTTRAINCWND];
	for (i = 0; i <= 20; i++)
		hs_ack(&s, t0 + 1000 * i, 40000);
	tap_ok(tcp_in_slow_start(&s.tp), "%s train of exactly delay_min/2: still in slow start",
	       impl->name);
	hs_ack(&s, t0 + 20001, 40000);
	cwnd = s.tp.snd_cwnd;
	tap_ok(s.tp.snd_ssthresh == cwnd - 1 || s.tp.snd_ssthresh == cwnd,
	       "%s train 1 us longer: slow start exits (ssthresh %u, cwnd %u)", impl->name,
	       s.tp.snd_ssthresh, cwnd);
	tap_ok(mib[LINUX_MIB_TCPHYSTARTTRAINDETECT] == det + 1 &&
	       mib[LINUX_MIB_TCPHYSTARTTRAINCWND] == cwnds + s.tp.snd_ssthresh,
	       "%s TCPHystartTrainDetect +1, TCPHystartTrainCwnd += cwnd (%lu)", impl->name,
	       mib[LINUX_MIB_TCPHYSTARTTRAINCWND] - cwnds);
	if (impl == &impl_ours)
		tap_ok(t_proc("HystartTrainExits") == proc0 + 1,
		       "ours /proc/net/stat/tcp_cdg HystartTrainExits +1");
	t_close(&s);

	/* A gap of 3 ms breaks the train: no exit. */
	hs_open(&s, "1", 4000);
	hs_ack(&s, t0, 4000);
	hs_ack(&s, t0 + 3000, 4000);
	hs_ack(&s, t0 + 6000, 4000);
	tap_ok(tcp_in_slow_start(&s.tp), "%s ACKs 3 ms apart are no train", impl->name);
	/* Not cwnd-limited: the train restarts. */
	s.tp.is_cwnd_limited = 0;
	s.tp.max_packets_out = 1;	/* cwnd >= 2 * max_packets_out */
	hs_ack(&s, t0 + 6500, 4000);
	t_view(&s, &v);
	tap_ok(v.round_start == (u32)(t0 + 6500) && tcp_in_slow_start(&s.tp),
	       "%s not cwnd-limited: the train restarts at this ACK", impl->name);
	t_close(&s);

	/* Train floor: delay_min / 2 below 125 us uses 125 us. */
	hs_open(&s, "1", 100);
	for (i = 0; i <= 125; i += 25)
		hs_ack(&s, t0 + i, 100);
	tap_ok(tcp_in_slow_start(&s.tp), "%s train floor 125 us: 125 us is not enough",
	       impl->name);
	hs_ack(&s, t0 + 126, 100);
	tap_ok(!tcp_in_slow_start(&s.tp), "%s ... 126 us is", impl->name);
	t_close(&s);

	/* Delay: 9th ACK of a round with min > delay_min + delay_min/8. */
	{
		static const struct { s32 base, rtt; bool exits; } c[] = {
			{ 10000, 11250, false }, { 10000, 11251, true },
			{ 100, 125, false }, { 100, 126, true },
		};
		size_t k;

		for (k = 0; k < ARRAY_SIZE(c); k++) {
			bool early = false;
			long pd = t_proc("HystartDelayExits");

			det = mib[LINUX_MIB_TCPHYSTARTDELAYDETECT];
			cwnds = mib[LINUX_MIB_TCPHYSTARTDELAYCWND];
			hs_open(&s, "2", c[k].base);
			for (i = 0; i < 8; i++) {
				hs_ack(&s, t0 + 10000 * i, c[k].rtt);
				early |= !tcp_in_slow_start(&s.tp);
			}
			hs_ack(&s, t0 + 100000, c[k].rtt);
			tap_ok(!early && tcp_in_slow_start(&s.tp) == !c[k].exits &&
			       mib[LINUX_MIB_TCPHYSTARTDELAYDETECT] == det + c[k].exits &&
			       mib[LINUX_MIB_TCPHYSTARTDELAYCWND] ==
			       cwnds + (c[k].exits ? s.tp.snd_ssthresh : 0) &&
			       (impl != &impl_ours || t_proc("HystartDelayExits") == pd + c[k].exits),
			       "%s delay exit, delay_min %d, round min %d: %s on the 9th ACK, "
			       "counters", impl->name, c[k].base, c[k].rtt,
			       c[k].exits ? "exits" : "stays");
			t_close(&s);
		}
	}

	/* hystart_detect = 0: neither. */
	hs_open(&s, "0", 100);
	for (i = 0; i < 20; i++)
		hs_ack(&s, t0 + 10 * i, 1000);
	tap_ok(tcp_in_slow_start(&s.tp), "%s hystart_detect=0: no exit", impl->name);
	t_close(&s);
	params(&(struct t_params){ 0 });
}

/*
 * backoff_drain (ours, opt-in): a delay backoff takes cwnd to
 * cwnd * base_rtt / round min RTT, between cwnd * beta and cwnd - 1.
 * Base 20 ms from the first round; the forced backoff comes in a round
 * whose min RTT is `min_us`.
 */
static u32 drain_ssthresh(const char *drain, const char *beta, u32 cwnd,
			  s32 min_us)
{
	struct t_params p = { .window = "1", .backoff_factor = "1000",
			      .use_ineff = "0", .hystart_detect = "0",
			      .backoff_beta = beta };
	struct tsock s;
	u32 ssthresh = 0;

	params(&p);
	if (shim_param_write("ours", "backoff_drain", drain))
		return 0;
	t_open(&s, impl, cwnd, 1);
	t_round(&s, 20000, 21000);
	s.rng.forced = true;
	s.rng.forced_val = U32_MAX;
	/* A max RTT that grew: the gradient is positive, the backoff happens. */
	if (t_round(&s, min_us, max(min_us + 1000, 22000)))
		ssthresh = s.tp.snd_ssthresh;
	t_close(&s);
	shim_param_write("ours", "backoff_drain", "0");
	params(&(struct t_params){ 0 });
	return ssthresh;
}

static void test_drain(void)
{
	static const struct {
		const char *drain, *beta;
		u32 cwnd;
		s32 min_us;
		u32 want;
		const char *why;
	} c[] = {
		{ "0", NULL, 100, 25000, 70, "off: cwnd * 724/1024, as in-tree" },
		{ "1", NULL, 100, 25000, 80, "a 5 ms queue on 20 ms: cwnd * 20/25" },
		{ "1", NULL, 100, 40000, 70, "a 20 ms queue: 0.5 < beta, beta wins" },
		{ "1", NULL, 100, 20100, 99, "a 0.1 ms queue: at least one segment" },
		{ "1", NULL, 100, 20000, 99, "no queue at all: still one segment" },
		{ "1", NULL, 2, 20100, 2, "never below 2" },
		{ "1", "1024", 100, 25000, 100, "beta 1024 still means no decrease" },
		{ "1", "0", 100, 25000, 80, "beta 0: the drain window alone" },
		{ "1", NULL, 3000000, 21000, 2857142, "large cwnd: 64-bit product" },
	};
	unsigned int i;

	if (impl != &impl_ours)
		return;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		u32 got = drain_ssthresh(c[i].drain, c[i].beta, c[i].cwnd,
					 c[i].min_us);

		tap_ok(got == c[i].want,
		       "ours backoff_drain=%s cwnd %u, round min %d us: ssthresh %u "
		       "(want %u: %s)", c[i].drain, c[i].cwnd, c[i].min_us, got,
		       c[i].want, c[i].why);
	}
}

/*
 * The base RTT after the path got longer (ours, opt-in backoff_drain shows
 * it): 60 rounds of 20 ms, then rounds of 40 ms for `after_ms`, then a
 * forced backoff in a round of 41 ms.  Against a base that is still the
 * 20 ms path the drain window is cwnd * 20/41, below beta: 70.  Once the
 * base is the 40 ms path (a minimum over 10 s, not over the socket's
 * life), the 1 ms queue is drained: cwnd * 40/41 = 97.
 */
static u32 drain_after_path_change(u32 after_ms)
{
	struct t_params p = { .window = "1", .backoff_factor = "1000",
			      .use_ineff = "0", .hystart_detect = "0" };
	struct tsock s;
	u32 ssthresh = 0, i;

	params(&p);
	if (shim_param_write("ours", "backoff_drain", "1"))
		return 0;
	t_open(&s, impl, 100, 1);
	s.tp.is_cwnd_limited = 0;	/* cwnd stays 100 */
	s.rng.forced = true;
	s.rng.forced_val = 0;		/* no backoff until the last round */
	for (i = 0; i < 60; i++) {
		s.tp.tcp_mstamp += 20000;
		t_round(&s, 20000, 21000);
	}
	for (i = 0; i < after_ms / 40; i++) {
		s.tp.tcp_mstamp += 40000;
		t_round(&s, 40000, 41000);
	}
	s.tp.tcp_mstamp += 40000;
	s.rng.forced_val = U32_MAX;
	if (t_round(&s, 41000, 42000))
		ssthresh = s.tp.snd_ssthresh;
	t_close(&s);
	shim_param_write("ours", "backoff_drain", "0");
	params(&(struct t_params){ 0 });
	return ssthresh;
}

static void test_base_window(void)
{
	u32 got;

	if (impl != &impl_ours)
		return;
	got = drain_after_path_change(5000);
	tap_ok(got == 70, "ours base RTT 5 s after the path went from 20 to 40 ms: "
	       "still 20 ms, backoff_drain ssthresh %u (want 70)", got);
	got = drain_after_path_change(11000);
	tap_ok(got == 97, "ours base RTT 11 s after the path went from 20 to 40 ms: "
	       "40 ms (a 10 s window), backoff_drain ssthresh %u (want 97)", got);
}

static void run_impl(const struct cdg_impl *which)
{
	impl = which;
	test_ssthresh();
	test_undo();
	test_shadow();
	test_hystart();
	test_drain();
	test_base_window();
}

int main(void)
{
	t_modules_load();
	t_each_impl("window tests", run_impl);
	tap_ok(shim_mem.live == 1 && shim_mem.bad_frees == 0 && shim_warnings == 0,
	       "window tests: no leak, no bad kfree, no WARN");
	t_modules_unload();
	return tap_done();
}
