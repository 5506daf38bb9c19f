// SPDX-License-Identifier: GPL-2.0
/*
 * CAIA Delay-Gradient (CDG) congestion control, out-of-tree edition.
 *
 * CDG (D.A. Hayes and G. Armitage, "Revisiting TCP congestion control using
 * delay gradients", IFIP Networking 2011) reads congestion from the change of
 * the RTT rather than from loss.  Once per RTT round it takes the difference
 * between this round's minimum and maximum RTT and the previous round's; the
 * sum of those differences over the last `window` rounds is the gradient.  A
 * rising minimum means a standing queue is growing, a rising maximum that a
 * queue is filling.  When the gradient is positive CDG backs off with
 * probability 1 - exp(-gradient * backoff_factor), a probability that does
 * not depend on the RTT, so short- and long-RTT flows back off alike.
 *
 * Loss-based flows do not back off on delay, so CDG guards against being
 * starved by them: when more than `use_ineff` backoffs in a row left the
 * gradient positive, it stops backing off on delay (ineffectual backoff), and
 * on loss it may keep a "shadow window" that remembers the window it gave up
 * on delay and halves that instead of the current window.  Optionally
 * (`use_tolerance`) it ignores a loss while the gradients say the queue is
 * not full.  Slow start ends with a HyStart variant (ACK trains and RTT
 * increase, both relative to the smallest RTT seen).
 *
 * At its default parameters the module behaves like the in-tree CDG of
 * Linux 6.1 (the test suite checks it ACK by ACK).  Unlike it, it validates
 * its parameters at load and at run time, refuses to load over another
 * "cdg", and shows what it does: tracepoints (include/tcp_cdg_trace.h) and
 * per-namespace counters in /proc/net/stat/tcp_cdg.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/win_minmax.h>
#include <net/net_namespace.h>	/* before 6.1 generic.h does not include it */
#include <net/netns/generic.h>
#include <net/tcp.h>

#include "tcp_cdg_compat.h"

#define CREATE_TRACE_POINTS
#include "tcp_cdg_trace.h"

#define CDG_WINDOW_MAX		256	/* rounds; the ring's tail is a u8 */
#define CDG_BETA_SHIFT		10	/* backoff_beta is in 1/1024 */
#define CDG_BETA_SCALE		BIT(CDG_BETA_SHIFT)
#define CDG_FACTOR_MAX		1000000	/* 1 us of gradient: backoff p = 1 - 1/e */
#define CDG_INEFF_MAX		255	/* backoffs in a row without effect */
#define CDG_DELACK_MAX		5	/* delayed-ACK filter counter limit */
#define CDG_EFFECT_US		(-32)	/* a backoff that dropped the RTT */
#define CDG_REF_RTT_MAX_US	10000000	/* ref_rtt_us: 10 s */
#define CDG_BASE_RTT_WIN_US	(10 * USEC_PER_SEC)	/* base RTT: min over 10 s */
#define CDG_TOLERANCE_US	64	/* tolerance rounds gradients to this */
#define CDG_TRAIN_GAP_US	3000	/* ACKs closer than this form a train */
#define CDG_HYSTART_MIN_US	125	/* floor of both HyStart thresholds */
#define CDG_HYSTART_SAMPLES	8	/* ACKs per round before delay exit */
#define CDG_COMPETE_ROUNDS	8	/* rounds of a standing queue ... */
#define CDG_COMPETE_BACKOFFS	2	/* ... with this many backoffs in them */
#define CDG_COMPETE_MARGIN_MIN_US 500	/* floor of the "empty queue" margin */
#define CDG_COMPETE_LOW_ROUNDS	4	/* rounds without it that end competing */
#define CDG_SHARE_STEP_MAX	4	/* a probe at most multiplies cwnd by this */
#define CDG_PROBE_ROUNDS	8	/* competing rounds between drain probes */
#define CDG_BASE_HOLD_ROUNDS	64	/* standing rounds that hold the base */
#define CDG_CUBIC_BETA		717	/* 0.7 * 1024: cubic's decrease */
#define CDG_CUBIC_D_MAX_MS	BIT(20)	/* keeps C * d^3 in 64 bits */
#define CDG_CUBIC_K3_PER_SEG	2500000000ULL	/* ms^3 per segment: 1 / C */

enum cdg_hystart_bits {
	CDG_HYSTART_ACK_TRAIN	= 1,
	CDG_HYSTART_DELAY	= 2,
};

static int window __read_mostly = 8;
static unsigned int backoff_beta __read_mostly = 724;	/* 0.7071 * 1024 */
static unsigned int backoff_factor __read_mostly = 42;
static unsigned int hystart_detect __read_mostly = 3;
static unsigned int use_ineff __read_mostly = 5;
static bool use_shadow __read_mostly = true;
static bool use_tolerance __read_mostly;
static bool backoff_drain __read_mostly;	/* opt-in, beyond the in-tree module */
static bool no_extrapolate __read_mostly;	/* opt-in, beyond the in-tree module */
static unsigned int ref_rtt_us __read_mostly;	/* opt-in, 0 = as in-tree */
static unsigned int compete __read_mostly;	/* opt-in, 0 = as in-tree */

/*
 * Parameters are checked when they are set, at load and through sysfs.  At
 * load a value out of range is -ERANGE, as the in-tree module answers from
 * its init; later every bad write is -EINVAL and keeps the old value.  The
 * module's state tells the two apart: load_module() parses the arguments
 * before the init runs, while the module is MODULE_STATE_COMING, and sysfs
 * writes reach it once it is LIVE.
 */
static int cdg_param_range_err(const struct kernel_param *kp)
{
	return kp->mod && kp->mod->state == MODULE_STATE_LIVE ? -EINVAL : -ERANGE;
}

struct cdg_uint_param {
	unsigned int *val;
	unsigned int max;
};

static int cdg_param_set_uint(const char *val, const struct kernel_param *kp)
{
	const struct cdg_uint_param *p = kp->arg;
	unsigned int n;

	if (kstrtouint(val, 0, &n)) {
		pr_err("%s: '%s' is not a number\n", kp->name, val);
		return -EINVAL;
	}
	if (n > p->max) {
		pr_err("%s=%u out of range, allowed 0..%u\n",
		       kp->name, n, p->max);
		return cdg_param_range_err(kp);
	}
	WRITE_ONCE(*p->val, n);
	return 0;
}

static int cdg_param_get_uint(char *buffer, const struct kernel_param *kp)
{
	const struct cdg_uint_param *p = kp->arg;

	return scnprintf(buffer, PAGE_SIZE, "%u\n", READ_ONCE(*p->val));
}

static const struct kernel_param_ops cdg_uint_ops = {
	.set = cdg_param_set_uint,
	.get = cdg_param_get_uint,
};

