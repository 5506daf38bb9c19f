/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences that tcp_cdg.c must not see.
 *
 * What the kernel offers is probed from its headers by Kbuild (the
 * CDG_HAVE_* macros), not read from LINUX_VERSION_CODE: stable and
 * distribution kernels backport API changes, so the version says little.
 * The version only sets the floor, 4.13: the first kernel with a mandatory
 * .undo_cwnd, tcp_reno_undo_cwnd() and the per-ACK timestamp
 * tp->tcp_mstamp that HyStart's ACK-train detector reads.
 */
#ifndef _TCP_CDG_COMPAT_H
#define _TCP_CDG_COMPAT_H

#include <linux/version.h>
#include <linux/random.h>
#include <net/tcp.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(4, 13, 0)
#error "tcp_cdg needs Linux 4.13 or newer (tcp_reno_undo_cwnd, tp->tcp_mstamp)"
#endif

/*
 * 5.19 wrapped tp->snd_cwnd in accessors (commit 40570375356c), and stable
 * kernels took them back as far as 5.15.y: Kbuild defines
 * CDG_HAVE_TCP_SND_CWND when <net/tcp.h> declares tcp_snd_cwnd_set().
 */
#ifndef CDG_HAVE_TCP_SND_CWND
static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val)
{
	tp->snd_cwnd = val;
}
#endif

/*
 * Nothing else needs wrapping from 4.13 on: pkts_acked has taken a
 * const struct ack_sample * since 4.7, __NET_INC_STATS() replaced the _BH
 * names in 4.6, tcp_in_slow_start() exists since 4.3, and get_random_u32()
 * (the only random API left in 6.1, where prandom_u32() went away) since 4.11.
 *
 * Nor do the later changes to struct tcp_congestion_ops (checked against
 * Debian's 7.3 headers):
 * - 7.1 gave CA_EVENT_TX_START its own callback, .cwnd_event_tx_start, and
 *   no longer passes that event to .cwnd_event.  CDG acts on
 *   CA_EVENT_CWND_RESTART and CA_EVENT_COMPLETE_CWR only (as the in-tree
 *   module), so it needs no .cwnd_event_tx_start.
 * - 6.18 added the AccECN flags (TCP_CONG_NEEDS_ACCECN,
 *   TCP_CONG_ECT_1_NEGOTIATION, TCP_CONG_NO_FALLBACK_RFC3168).  CDG sets
 *   no .flags, as before: it does not read CE marks, and the kernel
 *   negotiates ECN for it as for reno or cubic (net.ipv4.tcp_ecn).
 */

#endif /* _TCP_CDG_COMPAT_H */
