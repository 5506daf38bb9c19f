// SPDX-License-Identifier: GPL-2.0
/*
 * Socket and module lifecycle (spec section 12): init -> traffic ->
 * CWND_RESTART keeps and zeroes the ring -> release frees it; release
 * twice; release without init (a listener); a child cloned from a parent
 * with a ring; a congestion-control switch; module init failures and
 * unload; per-namespace counters, also for kernel sockets of a namespace
 * going away.  Every path is checked for leaks with the shim's allocation
 * tracker (and, in the sanitized run, by ASan).
 */
#include <stdio.h>

#include "testlib.h"

static const struct cdg_impl *impl;

static bool ring_zero(struct tsock *s)
{
	int i;
	s32 mn, mx;

	for (i = 0; i < *impl->window; i++)
		if (!impl->ring(tsk(s), i, &mn, &mx) || mn || mx)
			return false;
	return true;
}

static void test_restart_release(void)
{
	long live0 = shim_mem.live;
	struct tsock s;
	struct cdg_view v, w;
	int k;

	t_open(&s, impl, 30, 1);
	for (k = 0; k < 5; k++)
		t_round(&s, 10000 + 100 * k, 20000 + 50 * k);
	t_view(&s, &v);
	tap_ok(v.gradients && shim_mem_is_live(v.gradients) && shim_mem.live == live0 + 1 &&
	       !ring_zero(&s), "%s init allocates a ring; traffic fills it", impl->name);
	s.tp.snd_nxt += 12345;
	tcp_snd_cwnd_set(&s.tp, 17);
	impl->ops->cwnd_event(tsk(&s), CA_EVENT_CWND_RESTART);
	t_view(&s, &w);
	tap_ok(w.gradients == v.gradients && ring_zero(&s) && shim_mem.live == live0 + 1,
	       "%s CWND_RESTART keeps the ring, zeroed", impl->name);
	tap_ok(!w.rtt_min && !w.rtt_max && !w.prev_min && !w.prev_max && !w.gsum_min &&
	       !w.gsum_max && !w.tail && !w.gfilled && !w.state && !w.delack &&
	       !w.backoff_cnt && !w.sample_cnt && !w.delay_min && !w.last_ack &&
	       !w.round_start && w.rtt_seq == s.tp.snd_nxt && w.shadow_wnd == 17,
	       "%s CWND_RESTART: all else zero, rtt_seq = snd_nxt, shadow_wnd = cwnd",
	       impl->name);
	impl->ops->cwnd_event(tsk(&s), CA_EVENT_TX_START);
	impl->ops->cwnd_event(tsk(&s), CA_EVENT_LOSS);
	t_view(&s, &v);
	tap_ok(!memcmp(&v, &w, sizeof(v)), "%s other events change nothing", impl->name);
	impl->ops->release(tsk(&s));
	t_view(&s, &v);
	tap_ok(!v.gradients && !shim_mem_is_live(w.gradients) && shim_mem.live == live0,
	       "%s release frees the ring and clears the pointer", impl->name);
	impl->ops->release(tsk(&s));
	tap_ok(shim_mem.bad_frees == 0 && shim_mem.live == live0,
	       "%s release twice (tcp_disconnect, then close) is safe", impl->name);
}

static void test_no_init(void)
{
	long live0 = shim_mem.live, bad0 = shim_mem.bad_frees;
	struct tsock s;

	/* A listener with TCP_CONGESTION set: ops assigned, init never run. */
	memset(&s, 0, sizeof(s));
	s.impl = impl;
	s.tp.inet_conn.icsk_inet.sk.__sk_common.skc_net = &init_net;
	s.tp.inet_conn.icsk_inet.sk.sk_state = TCP_LISTEN;
	shim_cc_reinit(tsk(&s), impl->ops);
	shim_cc_cleanup(tsk(&s));
	shim_cc_cleanup(tsk(&s));
	tap_ok(shim_mem.bad_frees == bad0 && shim_mem.live == live0,
	       "%s release without init (listener), twice: nothing freed", impl->name);
}

