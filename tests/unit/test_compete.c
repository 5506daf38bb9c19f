// SPDX-License-Identifier: GPL-2.0
/*
 * compete (ours, opt-in; docs/tuning.md, "Against cubic"): the detector of
 * a loss-based competitor and the mode it drives, round by round.
 *
 * - A standing queue (every round's minimum RTT more than an eighth of the
 *   base RTT above it) for 8 rounds in which CDG drew 2 delay backoffs:
 *   competitive mode (cdg_mode delay -> compete, CompeteEnters), after
 *   which a positive gradient no longer backs off.
 * - CDG's own sawtooth (its backoffs drain the queue: the round after one
 *   is back at the base RTT) never enters it, in 400 rounds; nor does a
 *   standing queue without CDG backoffs, nor 7 rounds, nor anything at
 *   compete=0.
 * - 4 rounds in a row whose minimum is back at the base (3 are not, nor
 *   3 + a standing one + 3): delay mode again, cwnd drained, and delay
 *   backoffs again.
 * - The drain probe every 8 competing rounds: cwnd to cwnd * base / min
 *   RTT, back the round after; then a standing queue keeps the mode and
 *   sets the window for half the queue (at most 4 x cwnd per probe), an
 *   empty one returns to delay mode.
 * - The base RTT does not follow the standing queue (frozen for 12 s).
 * - A loss while competing: cubic's 0.7, not CDG's 0.5; the window then
 *   follows cubic's curve back to where it was (K = cbrt(0.75 w_max) s).
 * - compete out of range is refused like every parameter.
 * The driver is testlib's call-by-call socket with window = 1 (each
 * round's gradient is its own) and forced draws (backoff or not).
 */
#include <stdio.h>
#include <string.h>

#include "testlib.h"

#define BASE	20000		/* us */
#define QUEUE	40000		/* a standing queue of 40 ms (2 x base) */

static long enters(void) { return t_proc("CompeteEnters"); }
static long exits(void) { return t_proc("CompeteExits"); }
static long probes(void) { return t_proc("CompeteProbes"); }

static void setup(const char *compete)
{
	struct t_params p = { .window = "1", .hystart_detect = "0",
			      .use_ineff = "0" };

	t_params_set(&impl_ours, &p);
	shim_param_write("ours", "compete", compete);
}

static void teardown(void)
{
	shim_param_write("ours", "compete", "0");
	t_params_set(&impl_ours, &(struct t_params){ 0 });
}

/* One round of 100 ms of time; backoff: the draw says back off. */
static bool round_at(struct tsock *s, s32 min, s32 max, bool backoff)
{
	bool cwr;

	s->rng.forced = true;
	s->rng.forced_val = backoff ? U32_MAX : 0;
	s->tp.tcp_mstamp += 100000;
	cwr = t_round(s, min, max);
	if (cwr)
		t_complete_cwr(s);
	return cwr;
}

/*
 * A socket that measured the base RTT, then sees a standing queue that
 * rises a little each round (a positive gradient), backing off whenever
 * it may.  Returns the rounds it took to leave delay mode (0: never).
 */
static int standing_queue_of(struct tsock *s, s32 queue, int rounds,
			     bool backoffs)
{
	int i;
	long e0 = enters();

	t_open(s, &impl_ours, 100, 7);
	for (i = 0; i < 5; i++)
		round_at(s, BASE, BASE + 1000, false);
	for (i = 1; i <= rounds; i++) {
		round_at(s, BASE + queue + 100 * i, BASE + queue + 100 * i + 1000,
			 backoffs);
		if (enters() > e0)
			return i;
	}
	return 0;
}

static int standing_queue(struct tsock *s, int rounds, bool backoffs)
{
	return standing_queue_of(s, QUEUE, rounds, backoffs);
}