static int cdg_param_set_window(const char *val, const struct kernel_param *kp)
{
	int n;

	if (kstrtoint(val, 0, &n)) {
		pr_err("window: '%s' is not a number\n", val);
		return -EINVAL;
	}
	if (n < 1 || n > CDG_WINDOW_MAX) {
		pr_err("window=%d out of range, allowed 1..%d\n",
		       n, CDG_WINDOW_MAX);
		return -ERANGE;
	}
	if (!is_power_of_2(n)) {
		pr_err("window=%d is not a power of two (1, 2, 4, ... %d)\n",
		       n, CDG_WINDOW_MAX);
		return -EINVAL;
	}
	window = n;
	return 0;
}

static const struct kernel_param_ops cdg_window_ops = {
	.set = cdg_param_set_window,
	.get = param_get_int,
};

static struct cdg_uint_param beta_param = {
	&backoff_beta, CDG_BETA_SCALE
};

static struct cdg_uint_param factor_param = {
	&backoff_factor, CDG_FACTOR_MAX
};

static struct cdg_uint_param hystart_param = {
	&hystart_detect, CDG_HYSTART_ACK_TRAIN | CDG_HYSTART_DELAY
};

static struct cdg_uint_param ineff_param = {
	&use_ineff, CDG_INEFF_MAX
};

static struct cdg_uint_param ref_rtt_param = {
	&ref_rtt_us, CDG_REF_RTT_MAX_US
};

static struct cdg_uint_param compete_param = {
	&compete, 1
};

module_param_cb(window, &cdg_window_ops, &window, 0444);
MODULE_PARM_DESC(window, "gradient window size (power of two <= 256)");
module_param_cb(backoff_beta, &cdg_uint_ops, &beta_param, 0644);
MODULE_PARM_DESC(backoff_beta, "backoff beta (0-1024)");
module_param_cb(backoff_factor, &cdg_uint_ops, &factor_param, 0644);
MODULE_PARM_DESC(backoff_factor, "backoff probability scale factor (0-1000000)");
module_param_cb(hystart_detect, &cdg_uint_ops, &hystart_param, 0644);
MODULE_PARM_DESC(hystart_detect, "use Hybrid Slow start (0: disabled, 1: ACK train, 2: delay threshold, 3: both)");
module_param_cb(use_ineff, &cdg_uint_ops, &ineff_param, 0644);
MODULE_PARM_DESC(use_ineff, "use ineffectual backoff detection (threshold, 0-255; 0 disables)");
module_param(use_shadow, bool, 0644);
MODULE_PARM_DESC(use_shadow, "use shadow window heuristic");
module_param(use_tolerance, bool, 0644);
MODULE_PARM_DESC(use_tolerance, "use loss tolerance heuristic");
module_param(backoff_drain, bool, 0644);
MODULE_PARM_DESC(backoff_drain, "size delay backoffs to drain the measured queue, no less than backoff_beta (opt-in; 0 = as the in-tree module)");
module_param(no_extrapolate, bool, 0644);
MODULE_PARM_DESC(no_extrapolate, "while the ring fills, sum the rounds measured instead of scaling them to a full window (opt-in; 0 = as the in-tree module)");
module_param_cb(ref_rtt_us, &cdg_uint_ops, &ref_rtt_param, 0644);
MODULE_PARM_DESC(ref_rtt_us, "scale the backoff probability by ref_rtt_us / base RTT (0-10000000 us; opt-in; 0 = RTT-independent, as the in-tree module)");
module_param_cb(compete, &cdg_uint_ops, &compete_param, 0644);
MODULE_PARM_DESC(compete, "grow as cubic while a loss-based flow keeps a standing queue that delay backoffs do not drain (0-1; opt-in; 0 = as the in-tree module)");

/*
 * Counters, per network namespace, in /proc/net/stat/tcp_cdg: one
 * "name value" line each, summed over CPUs.
 */
enum cdg_mib_field {
	CDG_MIB_SOCKETS,	/* sockets initialised */
	CDG_MIB_RING_NOMEM,	/* ... that started without a ring */
	CDG_MIB_RING_LATE,	/* ... that got it at a later round */
	CDG_MIB_ROUNDS,		/* RTT rounds with a gradient */
	CDG_MIB_BACKOFFS,	/* delay backoffs taken */
	CDG_MIB_INEFFECTUAL,	/* backoffs suppressed by use_ineff */
	CDG_MIB_SHADOW,		/* losses where the shadow set ssthresh */
	CDG_MIB_HYSTART_TRAIN,	/* slow-start exits by ACK train */
	CDG_MIB_HYSTART_DELAY,	/* slow-start exits by delay */
	CDG_MIB_TOLERATED,	/* losses ignored by use_tolerance */
	CDG_MIB_COMPETE,	/* compete: entries into competitive mode */
	CDG_MIB_COMPETE_EXIT,	/* ... returns to delay mode */
	CDG_MIB_PROBES,		/* ... drain probes taken while competing */
	CDG_MIB_MAX
};

static const char * const cdg_mib_names[CDG_MIB_MAX] = {
	[CDG_MIB_SOCKETS]	= "Sockets",
	[CDG_MIB_RING_NOMEM]	= "RingAllocFail",
	[CDG_MIB_RING_LATE]	= "RingAllocLate",
	[CDG_MIB_ROUNDS]	= "Rounds",
	[CDG_MIB_BACKOFFS]	= "Backoffs",
	[CDG_MIB_INEFFECTUAL]	= "BackoffsIneffectual",
	[CDG_MIB_SHADOW]	= "ShadowRestores",
	[CDG_MIB_HYSTART_TRAIN]	= "HystartTrainExits",
	[CDG_MIB_HYSTART_DELAY]	= "HystartDelayExits",
	[CDG_MIB_TOLERATED]	= "LossesTolerated",
	[CDG_MIB_COMPETE]	= "CompeteEnters",
	[CDG_MIB_COMPETE_EXIT]	= "CompeteExits",
	[CDG_MIB_PROBES]	= "CompeteProbes",
};

struct cdg_mib {
	unsigned long mibs[CDG_MIB_MAX];
};

struct cdg_net {
	struct cdg_mib __percpu *mib;
};

static unsigned int cdg_net_id __read_mostly;

/*
 * Only a socket that holds a reference on its namespace (sk_net_refcnt:
 * every socket userspace opens) counts, or one in init_net, which never
 * goes away.  A kernel socket does not keep its namespace alive, and the
 * subsystem that owns it, registered before this module, closes it in its
 * pernet exit, which runs after cdg_net_exit() has freed the counters:
 * until then it may still run cdg.  Freeing the counters after an RCU
 * grace period instead would need a pointer outside net_generic()'s
 * storage, which the core frees right after the exits, and a reader side
 * on every count: much more for counting kernel sockets of a namespace
 * that is going away.
 */
static void cdg_count(const struct sock *sk, enum cdg_mib_field field)
{
	struct net *net = sock_net(sk);
	struct cdg_net *cn;

	if (!sk->sk_net_refcnt && !net_eq(net, &init_net))
		return;
	cn = net_generic(net, cdg_net_id);
	this_cpu_inc(cn->mib->mibs[field]);
}

