// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated sender, bottleneck and receiver; see model.h.  Function
 * names follow the tcp_input.c/tcp_output.c functions they stand for, and
 * the bodies keep their order of operations, because that order is what a
 * congestion control observes (pkts_acked before the state machine,
 * COMPLETE_CWR before cong_avoid on the same ACK, CWND_RESTART before the
 * window is cut, ...).
 */
#include <stdio.h>
#include <arpa/inet.h>
#include <stdlib.h>

#include <linux/percpu.h>

#include "model.h"

#define MSS		1448
#define INF		UINT64_MAX
#define RTO_MIN_US	200000
#define RTO_MAX_US	120000000
#define INIT_CWND	10

enum { SEG_SACKED = 1, SEG_LOST = 2, SEG_RETRANS = 4, SEG_RTX_OUT = 8 };
enum { EV_DATA, EV_DELACK, EV_ACK };
enum {
	F_DATA_ACKED = 1, F_UNA_ADV = 2, F_SACKED = 4, F_RETRANS_ACKED = 8,
	F_DSACK = 16,
};

struct model_seg {
	u64 sent;
	u8 flags;
};

struct model_ev {
	u64 t, seq;
	u8 type;
	u32 idx;		/* DATA: segment; ACK: cumulative */
	u64 ts;			/* DATA: its send time; ACK: tsecr */
	s64 dsack;		/* ACK: duplicate segment or -1 */
	u32 sack[3][2];
	u8 nsack;
};

static struct sock *SK(struct model *m)
{
	return (struct sock *)&m->tp;
}

static u32 seq_of(const struct model *m, u32 i)
{
	return m->isn + i * MSS;
}

static u32 now32(const struct model *m)
{
	return (u32)m->now;
}

const char *model_state_name(u8 s)
{
	static const char *const names[] = { "Open", "Disorder", "CWR", "Recovery", "Loss" };

	return s < 5 ? names[s] : "?";
}

/* ---- event heap, ordered by (time, insertion) ---- */