static void test_clone(void)
{
	long live0 = shim_mem.live;
	struct tsock parent, child;
	struct cdg_view pv, cv;
	s32 before[8][2], mn, mx;
	bool same = true;
	int i;

	t_open(&parent, impl, 20, 1);
	for (i = 0; i < 4; i++)
		t_round(&parent, 10000 + 100 * i, 20000);
	t_view(&parent, &pv);
	for (i = 0; i < 8; i++)
		impl->ring(tsk(&parent), i, &before[i][0], &before[i][1]);
	/* inet_csk_clone_lock(): the child starts as a byte copy. */
	memcpy(&child, &parent, sizeof(child));
	shim_cc_init(tsk(&child), impl->ops);
	t_view(&child, &cv);
	t_round(&child, 50000, 60000);
	t_round(&child, 70000, 80000);
	for (i = 0; i < 8; i++) {
		impl->ring(tsk(&parent), i, &mn, &mx);
		same &= mn == before[i][0] && mx == before[i][1];
	}
	tap_ok(cv.gradients && cv.gradients != pv.gradients && shim_mem_is_live(pv.gradients) &&
	       same && shim_mem.live == live0 + 2,
	       "%s cloned child: init neither frees nor reuses the parent's ring", impl->name);
	t_close(&child);
	tap_ok(shim_mem_is_live(pv.gradients) && shim_mem.live == live0 + 1,
	       "%s releasing the child frees only its own ring", impl->name);
	t_close(&parent);
	tap_ok(shim_mem.live == live0 && shim_mem.bad_frees == 0,
	       "%s releasing the parent frees its ring: no leak, no double free", impl->name);

	/* The same when the child's own allocation fails: it must run ringless. */
	t_open(&parent, impl, 20, 1);
	t_view(&parent, &pv);
	memcpy(&child, &parent, sizeof(child));
	shim_mem_fail(1);
	shim_cc_init(tsk(&child), impl->ops);
	t_view(&child, &cv);
	t_close(&child);
	tap_ok(!cv.gradients && shim_mem_is_live(pv.gradients) && shim_mem.bad_frees == 0,
	       "%s cloned child whose ring allocation fails: no ring, the parent's untouched",
	       impl->name);
	t_close(&parent);

	/* Spec 12: init clears the pointer before allocating, even with window=1. */
	t_open(&parent, impl, 20, 1);
	t_view(&parent, &pv);
	memcpy(&child, &parent, sizeof(child));
	shim_param_load(impl->name, "window", "1");
	shim_cc_init(tsk(&child), impl->ops);
	t_view(&child, &cv);
	t_close(&child);
	shim_param_load(impl->name, "window", "8");
	tap_ok(!cv.gradients && shim_mem_is_live(pv.gradients) && shim_mem.bad_frees == 0,
	       "%s init clears a copied ring pointer also when it allocates none (window=1)",
	       impl->name);
	t_close(&parent);
}

static void test_switch(void)
{
	long live0 = shim_mem.live;
	struct tsock s;
	struct cdg_view v;

	t_open(&s, impl, 20, 1);
	t_round(&s, 10000, 20000);
	shim_cc_reinit(tsk(&s), &tcp_reno);		/* setsockopt(TCP_CONGESTION) */
	tap_ok(shim_mem.live == live0, "%s switch cdg -> reno frees the ring", impl->name);
	shim_cc_reinit(tsk(&s), impl->ops);
	t_view(&s, &v);
	tap_ok(v.gradients && shim_mem.live == live0 + 1,
	       "%s switch reno -> cdg allocates a fresh ring", impl->name);
	shim_cc_reinit(tsk(&s), impl->ops);
	tap_ok(shim_mem.live == live0 + 1 && shim_mem.bad_frees == 0,
	       "%s switch cdg -> cdg: old ring freed, new one allocated", impl->name);
	t_close(&s);
	tap_ok(shim_mem.live == live0, "%s close after switches: no leak", impl->name);
}

static void test_nomem(void)
{
	long live0 = shim_mem.live;
	struct tsock s;

	shim_mem_fail(1);
	t_open(&s, impl, 20, 1);
	t_round(&s, 10000, 20000);
	impl->ops->cwnd_event(tsk(&s), CA_EVENT_CWND_RESTART);
	t_round(&s, 11000, 21000);
	t_close(&s);
	t_close(&s);
	tap_ok(shim_mem.live == live0 && shim_mem.bad_frees == 0,
	       "%s without a ring: restart, traffic and release are safe", impl->name);
}

/*
 * A subsystem registered before the module, with a kernel socket in a
 * namespace (sunrpc, SMC, ...: a socket that holds no reference on its
 * namespace).  The namespace's teardown runs its exit after cdg's, and
 * the socket may run cdg until that exit closes it.
 */
static struct tsock ksock;
static bool ksock_open;

static void owner_exit(struct net *net)
{
	int i;

	if (!ksock_open || sock_net(tsk(&ksock)) != net)
		return;
	for (i = 0; i < 3; i++)			/* rounds end: Rounds */
		t_round(&ksock, 10000 + 1000 * i, 20000 + 1000 * i);
	shim_cc_reinit(tsk(&ksock), impl_ours.ops);	/* init: Sockets */
	t_close(&ksock);
	ksock_open = false;
}

static struct pernet_operations owner_ops = { .exit = owner_exit };

/* Opens ksock in net; refcnt: it holds a reference on it (a user socket). */
static void ksock_open_in(struct net *net, bool refcnt)
{
	memset(&ksock, 0, sizeof(ksock));
	t_open(&ksock, &impl_ours, 10, 1);	/* in init_net, then moved */
	t_close(&ksock);
	ksock.tp.inet_conn.icsk_inet.sk.__sk_common.skc_net = net;
	ksock.tp.inet_conn.icsk_inet.sk.sk_net_refcnt = refcnt;
	shim_cc_init(tsk(&ksock), impl_ours.ops);
	ksock_open = true;
}

