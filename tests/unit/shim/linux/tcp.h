/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct tcp_sock: the fields of 6.1's that CDG reads and writes, plus
 * those the simulated sender (model.c) needs to run 6.1's cwnd logic.
 */
#ifndef _SHIM_LINUX_TCP_H
#define _SHIM_LINUX_TCP_H
#include <net/inet_connection_sock.h>

enum {
	TCP_ESTABLISHED = 1,
	TCP_CLOSE = 7,
	TCP_LISTEN = 10,
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u32 snd_nxt;
	u32 snd_una;
	u32 snd_cwnd;		/* only through tcp_snd_cwnd()/_set() */
	u32 snd_cwnd_cnt;
	u32 snd_cwnd_clamp;
	u32 snd_cwnd_used;
	u32 snd_cwnd_stamp;
	u32 snd_ssthresh;
	u32 prior_ssthresh;
	u32 prior_cwnd;
	u32 packets_out;
	u32 sacked_out;
	u32 lost_out;
	u32 retrans_out;
	u32 max_packets_out;
	u32 cwnd_usage_seq;
	u8 is_cwnd_limited:1;
	u32 high_seq;
	u32 undo_marker;
	int undo_retrans;
	u32 retrans_stamp;
	u32 prr_delivered;
	u32 prr_out;
	u32 delivered;
	u32 lost;
	u32 mss_cache;
	u32 lsndtime;
	u32 tlp_high_seq;
	u64 tcp_mstamp;		/* the ACK's timestamp, us */
};

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}
#endif
