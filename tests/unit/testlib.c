// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "testlib.h"

const struct cdg_impl *const impls[2] = { &impl_ours, &impl_oracle };

void t_each_impl(const char *what, void (*fn)(const struct cdg_impl *impl))
{
	int i;

	for (i = 0; i < 2; i++) {
		if (impls[i]->available)
			fn(impls[i]);
		else
			tap_skip("linux-source-6.1 not installed", "oracle %s", what);
	}
}

void t_modules_load(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (impls[i]->available && impls[i]->module_init()) {
			fprintf(stderr, "testlib: %s module_init failed\n", impls[i]->name);
			exit(1);
		}
	}
}

void t_modules_unload(void)
{
	int i;

	for (i = 1; i >= 0; i--)
		if (impls[i]->available)
			impls[i]->module_exit();
}

int t_params_set(const struct cdg_impl *impl, const struct t_params *p)
{
	const char *names[] = { "window", "backoff_beta", "backoff_factor",
				"hystart_detect", "use_ineff", "use_shadow",
				"use_tolerance" };
	const char *defs[] = { "8", "724", "42", "3", "5", "1", "0" };
	const char *vals[] = { p->window, p->backoff_beta, p->backoff_factor,
			       p->hystart_detect, p->use_ineff, p->use_shadow,
			       p->use_tolerance };
	int i, err;

	for (i = 0; i < 7; i++) {
		err = shim_param_load(impl->name, names[i], vals[i] ? vals[i] : defs[i]);
		if (err) {
			fprintf(stderr, "testlib: %s: %s=%s: error %d\n", impl->name,
				names[i], vals[i] ? vals[i] : defs[i], err);
			return err;
		}
	}
	return 0;
}

void t_open(struct tsock *s, const struct cdg_impl *impl, u32 cwnd, u64 seed)
{
	memset(s, 0, sizeof(*s));
	s->impl = impl;
	s->tp.inet_conn.icsk_inet.sk.__sk_common.skc_net = &init_net;
	s->tp.inet_conn.icsk_inet.sk.sk_family = AF_INET;
	s->tp.inet_conn.icsk_inet.sk.sk_state = TCP_ESTABLISHED;
	s->tp.snd_cwnd = cwnd;
	s->tp.snd_ssthresh = cwnd;
	s->tp.snd_cwnd_clamp = ~0U;
	s->tp.is_cwnd_limited = 1;
	s->tp.snd_una = s->tp.snd_nxt = 0xfffff000u;	/* wraps soon */
	s->tp.tcp_mstamp = 1000000;
	shim_rng_seed(&s->rng, seed);
	shim_rng_current = &s->rng;
	shim_cc_init(tsk(s), impl->ops);
}

void t_close(struct tsock *s)
{
	shim_rng_current = &s->rng;
	shim_cc_cleanup(tsk(s));
}

void t_view(struct tsock *s, struct cdg_view *v)
{
	memset(v, 0, sizeof(*v));	/* padding too: views are memcmp()ed */
	s->impl->view(tsk(s), v);
}

void t_sample(struct tsock *s, u32 pkts, s32 rtt_us)
{
	struct ack_sample a = { .pkts_acked = pkts, .rtt_us = rtt_us };

	shim_rng_current = &s->rng;
	s->tp.tcp_mstamp += 100;
	s->impl->ops->pkts_acked(tsk(s), &a);
}

bool t_round(struct tsock *s, s32 min, s32 max)
{
	struct tcp_sock *tp = &s->tp;
	u32 ack = tp->snd_nxt + 5 * T_MSS;

	tp->snd_nxt += 10 * T_MSS;
	t_sample(s, 2, min);
	t_sample(s, 2, max);
	tp->snd_una = ack;
	shim_rng_current = &s->rng;
	s->impl->ops->cong_avoid(tsk(s), ack, 2);
	return inet_csk(tsk(s))->icsk_ca_state == TCP_CA_CWR;
}

void t_complete_cwr(struct tsock *s)
{
	struct sock *sk = tsk(s);

	tcp_snd_cwnd_set(&s->tp, s->tp.snd_ssthresh);
	s->impl->ops->cwnd_event(sk, CA_EVENT_COMPLETE_CWR);
	tcp_set_ca_state(sk, TCP_CA_Open);
}

void t_spec(const struct cdg_impl *impl, bool ok, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (impl == &impl_ours || ok)
		tap_ok(ok, "%s %s", impl->name, msg);
	else
		tap_diag("spec/oracle disagreement: %s %s", impl->name, msg);
}

long t_proc(const char *key)
{
	char buf[2048];

	if (shim_proc_read(&init_net, "stat/tcp_cdg", buf, sizeof(buf)) < 0)
		return -1;
	return shim_proc_value(buf, key);
}
