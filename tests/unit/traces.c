// SPDX-License-Identifier: GPL-2.0
/*
 * The synthetic traces the differential test runs: each a list of phases
 * of a path (rate, base RTT ramp, jitter, buffer, loss, reordering) and of
 * an application (bulk, rate-limited, idle), with the receiver's ACK
 * policy.  Together they reach every branch CDG has: slow start and both
 * HyStart exits, rising and falling delay, backoffs, losses with and
 * without a full queue, SACK recovery, spurious retransmits and undo,
 * RTOs, application-limited periods and restarts after idle.
 */
#include "model.h"

#define P(...) { __VA_ARGS__ }

/* name, ms, pps, rtt from, to, jitter, buffer, loss, reorder, by, app, idle, ack_every, delack */
static const struct model_phase bulk[] = {
	P("bulk", 8000, 2000, 20000, 20000, 0, 200, 0, 0, 0, 0, false, 2, 0),
};
static const struct model_phase ramps[] = {
	P("up", 3000, 3000, 10000, 60000, 0, 400, 0, 0, 0, 0, false, 2, 0),
	P("plateau", 3000, 3000, 60000, 60000, 0, 400, 0, 0, 0, 0, false, 2, 0),
	P("down", 3000, 3000, 60000, 10000, 0, 400, 0, 0, 0, 0, false, 2, 0),
};
static const struct model_phase noisy[] = {
	P("noisy", 8000, 1500, 30000, 30000, 3000, 120, 5000, 0, 0, 0, false, 2, 0),
};
static const struct model_phase delack[] = {
	P("every1", 2000, 1000, 25000, 25000, 200, 100, 0, 0, 0, 0, false, 1, 0),
	P("every3", 3000, 1000, 25000, 25000, 200, 100, 0, 0, 0, 0, false, 3, 5000),
	P("stretch", 3000, 1000, 25000, 25000, 200, 100, 0, 0, 0, 0, false, 8, 60000),
};
static const struct model_phase reorder[] = {
	P("reorder", 8000, 2000, 20000, 20000, 0, 300, 1000, 3000, 8000, 0, false, 2, 0),
};
static const struct model_phase applim[] = {
	P("bulk", 2000, 2000, 20000, 20000, 0, 200, 0, 0, 0, 0, false, 2, 0),
	P("trickle", 3000, 2000, 20000, 20000, 500, 200, 0, 0, 0, 300, false, 2, 0),
	P("bulk2", 2000, 2000, 20000, 30000, 0, 200, 0, 0, 0, 0, false, 2, 0),
	P("half", 3000, 2000, 30000, 30000, 0, 200, 0, 0, 0, 1000, false, 2, 0),
};
static const struct model_phase idle[] = {
	P("burst1", 1500, 2000, 20000, 20000, 0, 200, 0, 0, 0, 0, false, 2, 0),
	P("idle1", 1500, 2000, 20000, 20000, 0, 200, 0, 0, 0, 0, true, 2, 0),
	P("burst2", 1500, 2000, 20000, 25000, 0, 200, 0, 0, 0, 0, false, 2, 0),
	P("idle2", 3000, 2000, 25000, 25000, 0, 200, 0, 0, 0, 0, true, 2, 0),
	P("burst3", 2000, 2000, 25000, 25000, 1000, 200, 2000, 0, 0, 0, false, 2, 0),
};
static const struct model_phase shallow[] = {
	P("shallow", 8000, 1000, 40000, 40000, 1000, 8, 2000, 0, 0, 0, false, 2, 0),
};
static const struct model_phase rate[] = {
	P("fast", 3000, 4000, 15000, 15000, 0, 300, 0, 0, 0, 0, false, 2, 0),
	P("slow", 3000, 800, 15000, 15000, 0, 300, 0, 0, 0, 0, false, 2, 0),
	P("fast2", 3000, 4000, 15000, 15000, 0, 300, 0, 0, 0, 0, false, 2, 0),
};
static const struct model_phase bdp[] = {
	P("bdp", 4000, 8000, 80000, 80000, 500, 2000, 200, 0, 0, 0, false, 2, 0),
};
static const struct model_phase spikes[] = {
	P("base", 2000, 1500, 20000, 20000, 0, 150, 0, 0, 0, 0, false, 2, 0),
	P("spike", 600, 1500, 900000, 900000, 0, 150, 0, 0, 0, 0, false, 2, 0),
	P("after", 3000, 1500, 20000, 20000, 0, 150, 0, 0, 0, 0, false, 2, 0),
};

#define T(n, s, v6, ph) { n, s, v6, ph, (int)(sizeof(ph) / sizeof(ph[0])) }
const struct model_trace model_traces[] = {
	T("bulk", 1, false, bulk),
	T("rtt-ramps", 2, true, ramps),
	T("noisy-lossy", 3, false, noisy),
	T("delayed-acks", 4, false, delack),
	T("sack-reorder", 5, true, reorder),
	T("app-limited", 6, false, applim),
	T("idle-restart", 7, false, idle),
	T("shallow-buffer", 8, false, shallow),
	T("rate-change", 9, true, rate),
	T("high-bdp", 10, false, bdp),
	T("rtt-spike-rto", 11, false, spikes),
};
const int model_ntraces = sizeof(model_traces) / sizeof(model_traces[0]);