static void test_enter(void)
{
	struct tsock s;
	int after;
	u32 cwnd;
	const char *tr;

	setup("1");
	shim_trace_clear();
	shim_trace_enable(true);
	after = standing_queue(&s, 30, true);
	shim_trace_enable(false);
	tr = shim_trace_last("cdg_mode");
	tap_ok(after == 8,
	       "compete=1: a standing queue 2 x the base RTT with delay backoffs: "
	       "competitive mode after %d rounds (want 8)", after);
	tap_ok(tr && strstr(tr, "from=delay to=compete") &&
	       strstr(tr, "base_rtt=20000"),
	       "the change is traced: %s", tr ? tr : "(no cdg_mode event)");
	/* Competing: a positive gradient and a draw that says yes: no CWR. */
	cwnd = 0;
	for (after = 0; after < 5; after++)
		cwnd += round_at(&s, BASE + QUEUE + 5000 + 100 * after,
				 BASE + QUEUE + 6000 + 100 * after, true);
	tap_ok(cwnd == 0,
	       "competing: no delay backoff on a positive gradient in 5 rounds "
	       "(%u CWRs)", cwnd);
	t_close(&s);

	after = standing_queue(&s, 7, true);
	t_close(&s);
	tap_ok(after == 0, "7 standing rounds are not enough (entered after %d)", after);

	/* To enter, the queue must stand above half the base RTT (10 ms). */
	after = standing_queue_of(&s, 7000, 30, true);
	t_close(&s);
	tap_ok(after == 0, "a queue rising from 7.1 to 10 ms at a 20 ms base: above "
	       "an eighth of the base, not above half of it: no "
	       "entry in 30 rounds (entered after %d)", after);
	after = standing_queue_of(&s, 10000, 30, true);
	t_close(&s);
	tap_ok(after == 8, "a queue of 10.1 ms and rising: entry after %d rounds "
	       "(want 8)", after);

	after = standing_queue(&s, 100, false);
	t_close(&s);
	tap_ok(after == 0,
	       "a standing queue without CDG backoffs (a loss-based flow's queue "
	       "CDG never reacted to) does not enter it (entered after %d)", after);

	/*
	 * Other CDG flows: the queue stands but shrinks while everyone backs
	 * off (the round's max still rises: a positive gradient, backoffs).
	 */
	{
		long e0 = enters();
		int i;

		t_open(&s, &impl_ours, 100, 7);
		for (i = 0; i < 5; i++)
			round_at(&s, BASE, BASE + 1000, false);
		for (i = 1; i <= 12; i++)
			round_at(&s, BASE + QUEUE - 500 * i,
				 BASE + QUEUE + 2000 * i, true);
		t_close(&s);
		after = enters() > e0;
	}
	tap_ok(after == 0,
	       "a standing queue that shrinks over 12 rounds despite the backoffs "
	       "(other CDG flows backing off too) does not enter it");

	/*
	 * The competitor's loss: the queue fell, then grows again.  The
	 * stretch is measured again from the fall: entry 2 backoffs later.
	 */
	{
		long e0 = enters();
		int i, n = 0;

		t_open(&s, &impl_ours, 100, 7);
		for (i = 0; i < 5; i++)
			round_at(&s, BASE, BASE + 1000, false);
		for (i = 1; i <= 7; i++)
			round_at(&s, BASE + QUEUE + 1000 * i, BASE + QUEUE + 1000 * i + 1000,
				 true);
		round_at(&s, BASE + QUEUE - 5000, BASE + QUEUE + 9000, true);
		for (i = 1; i <= 10 && enters() == e0; i++, n++)
			round_at(&s, BASE + QUEUE - 5000 + 100 * i,
				 BASE + QUEUE + 9000 + 100 * i, true);
		t_close(&s);
		tap_ok(enters() == e0 + 1 && n >= 2 && n <= 4,
		       "a queue that fell at its 8th standing round (the competitor's "
		       "loss) and grows again: entry %d rounds later (want 2-4: two "
		       "backoffs of its own)", n);
	}

	/*
	 * A long path: 40 standing rounds of 300 ms (12 s) before CDG backs
	 * off at all.  The base RTT must not have become the queue by then
	 * (its window is 10 s): the first 64 standing rounds hold it.
	 */
	{
		long e0 = enters();
		int i;

		t_open(&s, &impl_ours, 100, 7);
		for (i = 0; i < 5; i++)
			round_at(&s, BASE, BASE + 1000, false);
		for (i = 1; i <= 40; i++) {
			s.tp.tcp_mstamp += 200000;
			round_at(&s, BASE + QUEUE + 10 * i, BASE + QUEUE + 1000, false);
		}
		for (i = 1; i <= 10 && enters() == e0; i++)
			round_at(&s, BASE + QUEUE + 500 + 100 * i,
				 BASE + QUEUE + 2000 + 100 * i, true);
		t_close(&s);
		tap_ok(enters() == e0 + 1,
		       "a standing queue 12 s long before any backoff: the base RTT "
		       "was held, and 2 backoffs then enter (%ld entries)",
		       enters() - e0);
	}

	setup("0");
	after = standing_queue(&s, 100, true);
	t_close(&s);
	tap_ok(after == 0, "compete=0: never (entered after %d)", after);
	teardown();
}