static int cdg_stat_show(struct seq_file *seq, void *v)
{
	struct cdg_net *cn = net_generic(seq_file_single_net(seq), cdg_net_id);
	int i, cpu;

	for (i = 0; i < CDG_MIB_MAX; i++) {
		unsigned long sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu_ptr(cn->mib, cpu)->mibs[i];
		seq_printf(seq, "%s %lu\n", cdg_mib_names[i], sum);
	}
	return 0;
}

static int __net_init cdg_net_init(struct net *net)
{
	struct cdg_net *cn = net_generic(net, cdg_net_id);

	cn->mib = alloc_percpu(struct cdg_mib);
	if (!cn->mib)
		return -ENOMEM;
	if (!proc_create_net_single("tcp_cdg", 0444, net->proc_net_stat,
				    cdg_stat_show, NULL)) {
		free_percpu(cn->mib);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit cdg_net_exit(struct net *net)
{
	struct cdg_net *cn = net_generic(net, cdg_net_id);

	remove_proc_entry("tcp_cdg", net->proc_net_stat);
	free_percpu(cn->mib);
}

static struct pernet_operations cdg_net_ops = {
	.init = cdg_net_init,
	.exit = cdg_net_exit,
	.id   = &cdg_net_id,
	.size = sizeof(struct cdg_net),
};

struct cdg_minmax {
	union {
		struct {
			s32 min;
			s32 max;
		};
		u64 v64;	/* both at once: 0 means "no sample" */
	};
};

enum cdg_state {
	CDG_UNKNOWN = 0,
	CDG_NONFULL = 1,
	CDG_FULL    = 2,
	CDG_BACKOFF = 3,
};

/* compete (opt-in): delay mode, or competing with a loss-based flow. */
enum cdg_mode {
	CDG_MODE_DELAY	 = 0,	/* CDG as in-tree */
	CDG_MODE_COMPETE = 1,	/* no delay backoffs, cubic growth */
	CDG_MODE_DRAIN	 = 2,	/* probe, round 1: our queue drains */
	CDG_MODE_JUDGE	 = 3,	/* probe, round 2: is the queue gone? */
};

struct cdg {
	struct cdg_minmax rtt;		/* this round's RTT range, us */
	struct cdg_minmax rtt_prev;	/* the previous round's */
	struct cdg_minmax *gradients;	/* ring of `window` gradients */
	struct cdg_minmax gsum;		/* running sums over the ring */
	bool gfilled;			/* the ring has wrapped once */
	u8  tail;			/* next ring slot to replace */
	u8  state;			/* enum cdg_state */
	u8  delack;			/* delayed-ACK filter credit */
	u32 rtt_seq;			/* snd_nxt that ends this round */
	u32 shadow_wnd;			/* window given up on delay */
	u16 backoff_cnt;		/* backoffs in a row without effect */
	u8  sample_cnt;			/* HyStart: ACKs in this round */
	u8  ring_rounds;		/* rounds ended without a ring */
	s32 delay_min;			/* HyStart: smallest round min RTT */
	struct minmax base_rtt;		/* see cdg_base_rtt() */
	/*
	 * HyStart's ACK train in delay mode; cubic's curve while competing
	 * (compete, opt-in), when HyStart does not run.  The state must fit
	 * the 88 bytes of ICSK_CA_PRIV_SIZE before 5.1.
	 */
	union {
		struct {
			u32 last_ack;	/* HyStart: end of the ACK train */
			u32 round_start; /* HyStart: start of the ACK train */
		};
		struct {
			u32 t_k;	/* cubic: when W reaches w_max, us; 0: none */
			u32 w_max;	/* cubic: window at the last loss */
		};
		struct {
			u32 __pad;	/* last_ack: HyStart resets it */
			u32 q_first_us;	/* detector: the stretch's first min RTT */
		};
	};
	/* compete (opt-in), see cdg_compete_round() */
	u8  mode;			/* enum cdg_mode */
	u8  q_rounds;			/* standing rounds; probe: the queue */
	union {
		u8 q_backoffs;		/* delay backoffs drawn in those rounds */
		u8 low_rounds;		/* competing: rounds in a row not standing */
	};
	u8  probe_rounds;		/* competing rounds since the last probe */
};

/*
 * nexp_u32 - e^(-x * 10^-6) scaled to U32_MAX, without floating point.
 * @ux: x in millionths
 *
 * The low eight bits of x are taken as linear (e^-y ~ 1 - y for y below
 * 0.000256); each higher bit k multiplies by e^(-0.000256 * 2^k), kept as
 * a 16-bit fraction.  Above 2^24 the result is below 222 / 2^32: 0.
 */
static u32 __pure nexp_u32(u32 ux)
{
	/* e^(-y) * 65536 - 1 for y = 0, 0.000256, 0.000512, 0.001024, ... */
	static const u16 exp_neg[] = {
		65535,
		65518, 65501, 65468, 65401, 65267, 65001, 64470, 63422,
		61378, 57484, 50423, 38795, 22965, 8047,  987,   14,
	};
	u32 msb = ux >> 8;
	u32 res;
	int i;

	if (msb > U16_MAX)
		return 0;

	res = U32_MAX - (ux & 0xff) * (U32_MAX / 1000000);

	for (i = 1; msb; i++, msb >>= 1) {
		if (msb & 1)
			res = ((u64)res * (exp_neg[i] + 1U)) >> 16;
	}

	return res;
}

/*
 * HyStart variant: leave slow start when the ACKs of a round arrive as one
 * train longer than half the smallest RTT, or when the round's minimum RTT
 * rose by an eighth over the smallest seen.  Both are measured against
 * delay_min, so nothing happens before the first RTT sample.
 */
static void cdg_hystart_exit(struct sock *sk, unsigned int detector)
{
	const struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	bool train = detector == CDG_HYSTART_ACK_TRAIN;

	NET_INC_STATS(sock_net(sk), train ? LINUX_MIB_TCPHYSTARTTRAINDETECT :
					    LINUX_MIB_TCPHYSTARTDELAYDETECT);
	NET_ADD_STATS(sock_net(sk), train ? LINUX_MIB_TCPHYSTARTTRAINCWND :
					    LINUX_MIB_TCPHYSTARTDELAYCWND,
		      tcp_snd_cwnd(tp));
	cdg_count(sk, train ? CDG_MIB_HYSTART_TRAIN : CDG_MIB_HYSTART_DELAY);
	trace_cdg_hystart(sk, detector, tcp_snd_cwnd(tp), ca->delay_min,
			  ca->rtt.min);
	/* Read locklessly by tcp_get_timestamping_opt_stats() (fd571afb05eb). */
	WRITE_ONCE(tp->snd_ssthresh, tcp_snd_cwnd(tp));
}

static bool cdg_hystart_train(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 now_us = tp->tcp_mstamp;
	u32 base_owd_us;

	if (ca->last_ack == 0 || !tcp_is_cwnd_limited(sk)) {
		ca->last_ack = now_us;
		ca->round_start = now_us;
		return false;
	}
	if (!before(now_us, ca->last_ack + CDG_TRAIN_GAP_US))
		return false;

	ca->last_ack = now_us;
	/* Half the smallest RTT estimates the one-way delay. */
	base_owd_us = max_t(u32, ca->delay_min / 2U, CDG_HYSTART_MIN_US);
	if (!after(now_us, ca->round_start + base_owd_us))
		return false;

	cdg_hystart_exit(sk, CDG_HYSTART_ACK_TRAIN);
	return true;
}

static void cdg_hystart_delay(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	u32 thresh_us;

	if (ca->sample_cnt < CDG_HYSTART_SAMPLES) {
		ca->sample_cnt++;
		return;
	}

	thresh_us = max_t(u32, ca->delay_min + ca->delay_min / 8U,
			  CDG_HYSTART_MIN_US);
	if (ca->rtt.min > (s32)thresh_us)
		cdg_hystart_exit(sk, CDG_HYSTART_DELAY);
}

static void cdg_hystart_update(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	unsigned int detect = READ_ONCE(hystart_detect);

	ca->delay_min = min_not_zero(ca->delay_min, ca->rtt.min);
	if (ca->delay_min == 0)
		return;

	if ((detect & CDG_HYSTART_ACK_TRAIN) && cdg_hystart_train(sk))
		return;

	if (detect & CDG_HYSTART_DELAY)
		cdg_hystart_delay(sk);
}

static struct cdg_minmax *cdg_ring_alloc(void)
{
	return kcalloc(window, sizeof(struct cdg_minmax),
		       GFP_NOWAIT | __GFP_NOWARN);
}

/*
 * The ring is allocated with GFP_NOWAIT (cdg_init() may run in softirq,
 * on a passive open), which does not reclaim: a failure says memory was
 * short at that moment, not for the socket's life.  So a socket without
 * a ring tries again at round ends 1, 2, 4, ... 128 after init: at most 8
 * allocations, spread over many RTTs rather than one each round while
 * memory stays short.  Until it has a ring it scales its one round's
 * gradient by window, as the in-tree module does (cdg_gradient()): that
 * round stands in for the sum over window rounds, which matches the ring
 * on a steady ramp but weighs the round's jitter window times.  Scaling by
 * 1 instead would back off up to window times less often than a socket
 * with a ring; and with the in-tree rule, a socket that never gets its
 * ring still decides exactly as the in-tree module does.
 */
static void cdg_ring_retry(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);

	if (ca->ring_rounds == U8_MAX)
		return;			/* the 8 tries are over */
	if (!is_power_of_2(++ca->ring_rounds))
		return;
	ca->gradients = cdg_ring_alloc();
	if (ca->gradients)
		cdg_count(sk, CDG_MIB_RING_LATE);
}

/* Put this round's gradients into the ring; return the window sums. */
static struct cdg_minmax cdg_ring_push(struct cdg *ca, s32 gmin, s32 gmax)
{
	struct cdg_minmax *oldest = &ca->gradients[ca->tail];

	ca->gsum.min += gmin - oldest->min;
	ca->gsum.max += gmax - oldest->max;
	oldest->min = gmin;
	oldest->max = gmax;
	ca->tail = (ca->tail + 1) & (window - 1);

	return ca->gsum;
}

/*
 * Gradient over the last `window` rounds.  The paper's smoothed gradient is
 * (newest - oldest) / window; with running sums it is the sum, and the
 * division by window is left out (backoff_factor absorbs it).
 */
static s32 cdg_gradient(struct cdg *ca, struct cdg_minmax *sums)
{
	struct cdg_minmax g = {
		.min = ca->rtt.min - ca->rtt_prev.min,
		.max = ca->rtt.max - ca->rtt_prev.max,
	};
	s32 grad;

	if (ca->gradients)
		g = cdg_ring_push(ca, g.min, g.max);
	*sums = g;

	grad = g.min > 0 ? g.min : g.max;

	/*
	 * Until the ring is full, extrapolate from the rounds we have.  With
	 * no_extrapolate (opt-in) the rounds not yet measured count as zero
	 * instead: in slow start each round's line-rate burst raises the
	 * maximum RTT by a millisecond or two while the link is still idle,
	 * and the in-tree scaling (8x after one round) makes that an 8-16 ms
	 * gradient, a backoff with probability 1 - e^(-0.34..0.67) = 0.3-0.5
	 * at the default backoff_factor: slow start often ends at cwnd 20 or
	 * 40, far below the path's BDP, on a link that is still idle.
	 */
	if (!ca->gfilled) {
		if (!ca->gradients && window > 1)
			grad *= window;		/* no ring (yet): as in-tree */
		else if (ca->tail == 0)
			ca->gfilled = true;
		else if (!READ_ONCE(no_extrapolate))
			grad = (grad * window) / (int)ca->tail;
	}

	/* The last backoff made the RTT fall: it was effectual. */
	if (g.min <= CDG_EFFECT_US || g.max <= CDG_EFFECT_US)
		ca->backoff_cnt = 0;

	if (READ_ONCE(use_tolerance)) {
		/* Ignore variations smaller than the tolerance. */
		g.min = DIV_ROUND_CLOSEST(g.min, CDG_TOLERANCE_US);
		g.max = DIV_ROUND_CLOSEST(g.max, CDG_TOLERANCE_US);

		if (g.min > 0 && g.max <= 0)
			ca->state = CDG_FULL;
		else if ((g.min > 0 && g.max > 0) || g.max < 0)
			ca->state = CDG_NONFULL;
	}

	return grad;
}

/*
 * The base RTT, us (0 before the first sample): the smallest round minimum
 * RTT of the last CDG_BASE_RTT_WIN_US, not of the socket's life.  After a
 * route change or a handover makes the path longer, a lifetime minimum
 * would leave ref_rtt_us and backoff_drain measuring a queue that is not
 * there, for good.  10 s, as tcp_bbr's min_rtt window: CDG's
 * own backoffs drain its queue far more often than that, so the window
 * still sees the empty path.  The price: a queue that another flow keeps
 * standing for longer than the window counts as path.  No decision at the
 * default parameters reads the base RTT.
 *
 * The windowed filter (Kathleen Nichols', <linux/win_minmax.h>) keeps the
 * maximum of the complements: 6.1 does not export minmax_running_min() to
 * modules, minmax_running_max() every kernel from 4.10 on does (for
 * tcp_bbr); and the all-zero state that init and restart leave then
 * reads as "no sample".
 */
static u32 cdg_base_rtt(const struct cdg *ca)
{
	u32 v = minmax_get(&ca->base_rtt);

	return v ? ~v : 0;
}

static void cdg_base_rtt_update(struct sock *sk, s32 rtt_min_us)
{
	struct cdg *ca = inet_csk_ca(sk);

	if (rtt_min_us > 0)
		minmax_running_max(&ca->base_rtt, CDG_BASE_RTT_WIN_US,
				   tcp_sk(sk)->tcp_mstamp, ~(u32)rtt_min_us);
}

/*
 * With ref_rtt_us (opt-in) the gradient is scaled by ref_rtt_us / base RTT.
 * A queue fed at a fraction f above the link's rate grows by f * RTT per
 * round, so the in-tree probability rises with the RTT for the same
 * overload, and the RTT's jitter weighs as much on a long path as on a
 * short one.  Scaled, the probability depends on f alone; it equals the
 * in-tree one where the base RTT is ref_rtt_us.
 */
static u32 cdg_scaled_gradient(const struct cdg *ca, u32 grad)
{
	u32 ref_us = READ_ONCE(ref_rtt_us);
	u32 base_us = cdg_base_rtt(ca);

	if (!ref_us || !base_us)
		return grad;
	return min_t(u64, div_u64((u64)grad * ref_us, base_us), U32_MAX);
}

/*
 * compete (opt-in): hold one's own against a loss-based flow.
 *
 * A loss-based flow (cubic, reno) fills the bottleneck's buffer until it
 * drops, whatever CDG does: CDG's delay backoffs then only hand it the
 * window, and CDG's Reno growth (a segment per RTT of a queue-inflated
 * RTT) never wins it back.  The in-tree defence, ineffectual-backoff
 * detection, is re-armed by any 32 us fall of the RTT, which the loss-based
 * flow's own sawtooth makes.  So a separate detector (docs/tuning.md,
 * "Against cubic"):
 *
 * - delay mode: a round is "standing" when its minimum RTT stayed more
 *   than half the base RTT (at least 500 us) above the base RTT.  CDG
 *   alone drains its queue with each backoff, so a round after a backoff
 *   comes back to the base; several CDG flows keep a queue of a fraction
 *   of the base (5-15 ms at 20 ms for four).  CDG_COMPETE_ROUNDS standing
 *   rounds in a row in which CDG drew at least CDG_COMPETE_BACKOFFS delay
 *   backoffs, at the end of which the queue is no shorter than at their
 *   start, mean someone else keeps the queue and grows it: competitive
 *   mode.  (Other CDG flows keep a queue too, but back off as well: over
 *   the stretch it shrinks.)  The stretch's first minimum is kept in
 *   HyStart's round_start, which is not read after slow start; slow
 *   start (after an RTO) starts the count again.
 * - competitive mode: no delay backoffs; the window grows as cubic's (RFC
 *   9438: C = 0.4, beta = 0.7, never slower than Reno), and on loss the
 *   shadow window still applies.  The base RTT is frozen: the standing
 *   queue must not become the base.
 * - back to delay mode when CDG_COMPETE_LOW_ROUNDS rounds in a row see
 *   their minimum RTT within an eighth of the base RTT (at least 500 us)
 *   of it (one such round is not enough: with a buffer of one BDP,
 *   cubic's own losses empty the queue for a round now and then), or
 *   when a drain probe finds the queue was ours: every
 *   CDG_PROBE_ROUNDS competing rounds, cwnd goes to cwnd * base / min RTT
 *   (our share of the queue drains) for one round, then back; if the
 *   first round after the drain still sees a standing queue, someone else
 *   holds it and competition goes on, else CDG takes the drained window
 *   and returns to delay mode.
 */
static u32 cdg_compete_margin(u32 base_us)
{
	return max_t(u32, base_us >> 3, CDG_COMPETE_MARGIN_MIN_US);
}

/* To enter, the queue must stand higher: half the base RTT. */
static u32 cdg_compete_entry_margin(u32 base_us)
{
	return max_t(u32, base_us >> 1, CDG_COMPETE_MARGIN_MIN_US);
}

/* Integer cube root (Hacker's Delight, icbrt), floor(cbrt(a)). */
static u32 __pure cdg_cbrt(u64 a)
{
	u64 y = 0, b;
	int s;

	for (s = 63; s >= 0; s -= 3) {
		y <<= 1;
		b = 3 * y * (y + 1) + 1;
		if ((a >> s) >= b) {
			a -= b << s;
			y++;
		}
	}
	return y;
}

static void cdg_mode_set(struct sock *sk, u8 mode, s32 rtt_min_us)
{
	struct cdg *ca = inet_csk_ca(sk);

	trace_cdg_mode(sk, ca->mode, mode, rtt_min_us, cdg_base_rtt(ca),
		       tcp_snd_cwnd(tcp_sk(sk)));
	ca->mode = mode;
}

static void cdg_compete_enter(struct sock *sk, s32 rtt_min_us)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);

	cdg_count(sk, CDG_MIB_COMPETE);
	cdg_mode_set(sk, CDG_MODE_COMPETE, rtt_min_us);
	/*
	 * Cubic from here, climbing back to the shadow window (what the
	 * delay backoffs gave up); and a probe at once, which measures our
	 * share of the queue and sets the window for half of it (see
	 * cdg_compete_share()).
	 */
	ca->w_max = max(cwnd, ca->shadow_wnd);
	ca->t_k = 0;
	ca->probe_rounds = CDG_PROBE_ROUNDS - 1;
	ca->q_rounds = 0;
	ca->q_backoffs = 0;
}