static bool ev_less(const struct model_ev *a, const struct model_ev *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

static void ev_push(struct model *m, struct model_ev ev)
{
	size_t i;

	if (m->nheap == m->heap_cap) {
		m->heap_cap = m->heap_cap ? 2 * m->heap_cap : 1024;
		m->heap = realloc(m->heap, m->heap_cap * sizeof(*m->heap));
		if (!m->heap)
			abort();
	}
	ev.seq = m->evseq++;
	for (i = m->nheap++; i && ev_less(&ev, &m->heap[(i - 1) / 2]); i = (i - 1) / 2)
		m->heap[i] = m->heap[(i - 1) / 2];
	m->heap[i] = ev;
}

static struct model_ev ev_pop(struct model *m)
{
	struct model_ev top = m->heap[0], last = m->heap[--m->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < m->nheap) {
		if (c + 1 < m->nheap && ev_less(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!ev_less(&m->heap[c], &last))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->nheap)
		m->heap[i] = last;
	return top;
}

/* ---- the path ---- */

static const struct model_phase *ph(const struct model *m)
{
	return &m->trace->phases[m->phase];
}

static u32 base_rtt(const struct model *m)
{
	const struct model_phase *p = ph(m);
	u64 span = m->phase_end - m->phase_start, done = m->now - m->phase_start;
	s64 d = (s64)p->rtt_to_us - p->rtt_from_us;

	return p->rtt_from_us + (s32)(span ? d * (s64)done / (s64)span : 0);
}

static bool chance(struct model *m, u32 ppm)
{
	return ppm && shim_rng_next(&m->net_rng) % 1000000 < ppm;
}

static void ensure(struct model *m, u32 n)
{
	u32 old = m->segs_cap;

	if (n <= old)
		return;
	m->segs_cap = old ? 2 * old : 4096;
	while (m->segs_cap < n)
		m->segs_cap *= 2;
	m->segs = realloc(m->segs, m->segs_cap * sizeof(*m->segs));
	m->rcv_have = realloc(m->rcv_have, m->segs_cap);
	if (!m->segs || !m->rcv_have)
		abort();
	memset(m->segs + old, 0, (m->segs_cap - old) * sizeof(*m->segs));
	memset(m->rcv_have + old, 0, m->segs_cap - old);
}

/* Through the bottleneck (drop-tail, random loss, reordering). */
static void path_send(struct model *m, u32 i)
{
	const struct model_phase *p = ph(m);
	u64 arrive = m->now + base_rtt(m) / 2, service = 1000000 / p->rate_pps;
	u64 queued = m->link_free > arrive ? m->link_free - arrive : 0;
	struct model_ev ev = { .type = EV_DATA, .idx = i, .ts = m->now };

	if (queued / service >= p->buffer_pkts || chance(m, p->loss_ppm))
		return;
	m->link_free = (m->link_free > arrive ? m->link_free : arrive) + service;
	ev.t = m->link_free + (chance(m, p->reorder_ppm) ? p->reorder_us : 0);
	ev_push(m, ev);
}

/* ---- receiver ---- */

static void rcv_send_ack(struct model *m, s64 dsack, s64 trigger)
{
	struct model_ev ev = { .type = EV_ACK, .idx = m->rcv_nxt, .ts = m->ts_recent,
			       .dsack = dsack };
	u32 blocks[64][2], n = 0, i, k;
	const struct model_phase *p = ph(m);
	u64 t;

	m->rcv_unacked = 0;
	m->delack_at = 0;
	for (i = m->rcv_nxt; i < m->rcv_high && n < 64;) {
		if (!m->rcv_have[i]) {
			i++;
			continue;
		}
		blocks[n][0] = i;
		while (i < m->rcv_high && m->rcv_have[i])
			i++;
		blocks[n++][1] = i;
	}
	/* RFC 2018: the block with the newest segment first, then the highest. */
	for (k = 0; k < n; k++) {
		if (trigger >= blocks[k][0] && trigger < blocks[k][1]) {
			ev.sack[ev.nsack][0] = blocks[k][0];
			ev.sack[ev.nsack++][1] = blocks[k][1];
			break;
		}
	}
	for (k = n; k-- > 0 && ev.nsack < 3;) {
		if (ev.nsack && blocks[k][0] == ev.sack[0][0])
			continue;
		ev.sack[ev.nsack][0] = blocks[k][0];
		ev.sack[ev.nsack++][1] = blocks[k][1];
	}
	t = m->now + (base_rtt(m) - base_rtt(m) / 2);
	if (p->jitter_us)
		t += shim_rng_next(&m->net_rng) % p->jitter_us;
	if (t < m->ack_free)
		t = m->ack_free;	/* the return path keeps ACKs in order */
	m->ack_free = t;
	ev.t = t;
	ev_push(m, ev);
}

static void rcv_data(struct model *m, const struct model_ev *ev)
{
	const struct model_phase *p = ph(m);
	u32 i = ev->idx, every = p->ack_every ? p->ack_every : 2;
	bool had_hole;

	if (i < m->rcv_nxt || m->rcv_have[i]) {
		rcv_send_ack(m, i, -1);		/* RFC 2883 DSACK */
		return;
	}
	m->rcv_have[i] = 1;
	if (i + 1 > m->rcv_high)
		m->rcv_high = i + 1;
	if (i != m->rcv_nxt) {
		rcv_send_ack(m, -1, i);		/* out of order: at once */
		return;
	}
	had_hole = m->rcv_high > i + 1;
	m->ts_recent = ev->ts;			/* RFC 7323: in-sequence only */
	while (m->rcv_nxt < m->rcv_high && m->rcv_have[m->rcv_nxt])
		m->rcv_nxt++;
	if (had_hole || m->rcv_nxt < m->rcv_high || ++m->rcv_unacked >= every) {
		rcv_send_ack(m, -1, i);
	} else if (!m->delack_at) {
		struct model_ev d = { .type = EV_DELACK };

		m->delack_at = m->now + (p->delack_us ? p->delack_us : 40000);
		d.t = m->delack_at;
		ev_push(m, d);
	}
}

/* ---- sender: tcp_output.c ---- */

static void tcp_cwnd_application_limited(struct model *m)
{
	struct tcp_sock *tp = &m->tp;

	if (inet_csk(SK(m))->icsk_ca_state == TCP_CA_Open) {
		u32 win_used = max(tp->snd_cwnd_used, (u32)INIT_CWND);

		if (win_used < tcp_snd_cwnd(tp)) {
			tp->snd_ssthresh = tcp_current_ssthresh(SK(m));
			tcp_snd_cwnd_set(tp, (tcp_snd_cwnd(tp) + win_used) >> 1);
		}
		tp->snd_cwnd_used = 0;
	}
	tp->snd_cwnd_stamp = now32(m);
}

/* 6.1.19x tcp_cwnd_validate(), with a microsecond clock for jiffies. */
static void tcp_cwnd_validate(struct model *m, bool is_cwnd_limited)
{
	struct tcp_sock *tp = &m->tp;

	if (!before(tp->snd_una, tp->cwnd_usage_seq) || is_cwnd_limited ||
	    (!tp->is_cwnd_limited && tp->packets_out > tp->max_packets_out)) {
		tp->is_cwnd_limited = is_cwnd_limited;
		tp->max_packets_out = tp->packets_out;
		tp->cwnd_usage_seq = tp->snd_nxt;
	}
	if (tcp_is_cwnd_limited(SK(m))) {
		tp->snd_cwnd_used = 0;
		tp->snd_cwnd_stamp = now32(m);
	} else {
		if (tp->packets_out > tp->snd_cwnd_used)
			tp->snd_cwnd_used = tp->packets_out;
		if ((s32)(now32(m) - tp->snd_cwnd_stamp) >= (s32)m->rto)
			tcp_cwnd_application_limited(m);
	}
}

static void send_seg(struct model *m, u32 i, bool retrans)
{
	struct tcp_sock *tp = &m->tp;

	ensure(m, i + 1);
	if (retrans) {
		m->segs[i].flags |= SEG_RETRANS | SEG_RTX_OUT;
		tp->retrans_out++;
		if (tp->undo_marker) {
			if (tp->undo_retrans < 0)
				tp->undo_retrans = 0;
			tp->undo_retrans++;
		}
		if (!m->retrans_stamp)
			m->retrans_stamp = m->now;
	} else {
		/* tcp_event_data_sent() */
		if (tcp_packets_in_flight(tp) == 0)
			tcp_ca_event(SK(m), CA_EVENT_TX_START);
		tp->lsndtime = now32(m);
		m->nxt++;
		tp->packets_out++;
		tp->snd_nxt = seq_of(m, m->nxt);
	}
	m->segs[i].sent = m->now;
	if (!m->rto_at)
		m->rto_at = m->now + m->rto;
	path_send(m, i);
}

static void tcp_xmit(struct model *m)
{
	struct tcp_sock *tp = &m->tp;
	bool reducing = tcp_in_cwnd_reduction(SK(m)), limited;
	u32 i, sent = 0;

	/* tcp_xmit_retransmit_queue(): lost segments first, within cwnd. */
	for (i = m->una; tp->lost_out && i < m->nxt; i++) {
		if (tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp))
			break;
		if ((m->segs[i].flags & (SEG_LOST | SEG_RTX_OUT | SEG_SACKED)) == SEG_LOST) {
			send_seg(m, i, true);
			if (reducing)
				tp->prr_out++;
		}
	}
	/* tcp_write_xmit() */
	while (m->nxt < m->app_end && tcp_packets_in_flight(tp) < tcp_snd_cwnd(tp)) {
		send_seg(m, m->nxt, false);
		sent++;
	}
	limited = tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp);
	if (sent || limited) {
		if (reducing)
			tp->prr_out += sent;
		tcp_cwnd_validate(m, limited);
	}
}

