/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of tcp_cdg: why a CDG flow backed off, left slow start or
 * took a loss.  Trace system "tcp_cdg":
 *
 *   trace-cmd record -e tcp_cdg
 *   perf record -e 'tcp_cdg:*'
 *   bpftrace -e 'tracepoint:tcp_cdg:cdg_backoff { @[args->backoff] = count(); }'
 *
 * Every event carries the socket's addresses and ports as tcp:tcp_probe
 * does.  Disabled tracepoints cost a static-key branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_cdg

#if !defined(_TCP_CDG_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TCP_CDG_TRACE_H

#include <linux/tracepoint.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/inet_sock.h>
#include <net/sock.h>

#ifndef _TCP_CDG_TRACE_ADDRS
#define _TCP_CDG_TRACE_ADDRS
/* Both ends of @sk as sockaddrs, for %pISpc. */
static inline void cdg_trace_addrs(const struct sock *sk, u8 *src, u8 *dst)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(src, 0, sizeof(struct sockaddr_in6));
	memset(dst, 0, sizeof(struct sockaddr_in6));
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)src;
		struct sockaddr_in6 *d6 = (struct sockaddr_in6 *)dst;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = inet->inet_sport;
		s6->sin6_addr = sk->sk_v6_rcv_saddr;
		d6->sin6_family = AF_INET6;
		d6->sin6_port = inet->inet_dport;
		d6->sin6_addr = sk->sk_v6_daddr;
		return;
	}
#endif
	{
		struct sockaddr_in *s4 = (struct sockaddr_in *)src;
		struct sockaddr_in *d4 = (struct sockaddr_in *)dst;

		s4->sin_family = AF_INET;
		s4->sin_port = inet->inet_sport;
		s4->sin_addr.s_addr = inet->inet_saddr;
		d4->sin_family = AF_INET;
		d4->sin_port = inet->inet_dport;
		d4->sin_addr.s_addr = inet->inet_daddr;
	}
}
#endif

/*
 * Once per RTT round, after the gradient of the round that just ended;
 * base_rtt is the base RTT (us, 0 before the first sample) that this
 * round's decisions use (ref_rtt_us, backoff_drain).
 */
TRACE_EVENT(cdg_round,
	TP_PROTO(const struct sock *sk, s32 rtt_min_us, s32 rtt_max_us,
		 s32 gsum_min_us, s32 gsum_max_us, s32 grad_us, u8 state,
		 u32 cwnd, u32 ssthresh, u32 shadow_wnd, u32 base_rtt_us),
	TP_ARGS(sk, rtt_min_us, rtt_max_us, gsum_min_us, gsum_max_us, grad_us,
		state, cwnd, ssthresh, shadow_wnd, base_rtt_us),
	TP_STRUCT__entry(
		__array(__u8, saddr, sizeof(struct sockaddr_in6))
		__array(__u8, daddr, sizeof(struct sockaddr_in6))
		__field(s32, rtt_min)
		__field(s32, rtt_max)
		__field(s32, gsum_min)
		__field(s32, gsum_max)
		__field(s32, grad)
		__field(u8, state)
		__field(u32, cwnd)
		__field(u32, ssthresh)
		__field(u32, shadow_wnd)
		__field(u32, base_rtt)
	),
	TP_fast_assign(
		cdg_trace_addrs(sk, __entry->saddr, __entry->daddr);
		__entry->rtt_min = rtt_min_us;
		__entry->rtt_max = rtt_max_us;
		__entry->gsum_min = gsum_min_us;
		__entry->gsum_max = gsum_max_us;
		__entry->grad = grad_us;
		__entry->state = state;
		__entry->cwnd = cwnd;
		__entry->ssthresh = ssthresh;
		__entry->shadow_wnd = shadow_wnd;
		__entry->base_rtt = base_rtt_us;
	),
	TP_printk("src=%pISpc dest=%pISpc rtt_min=%d rtt_max=%d gsum_min=%d gsum_max=%d grad=%d state=%s cwnd=%u ssthresh=%u shadow_wnd=%u base_rtt=%u",
		  __entry->saddr, __entry->daddr, __entry->rtt_min,
		  __entry->rtt_max, __entry->gsum_min, __entry->gsum_max,
		  __entry->grad,
		  __print_symbolic(__entry->state, { 0, "unknown" },
				   { 1, "nonfull" }, { 2, "full" },
				   { 3, "backoff" }),
		  __entry->cwnd, __entry->ssthresh, __entry->shadow_wnd,
		  __entry->base_rtt)
);

/*
 * Each backoff decision on a positive gradient.  grad is the gradient the
 * decision used: cdg_round's grad, scaled by ref_rtt_us / base_rtt when
 * ref_rtt_us is set.  prob is the backoff probability it gave, in 1/2^32:
 * 1 - e^(-grad * backoff_factor * 10^-6).  backoff is the random draw's
 * verdict; suppressed means use_ineff overruled it (ineff backoffs in a
 * row had no effect).
 */
