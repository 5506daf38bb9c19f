// SPDX-License-Identifier: GPL-2.0
/*
 * The gradient ring (spec sections 5 and 6): running sums, tail wrap, the
 * filled flag, extrapolation before the ring fills, the silent no-ring
 * fallback and ours' retries of the allocation, the -32 us
 * effective-backoff reset, and the tolerance rounding into FULL/NONFULL.  The gradient a round produced is observed exactly by
 * forcing the random draw at nexp(E) (no backoff) and nexp(E) + 1
 * (backoff) with backoff_factor = 1.
 */
#include <stdio.h>

#include "testlib.h"

static const struct cdg_impl *impl;

static void params(const char *window, const char *factor, const char *tol,
		   const char *ineff)
{
	struct t_params p = { .window = window, .backoff_factor = factor,
			      .use_tolerance = tol, .use_ineff = ineff,
			      .hystart_detect = "0" };

	t_params_set(impl, &p);
}

struct rt { s32 min, max; };

/*
 * Runs rounds r[0..n-1]; the last one's draw is forced to `last`.  The
 * first `nomem` ring allocations fail (-1: all of them, for good).
 */
static bool run_rounds(const struct rt *r, int n, u32 last, long nomem)
{
	struct tsock s;
	bool backoff = false;
	int i;

	shim_mem_fail(nomem);
	t_open(&s, impl, 100, 7);
	for (i = 0; i < n; i++) {
		s.rng.forced = true;
		s.rng.forced_val = i == n - 1 ? last : 0;	/* 0 never backs off */
		backoff = t_round(&s, r[i].min, r[i].max);
	}
	shim_mem_fail(0);
	t_close(&s);
	return backoff;
}

/* The gradient used at the last round is exactly e (e > 0). */
static bool grad_is(const struct rt *r, int n, u32 e, long nomem)
{
	u32 v = impl->nexp(e);

	if (!(impl->nexp(e - 1) > v + 1 && v > impl->nexp(e + 1))) {
		tap_diag("nexp not strictly decreasing around %u: probe skipped", e);
		return false;
	}
	return !run_rounds(r, n, v, nomem) && run_rounds(r, n, v + 1, nomem);
}

static void test_sums(void)
{
	/* Per-round (min, max): gradients +100/+40, -30/+10, ... */
	static const s32 mins[] = { 10000, 10100, 10070, 10300, 10250, 10250,
				    10400, 10380, 10500, 10450, 10700, 10600 };
	struct tsock s;
	bool ok = true, tail_ok = true, fill_ok = true;
	s32 gmin[16], gmax[16];
	int k, j;

	params("8", "0", "0", "0");
	t_open(&s, impl, 100, 1);
	for (k = 0; k < 12; k++) {
		struct cdg_view v;
		s32 smin = 0, smax = 0, rmin, rmax;

		t_round(&s, mins[k], mins[k] + 2000 + 10 * k * k);
		t_view(&s, &v);
		if (k == 0)
			continue;
		gmin[k] = mins[k] - mins[k - 1];
		gmax[k] = (2000 + 10 * k * k) - (2000 + 10 * (k - 1) * (k - 1)) + gmin[k];
		for (j = k; j > 0 && j > k - 8; j--) {
			smin += gmin[j];
			smax += gmax[j];
		}
		if (v.gsum_min != smin || v.gsum_max != smax) {
			tap_diag("%s round %d: gsum %d/%d, expected %d/%d", impl->name, k,
				 v.gsum_min, v.gsum_max, smin, smax);
			ok = false;
		}
		if (!impl->ring(tsk(&s), (k - 1) % 8, &rmin, &rmax) ||
		    rmin != gmin[k] || rmax != gmax[k])
			ok = false;
		tail_ok &= v.tail == k % 8;
		fill_ok &= v.gfilled == (k >= 8);
	}
	t_close(&s);
	tap_ok(ok, "%s ring: entries and running sums over the last 8 rounds", impl->name);
	tap_ok(tail_ok, "%s ring: tail advances modulo window and wraps to 0", impl->name);
	tap_ok(fill_ok, "%s ring: filled only once the tail wrapped, then for good", impl->name);
}

static void test_window256(void)
{
	struct tsock s;
	struct cdg_view v;
	bool ok = true;
	int k;

	params("256", "0", "0", "0");
	t_open(&s, impl, 100, 1);
	for (k = 0; k <= 257; k++) {
		t_round(&s, 10000 + (k & 1) * 50, 12000);
		t_view(&s, &v);
		if (k >= 1 && k <= 256 && (v.tail != (k % 256) || v.gfilled != (k == 256)))
			ok = false;
	}
	tap_ok(ok && v.gfilled && v.tail == 1,
	       "%s ring: window=256 tail (u8) wraps after 256 rounds", impl->name);
	t_close(&s);
}