/* The queue delay in 1/16 of the base RTT, at most 255 (~16 x base). */
static u8 cdg_queue_units(u32 base_us, s32 rtt_us)
{
	if (rtt_us <= 0 || (u32)rtt_us <= base_us)
		return 0;
	return min_t(u64, div_u64((u64)((u32)rtt_us - base_us) * 16,
				  base_us), U8_MAX);
}

/*
 * After a probe that found the competitor: the queue before the probe
 * (q_rounds, in units of cdg_queue_units()) less the queue left once ours
 * drained (the judge round's minimum) is our part of it, and in a FIFO
 * our part of the queue is our part of the link.  Set the window for half
 * of it: down at once if we hold more (at most to half of cwnd), by slow
 * start if less (at most to CDG_SHARE_STEP_MAX x cwnd per probe;
 * ACK-clocked, not a burst), and let cubic go on from there.  The step
 * is that large because probes come every CDG_PROBE_ROUNDS rounds, and at
 * 80 ms with a deep buffer a round lasts up to 0.7 s: a step of 2 x came
 * 4-5 s apart and left CDG at a fifth of cubic's window after 30 s.
 */
static void cdg_compete_share(struct sock *sk, u32 base_us, s32 rtt_min_us)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	u32 qtot = ca->q_rounds;
	u32 qother = cdg_queue_units(base_us, rtt_min_us);
	u64 want;

	ca->q_rounds = 0;
	if (!qtot)
		return;
	if (qother >= qtot)
		want = (u64)cwnd * CDG_SHARE_STEP_MAX;
	else
		want = div_u64((u64)cwnd * qtot, 2 * (qtot - qother));
	want = clamp_t(u64, want, max(cwnd / 2, 2U),
		       min_t(u64, (u64)cwnd * CDG_SHARE_STEP_MAX,
			     tp->snd_cwnd_clamp));
	/* Within an eighth: leave it to cubic. */
	if (want + (cwnd >> 3) >= cwnd && want <= cwnd + (cwnd >> 3))
		return;
	if (want < cwnd)
		tcp_snd_cwnd_set(tp, want);
	else
		WRITE_ONCE(tp->snd_ssthresh, want);
	ca->w_max = want;
	ca->t_k = 0;
	ca->shadow_wnd = min_t(u64, ca->shadow_wnd, want);
}