static void test_kernel_socket(void)
{
	long init0 = -1, init1 = -1, n0 = -1;
	char buf[2048];
	struct net *n;

	/* In a namespace: not counted, and nothing written after cdg's exit. */
	n = shim_net_new();
	ksock_open_in(n, false);
	t_round(&ksock, 10000, 20000);
	t_round(&ksock, 10000, 20000);
	if (shim_proc_read(n, "stat/tcp_cdg", buf, sizeof(buf)) > 0)
		n0 = shim_proc_value(buf, "Sockets") + shim_proc_value(buf, "Rounds");
	shim_net_free(n);
	tap_ok(n0 == 0, "ours a kernel socket (no namespace reference) is not counted in "
	       "its namespace (Sockets + Rounds %ld)", n0);
	tap_ok(!ksock_open && shim_mem_check_freed() == 0,
	       "ours ... so that it can run cdg after cdg_net_exit(), in the exit of a "
	       "subsystem registered before the module, without writing freed counters");

	/* In init_net, which never goes away, it is counted. */
	if (shim_proc_read(&init_net, "stat/tcp_cdg", buf, sizeof(buf)) > 0)
		init0 = shim_proc_value(buf, "Sockets");
	ksock_open_in(&init_net, false);
	t_close(&ksock);
	ksock_open = false;
	if (shim_proc_read(&init_net, "stat/tcp_cdg", buf, sizeof(buf)) > 0)
		init1 = shim_proc_value(buf, "Sockets");
	tap_ok(init1 == init0 + 2, "ours a kernel socket in init_net, which never goes away, "
	       "is counted (Sockets +%ld: both inits)", init1 - init0);
}

/* Module init failures and per-namespace counters: ours only. */
static void test_module(void)
{
	struct tsock s;
	struct net *n2;
	char buf[2048];
	int err;

	impl_ours.module_exit();
	tap_ok(shim_mem.live == 0 && !shim_cc_registered() && !shim_pernet_registered() &&
	       !shim_proc_entries(),
	       "ours module exit after the last socket: no memory, ops, pernet or proc left");

	shim_mem_fail(1);	/* alloc_percpu() in the pernet init */
	err = impl_ours.module_init();
	shim_mem_fail(0);
	tap_ok(err == -ENOMEM && !shim_cc_registered() && !shim_pernet_registered() &&
	       !shim_proc_entries() && shim_mem.live == 0,
	       "ours module init without memory for counters: -ENOMEM, nothing left (%d)", err);
	shim_proc_fail(1);
	err = impl_ours.module_init();
	shim_proc_fail(0);
	tap_ok(err == -ENOMEM && !shim_cc_registered() && !shim_pernet_registered() &&
	       shim_mem.live == 0,
	       "ours module init when the proc file cannot be made: -ENOMEM, nothing left");

	register_pernet_subsys(&owner_ops);	/* before the module, as at boot */
	err = impl_ours.module_init();
	n2 = shim_net_new();
	tap_ok(!err && n2 && shim_proc_read(n2, "stat/tcp_cdg", buf, sizeof(buf)) > 0 &&
	       shim_proc_value(buf, "Sockets") == 0,
	       "ours a namespace made after load gets its own /proc/net/stat/tcp_cdg");
	t_open(&s, &impl_ours, 10, 1);		/* counted in init_net */
	t_close(&s);
	s.tp.inet_conn.icsk_inet.sk.__sk_common.skc_net = n2;
	s.tp.inet_conn.icsk_inet.sk.sk_net_refcnt = 1;
	shim_cc_init(tsk(&s), impl_ours.ops);	/* counted in n2 */
	t_close(&s);
	shim_proc_read(n2, "stat/tcp_cdg", buf, sizeof(buf));
	tap_ok(shim_proc_value(buf, "Sockets") == 1,
	       "ours counters are per namespace (n2 Sockets %ld)", shim_proc_value(buf, "Sockets"));
	tap_diag("ours /proc/net/stat/tcp_cdg of n2:");
	{
		char *line = strtok(buf, "\n");

		while (line) {
			tap_diag("  %s", line);
			line = strtok(NULL, "\n");
		}
	}
	shim_net_free(n2);
	tap_ok(shim_mem.live == 1 && shim_warnings == 0,
	       "ours a namespace going away frees its counters and proc file");
	test_kernel_socket();

}

static void run_impl(const struct cdg_impl *which)
{
	impl = which;
	test_restart_release();
	test_no_init();
	test_clone();
	test_switch();
	test_nomem();
}

int main(void)
{
	t_modules_load();
	t_each_impl("lifecycle tests", run_impl);
	test_module();
	t_modules_unload();
	unregister_pernet_subsys(&owner_ops);
	tap_ok(shim_mem.live == 0 && shim_mem.bad_frees == 0 && shim_warnings == 0,
	       "lifecycle: no leak, no bad kfree, no WARN at the end");
	return tap_done();
}