/*
 * CDG alone: its queue grows for a few rounds, a backoff drains it, the
 * next round is back at the base RTT.  Also a slower drain: the round after
 * the first backoff still stands (1.5 ms at a 2.5 ms margin... above it),
 * the second backoff empties it.
 */
static void test_own_sawtooth(void)
{
	struct tsock s;
	long e0;
	int i, k;

	setup("1");
	e0 = enters();
	t_open(&s, &impl_ours, 100, 11);
	for (i = 0; i < 5; i++)
		round_at(&s, BASE, BASE + 1000, false);
	for (i = 0; i < 50; i++) {
		/* 6 rounds of a growing queue, up to 6 ms, then backoff */
		for (k = 1; k <= 6; k++)
			round_at(&s, BASE + 1000 * k, BASE + 1000 * k + 1500, k == 6);
		/* drained: one round at 3 ms (standing), a backoff, then base */
		round_at(&s, BASE + 3000, BASE + 4000, true);
		round_at(&s, BASE + 100, BASE + 1500, false);
	}
	tap_ok(enters() == e0,
	       "CDG's own sawtooth (backoffs that drain its queue) never enters "
	       "competitive mode in 400 rounds (%ld entries)", enters() - e0);
	/* The sawtooth's backoffs do not count for a later standing queue. */
	for (i = 1; i <= 10; i++)
		round_at(&s, BASE + QUEUE + 100 * i, BASE + QUEUE + 1000, false);
	t_close(&s);
	tap_ok(enters() == e0,
	       "nor do its backoffs count once the queue emptied: 10 standing "
	       "rounds without a backoff after it do not enter (%ld entries)",
	       enters() - e0);
	teardown();
}

static int to_probe(struct tsock *s, s32 min);

/* Competing, past the probe that entering starts, in congestion avoidance. */
static void competing(struct tsock *s)
{
	standing_queue(s, 8, true);
	to_probe(s, BASE + QUEUE);
	round_at(s, BASE + QUEUE, BASE + QUEUE + 1000, true);	/* drain */
	round_at(s, BASE + QUEUE, BASE + QUEUE + 1000, true);	/* judge */
	s->tp.snd_ssthresh = tcp_snd_cwnd(&s->tp);
}

static void test_exit_on_empty(void)
{
	struct tsock s;
	long x0 = exits();
	u32 cwnd;
	bool cwr;
	int i;

	setup("1");
	competing(&s);
	/* The margin is base / 8 = 2.5 ms: 2.6 ms still stands. */
	round_at(&s, BASE + 2600, BASE + 3000, false);
	tap_ok(exits() == x0, "a round 2.6 ms over the base (margin 2.5) still "
	       "stands: competing (CompeteExits +%ld)", exits() - x0);
	/*
	 * Three rounds at 2.4 ms, then one standing: the count starts again
	 * (with a 1-BDP buffer cubic's losses empty the queue for a round).
	 */
	for (i = 0; i < 3; i++)
		round_at(&s, BASE + 2400, BASE + 3000, false);
	round_at(&s, BASE + QUEUE, BASE + QUEUE + 1000, false);
	for (i = 0; i < 3; i++)
		round_at(&s, BASE + 2400, BASE + 3000, false);
	tap_ok(exits() == x0, "3 rounds of an empty queue, a standing one, 3 "
	       "more: still competing (CompeteExits +%ld)", exits() - x0);
	/* The 4th in a row at 2.4 ms over the base. */
	cwnd = tcp_snd_cwnd(&s.tp);
	round_at(&s, BASE + 2400, BASE + 3000, false);
	tap_ok(exits() == x0 + 1 && tcp_snd_cwnd(&s.tp) == cwnd * BASE / (BASE + 2400),
	       "the 4th round in a row at 2.4 ms: back to delay mode "
	       "(CompeteExits +%ld), cwnd %u -> %u (want cwnd * base / min RTT "
	       "= %u)", exits() - x0, cwnd, tcp_snd_cwnd(&s.tp),
	       cwnd * BASE / (BASE + 2400));
	round_at(&s, BASE + 1000, BASE + 2000, false);
	cwr = round_at(&s, BASE + 3000, BASE + 4000, true);
	tap_ok(cwr, "delay mode again: a positive gradient backs off");
	t_close(&s);
	teardown();
}