/* Back to delay mode with cwnd (the queue the last round saw, drained). */
static void cdg_compete_exit(struct sock *sk, u32 cwnd, s32 rtt_min_us)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	cdg_count(sk, CDG_MIB_COMPETE_EXIT);
	cdg_mode_set(sk, CDG_MODE_DELAY, rtt_min_us);
	cwnd = clamp(cwnd, 2U, tcp_snd_cwnd(tp));
	tcp_snd_cwnd_set(tp, cwnd);
	WRITE_ONCE(tp->snd_ssthresh, cwnd);
	ca->shadow_wnd = cwnd;
	ca->q_rounds = 0;
	ca->q_backoffs = 0;
	ca->probe_rounds = 0;
	ca->last_ack = 0;		/* HyStart's again */
}

/* cwnd * base / min RTT: the window without the queue the round saw. */
static u32 cdg_drained_wnd(u32 cwnd, u32 base_us, s32 rtt_min_us)
{
	if (rtt_min_us <= 0 || (u32)rtt_min_us <= base_us)
		return cwnd;
	return max_t(u32, 2, div_u64((u64)cwnd * base_us, rtt_min_us));
}

/* At the end of each round, with compete on or not yet left. */
static void cdg_compete_round(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 base_us = cdg_base_rtt(ca);
	s32 rtt_min_us = ca->rtt.min;
	u32 cwnd = tcp_snd_cwnd(tp);
	bool standing;

	if (!base_us)
		return;
	standing = rtt_min_us > 0 &&
		   (u32)rtt_min_us > base_us + cdg_compete_margin(base_us);

	if (!READ_ONCE(compete)) {	/* switched off at run time */
		if (ca->mode != CDG_MODE_DELAY)
			cdg_compete_exit(sk, cdg_drained_wnd(cwnd, base_us,
							     rtt_min_us),
					 rtt_min_us);
		return;
	}

	switch (ca->mode) {
	case CDG_MODE_DELAY:
		if ((u32)max(rtt_min_us, 0) <=
		    base_us + cdg_compete_entry_margin(base_us) ||
		    tcp_in_slow_start(tp)) {
			ca->q_rounds = 0;
			ca->q_backoffs = 0;
			break;
		}
		if (!ca->q_rounds)
			ca->q_first_us = rtt_min_us;
		if (ca->q_rounds < U8_MAX)
			ca->q_rounds++;
		if (ca->q_rounds < CDG_COMPETE_ROUNDS ||
		    ca->q_backoffs < CDG_COMPETE_BACKOFFS)
			break;
		if ((u32)rtt_min_us >= ca->q_first_us) {
			cdg_compete_enter(sk, rtt_min_us);
			break;
		}
		/*
		 * The queue shrank (a loss of the competitor's, or other CDG
		 * flows backing off): measure again from this round, with
		 * backoffs of its own.
		 */
		ca->q_first_us = rtt_min_us;
		ca->q_backoffs = 0;
		break;
	case CDG_MODE_COMPETE:
		if (!standing) {
			if (++ca->low_rounds >= CDG_COMPETE_LOW_ROUNDS)
				cdg_compete_exit(sk,
						 cdg_drained_wnd(cwnd, base_us,
								 rtt_min_us),
						 rtt_min_us);
			break;
		}
		ca->low_rounds = 0;
		if (++ca->probe_rounds < CDG_PROBE_ROUNDS ||
		    tcp_in_slow_start(tp))
			break;
		/*
		 * Drain our share of the queue for one round; the shadow
		 * window keeps cwnd (cong_avoid() leaves it alone meanwhile).
		 */
		cdg_count(sk, CDG_MIB_PROBES);
		cdg_mode_set(sk, CDG_MODE_DRAIN, rtt_min_us);
		ca->shadow_wnd = cwnd;
		ca->q_rounds = cdg_queue_units(base_us, rtt_min_us);
		tcp_snd_cwnd_set(tp, cdg_drained_wnd(cwnd, base_us,
						     rtt_min_us));
		ca->probe_rounds = 0;
		break;
	case CDG_MODE_DRAIN:
		/*
		 * Drained: the packets sent since left into an empty queue
		 * if it was ours; their ACKs open the next round.  cwnd
		 * back meanwhile.
		 */
		cdg_mode_set(sk, CDG_MODE_JUDGE, rtt_min_us);
		tcp_snd_cwnd_set(tp, min(max(cwnd, ca->shadow_wnd),
					 tp->snd_cwnd_clamp));
		break;
	case CDG_MODE_JUDGE:
		/*
		 * Alone: the round's first ACKs saw the base RTT, its last
		 * the queue of the restored cwnd, which cwnd * base / max
		 * RTT drains.
		 */
		if (!standing) {
			cdg_compete_exit(sk, cdg_drained_wnd(cwnd, base_us,
							     ca->rtt.max),
					 rtt_min_us);
			break;
		}
		cdg_mode_set(sk, CDG_MODE_COMPETE, rtt_min_us);
		cdg_compete_share(sk, base_us, rtt_min_us);
		break;
	}
}

