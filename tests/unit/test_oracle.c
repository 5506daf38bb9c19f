// SPDX-License-Identifier: GPL-2.0
/*
 * The differential test (spec: "behave like the 6.1 variant"): ours and
 * the kernel's 6.1 tcp_cdg.c, each driven by its own copy of the model on
 * the same trace with the same random streams, must agree after every
 * ACK, RTO and restart on snd_cwnd, snd_ssthresh, the CA state and the
 * number of random numbers drawn; at the end on the HyStart SNMP counters.
 * Run at the defaults, for every value of each parameter alone, on a
 * sample of the full parameter grid, and with every ring allocation failing.
 * Our /proc/net/stat/tcp_cdg counters are checked against what the model
 * and the SNMP counters saw, and the tracepoints against both.
 */
#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "testlib.h"

#ifdef __SANITIZE_ADDRESS__
#define GRID_SAMPLE 16		/* the sanitized run is ~5x slower */
#else
#define GRID_SAMPLE 60
#endif

struct totals {
	long traces, steps, failed;
	u64 recoveries, undos, rtos, restarts, draws, cwrs;
	bool reported;		/* the first divergence was printed */
};

static long proc_value(struct net *net, const char *key)
{
	char buf[2048];

	if (shim_proc_read(net, "stat/tcp_cdg", buf, sizeof(buf)) < 0)
		return -1;
	return shim_proc_value(buf, key);
}

static void print_side(const char *who, struct model *m, const struct cdg_impl *impl)
{
	struct cdg_view v;

	impl->view((struct sock *)&m->tp, &v);
	tap_diag("  %-6s cwnd %u ssthresh %u state %s draws %llu | cdg state %u shadow %u "
		 "rtt %d/%d prev %d/%d gsum %d/%d tail %u filled %d backoff_cnt %u",
		 who, m->tp.snd_cwnd, m->tp.snd_ssthresh,
		 model_state_name(inet_csk((struct sock *)&m->tp)->icsk_ca_state),
		 (unsigned long long)m->ca_rng.draws, v.state, v.shadow_wnd,
		 v.rtt_min, v.rtt_max, v.prev_min, v.prev_max, v.gsum_min,
		 v.gsum_max, v.tail, v.gfilled, v.backoff_cnt);
}

static bool same(struct model *a, struct model *b)
{
	return a->tp.snd_cwnd == b->tp.snd_cwnd &&
	       a->tp.snd_ssthresh == b->tp.snd_ssthresh &&
	       inet_csk((struct sock *)&a->tp)->icsk_ca_state ==
	       inet_csk((struct sock *)&b->tp)->icsk_ca_state &&
	       a->ca_rng.draws == b->ca_rng.draws && a->now == b->now;
}

/* One trace under one configuration; false on the first divergence. */
static bool run_pair(const struct model_trace *t, const char *cfg, bool nomem,
		     struct totals *tot)
{
	static struct model a, b;
	struct net *na = shim_net_new(), *nb = shim_net_new();
	enum model_event ea, eb;
	long step = 0, a_train, a_delay;
	bool ok = true;

	/*
	 * nomem: every allocation fails for the whole trace, ours' retries
	 * at later rounds too (a ring that never comes: as in-tree).
	 */
	if (nomem)
		shim_mem_fail(-1);
	model_init(&a, t, impl_ours.ops, na);
	model_init(&b, t, impl_oracle.ops, nb);
	if (nomem) {
		struct cdg_view va, vb;

		impl_ours.view((struct sock *)&a.tp, &va);
		impl_oracle.view((struct sock *)&b.tp, &vb);
		if (va.gradients || vb.gradients) {
			tap_diag("%s: ring allocation did not fail", cfg);
			ok = false;
		}
	}
	do {
		ea = model_step(&a);
		eb = model_step(&b);
		step++;
		if (ea != eb || !same(&a, &b)) {
			ok = false;
			if (!tot->reported) {
				tot->reported = true;
				tap_diag("first divergence: trace %s, %s, step %ld, t=%llu us, "
					 "events %d/%d:", t->name, cfg, step,
					 (unsigned long long)a.now, ea, eb);
				print_side("ours", &a, &impl_ours);
				print_side("oracle", &b, &impl_oracle);
			}
			break;
		}
	} while (ea != MODEL_END);
	shim_mem_fail(0);
	tot->steps += step;
	tot->traces++;
	tot->recoveries += a.recoveries;
	tot->undos += a.undos;
	tot->rtos += a.rtos;
	tot->restarts += a.restarts;
	tot->draws += a.ca_rng.draws;
	tot->cwrs += a.cwrs;