/* tcp_cwnd_restart(), from tcp_slow_start_after_idle_check(). */
static bool idle_check(struct model *m)
{
	struct tcp_sock *tp = &m->tp;
	s32 delta = now32(m) - tp->lsndtime;
	u32 restart_cwnd, cwnd;

	if (tp->packets_out || m->nxt == 0 || delta <= (s32)m->rto)
		return false;
	cwnd = tcp_snd_cwnd(tp);
	tcp_ca_event(SK(m), CA_EVENT_CWND_RESTART);
	tp->snd_ssthresh = tcp_current_ssthresh(SK(m));
	restart_cwnd = min((u32)INIT_CWND, cwnd);
	while ((delta -= m->rto) > 0 && cwnd > restart_cwnd)
		cwnd >>= 1;
	tcp_snd_cwnd_set(tp, max(cwnd, restart_cwnd));
	tp->snd_cwnd_stamp = now32(m);
	tp->snd_cwnd_used = 0;
	m->restarts++;
	return true;
}

/* ---- sender: tcp_input.c ---- */

static bool any_retrans_done(const struct model *m)
{
	return m->tp.retrans_out ||
	       (m->una < m->nxt && (m->segs[m->una].flags & SEG_RETRANS));
}

static void tcp_end_cwnd_reduction(struct model *m)
{
	struct tcp_sock *tp = &m->tp;

	if (tp->snd_ssthresh < TCP_INFINITE_SSTHRESH &&
	    (inet_csk(SK(m))->icsk_ca_state == TCP_CA_CWR || tp->undo_marker)) {
		tcp_snd_cwnd_set(tp, tp->snd_ssthresh);
		tp->snd_cwnd_stamp = now32(m);
	}
	tcp_ca_event(SK(m), CA_EVENT_COMPLETE_CWR);
}