/*
 * Competitive growth: cubic's window curve W(t) = C (t - K)^3 + w_max,
 * C = 0.4 segments / s^3, t from the epoch (the last loss or the entry)
 * plus the base RTT, K the time it takes back to w_max (so t - K counts
 * from t_k); never slower than Reno (a segment per RTT), never faster
 * than 1.5 x per RTT.  Differences of the u32 us clock hold 35 minutes.
 */
static void cdg_cubic_cong_avoid(struct sock *sk, u32 acked)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	u32 now_us = tp->tcp_mstamp;
	u32 d_ms, target, cnt;
	s32 t_us;
	u64 delta;

	if (!ca->t_k) {
		u32 k_ms = 0;

		if (ca->w_max > cwnd)	/* K^3 = (w_max - cwnd) / C */
			k_ms = cdg_cbrt((u64)(ca->w_max - cwnd) *
					CDG_CUBIC_K3_PER_SEG);
		else
			ca->w_max = cwnd;
		ca->t_k = (now_us + k_ms * USEC_PER_MSEC) ?: 1;
	}
	t_us = (s32)(now_us + cdg_base_rtt(ca) - ca->t_k);	/* t - K */
	d_ms = min_t(u64, div_u64(t_us < 0 ? -(s64)t_us : t_us, USEC_PER_MSEC),
		     CDG_CUBIC_D_MAX_MS);
	/* C * d^3 = 0.4 * (d_ms / 1000)^3 segments */
	delta = div64_u64((u64)d_ms * d_ms * d_ms * 4, 10000000000ULL);
	if (t_us < 0)
		target = ca->w_max - min_t(u64, delta, ca->w_max);
	else
		target = ca->w_max + min_t(u64, delta, U32_MAX - ca->w_max);

	cnt = target > cwnd ? cwnd / (target - cwnd) : U32_MAX;
	cnt = clamp(cnt, 2U, max(cwnd, 2U));
	tcp_cong_avoid_ai(tp, cnt, acked);
}