	if (ok && (na->mib[LINUX_MIB_TCPHYSTARTTRAINDETECT] != nb->mib[LINUX_MIB_TCPHYSTARTTRAINDETECT] ||
		   na->mib[LINUX_MIB_TCPHYSTARTTRAINCWND] != nb->mib[LINUX_MIB_TCPHYSTARTTRAINCWND] ||
		   na->mib[LINUX_MIB_TCPHYSTARTDELAYDETECT] != nb->mib[LINUX_MIB_TCPHYSTARTDELAYDETECT] ||
		   na->mib[LINUX_MIB_TCPHYSTARTDELAYCWND] != nb->mib[LINUX_MIB_TCPHYSTARTDELAYCWND])) {
		tap_diag("trace %s, %s: HyStart SNMP counters differ", t->name, cfg);
		ok = false;
	}
	/* Our per-namespace counters against what the SNMP counters saw. */
	a_train = proc_value(na, "HystartTrainExits");
	a_delay = proc_value(na, "HystartDelayExits");
	if (a_train != (long)na->mib[LINUX_MIB_TCPHYSTARTTRAINDETECT] ||
	    a_delay != (long)na->mib[LINUX_MIB_TCPHYSTARTDELAYDETECT] ||
	    proc_value(na, "Sockets") != 1 ||
	    proc_value(na, "RingAllocFail") != (nomem && *impl_ours.window > 1) ||
	    proc_value(na, "RingAllocLate") != 0 ||
	    /* every CWR entry is a backoff; some backoffs happen in Loss (no CWR) */
	    proc_value(na, "Backoffs") < (long)a.cwrs ||
	    proc_value(na, "Backoffs") + proc_value(na, "BackoffsIneffectual") >
	    (long)a.ca_rng.draws || proc_value(na, "Rounds") < (long)a.ca_rng.draws) {
		tap_diag("trace %s, %s: /proc/net/stat/tcp_cdg disagrees: train %ld/%lu "
			 "delay %ld/%lu sockets %ld ringfail %ld backoffs %ld (%llu CWR, %llu draws)",
			 t->name, cfg,
			 a_train, na->mib[LINUX_MIB_TCPHYSTARTTRAINDETECT], a_delay,
			 na->mib[LINUX_MIB_TCPHYSTARTDELAYDETECT],
			 proc_value(na, "Sockets"), proc_value(na, "RingAllocFail"),
			 proc_value(na, "Backoffs"), (unsigned long long)a.cwrs,
			 (unsigned long long)a.ca_rng.draws);
		ok = false;
	}
	model_free(&a);
	model_free(&b);
	shim_net_free(na);
	shim_net_free(nb);
	if (!ok)
		tot->failed++;
	return ok;
}

static void set_both(const struct t_params *p)
{
	if (t_params_set(&impl_ours, p) || t_params_set(&impl_oracle, p)) {
		fprintf(stderr, "test_oracle: cannot set a grid configuration\n");
		exit(1);
	}
}

static void cfg_name(char *buf, size_t n, const struct t_params *p)
{
	snprintf(buf, n, "window=%s beta=%s factor=%s hystart=%s ineff=%s shadow=%s tolerance=%s",
		 p->window ? p->window : "8", p->backoff_beta ? p->backoff_beta : "724",
		 p->backoff_factor ? p->backoff_factor : "42",
		 p->hystart_detect ? p->hystart_detect : "3",
		 p->use_ineff ? p->use_ineff : "5", p->use_shadow ? p->use_shadow : "1",
		 p->use_tolerance ? p->use_tolerance : "0");
}

/* All traces under p; returns the number of failed traces. */
static long run_config(const struct t_params *p, bool nomem, struct totals *tot)
{
	char name[200];
	long before = tot->failed;
	int i;

	set_both(p);
	cfg_name(name, sizeof(name), p);
	for (i = 0; i < model_ntraces; i++)
		run_pair(&model_traces[i], name, nomem, tot);
	return tot->failed - before;
}

