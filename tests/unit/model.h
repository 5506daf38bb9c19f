/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model: a deterministic simulated TCP sender, bottleneck and receiver
 * that drives a tcp_congestion_ops the way Linux 6.1's tcp_input.c and
 * tcp_output.c do:
 *   per ACK: SACK tagging, cumulative ACK, pkts_acked(ack_sample), the
 *   fast-retransmit state machine (Disorder, CWR end with COMPLETE_CWR,
 *   Recovery with ssthresh() and PRR, undo with undo_cwnd() on a DSACK or
 *   a delayed original), then cong_avoid() outside CWR/Recovery;
 *   on send: tcp_cwnd_validate() (is_cwnd_limited, max_packets_out) and
 *   application-limited decay; after idle: CA_EVENT_CWND_RESTART;
 *   on RTO: Loss with ssthresh() and CA_EVENT_LOSS.
 * It is not a complete TCP (no RACK timers, no TLP, no F-RTO), but it is
 * the same for every implementation: two models given the same trace, seed
 * and answers from their congestion controls evolve identically.
 */
#ifndef _CDG_MODEL_H
#define _CDG_MODEL_H

#include "shim/shim.h"

struct model_phase {
	const char *name;
	u32 duration_ms;
	u32 rate_pps;		/* bottleneck rate, segments per second */
	u32 rtt_from_us;	/* base RTT, ramped linearly over the phase */
	u32 rtt_to_us;
	u32 jitter_us;		/* uniform extra delay of ACKs (kept FIFO) */
	u32 buffer_pkts;	/* bottleneck queue limit */
	u32 loss_ppm;		/* random loss, per million segments */
	u32 reorder_ppm;	/* segments held back by reorder_us */
	u32 reorder_us;
	u32 app_pps;		/* 0: bulk; else the application's rate */
	bool idle;		/* the application writes nothing */
	u8 ack_every;		/* receiver ACKs every n segments (0: 2) */
	u32 delack_us;		/* delayed-ACK timer (0: 40 ms) */
};

struct model_trace {
	const char *name;
	u64 seed;
	bool ipv6;
	const struct model_phase *phases;
	int nphases;
};

enum model_event {
	MODEL_END,		/* the trace is over */
	MODEL_ACK,		/* an ACK was processed */
	MODEL_RTO,		/* a retransmission timeout */
	MODEL_RESTART,		/* cwnd restart after idle */
};

struct model_seg;
struct model_ev;

struct model {
	struct tcp_sock tp;		/* first: the struct sock */
	struct net *net;
	struct shim_rng ca_rng;		/* get_random_u32() of the CC */
	struct shim_rng net_rng;	/* losses, jitter, reordering */
	const struct tcp_congestion_ops *ops;
	const struct model_trace *trace;
	int phase;
	u64 phase_start, phase_end, now;
	/* sender: segment i has sequence isn + i * mss */
	u32 isn, una, nxt, app_end;
	struct model_seg *segs;
	u32 segs_cap;
	u64 app_next, rto_at, retrans_stamp;
	u32 srtt, rttvar, rto, tx_since_rto;
	/* bottleneck and return path */
	u64 link_free, ack_free;
	/* receiver */
	u32 rcv_nxt, rcv_high, rcv_unacked;
	u8 *rcv_have;
	u64 ts_recent, delack_at;
	/* events */
	struct model_ev *heap;
	size_t nheap, heap_cap;
	u64 evseq;
	/* counts (cwrs: CWR entered from cong_avoid, i.e. delay backoffs) */
	u64 acks, events, restarts, rtos, recoveries, undos, cwrs;
};

/* Checks the trace (a clear message on stderr and -EINVAL when bad). */
int model_check(const struct model_trace *t);
int model_init(struct model *m, const struct model_trace *t,
	       const struct tcp_congestion_ops *ops, struct net *net);
/* Runs to the next ACK, RTO or restart; MODEL_END when the trace is over. */
enum model_event model_step(struct model *m);
void model_free(struct model *m);
const char *model_state_name(u8 ca_state);

extern const struct model_trace model_traces[];
extern const int model_ntraces;

#endif