/*
 * Back off with probability 1 - e^(-grad * backoff_factor * 10^-6), unless
 * more than use_ineff backoffs in a row had no effect: then a loss-based
 * flow is holding the queue and backing off would only starve us.
 */
static bool cdg_backoff(struct sock *sk, u32 grad)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	unsigned int ineff = READ_ONCE(use_ineff);
	u32 used = cdg_scaled_gradient(ca, grad);
	/*
	 * In 64 bits and saturated: the in-tree module's u32 product wraps
	 * (gradient 4295 us at factor 10^6) and then rarely backs off at all.
	 */
	u64 x = (u64)used * READ_ONCE(backoff_factor);
	u32 stay = nexp_u32(min_t(u64, x, U32_MAX));
	bool backoff = get_random_u32() > stay;
	bool suppressed = false;

	/* compete: the detector counts the backoffs drawn, suppressed or not. */
	if (backoff && ca->q_backoffs < U8_MAX)
		ca->q_backoffs++;

	if (backoff && ineff) {
		/* Saturate: a wrapped count would re-arm the backoffs. */
		if (ca->backoff_cnt < U16_MAX)
			ca->backoff_cnt++;
		suppressed = ca->backoff_cnt > ineff;
	}
	trace_cdg_backoff(sk, used, U32_MAX - stay, backoff, suppressed,
			  ca->backoff_cnt, tcp_snd_cwnd(tp));
	if (suppressed)
		cdg_count(sk, CDG_MIB_INEFFECTUAL);
	if (!backoff || suppressed)
		return false;

	cdg_count(sk, CDG_MIB_BACKOFFS);
	ca->shadow_wnd = max(ca->shadow_wnd, tcp_snd_cwnd(tp));
	ca->state = CDG_BACKOFF;
	tcp_enter_cwr(sk);	/* PRR takes cwnd to cdg_ssthresh() */
	return true;
}

/* End the RTT round; return true if CDG backed off. */
static bool cdg_round_end(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg_minmax sums;
	bool delay_mode = ca->mode == CDG_MODE_DELAY;
	s32 grad = 0;

	/*
	 * This round's minimum first: the decisions below use the base.  Not
	 * while competing, nor (compete) while the detector counts the first
	 * CDG_BASE_HOLD_ROUNDS rounds of a standing queue: the standing queue
	 * is not the path, and at 80 ms the detector may need more than the
	 * base's 10 s window.
	 */
	if (delay_mode &&
	    !(READ_ONCE(compete) && ca->q_rounds &&
	      ca->q_rounds < CDG_BASE_HOLD_ROUNDS))
		cdg_base_rtt_update(sk, ca->rtt.min);
	if (unlikely(!ca->gradients) && window > 1)
		cdg_ring_retry(sk);

	if (ca->rtt_prev.v64) {
		grad = cdg_gradient(ca, &sums);
		cdg_count(sk, CDG_MIB_ROUNDS);
		trace_cdg_round(sk, ca->rtt.min, ca->rtt.max, sums.min,
				sums.max, grad, ca->state, tcp_snd_cwnd(tp),
				tp->snd_ssthresh, ca->shadow_wnd,
				cdg_base_rtt(ca));
	}
	if (READ_ONCE(compete) || !delay_mode)
		cdg_compete_round(sk);

	ca->rtt_seq = tp->snd_nxt;
	ca->rtt_prev = ca->rtt;
	ca->rtt.v64 = 0;
	if (ca->mode == CDG_MODE_DELAY)
		ca->last_ack = 0;	/* else it is cubic's t_k */
	ca->sample_cnt = 0;

	/* No delay backoff while competing, nor in the round that left it. */
	return grad > 0 && delay_mode && ca->mode == CDG_MODE_DELAY &&
	       cdg_backoff(sk, grad);
}

static void cdg_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 prior_cwnd;

	if (tcp_in_slow_start(tp) && READ_ONCE(hystart_detect) &&
	    ca->mode == CDG_MODE_DELAY)
		cdg_hystart_update(sk);

	if (after(ack, ca->rtt_seq) && ca->rtt.v64 && cdg_round_end(sk))
		return;

	if (ca->mode == CDG_MODE_DRAIN)
		return;			/* a probe: let our queue drain */

	if (!tcp_is_cwnd_limited(sk)) {
		/* Application limited: the shadow must not outgrow cwnd. */
		ca->shadow_wnd = min(ca->shadow_wnd, tcp_snd_cwnd(tp));
		return;
	}

	prior_cwnd = tcp_snd_cwnd(tp);
	if (ca->mode != CDG_MODE_DELAY && !tcp_in_slow_start(tp))
		cdg_cubic_cong_avoid(sk, acked);
	else
		tcp_reno_cong_avoid(sk, ack, acked);

	/* Grow the shadow as much as cwnd grew, saturating. */
	ca->shadow_wnd = max(ca->shadow_wnd,
			     ca->shadow_wnd + (tcp_snd_cwnd(tp) - prior_cwnd));
}

static void cdg_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (sample->rtt_us <= 0)
		return;

	/*
	 * Delayed-ACK filter (D.A. Hayes, "Timing enhancements to the FreeBSD
	 * kernel to support delay and rate based TCP mechanisms", CAIA TR
	 * 100219A, 2010): after ACKs that covered several segments, an ACK
	 * of one segment was probably delayed by the receiver, so its RTT
	 * may lower an existing minimum but says nothing about the maximum.
	 */
	if (tp->sacked_out == 0) {
		if (sample->pkts_acked == 1 && ca->delack) {
			ca->rtt.min = min(ca->rtt.min, sample->rtt_us);
			ca->delack--;
			return;
		} else if (sample->pkts_acked > 1 &&
			   ca->delack < CDG_DELACK_MAX) {
			ca->delack++;
		}
	}

	ca->rtt.min = min_not_zero(ca->rtt.min, sample->rtt_us);
	ca->rtt.max = max(ca->rtt.max, sample->rtt_us);
}