static void one_config(const char *label, const struct t_params *p, bool nomem,
		       struct totals *tot)
{
	long steps = tot->steps, failed = run_config(p, nomem, tot);

	tap_ok(!failed, "oracle diff %s: %d traces, %ld steps identical%s", label,
	       model_ntraces, tot->steps - steps, failed ? " (divergence above)" : "");
}

#define SINGLE(field, ...) do {						\
	static const char *const vals[] = { __VA_ARGS__ };		\
	size_t k;							\
	for (k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {		\
		struct t_params p = { 0 };				\
		char label[64];						\
		p.field = vals[k];					\
		snprintf(label, sizeof(label), #field "=%s", vals[k]);	\
		one_config(label, &p, false, &tot);			\
	}								\
} while (0)

int main(void)
{
	static const char *const windows[] = { "1", "8", "256" };
	static const char *const factors[] = { "0", "42", "1000" };
	static const char *const betas[] = { "512", "724", "1024" };
	static const char *const offon[] = { "0", "1" };
	static const char *const ineffs[] = { "0", "5" };
	static const char *const hystarts[] = { "0", "1", "2", "3" };
	struct totals tot = { 0 };
	struct shim_rng pick;
	long failed, steps;
	int i;

	{
		static const struct model_phase bad[] = {
			{ .name = "no-rate", .duration_ms = 10, .rtt_from_us = 1,
			  .rtt_to_us = 1, .buffer_pkts = 1 },
		};
		static const struct model_trace badt = { "bad", 1, false, bad, 1 };
		struct model m;

		tap_ok(model_init(&m, &badt, impl_ours.ops, &init_net) == -EINVAL &&
		       model_check(NULL) == -EINVAL,
		       "model: a bad trace is refused with a message, not run");
	}
	if (!impl_oracle.available) {
		tap_skip("linux-source-6.1 not installed", "oracle differential test");
		return tap_done();
	}
	t_modules_load();

	/* Defaults, with the tracepoints on: they must agree with the counters. */
	shim_trace_enable(true);
	{
		struct t_params p = { 0 };

		one_config("defaults (tracepoints on)", &p, false, &tot);
	}
	shim_trace_enable(false);
	tap_ok(shim_trace_count("cdg_round") > 0 && shim_trace_count("cdg_backoff") > 0 &&
	       shim_trace_count("cdg_loss") > 0 && shim_trace_count("cdg_hystart") > 0,
	       "tracepoints fired: %ld cdg_round, %ld cdg_backoff, %ld cdg_loss, %ld cdg_hystart",
	       shim_trace_count("cdg_round"), shim_trace_count("cdg_backoff"),
	       shim_trace_count("cdg_loss"), shim_trace_count("cdg_hystart"));
	if (shim_trace_last("cdg_round"))
		tap_diag("last cdg_round: %s", shim_trace_last("cdg_round"));
	if (shim_trace_last("cdg_backoff"))
		tap_diag("last cdg_backoff: %s", shim_trace_last("cdg_backoff"));

	SINGLE(window, "1", "2", "4", "16", "64", "256");
	SINGLE(backoff_factor, "0", "1", "1000", "20000");
	SINGLE(backoff_beta, "0", "1", "512", "1000", "1024");
	SINGLE(use_ineff, "0", "1", "255");
	SINGLE(use_shadow, "0");
	SINGLE(use_tolerance, "1");
	SINGLE(hystart_detect, "0", "1", "2");

	/* A sample of the grid of all combinations (3*3*3*2*2*2*4 = 864). */
	shim_rng_seed(&pick, 2026);
	steps = tot.steps;
	failed = 0;
	for (i = 0; i < GRID_SAMPLE; i++) {
		struct t_params p = {
			.window = windows[shim_rng_next(&pick) % 3],
			.backoff_factor = factors[shim_rng_next(&pick) % 3],
			.backoff_beta = betas[shim_rng_next(&pick) % 3],
			.use_shadow = offon[shim_rng_next(&pick) % 2],
			.use_tolerance = offon[shim_rng_next(&pick) % 2],
			.use_ineff = ineffs[shim_rng_next(&pick) % 2],
			.hystart_detect = hystarts[shim_rng_next(&pick) % 4],
		};

		failed += run_config(&p, false, &tot) != 0;
	}
	tap_ok(!failed, "oracle diff: %d sampled grid configurations x %d traces, "
	       "%ld steps, %ld configurations diverged", GRID_SAMPLE, model_ntraces,
	       tot.steps - steps, failed);

	/*
	 * The whole grid (864 combinations) on four traces that between them
	 * have slow start, delay ramps, SACK recovery with undo, app-limited
	 * periods and idle restarts.  Only in the -O2 build: ~5x slower
	 * under the sanitizers, which run the sample above.
	 */
#ifdef __SANITIZE_ADDRESS__
	tap_skip("the sanitized build runs the sample above", "oracle diff: the full grid");
#else
	{
		static const char *const subset[] = { "rtt-ramps", "sack-reorder",
						      "app-limited", "idle-restart" };
		const struct model_trace *tr[4];
		int w, f, bt, sh, tl, in, hy, k;
		char name[200];

		for (k = 0; k < 4; k++) {
			for (i = 0; i < model_ntraces &&
				    strcmp(model_traces[i].name, subset[k]); i++)
				;
			if (i == model_ntraces) {
				fprintf(stderr, "test_oracle: no trace %s\n", subset[k]);
				exit(1);
			}
			tr[k] = &model_traces[i];
		}

		steps = tot.steps;
		failed = 0;
		for (w = 0; w < 3; w++)
		for (f = 0; f < 3; f++)
		for (bt = 0; bt < 3; bt++)
		for (sh = 0; sh < 2; sh++)
		for (tl = 0; tl < 2; tl++)
		for (in = 0; in < 2; in++)
		for (hy = 0; hy < 4; hy++) {
			struct t_params p = {
				.window = windows[w], .backoff_factor = factors[f],
				.backoff_beta = betas[bt], .use_shadow = offon[sh],
				.use_tolerance = offon[tl], .use_ineff = ineffs[in],
				.hystart_detect = hystarts[hy],
			};
			long before = tot.failed;

			set_both(&p);
			cfg_name(name, sizeof(name), &p);
			for (k = 0; k < 4; k++)
				run_pair(tr[k], name, false, &tot);
			failed += tot.failed != before;
		}
		tap_ok(!failed, "oracle diff: the full grid, 864 configurations x 4 traces, "
		       "%ld steps, %ld configurations diverged", tot.steps - steps, failed);
	}
#endif

	{
		struct t_params p8 = { 0 }, p256 = { .window = "256", .backoff_factor = "1000" };

		one_config("ring allocation failing for good (window=8)", &p8, true, &tot);
		one_config("ring allocation failing for good (window=256, factor=1000)", &p256, true, &tot);
		set_both(&p8);
	}

	tap_diag("oracle diff total: %ld trace runs, %ld steps (ACKs, RTOs, restarts) "
		 "compared, %ld runs diverged", tot.traces, tot.steps, tot.failed);
	tap_diag("the traces reached: %llu recoveries, %llu undos, %llu RTOs, %llu idle "
		 "restarts, %llu random draws, %llu backoffs into CWR",
		 (unsigned long long)tot.recoveries,
		 (unsigned long long)tot.undos, (unsigned long long)tot.rtos,
		 (unsigned long long)tot.restarts, (unsigned long long)tot.draws,
		 (unsigned long long)tot.cwrs);
	tap_ok(tot.recoveries && tot.undos && tot.rtos && tot.restarts && tot.draws && tot.cwrs,
	       "the traces reach recovery, undo, RTO, idle restart, backoff draws and CWR");
	tap_ok(shim_mem.live == 1 && shim_mem.bad_frees == 0 && shim_warnings == 0,
	       "oracle diff: no leak (%ld live: our init_net counters), "
	       "no bad kfree, no WARN", shim_mem.live);
	t_modules_unload();
	tap_ok(shim_mem.live == 0, "oracle diff: nothing left after module exit (%ld live)",
	       shim_mem.live);
	return tap_done();
}