static void tcp_undo_cwnd_reduction(struct model *m, bool unmark_loss)
{
	struct tcp_sock *tp = &m->tp;
	u32 i;

	if (unmark_loss) {
		for (i = m->una; i < m->nxt; i++)
			m->segs[i].flags &= ~SEG_LOST;
		tp->lost_out = 0;
	}
	if (tp->prior_ssthresh) {
		tcp_snd_cwnd_set(tp, m->ops->undo_cwnd(SK(m)));
		if (tp->prior_ssthresh > tp->snd_ssthresh)
			tp->snd_ssthresh = tp->prior_ssthresh;
	}
	tp->snd_cwnd_stamp = now32(m);
	tp->undo_marker = 0;
	m->undos++;
}

static bool packet_delayed(const struct model *m, const struct model_ev *a)
{
	return !m->retrans_stamp || (a->ts && a->ts < m->retrans_stamp);
}

static bool tcp_may_undo(const struct model *m, const struct model_ev *a)
{
	return m->tp.undo_marker && (!m->tp.undo_retrans || packet_delayed(m, a));
}

static void tcp_try_keep_open(struct model *m)
{
	u8 state = (tcp_left_out(&m->tp) || any_retrans_done(m)) ?
		   TCP_CA_Disorder : TCP_CA_Open;

	if (inet_csk(SK(m))->icsk_ca_state != state) {
		tcp_set_ca_state(SK(m), state);
		m->tp.high_seq = m->tp.snd_nxt;
	}
}

static void tcp_try_to_open(struct model *m)
{
	if (!any_retrans_done(m))
		m->retrans_stamp = 0;
	if (inet_csk(SK(m))->icsk_ca_state != TCP_CA_CWR)
		tcp_try_keep_open(m);
}

static bool tcp_try_undo_dsack(struct model *m)
{
	if (m->tp.undo_marker && !m->tp.undo_retrans) {
		tcp_undo_cwnd_reduction(m, false);
		return true;
	}
	return false;
}

static void tcp_try_undo_recovery(struct model *m, const struct model_ev *a)
{
	if (tcp_may_undo(m, a))
		tcp_undo_cwnd_reduction(m, false);
	tcp_set_ca_state(SK(m), TCP_CA_Open);
}

static void tcp_init_undo(struct tcp_sock *tp)
{
	tp->undo_marker = tp->snd_una;
	tp->undo_retrans = tp->retrans_out ? (int)tp->retrans_out : -1;
}

static void tcp_enter_recovery(struct model *m)
{
	struct tcp_sock *tp = &m->tp;

	if (!any_retrans_done(m))
		m->retrans_stamp = 0;
	NET_INC_STATS(m->net, LINUX_MIB_TCPSACKRECOVERY);
	m->recoveries++;
	tp->prior_ssthresh = 0;
	tcp_init_undo(tp);
	if (!tcp_in_cwnd_reduction(SK(m))) {
		tp->prior_ssthresh = tcp_current_ssthresh(SK(m));
		tcp_init_cwnd_reduction(SK(m));
	}
	tcp_set_ca_state(SK(m), TCP_CA_Recovery);
}