/* Halve the shadow window, or cwnd without use_shadow. */
static u32 cdg_halve(struct sock *sk, u32 cwnd)
{
	struct cdg *ca = inet_csk_ca(sk);

	ca->shadow_wnd = min(ca->shadow_wnd >> 1, cwnd);
	if (!READ_ONCE(use_shadow))
		return max(2U, cwnd >> 1);
	if (ca->shadow_wnd > max(2U, cwnd >> 1))
		cdg_count(sk, CDG_MIB_SHADOW);
	return max3(2U, ca->shadow_wnd, cwnd >> 1);
}

/*
 * The window after a delay backoff: cwnd * backoff_beta, as in the paper.
 *
 * With backoff_drain (opt-in), no less than cwnd * base RTT / min RTT of
 * the round that just ended: cwnd / min_rtt is the rate the path delivered,
 * so that window is the path's BDP and removes the standing queue and no
 * more.  A fixed beta of 0.7 on a short queue takes the window well below
 * the BDP, and the link idles until additive increase wins it back.
 * backoff_beta stays the floor (a loss-based flow's queue must not make us
 * give up less than the paper would), and a backoff always gives up a
 * segment, so the gradient can see it act.
 */
static u32 cdg_backoff_wnd(const struct cdg *ca, u32 cwnd)
{
	u32 wnd = ((u64)cwnd * READ_ONCE(backoff_beta)) >> CDG_BETA_SHIFT;
	u32 round_min_us = max(ca->rtt_prev.min, 0);
	u32 base_us = cdg_base_rtt(ca);

	if (READ_ONCE(backoff_drain) && base_us && round_min_us) {
		/*
		 * The base includes that round: base_us <= round_min_us, and
		 * the drain window is <= cwnd.
		 */
		u32 drain = div_u64((u64)cwnd * base_us, round_min_us);

		wnd = max(wnd, min(drain, cwnd - 1));
	}
	return max(2U, wnd);
}

/*
 * A loss while competing: cubic's beta, the shadow window still protecting
 * what the delay backoffs gave up; a probe stops (its drained cwnd is not
 * the window the loss halves).  The cubic epoch restarts at the next ACK.
 */
static u32 cdg_compete_ssthresh(struct sock *sk, u32 cwnd)
{
	struct cdg *ca = inet_csk_ca(sk);

	if (ca->mode == CDG_MODE_DRAIN)
		cwnd = max(cwnd, ca->shadow_wnd);
	if (ca->mode != CDG_MODE_COMPETE)
		cdg_mode_set(sk, CDG_MODE_COMPETE, ca->rtt.min);
	ca->probe_rounds = 0;
	ca->w_max = cwnd;
	ca->t_k = 0;
	return max_t(u32, cdg_halve(sk, cwnd),
		     ((u64)cwnd * CDG_CUBIC_BETA) >> CDG_BETA_SHIFT);
}

static u32 cdg_ssthresh(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));
	bool tolerated = false;
	u32 ssthresh;

	if (ca->state == CDG_BACKOFF) {
		ssthresh = cdg_backoff_wnd(ca, cwnd);
	} else if (ca->mode != CDG_MODE_DELAY) {
		ssthresh = cdg_compete_ssthresh(sk, cwnd);
	} else if (ca->state == CDG_NONFULL && READ_ONCE(use_tolerance)) {
		/* Loss while the gradients say the queue was not full. */
		tolerated = true;
		cdg_count(sk, CDG_MIB_TOLERATED);
		ssthresh = cwnd;
	} else {
		ssthresh = cdg_halve(sk, cwnd);
	}

	trace_cdg_loss(sk, ca->state, cwnd, ca->shadow_wnd, ssthresh,
		       tolerated);
	return ssthresh;
}

static void cdg_restart(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg_minmax *gradients = ca->gradients;

	/* After idle, forget everything but keep the (zeroed) ring. */
	if (gradients)
		memset(gradients, 0, window * sizeof(gradients[0]));
	memset(ca, 0, sizeof(*ca));

	ca->gradients = gradients;
	ca->rtt_seq = tp->snd_nxt;
	ca->shadow_wnd = tcp_snd_cwnd(tp);
}

static void cdg_cwnd_event(struct sock *sk, const enum tcp_ca_event ev)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	switch (ev) {
	case CA_EVENT_CWND_RESTART:
		cdg_restart(sk);
		break;
	case CA_EVENT_COMPLETE_CWR:
		/* Measure the next round from the reduced window on. */
		ca->state = CDG_UNKNOWN;
		ca->rtt_seq = tp->snd_nxt;
		ca->rtt_prev = ca->rtt;
		ca->rtt.v64 = 0;
		break;
	default:
		break;
	}
}

static void cdg_init(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	/*
	 * A child socket starts with a copy of its listener's private state,
	 * whose ring pointer is not ours to free: forget it first.
	 */
	ca->gradients = NULL;
	ca->ring_rounds = 0;
	ca->mode = CDG_MODE_DELAY;
	ca->q_rounds = 0;
	ca->q_backoffs = 0;

	/* Without a ring, see cdg_ring_retry(). */
	if (window > 1) {
		ca->gradients = cdg_ring_alloc();
		if (!ca->gradients)
			cdg_count(sk, CDG_MIB_RING_NOMEM);
	}
	cdg_count(sk, CDG_MIB_SOCKETS);
	ca->rtt_seq = tp->snd_nxt;
	ca->shadow_wnd = tcp_snd_cwnd(tp);
}

/* May run more than once per socket, and without init (CVE-2022-49775). */
static void cdg_release(struct sock *sk)
{
	struct cdg *ca = inet_csk_ca(sk);

	kfree(ca->gradients);
	ca->gradients = NULL;
}

static struct tcp_congestion_ops tcp_cdg __read_mostly = {
	.cong_avoid	= cdg_cong_avoid,
	.cwnd_event	= cdg_cwnd_event,
	.pkts_acked	= cdg_acked,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.ssthresh	= cdg_ssthresh,
	.release	= cdg_release,
	.init		= cdg_init,
	.owner		= THIS_MODULE,
	.name		= "cdg",
};

static int __init cdg_register(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct cdg) > ICSK_CA_PRIV_SIZE);

	ret = register_pernet_subsys(&cdg_net_ops);
	if (ret)
		return ret;

	ret = tcp_register_congestion_control(&tcp_cdg);
	if (ret) {
		pr_err("cannot register congestion control \"%s\": %d%s\n",
		       tcp_cdg.name, ret, ret == -EEXIST ?
		       " (already registered: in-tree tcp_cdg loaded?)" : "");
		unregister_pernet_subsys(&cdg_net_ops);
		return ret;
	}
	return 0;
}

static void __exit cdg_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_cdg);
	unregister_pernet_subsys(&cdg_net_ops);
}

module_init(cdg_register);
module_exit(cdg_unregister);

MODULE_AUTHOR("tcp_cdg contributors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP CDG (CAIA Delay-Gradient), validated out-of-tree build");
MODULE_VERSION(TCP_CDG_VERSION);