/* Competing rounds with a standing queue until a probe starts. */
static int to_probe(struct tsock *s, s32 min)
{
	long p0 = probes();
	int i;

	for (i = 1; i <= 20; i++) {
		round_at(s, min, min + 1000, true);
		if (probes() > p0)
			return i;
	}
	return 0;
}

static void test_probe(void)
{
	struct tsock s;
	long x0;
	u32 cwnd, drained;
	int n;

	setup("1");
	/* Competing, the first probe at once, then every 8 rounds. */
	standing_queue(&s, 8, true);
	cwnd = tcp_snd_cwnd(&s.tp);
	n = to_probe(&s, BASE + QUEUE);
	drained = tcp_snd_cwnd(&s.tp);
	tap_ok(n == 1 && drained == (cwnd * BASE) / (BASE + QUEUE),
	       "a drain probe in the first competing round (%d): cwnd %u -> %u "
	       "(want cwnd * base / min RTT = %u)", n, cwnd, drained,
	       (cwnd * BASE) / (BASE + QUEUE));
	/* The drain round: cwnd comes back for the judging round. */
	round_at(&s, BASE + QUEUE, BASE + QUEUE + 1000, true);
	tap_ok(tcp_snd_cwnd(&s.tp) >= cwnd,
	       "after the drain round cwnd is back (%u, was %u)",
	       tcp_snd_cwnd(&s.tp), cwnd);
	/*
	 * Judged: 28 ms of the 40 ms queue stayed: the competitor's.  In
	 * 1/16 of the base RTT, the queue was 32 and 22 stayed: ours was
	 * 10/32 of it, and the window for half is cwnd * 32 / 20, reached by
	 * slow start (ssthresh).
	 */
	cwnd = tcp_snd_cwnd(&s.tp);
	x0 = exits();
	round_at(&s, BASE + 28000, BASE + 29000, true);
	tap_ok(exits() == x0 && s.tp.snd_ssthresh == cwnd * 32 / 20,
	       "the queue stayed (28 of 40 ms): still competing, ssthresh %u "
	       "(want cwnd %u * 32/20 = %u: half of the queue)", s.tp.snd_ssthresh,
	       cwnd, cwnd * 32 / 20);
	s.tp.snd_ssthresh = tcp_snd_cwnd(&s.tp);	/* no probe in slow start */
	n = to_probe(&s, BASE + QUEUE);
	tap_ok(n == 8, "the next probe 8 competing rounds later (%d)", n);
	t_close(&s);

	/* A probe after which the queue is gone: we were alone. */
	standing_queue(&s, 8, true);
	to_probe(&s, BASE + QUEUE);
	round_at(&s, BASE + QUEUE, BASE + QUEUE + 1000, true);
	cwnd = tcp_snd_cwnd(&s.tp);
	x0 = exits();
	round_at(&s, BASE + 200, BASE + 10000, true);
	tap_ok(exits() == x0 + 1 && tcp_snd_cwnd(&s.tp) == cwnd * BASE / (BASE + 10000),
	       "the queue was ours (the judging round's min at the base): delay "
	       "mode, cwnd %u -> %u (want cwnd * base / max RTT = %u)", cwnd,
	       tcp_snd_cwnd(&s.tp), cwnd * BASE / (BASE + 10000));
	t_close(&s);
	teardown();
}

/*
 * The share step: a probe that finds ours a small part of the queue (2 of
 * 40 ms) raises ssthresh to at most 4 x cwnd, not the 8 x that half the
 * queue would take; one that finds none of it ours, 4 x as well.
 */
static void test_share_step(void)
{
	struct tsock s;
	u32 cwnd;

	setup("1");
	standing_queue(&s, 8, true);
	to_probe(&s, BASE + QUEUE);
	round_at(&s, BASE + QUEUE, BASE + QUEUE + 1000, true);	/* drain */
	cwnd = tcp_snd_cwnd(&s.tp);
	round_at(&s, BASE + 38000, BASE + 39000, true);		/* judge */
	tap_ok(s.tp.snd_ssthresh == cwnd * 4,
	       "ours 2 of the 40 ms queue: ssthresh %u = 4 x cwnd %u (half "
	       "the queue would be 8 x)", s.tp.snd_ssthresh, cwnd);
	t_close(&s);
	teardown();
}