static void tcp_fastretrans_alert(struct model *m, int flag, const struct model_ev *a)
{
	struct tcp_sock *tp = &m->tp;
	struct inet_connection_sock *icsk = inet_csk(SK(m));

	/* D. Check state exit conditions. */
	if (icsk->icsk_ca_state == TCP_CA_Open) {
		m->retrans_stamp = 0;
	} else if (!before(tp->snd_una, tp->high_seq)) {
		switch (icsk->icsk_ca_state) {
		case TCP_CA_CWR:
			if (tp->snd_una != tp->high_seq) {
				tcp_end_cwnd_reduction(m);
				tcp_set_ca_state(SK(m), TCP_CA_Open);
			}
			break;
		case TCP_CA_Recovery:
			tcp_try_undo_recovery(m, a);
			tcp_end_cwnd_reduction(m);
			break;
		}
	}

	/* E. Process state. */
	switch (icsk->icsk_ca_state) {
	case TCP_CA_Recovery:
		if ((flag & F_UNA_ADV) && tp->undo_marker && packet_delayed(m, a)) {
			/* tcp_try_undo_partial(): the hole was filled by the original. */
			if (tp->retrans_out)
				return;
			if (!any_retrans_done(m))
				m->retrans_stamp = 0;
			tcp_undo_cwnd_reduction(m, true);
			tcp_try_keep_open(m);
		}
		if (tcp_try_undo_dsack(m))
			tcp_try_to_open(m);
		if (icsk->icsk_ca_state != TCP_CA_Recovery) {
			if (!tp->lost_out)
				return;
			tcp_enter_recovery(m);
		}
		break;
	case TCP_CA_Loss:
		if (!before(tp->snd_una, tp->high_seq))
			tcp_try_undo_recovery(m, a);
		if (icsk->icsk_ca_state != TCP_CA_Open)
			return;
		/* fallthrough */
	default:
		if (icsk->icsk_ca_state <= TCP_CA_Disorder)
			tcp_try_undo_dsack(m);
		if (!tp->lost_out) {
			tcp_try_to_open(m);
			return;
		}
		tcp_enter_recovery(m);
	}
}

/* PRR, tcp_cwnd_reduction(). */
static void tcp_cwnd_reduction(struct model *m, int newly_acked_sacked,
			       int newly_lost, int flag)
{
	struct tcp_sock *tp = &m->tp;
	int sndcnt, delta = tp->snd_ssthresh - tcp_packets_in_flight(tp);

	if (newly_acked_sacked <= 0 || !tp->prior_cwnd)
		return;
	tp->prr_delivered += newly_acked_sacked;
	if (delta < 0) {
		u64 dividend = (u64)tp->snd_ssthresh * tp->prr_delivered +
			       tp->prior_cwnd - 1;

		sndcnt = (int)(dividend / tp->prior_cwnd) - (int)tp->prr_out;
	} else {
		sndcnt = max_t(int, tp->prr_delivered - tp->prr_out, newly_acked_sacked);
		if ((flag & F_UNA_ADV) && !newly_lost)
			sndcnt++;
		sndcnt = min(delta, sndcnt);
	}
	sndcnt = max(sndcnt, (tp->prr_out ? 0 : 1));
	/* The kernel would WARN at 0; the model keeps one segment. */
	tcp_snd_cwnd_set(tp, max_t(int, 1, (int)tcp_packets_in_flight(tp) + sndcnt));
}

/* Dupthresh loss marking: 3 SACKed segments above a hole. */
static int mark_lost(struct model *m)
{
	struct tcp_sock *tp = &m->tp;
	u32 above = 0, i;
	int newly = 0;

	if (!tp->sacked_out)
		return 0;
	for (i = m->nxt; i-- > m->una;) {
		u8 *f = &m->segs[i].flags;

		if (*f & SEG_SACKED) {
			above++;
		} else if (above >= 3 && !(*f & (SEG_LOST | SEG_RTX_OUT))) {
			*f |= SEG_LOST;
			tp->lost_out++;
			tp->lost++;
			newly++;
		}
	}
	return newly;
}