TRACE_EVENT(cdg_backoff,
	TP_PROTO(const struct sock *sk, u32 grad_us, u32 prob, bool backoff,
		 bool suppressed, u16 ineff, u32 cwnd),
	TP_ARGS(sk, grad_us, prob, backoff, suppressed, ineff, cwnd),
	TP_STRUCT__entry(
		__array(__u8, saddr, sizeof(struct sockaddr_in6))
		__array(__u8, daddr, sizeof(struct sockaddr_in6))
		__field(u32, grad)
		__field(u32, prob)
		__field(bool, backoff)
		__field(bool, suppressed)
		__field(u16, ineff)
		__field(u32, cwnd)
	),
	TP_fast_assign(
		cdg_trace_addrs(sk, __entry->saddr, __entry->daddr);
		__entry->grad = grad_us;
		__entry->prob = prob;
		__entry->backoff = backoff;
		__entry->suppressed = suppressed;
		__entry->ineff = ineff;
		__entry->cwnd = cwnd;
	),
	TP_printk("src=%pISpc dest=%pISpc grad=%u prob=%u backoff=%d suppressed=%d ineff=%u cwnd=%u",
		  __entry->saddr, __entry->daddr, __entry->grad, __entry->prob,
		  __entry->backoff, __entry->suppressed, __entry->ineff,
		  __entry->cwnd)
);

/* Slow start ended by HyStart: detector 1 = ACK train, 2 = delay. */
TRACE_EVENT(cdg_hystart,
	TP_PROTO(const struct sock *sk, u8 detector, u32 cwnd,
		 s32 delay_min_us, s32 rtt_min_us),
	TP_ARGS(sk, detector, cwnd, delay_min_us, rtt_min_us),
	TP_STRUCT__entry(
		__array(__u8, saddr, sizeof(struct sockaddr_in6))
		__array(__u8, daddr, sizeof(struct sockaddr_in6))
		__field(u8, detector)
		__field(u32, cwnd)
		__field(s32, delay_min)
		__field(s32, rtt_min)
	),
	TP_fast_assign(
		cdg_trace_addrs(sk, __entry->saddr, __entry->daddr);
		__entry->detector = detector;
		__entry->cwnd = cwnd;
		__entry->delay_min = delay_min_us;
		__entry->rtt_min = rtt_min_us;
	),
	TP_printk("src=%pISpc dest=%pISpc detector=%s cwnd=%u delay_min=%d rtt_min=%d",
		  __entry->saddr, __entry->daddr,
		  __print_symbolic(__entry->detector,
				   { 1, "train" }, { 2, "delay" }),
		  __entry->cwnd, __entry->delay_min, __entry->rtt_min)
);

/* ssthresh on a loss (or a backoff's CWR): what CDG answered and why. */
TRACE_EVENT(cdg_loss,
	TP_PROTO(const struct sock *sk, u8 state, u32 cwnd, u32 shadow_wnd,
		 u32 ssthresh, bool tolerated),
	TP_ARGS(sk, state, cwnd, shadow_wnd, ssthresh, tolerated),
	TP_STRUCT__entry(
		__array(__u8, saddr, sizeof(struct sockaddr_in6))
		__array(__u8, daddr, sizeof(struct sockaddr_in6))
		__field(u8, state)
		__field(u32, cwnd)
		__field(u32, shadow_wnd)
		__field(u32, ssthresh)
		__field(bool, tolerated)
	),
	TP_fast_assign(
		cdg_trace_addrs(sk, __entry->saddr, __entry->daddr);
		__entry->state = state;
		__entry->cwnd = cwnd;
		__entry->shadow_wnd = shadow_wnd;
		__entry->ssthresh = ssthresh;
		__entry->tolerated = tolerated;
	),
	TP_printk("src=%pISpc dest=%pISpc state=%s cwnd=%u shadow_wnd=%u ssthresh=%u tolerated=%d",
		  __entry->saddr, __entry->daddr,
		  __print_symbolic(__entry->state, { 0, "unknown" },
				   { 1, "nonfull" }, { 2, "full" },
				   { 3, "backoff" }),
		  __entry->cwnd, __entry->shadow_wnd, __entry->ssthresh,
		  __entry->tolerated)
);

/*
 * compete (opt-in): each change of mode.  from/to: delay, compete (a
 * loss-based flow holds a standing queue), drain (a probe's round that
 * drains our queue), judge (the round that tells whether it was ours).
 * rtt_min is the round's minimum RTT that decided, base_rtt the base RTT
 * it was held against, cwnd the window before the change.
 */
TRACE_EVENT(cdg_mode,
	TP_PROTO(const struct sock *sk, u8 from, u8 to, s32 rtt_min_us,
		 u32 base_rtt_us, u32 cwnd),
	TP_ARGS(sk, from, to, rtt_min_us, base_rtt_us, cwnd),
	TP_STRUCT__entry(
		__array(__u8, saddr, sizeof(struct sockaddr_in6))
		__array(__u8, daddr, sizeof(struct sockaddr_in6))
		__field(u8, from)
		__field(u8, to)
		__field(s32, rtt_min)
		__field(u32, base_rtt)
		__field(u32, cwnd)
	),
	TP_fast_assign(
		cdg_trace_addrs(sk, __entry->saddr, __entry->daddr);
		__entry->from = from;
		__entry->to = to;
		__entry->rtt_min = rtt_min_us;
		__entry->base_rtt = base_rtt_us;
		__entry->cwnd = cwnd;
	),
	TP_printk("src=%pISpc dest=%pISpc from=%s to=%s rtt_min=%d base_rtt=%u cwnd=%u",
		  __entry->saddr, __entry->daddr,
		  __print_symbolic(__entry->from, { 0, "delay" },
				   { 1, "compete" }, { 2, "drain" },
				   { 3, "judge" }),
		  __print_symbolic(__entry->to, { 0, "delay" },
				   { 1, "compete" }, { 2, "drain" },
				   { 3, "judge" }),
		  __entry->rtt_min, __entry->base_rtt, __entry->cwnd)
);

#endif /* _TCP_CDG_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tcp_cdg_trace
#include <trace/define_trace.h>