/* The base RTT stays the path's while a standing queue lasts 12 s. */
static void test_base_frozen(void)
{
	struct tsock s;
	const char *tr;
	int i;

	setup("1");
	standing_queue(&s, 8, true);
	for (i = 0; i < 120; i++) {		/* 12 s, probes every 8 rounds */
		s.tp.snd_ssthresh = tcp_snd_cwnd(&s.tp);
		round_at(&s, BASE + QUEUE, BASE + QUEUE + 1000, true);
	}
	shim_trace_clear();
	shim_trace_enable(true);
	s.tp.snd_ssthresh = tcp_snd_cwnd(&s.tp);
	to_probe(&s, BASE + QUEUE);
	shim_trace_enable(false);
	tr = shim_trace_last("cdg_mode");
	t_close(&s);
	tap_ok(tr && strstr(tr, "to=drain") && strstr(tr, "base_rtt=20000 "),
	       "after 12 s of a standing queue the base RTT is still the path's "
	       "20 ms (not the 60 ms the queue makes): %s", tr ? tr : "(no probe)");
	teardown();
}

/* ssthresh on a loss while competing, and cubic's curve after it. */
static void test_loss_and_cubic(void)
{
	struct tsock s;
	struct sock *sk = tsk(&s);
	u32 ss, cw5, cwk;
	int i;

	setup("1");
	standing_queue(&s, 8, true);
	to_probe(&s, BASE + QUEUE);
	round_at(&s, BASE + QUEUE, BASE + QUEUE + 1000, true);
	s.tp.snd_ssthresh = 1000;
	round_at(&s, BASE + 39000, BASE + 40000, true);	/* judged: competing */
	tcp_snd_cwnd_set(&s.tp, 1000);
	s.tp.snd_ssthresh = 1000;
	ss = s.impl->ops->ssthresh(sk);
	tap_ok(ss == 700,
	       "a loss while competing: ssthresh %u (want cubic's 0.7 x 1000 = 700, "
	       "not CDG's half)", ss);
	/*
	 * Recovery ends at ssthresh; then every 60 ms an ACK of a whole
	 * window, without RTT samples (no round ends, so no probe).
	 */
	tcp_snd_cwnd_set(&s.tp, ss);
	s.tp.snd_ssthresh = ss;
	cw5 = cwk = 0;
	for (i = 1; i <= 152; i++) {
		u32 ack = s.tp.snd_nxt + 5 * T_MSS;

		s.tp.snd_nxt += 10 * T_MSS;
		s.tp.tcp_mstamp += 60000;
		s.tp.snd_una = ack;
		s.impl->ops->cong_avoid(sk, ack, tcp_snd_cwnd(&s.tp));
		if (i == 83)			/* 5 s */
			cw5 = tcp_snd_cwnd(&s.tp);
		if (i == 151)			/* K = cbrt(300 / 0.4) = 9.1 s */
			cwk = tcp_snd_cwnd(&s.tp);
	}
	t_close(&s);
	/*
	 * W(5 s) = 1000 - 0.4 (9.1 - 5)^3 = 973; at K, 1000 (cwnd grows by
	 * up to half an ACK's segments at once: a few % above).
	 */
	tap_ok(cw5 >= 945 && cw5 < 1000 && cwk >= 980 && cwk <= 1060,
	       "after it, cubic's curve: cwnd %u at 5 s (want ~973: concave, most "
	       "of the way back), %u at K = 9.1 s (want ~1000)", cw5, cwk);
	teardown();
}

static void test_param(void)
{
	char buf[32];

	tap_ok(shim_param_write("ours", "compete", "2") == -EINVAL &&
	       shim_param_write("ours", "compete", "x") == -EINVAL &&
	       shim_param_read("ours", "compete", buf) > 0 && !strcmp(buf, "0\n") &&
	       shim_param_write("ours", "compete", "1") == 0 &&
	       shim_param_read("ours", "compete", buf) > 0 && !strcmp(buf, "1\n") &&
	       shim_param_write("ours", "compete", "0") == 0,
	       "compete: 0..1, a bad run-time write is -EINVAL and keeps the value");
}

int main(void)
{
	t_modules_load();
	test_param();
	test_enter();
	test_own_sawtooth();
	test_exit_on_empty();
	test_probe();
	test_share_step();
	test_base_frozen();
	test_loss_and_cubic();
	tap_ok(shim_mem.live == 1 && shim_mem.bad_frees == 0 && shim_warnings == 0,
	       "compete tests: no leak, no bad kfree, no WARN");
	t_modules_unload();
	return tap_done();
}
