/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the white-box tests: a socket driven call by call, the way
 * tcp_input.c calls a congestion control, without the full model.
 */
#ifndef _CDG_TESTLIB_H
#define _CDG_TESTLIB_H

#include "shim/shim.h"
#include "impl.h"
#include "tap.h"

#define T_MSS 1000

struct tsock {
	struct tcp_sock tp;		/* first: the struct sock */
	struct shim_rng rng;
	const struct cdg_impl *impl;
};

static inline struct sock *tsk(struct tsock *s)
{
	return (struct sock *)&s->tp;
}

/* The implementations the tests run on: ours, and the oracle if built. */
extern const struct cdg_impl *const impls[2];

/*
 * Runs fn(impl) for ours, then for the oracle, or prints the oracle's
 * "# SKIP linux-source-6.1 not installed" line for `what` when it is not
 * built.
 */
void t_each_impl(const char *what, void (*fn)(const struct cdg_impl *impl));

/* Loads both modules (ours first: the oracle ignores its -EEXIST). */
void t_modules_load(void);
void t_modules_unload(void);

/* Sets every parameter of impl to the given text values (NULL: default). */
struct t_params {
	const char *window, *backoff_beta, *backoff_factor, *hystart_detect,
		   *use_ineff, *use_shadow, *use_tolerance;
};
int t_params_set(const struct cdg_impl *impl, const struct t_params *p);
/* A counter of ours' /proc/net/stat/tcp_cdg in init_net; -1 without it. */
long t_proc(const char *key);

/*
 * A check of the spec: for ours a TAP result; for the oracle, where the
 * 6.1 kernel itself deviates, a "# spec/oracle disagreement:" line (the
 * oracle is not ours to fix, and must not be silently followed either).
 */
void t_spec(const struct cdg_impl *impl, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A socket in congestion avoidance (ssthresh = cwnd), cwnd-limited. */
void t_open(struct tsock *s, const struct cdg_impl *impl, u32 cwnd, u64 seed);
void t_close(struct tsock *s);
void t_view(struct tsock *s, struct cdg_view *v);
/* pkts_acked() with one sample. */
void t_sample(struct tsock *s, u32 pkts, s32 rtt_us);
/*
 * One RTT round: samples min and max (2 segments each, so the delayed-ACK
 * filter passes them), then the ACK past rtt_seq that ends the round.
 * Returns true if the module entered CWR (backed off).
 */
bool t_round(struct tsock *s, s32 min, s32 max);
/* What tcp_end_cwnd_reduction() does at the end of CWR. */
void t_complete_cwr(struct tsock *s);

#endif
