/* SPDX-License-Identifier: GPL-2.0 */
/* icsk with the 6.1 layout of what CDG uses: 104 bytes of CA private. */
#ifndef _SHIM_NET_INET_CONNECTION_SOCK_H
#define _SHIM_NET_INET_CONNECTION_SOCK_H
#include <net/inet_sock.h>

struct tcp_congestion_ops;

struct inet_connection_sock {
	struct inet_sock icsk_inet;
	const struct tcp_congestion_ops *icsk_ca_ops;
	u32 icsk_rto;
	u8 icsk_ca_state:5,
	   icsk_ca_initialized:1,
	   icsk_ca_setsockopt:1,
	   icsk_ca_dst_locked:1;
	u8 icsk_retransmits;
	u64 icsk_ca_priv[104 / sizeof(u64)];
#define ICSK_CA_PRIV_SIZE sizeof_field(struct inet_connection_sock, icsk_ca_priv)
};

static inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}
#endif