static void test_extrapolation(void)
{
	/* Three gradients of +100 min: sum 300, extrapolated 300 * 8 / 3. */
	static const struct rt up[] = {
		{ 10000, 20000 }, { 10100, 20100 }, { 10200, 20200 }, { 10300, 20300 },
	};
	/* Min falls, max rises by 70 each round: the max-sum is used. */
	static const struct rt maxonly[] = {
		{ 10000, 20000 }, { 9990, 20070 }, { 9980, 20140 },
	};
	struct rt filled[10];
	int k;

	params("8", "1", "0", "0");
	tap_ok(grad_is(up, 4, 800, 0),
	       "%s gradient before the ring fills: sum * window / tail (300*8/3 = 800)",
	       impl->name);
	tap_ok(grad_is(maxonly, 3, 140 * 8 / 2, 0),
	       "%s gradient: the max-sum when the min-sum is not positive (140*8/2)",
	       impl->name);
	for (k = 0; k < 10; k++) {
		filled[k].min = 10000 + 30 * k;
		filled[k].max = 20000;
	}
	tap_ok(grad_is(filled, 10, 8 * 30, 0),
	       "%s gradient once filled: the plain sum over the window (8*30)", impl->name);
	params("1", "1", "0", "0");
	tap_ok(grad_is(up, 4, 100, 0),
	       "%s window=1: no ring, the round's own gradient (100)", impl->name);
	params("8", "1", "0", "0");
	{
		long logs = shim_log_count, live = shim_mem.live;
		struct tsock s;
		struct cdg_view v;

		tap_ok(grad_is(up, 4, 100 * 8, -1),
		       "%s no ring (every allocation fails): gradient x window, never "
		       "'filled' (100*8)", impl->name);
		shim_mem_fail(1);
		t_open(&s, impl, 10, 1);
		t_view(&s, &v);
		tap_ok(!v.gradients && shim_log_count == logs && shim_mem.live == live &&
		       shim_mem.last_gfp == (GFP_NOWAIT | __GFP_NOWARN),
		       "%s ring allocation: GFP_NOWAIT | __GFP_NOWARN, failure is silent",
		       impl->name);
		t_close(&s);
	}
}

/*
 * no_extrapolate (ours, opt-in): while the ring fills, the gradient is the
 * plain sum of the rounds measured; once it is full nothing changes, and a
 * failed ring allocation still scales the single round by window.
 */
static void test_no_extrapolate(void)
{
	static const struct rt up[] = {
		{ 10000, 20000 }, { 10100, 20100 }, { 10200, 20200 }, { 10300, 20300 },
	};
	struct rt filled[10];
	int k;

	if (impl != &impl_ours)
		return;
	for (k = 0; k < 10; k++) {
		filled[k].min = 10000 + 30 * k;
		filled[k].max = 20000;
	}
	params("8", "1", "0", "0");
	if (shim_param_write("ours", "no_extrapolate", "1")) {
		tap_ok(false, "ours no_extrapolate: parameter write failed");
		return;
	}
	tap_ok(grad_is(up, 4, 300, 0),
	       "ours no_extrapolate=1 before the ring fills: the plain sum (300, not 800)");
	tap_ok(grad_is(filled, 10, 8 * 30, 0),
	       "ours no_extrapolate=1 once filled: the sum over the window, as before (8*30)");
	tap_ok(grad_is(up, 4, 100 * 8, -1),
	       "ours no_extrapolate=1, no ring: gradient x window, as before (100*8)");
	shim_param_write("ours", "no_extrapolate", "0");
	tap_ok(grad_is(up, 4, 800, 0),
	       "ours no_extrapolate=0 again: extrapolated as in-tree (800)");
}

static long proc(const char *key)
{
	char buf[2048];

	if (shim_proc_read(&init_net, "stat/tcp_cdg", buf, sizeof(buf)) < 0)
		return -1;
	return shim_proc_value(buf, key);
}

/*
 * Ours: a ring allocation that failed is tried again at round ends 1, 2,
 * 4, ... 128 after init (8 tries), and a ring that comes late is used
 * from that round on.  The oracle never tries again (spec 3: "runs as if
 * window were 1"; in fact x window, spec 6).
 */
