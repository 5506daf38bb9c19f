/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_NET_INET_SOCK_H
#define _SHIM_NET_INET_SOCK_H
#include <net/sock.h>

struct inet_sock {
	struct sock sk;
	__be32 inet_saddr;
	__be16 inet_sport;
};

#define inet_daddr	sk.__sk_common.skc_daddr
#define inet_dport	sk.__sk_common.skc_dport

static inline struct inet_sock *inet_sk(const struct sock *sk)
{
	return (struct inet_sock *)sk;
}
#endif