static void rtt_update(struct model *m, u32 r)
{
	if (!m->srtt) {
		m->srtt = r;
		m->rttvar = r / 2;
	} else {
		m->rttvar = (3 * m->rttvar + (m->srtt > r ? m->srtt - r : r - m->srtt)) / 4;
		m->srtt = (7 * m->srtt + r) / 8;
	}
	m->rto = clamp_t(u32, m->srtt + 4 * m->rttvar, RTO_MIN_US, RTO_MAX_US);
	inet_csk(SK(m))->icsk_rto = m->rto;
}

static void tcp_ack(struct model *m, const struct model_ev *a)
{
	struct tcp_sock *tp = &m->tp;
	struct sock *sk = SK(m);
	u32 prior_packets = tp->packets_out, prior_delivered = tp->delivered;
	u32 cum = clamp_t(u32, a->idx, m->una, m->nxt), pkts_acked = 0, i, k;
	u64 first_ackt = 0, last_ackt = 0, last_sackt = 0;
	s64 seq_rtt = -1, last_sack_idx = -1;
	s32 ca_rtt = -1;
	int flag = 0, newly_lost;

	tp->tcp_mstamp = m->now;
	if (a->dsack >= 0) {
		flag |= F_DSACK;
		if ((u64)a->dsack < m->nxt && (m->segs[a->dsack].flags & SEG_RETRANS) &&
		    tp->undo_marker && tp->undo_retrans > 0)
			tp->undo_retrans--;
	}
	/* tcp_sacktag_write_queue() */
	for (k = 0; k < a->nsack; k++) {
		for (i = max(a->sack[k][0], m->una); i < min(a->sack[k][1], m->nxt); i++) {
			u8 *f = &m->segs[i].flags;

			if (*f & SEG_SACKED)
				continue;
			*f |= SEG_SACKED;
			tp->sacked_out++;
			tp->delivered++;
			if (*f & SEG_LOST) {
				*f &= ~SEG_LOST;
				tp->lost_out--;
			}
			if (*f & SEG_RTX_OUT) {
				*f &= ~SEG_RTX_OUT;
				tp->retrans_out--;
			}
			if (!(*f & SEG_RETRANS) && (s64)i > last_sack_idx) {
				last_sack_idx = i;
				last_sackt = m->segs[i].sent;
			}
			flag |= F_SACKED;
		}
	}
	/* tcp_clean_rtx_queue() */
	for (i = m->una; i < cum; i++) {
		u8 f = m->segs[i].flags;

		if (f & SEG_SACKED) {
			tp->sacked_out--;
		} else {
			tp->delivered++;
			if (f & SEG_RETRANS) {
				flag |= F_RETRANS_ACKED;
			} else {
				last_ackt = m->segs[i].sent;
				if (!first_ackt)
					first_ackt = last_ackt;
			}
		}
		if (f & SEG_RTX_OUT)
			tp->retrans_out--;
		if (f & SEG_LOST)
			tp->lost_out--;
		tp->packets_out--;
		pkts_acked++;
	}
	if (cum > m->una) {
		flag |= F_UNA_ADV | F_DATA_ACKED;
		m->una = cum;
		tp->snd_una = seq_of(m, cum);
		inet_csk(sk)->icsk_retransmits = 0;
		m->rto_at = tp->packets_out ? m->now + m->rto : 0;
	}
	if (first_ackt && !(flag & F_RETRANS_ACKED)) {
		seq_rtt = m->now - first_ackt;
		ca_rtt = m->now - last_ackt;
	}
	if (last_sack_idx >= 0) {
		ca_rtt = m->now - last_sackt;
		if (seq_rtt < 0)
			seq_rtt = ca_rtt;
	}
	if (seq_rtt >= 0)
		rtt_update(m, seq_rtt);
	if (prior_packets && m->ops->pkts_acked) {
		struct ack_sample sample = { .pkts_acked = pkts_acked, .rtt_us = ca_rtt };

		m->ops->pkts_acked(sk, &sample);
	}
	newly_lost = mark_lost(m);
	if (!(flag & F_UNA_ADV) || (flag & (F_SACKED | F_DSACK)) ||
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Open)
		tcp_fastretrans_alert(m, flag, a);
	/* tcp_cong_control() */
	if (tcp_in_cwnd_reduction(sk)) {
		tcp_cwnd_reduction(m, tp->delivered - prior_delivered, newly_lost, flag);
	} else if (flag & F_DATA_ACKED) {
		u8 before = inet_csk(sk)->icsk_ca_state;

		m->ops->cong_avoid(sk, tp->snd_una, tp->delivered - prior_delivered);
		tp->snd_cwnd_stamp = now32(m);
		/* Without ECN, only the CC itself enters CWR (a delay backoff). */
		if (before != TCP_CA_CWR && inet_csk(sk)->icsk_ca_state == TCP_CA_CWR)
			m->cwrs++;
	}
	m->acks++;
	tcp_xmit(m);
}