static void test_ring_retry(void)
{
	/* +300, -300, +100: ring sum 100 * 8 / 3 = 266; no ring 100 * 8. */
	static const struct rt jump[] = {
		{ 10000, 20000 }, { 10300, 20300 }, { 10000, 20000 }, { 10100, 20100 },
	};
	static const long tries_at[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
	long late0 = proc("RingAllocLate"), fail0 = proc("RingAllocFail"), f0;
	bool ok = true, sched = true;
	struct tsock s;
	struct cdg_view v;
	size_t k;
	long i;

	if (impl != &impl_ours)
		return;
	params("8", "1", "0", "0");
	tap_ok(grad_is(jump, 4, 266, 1) && grad_is(jump, 4, 266, 0) &&
	       grad_is(jump, 4, 800, -1),
	       "ours ring allocation failed once: the ring comes at the first round end "
	       "and the gradient is its sum (266, as with a ring from init; 800 without)");
	tap_ok(proc("RingAllocFail") - fail0 == 4 && proc("RingAllocLate") - late0 == 2,
	       "ours RingAllocFail counts the failed inits (%ld), RingAllocLate the rings "
	       "that came later (%ld)", proc("RingAllocFail") - fail0,
	       proc("RingAllocLate") - late0);

	/* Every allocation fails: the tries, by round end. */
	shim_mem_fail(-1);
	t_open(&s, impl, 100, 7);
	s.rng.forced = true;
	s.rng.forced_val = 0;
	k = 0;
	for (i = 1; i <= 300; i++) {
		f0 = shim_mem.failed;
		t_round(&s, 10000, 20000);
		if (shim_mem.failed - f0 != (k < ARRAY_SIZE(tries_at) && tries_at[k] == i)) {
			tap_diag("ours round end %ld: %ld allocations", i, shim_mem.failed - f0);
			sched = false;
		}
		if (k < ARRAY_SIZE(tries_at) && tries_at[k] == i)
			k++;
	}
	tap_ok(sched && k == ARRAY_SIZE(tries_at),
	       "ours every allocation failing: tried again at round ends 1, 2, 4, ... 128, "
	       "then never (300 rounds)");
	/* After idle everything starts over, the tries too. */
	impl->ops->cwnd_event(tsk(&s), CA_EVENT_CWND_RESTART);
	f0 = shim_mem.failed;
	t_round(&s, 10000, 20000);
	t_round(&s, 10000, 20000);
	ok = shim_mem.failed - f0 == 2;
	shim_mem_fail(0);
	t_round(&s, 10000, 20000);
	t_view(&s, &v);
	ok &= !v.gradients;
	t_round(&s, 10000, 20000);
	t_view(&s, &v);
	tap_ok(ok && v.gradients && shim_mem_is_live(v.gradients),
	       "ours after CWND_RESTART the tries start over (round ends 1 and 2), and "
	       "the ring comes at the next try once memory is back (round end 4)");
	t_close(&s);

	/* Init and the tries at round ends 1, 2 and 4 fail; 8 succeeds. */
	shim_mem_fail(4);
	t_open(&s, impl, 100, 7);
	s.rng.forced = true;
	s.rng.forced_val = 0;
	for (i = 1; i <= 7; i++)
		t_round(&s, 10000, 20000);
	t_view(&s, &v);
	ok = !v.gradients;
	t_round(&s, 10000, 20000);
	t_view(&s, &v);
	shim_mem_fail(0);
	tap_ok(ok && v.gradients && !v.gfilled && v.tail == 1,
	       "ours 4 failures: no ring after 7 rounds, a fresh one (tail 1) after the 8th");
	t_close(&s);
	tap_ok(shim_mem.bad_frees == 0, "ours late rings are freed as any other");
}

static void test_effective(void)
{
	static const struct { const char *window; s32 dmin, dmax; bool reset; } c[] = {
		{ "1", -31, -31, false }, { "1", -32, 5, true }, { "1", 5, -32, true },
		{ "1", -40, -40, true }, { "8", -31, -10, false }, { "8", -16, -32, true },
	};
	bool ok = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct tsock s;
		struct cdg_view v;

		params(c[i].window, "0", "0", "5");
		t_open(&s, impl, 100, 1);
		t_round(&s, 10000, 20000);
		t_view(&s, &v);
		v.backoff_cnt = 3;
		impl->set(tsk(&s), &v);
		t_round(&s, 10000 + c[i].dmin, 20000 + c[i].dmax);
		t_view(&s, &v);
		if ((v.backoff_cnt == 0) != c[i].reset) {
			tap_diag("%s window %s gradient %d/%d: backoff_cnt %u", impl->name,
				 c[i].window, c[i].dmin, c[i].dmax, v.backoff_cnt);
			ok = false;
		}
		t_close(&s);
	}
	tap_ok(ok, "%s a sum <= -32 us resets backoff_cnt, -31 does not", impl->name);
}

