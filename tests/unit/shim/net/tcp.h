/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <net/tcp.h>: tcp_congestion_ops, CA states and events, and the helpers
 * CDG calls, with the semantics of Linux 6.1 (include/net/tcp.h,
 * net/ipv4/tcp_cong.c and tcp_input.c).  Bodies of the out-of-line ones
 * are in tcp_cong.c beside this directory.
 */
#ifndef _SHIM_NET_TCP_H
#define _SHIM_NET_TCP_H

#include <linux/kernel.h>
#include <linux/tcp.h>
#include <net/inet_connection_sock.h>
#include <net/snmp.h>
#include <net/sock.h>

#define USEC_PER_SEC		1000000L	/* vdso/time64.h, pulled in */
#define USEC_PER_MSEC		1000L

#define TCP_INFINITE_SSTHRESH	0x7fffffff
#define TCP_CA_NAME_MAX		16
#define TCP_INIT_CWND		10

enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};
#define TCPF_CA_Open		(1 << TCP_CA_Open)
#define TCPF_CA_Disorder	(1 << TCP_CA_Disorder)
#define TCPF_CA_CWR		(1 << TCP_CA_CWR)
#define TCPF_CA_Recovery	(1 << TCP_CA_Recovery)
#define TCPF_CA_Loss		(1 << TCP_CA_Loss)

enum tcp_ca_event {
	CA_EVENT_TX_START,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
};

struct ack_sample {
	u32 pkts_acked;
	s32 rtt_us;
	u32 in_flight;
};

struct rate_sample;
union tcp_cc_info;

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, u32 ack, u32 acked);
	void (*set_state)(struct sock *sk, u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	u32 (*min_tso_segs)(struct sock *sk);
	void (*cong_control)(struct sock *sk, const struct rate_sample *rs);
	u32 (*undo_cwnd)(struct sock *sk);
	u32 (*sndbuf_expand)(struct sock *sk);
	size_t (*get_info)(struct sock *sk, u32 ext, int *attr,
			   union tcp_cc_info *info);
	char name[TCP_CA_NAME_MAX];
	struct module *owner;
	struct list_head list;
	u32 key;
	u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

int tcp_register_congestion_control(struct tcp_congestion_ops *type);
void tcp_unregister_congestion_control(struct tcp_congestion_ops *type);
const struct tcp_congestion_ops *tcp_ca_find(const char *name);

void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked);
u32 tcp_reno_ssthresh(struct sock *sk);
u32 tcp_reno_undo_cwnd(struct sock *sk);
u32 tcp_slow_start(struct tcp_sock *tp, u32 acked);
void tcp_cong_avoid_ai(struct tcp_sock *tp, u32 w, u32 acked);
void tcp_enter_cwr(struct sock *sk);
extern struct tcp_congestion_ops tcp_reno;

static inline bool before(u32 seq1, u32 seq2)
{
	return (s32)(seq1 - seq2) < 0;
}
#define after(seq2, seq1)	before(seq1, seq2)

static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val)
{
	WARN_ON_ONCE((int)val <= 0);
	tp->snd_cwnd = val;
}

static inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tcp_snd_cwnd(tp) < tp->snd_ssthresh;
}

static inline unsigned int tcp_left_out(const struct tcp_sock *tp)
{
	return tp->sacked_out + tp->lost_out;
}

static inline unsigned int tcp_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - tcp_left_out(tp) + tp->retrans_out;
}

static inline bool tcp_in_cwnd_reduction(const struct sock *sk)
{
	return (TCPF_CA_CWR | TCPF_CA_Recovery) &
	       (1 << inet_csk(sk)->icsk_ca_state);
}

static inline u32 tcp_current_ssthresh(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tcp_in_cwnd_reduction(sk))
		return tp->snd_ssthresh;
	return max(tp->snd_ssthresh,
		   ((tcp_snd_cwnd(tp) >> 1) + (tcp_snd_cwnd(tp) >> 2)));
}

/* 6.1.19x: is_cwnd_limited is kept per window by tcp_cwnd_validate(). */
static inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tp->is_cwnd_limited)
		return true;
	/* If in slow start, ensure cwnd grows to twice what was ACKed. */
	if (tcp_in_slow_start(tp))
		return tcp_snd_cwnd(tp) < 2 * tp->max_packets_out;
	return false;
}

static inline void tcp_set_ca_state(struct sock *sk, const u8 ca_state)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	if (icsk->icsk_ca_ops->set_state)
		icsk->icsk_ca_ops->set_state(sk, ca_state);
	icsk->icsk_ca_state = ca_state;
}

static inline void tcp_ca_event(struct sock *sk, const enum tcp_ca_event event)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);

	if (icsk->icsk_ca_ops->cwnd_event)
		icsk->icsk_ca_ops->cwnd_event(sk, event);
}

#endif