/* tcp_retransmit_timer() -> tcp_enter_loss(). */
static void tcp_rto(struct model *m)
{
	struct tcp_sock *tp = &m->tp;
	struct inet_connection_sock *icsk = inet_csk(SK(m));
	u32 i;

	NET_INC_STATS(m->net, LINUX_MIB_TCPTIMEOUTS);
	m->rtos++;
	if (icsk->icsk_ca_state <= TCP_CA_Disorder ||
	    !after(tp->high_seq, tp->snd_una) ||
	    (icsk->icsk_ca_state == TCP_CA_Loss && !icsk->icsk_retransmits)) {
		tp->prior_ssthresh = tcp_current_ssthresh(SK(m));
		tp->prior_cwnd = tcp_snd_cwnd(tp);
		tp->snd_ssthresh = m->ops->ssthresh(SK(m));
		tcp_ca_event(SK(m), CA_EVENT_LOSS);
		tcp_init_undo(tp);
	}
	/* tcp_timeout_mark_lost() */
	tp->retrans_out = 0;
	for (i = m->una; i < m->nxt; i++) {
		u8 *f = &m->segs[i].flags;

		*f &= ~SEG_RTX_OUT;
		if (!(*f & (SEG_SACKED | SEG_LOST))) {
			*f |= SEG_LOST;
			tp->lost_out++;
			tp->lost++;
		}
	}
	tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + 1);
	tp->snd_cwnd_cnt = 0;
	tp->snd_cwnd_stamp = now32(m);
	tcp_set_ca_state(SK(m), TCP_CA_Loss);
	tp->high_seq = tp->snd_nxt;
	icsk->icsk_retransmits++;
	m->rto = min(2 * m->rto, (u32)RTO_MAX_US);
	m->rto_at = 0;
	tcp_xmit(m);
	if (!m->rto_at && tp->packets_out)
		m->rto_at = m->now + m->rto;
}

/* ---- phases and the application ---- */

static bool start_phase(struct model *m, int i)
{
	const struct model_phase *p;

	if (i >= m->trace->nphases)
		return false;
	m->phase = i;
	p = ph(m);
	m->phase_start = m->now;
	m->phase_end = m->now + (u64)p->duration_ms * 1000;
	m->app_next = INF;
	if (p->idle) {
		m->app_end = m->nxt;
	} else if (p->app_pps) {
		m->app_end = m->nxt;
		m->app_next = m->now;
	} else {
		m->app_end = UINT32_MAX / 2;	/* bulk */
	}
	return true;
}

int model_check(const struct model_trace *t)
{
	int i;

	if (!t || !t->phases || t->nphases < 1) {
		fprintf(stderr, "model: trace %s has no phases\n", t && t->name ? t->name : "(null)");
		return -EINVAL;
	}
	for (i = 0; i < t->nphases; i++) {
		const struct model_phase *p = &t->phases[i];
		const char *why = NULL;

		if (!p->duration_ms)
			why = "duration_ms is 0";
		else if (!p->rate_pps || p->rate_pps > 1000000)
			why = "rate_pps must be 1..1000000";
		else if (!p->rtt_from_us || !p->rtt_to_us)
			why = "the base RTT must be > 0";
		else if (!p->buffer_pkts)
			why = "buffer_pkts is 0";
		else if (p->loss_ppm > 1000000 || p->reorder_ppm > 1000000)
			why = "a probability above 10^6 ppm";
		else if (p->ack_every > 16)
			why = "ack_every above 16";
		if (why) {
			fprintf(stderr, "model: trace %s, phase %d (%s): %s\n", t->name, i,
				p->name ? p->name : "?", why);
			return -EINVAL;
		}
	}
	return 0;
}

