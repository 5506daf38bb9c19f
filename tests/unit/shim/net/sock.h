/* SPDX-License-Identifier: GPL-2.0 */
/* struct sock: only what CDG, its tracepoints and the model use. */
#ifndef _SHIM_NET_SOCK_H
#define _SHIM_NET_SOCK_H

#include <linux/kernel.h>
#include <linux/in.h>
#include <linux/slab.h>	/* the kernel's net/sock.h pulls it in */
#include <net/net_namespace.h>

struct sock_common {
	unsigned short skc_family;
	volatile unsigned char skc_state;
	__be32 skc_daddr;
	__be32 skc_rcv_saddr;
	__be16 skc_dport;
	u16 skc_num;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
	struct net *skc_net;
	unsigned char skc_net_refcnt:1;	/* holds a reference on skc_net */
};

enum sk_pacing {
	SK_PACING_NONE		= 0,
	SK_PACING_NEEDED	= 1,
	SK_PACING_FQ		= 2,
};

struct sock {
	struct sock_common __sk_common;
	u32 sk_pacing_status;	/* enum sk_pacing */
};

#define sk_family	__sk_common.skc_family
#define sk_state	__sk_common.skc_state
#define sk_v6_daddr	__sk_common.skc_v6_daddr
#define sk_v6_rcv_saddr	__sk_common.skc_v6_rcv_saddr
#define sk_net_refcnt	__sk_common.skc_net_refcnt

static inline struct net *sock_net(const struct sock *sk)
{
	return sk->__sk_common.skc_net;
}

#endif