static void test_tolerance(void)
{
	static const struct { s32 gmin, gmax; u8 state; } c[] = {
		{ 31, 0, CDG_S_UNKNOWN }, { 32, 0, CDG_S_FULL }, { 32, -31, CDG_S_FULL },
		{ 32, -32, CDG_S_FULL }, { 32, 32, CDG_S_NONFULL }, { 31, 32, CDG_S_UNKNOWN },
		{ 0, -32, CDG_S_NONFULL }, { 0, -31, CDG_S_UNKNOWN },
		{ -95, -96, CDG_S_NONFULL }, { -31, 31, CDG_S_UNKNOWN },
		{ 95, -95, CDG_S_FULL },
	};
	bool ok = true;
	size_t i;

	params("1", "0", "1", "0");
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct tsock s;
		struct cdg_view v;

		t_open(&s, impl, 100, 1);
		t_round(&s, 10000, 20000);
		t_round(&s, 10000 + c[i].gmin, 20000 + c[i].gmax);
		t_view(&s, &v);
		if (v.state != c[i].state) {
			tap_diag("%s tolerance: gradient %d/%d gave state %u, expected %u",
				 impl->name, c[i].gmin, c[i].gmax, v.state, c[i].state);
			ok = false;
		}
		t_close(&s);
	}
	tap_ok(ok, "%s use_tolerance: round to 64 us (half away from zero), FULL/NONFULL",
	       impl->name);
	params("1", "0", "0", "0");
	{
		struct tsock s;
		struct cdg_view v;

		t_open(&s, impl, 100, 1);
		t_round(&s, 10000, 20000);
		t_round(&s, 10100, 19000);
		t_view(&s, &v);
		tap_ok(v.state == CDG_S_UNKNOWN,
		       "%s without use_tolerance the state stays UNKNOWN", impl->name);
		t_close(&s);
	}
}

/* Spec 4: RTT sampling and the delayed-ACK filter. */
static void test_sampling(void)
{
	struct tsock s;
	struct cdg_view v;
	bool ok;
	int i;

	params("8", "0", "0", "0");
	t_open(&s, impl, 10, 1);
	t_sample(&s, 1, 5000);		/* delack 0: used normally */
	t_sample(&s, 1, 0);		/* no sample */
	t_sample(&s, 1, -1);
	t_view(&s, &v);
	tap_ok(v.rtt_min == 5000 && v.rtt_max == 5000 && v.delack == 0,
	       "%s a 1-segment ACK with delack 0 is a normal sample; rtt <= 0 is ignored",
	       impl->name);
	for (i = 0; i < 7; i++)
		t_sample(&s, 2, 6000);
	t_view(&s, &v);
	tap_ok(v.delack == 5 && v.rtt_max == 6000,
	       "%s multi-segment ACKs count delack up to 5 (%u) and are used", impl->name,
	       v.delack);
	ok = true;
	for (i = 0; i < 5; i++) {
		t_sample(&s, 1, 9000 - 1000 * i);	/* 9000 .. 5000: no max */
		t_view(&s, &v);
		ok &= v.rtt_max == 6000 && v.delack == 4 - i && v.rtt_min == 5000;
	}
	t_sample(&s, 1, 4000 - 1);
	t_view(&s, &v);
	tap_ok(ok, "%s 5 single-segment ACKs are filtered: never the max, delack counts down",
	       impl->name);
	tap_ok(v.rtt_min == 3999 && v.rtt_max == 6000 && v.delack == 0,
	       "%s the 6th is used normally again", impl->name);
	t_sample(&s, 2, 7000);
	t_sample(&s, 1, 4500);
	t_view(&s, &v);
	tap_ok(v.rtt_min == 3999 && v.rtt_max == 7000,
	       "%s a filtered ACK may only lower the minimum", impl->name);
	t_sample(&s, 1, 3000);
	t_view(&s, &v);
	tap_ok(v.rtt_min == 3000, "%s ... which it does (3000)", impl->name);
	t_close(&s);

	t_open(&s, impl, 10, 1);
	t_sample(&s, 2, 6000);
	t_round(&s, 6000, 6000);	/* a new round: rtt cleared */
	t_sample(&s, 2, 6000);
	t_view(&s, &v);
	v.rtt_min = v.rtt_max = 0;
	v.delack = 2;
	impl->set(tsk(&s), &v);
	t_sample(&s, 1, 4000);
	t_view(&s, &v);
	tap_ok(v.rtt_min == 0 && v.rtt_max == 0,
	       "%s a filtered ACK does not create a minimum where there is none", impl->name);
	s.tp.sacked_out = 3;
	t_sample(&s, 1, 8000);
	t_view(&s, &v);
	tap_ok(v.rtt_min == 8000 && v.rtt_max == 8000 && v.delack == 1,
	       "%s with SACKed data the filter is off", impl->name);
	t_close(&s);
}