int model_init(struct model *m, const struct model_trace *t,
	       const struct tcp_congestion_ops *ops, struct net *net)
{
	struct tcp_sock *tp = &m->tp;
	struct sock *sk = SK(m);
	struct inet_sock *inet = inet_sk(sk);

	memset(m, 0, sizeof(*m));
	if (model_check(t) || !ops)
		return -EINVAL;
	m->trace = t;
	m->ops = ops;
	m->net = net;
	shim_rng_seed(&m->ca_rng, t->seed);
	shim_rng_seed(&m->net_rng, t->seed ^ 0x5eed5eed5eedULL);
	sk->__sk_common.skc_net = net;
	sk->sk_net_refcnt = 1;		/* a socket userspace opened */
	sk->sk_state = TCP_ESTABLISHED;
	if (t->ipv6) {
		sk->sk_family = AF_INET6;
		sk->sk_v6_rcv_saddr.s6_addr[15] = 1;
		sk->sk_v6_daddr.s6_addr[15] = 2;
		sk->sk_v6_rcv_saddr.s6_addr[0] = sk->sk_v6_daddr.s6_addr[0] = 0xfd;
	} else {
		sk->sk_family = AF_INET;
		inet->inet_saddr = htonl(0x0a000001);
		inet->inet_daddr = htonl(0x0a000002);
	}
	inet->inet_sport = htons(40000);
	inet->inet_dport = htons(5201);
	/* The sequence space wraps after 100 segments: before()/after() matter. */
	m->isn = 0u - 100 * MSS;
	tp->snd_una = tp->snd_nxt = m->isn;
	tp->snd_cwnd = INIT_CWND;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp->snd_cwnd_clamp = ~0U;
	tp->mss_cache = MSS;
	m->rto = 1000000;
	inet_csk(sk)->icsk_rto = m->rto;
	m->now = 1000;
	tp->lsndtime = now32(m);
	ensure(m, 1);
	shim_rng_current = &m->ca_rng;
	shim_cc_init(sk, ops);
	start_phase(m, 0);
	tcp_xmit(m);
	return 0;
}

void model_free(struct model *m)
{
	shim_rng_current = &m->ca_rng;
	shim_cc_cleanup(SK(m));
	free(m->segs);
	free(m->rcv_have);
	free(m->heap);
	m->segs = NULL;
	m->rcv_have = NULL;
	m->heap = NULL;
}

enum model_event model_step(struct model *m)
{
	shim_rng_current = &m->ca_rng;
	for (;;) {
		u64 t_ev = m->nheap ? m->heap[0].t : INF;
		u64 t_rto = m->rto_at && m->tp.packets_out ? m->rto_at : INF;
		u64 t = min(min(t_ev, t_rto), min(m->app_next, m->phase_end));

		m->now = t;
		shim_cpu = m->events++ % SHIM_NR_CPUS;
		if (t == t_ev) {
			struct model_ev ev = ev_pop(m);

			if (ev.type == EV_DATA) {
				rcv_data(m, &ev);
			} else if (ev.type == EV_DELACK) {
				if (m->delack_at == ev.t && m->rcv_unacked)
					rcv_send_ack(m, -1, -1);
			} else {
				tcp_ack(m, &ev);
				return MODEL_ACK;
			}
		} else if (t == t_rto) {
			tcp_rto(m);
			return MODEL_RTO;
		} else if (t == m->app_next) {
			bool restarted;

			m->app_next += 1000000 / ph(m)->app_pps;
			restarted = idle_check(m);
			m->app_end++;
			tcp_xmit(m);
			if (restarted)
				return MODEL_RESTART;
		} else {
			if (!start_phase(m, m->phase + 1))
				return MODEL_END;
			if (m->app_end > m->nxt && idle_check(m)) {
				tcp_xmit(m);
				return MODEL_RESTART;
			}
			tcp_xmit(m);
		}
	}
}