/* Ours' tracepoints carry the round's values (the oracle has none). */
static void test_trace(void)
{
	struct tsock s;
	const char *r, *b;

	params("8", "1000", "0", "0");
	shim_trace_clear();
	shim_trace_enable(true);
	t_open(&s, impl, 10, 1);
	s.tp.inet_conn.icsk_inet.sk.sk_family = AF_INET6;
	s.tp.inet_conn.icsk_inet.sk.sk_v6_daddr.s6_addr[15] = 2;
	s.rng.forced = true;
	s.rng.forced_val = U32_MAX;
	t_round(&s, 10000, 12000);
	t_round(&s, 10100, 12345);
	shim_trace_enable(false);
	r = shim_trace_last("cdg_round");
	b = shim_trace_last("cdg_backoff");
	tap_ok(r && strstr(r, "src=[::]:0 dest=[::2]:0 rtt_min=10100 rtt_max=12345 "
			   "gsum_min=100 gsum_max=345 grad=800 state=unknown cwnd=10") &&
	       strstr(r, " base_rtt=10000"),
	       "ours cdg_round tracepoint: %s", r ? r : "(none)");
	tap_ok(b && strstr(b, "grad=800") && strstr(b, "backoff=1 suppressed=0") &&
	       shim_trace_count("cdg_backoff") == 1 && shim_trace_count("cdg_loss") == 1,
	       "ours cdg_backoff and cdg_loss tracepoints: %s", b ? b : "(none)");
	t_close(&s);
}

/*
 * cdg_backoff reports the gradient its decision used and the probability
 * that gave: with ref_rtt_us the scaled one (here 800 * 25000 / 10000),
 * and prob = 1 - nexp(grad * factor), so that the trace can be checked.
 */
static void test_trace_scaled(void)
{
	static const struct { const char *ref; u32 grad; } c[] = {
		{ "0", 800 }, { "25000", 2000 }, { "2500", 200 },
	};
	bool ok = true;
	size_t i;

	params("8", "100", "0", "0");
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct tsock s;
		const char *b;
		char want[64];

		shim_param_write("ours", "ref_rtt_us", c[i].ref);
		shim_trace_clear();
		shim_trace_enable(true);
		t_open(&s, impl, 10, 1);
		s.rng.forced = true;
		s.rng.forced_val = 0;
		t_round(&s, 10000, 12000);
		t_round(&s, 10100, 12345);
		shim_trace_enable(false);
		t_close(&s);
		b = shim_trace_last("cdg_backoff");
		snprintf(want, sizeof(want), " grad=%u prob=%u ", c[i].grad,
			 U32_MAX - impl->nexp(c[i].grad * 100));
		if (!b || !strstr(b, want)) {
			tap_diag("ours ref_rtt_us=%s: cdg_backoff %s, want%s", c[i].ref,
				 b ? b : "(none)", want);
			ok = false;
		}
	}
	shim_param_write("ours", "ref_rtt_us", "0");
	tap_ok(ok, "ours cdg_backoff: grad is the gradient the decision used (x ref_rtt_us "
	       "/ base_rtt: 800, 2000, 200) and prob = 1 - nexp(grad * factor)");
}

static void run_impl(const struct cdg_impl *which)
{
	impl = which;
	if (impl == &impl_ours) {
		test_trace();
		test_trace_scaled();
	}
	test_sampling();
	test_sums();
	test_window256();
	test_extrapolation();
	test_no_extrapolate();
	test_ring_retry();
	test_effective();
	test_tolerance();
	params("8", "42", "0", "5");
}

int main(void)
{
	t_modules_load();
	t_each_impl("gradient ring tests", run_impl);
	tap_ok(shim_mem.bad_frees == 0 && shim_warnings == 0 && shim_mem.live == 1,
	       "ring tests: no bad kfree, no WARN, no leak (%ld live)", shim_mem.live);
	t_modules_unload();
	return tap_done();
}
