#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check of the unit suite (make -C tests/unit mutants; make check
# runs it as its own suite): each mutant is tcp_cdg.c with one deliberate
# bug, built into its own directory; some test binary must then report
# more failures than it does on the unmodified module.  Prints one TAP
# line per mutant, with the binary that caught it, and exits non-zero when
# a mutant survived, or its sed expression changed nothing or made a module
# that does not build (a mutant must be a working module with one bug).
#
# Fast enough for make check: a mutant recompiles only the module's
# translation unit over a copy of the unmodified build, its binaries run
# in order until one catches it, and MUTATE_JOBS (default: the number of
# CPUs) mutants run at a time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$top/build/unit-mutants
mkdir -p "$work"
# The oracle test last: it replays 4400 traces (15-30 s) where the others
# take under a second, and they catch every mutant before it (68 of 68).
# Ahead of test_bench and test_compete it ran for the 23 compete
# mutants: 415 s of make check, against about 100 s.
tests=$(make -s -C "$here" print-tests | tr ' ' '\n' | grep -vx test_oracle | tr '\n' ' ')
tests="$tests test_oracle"

# name|sed expression (each must change the source)
mutants='nexp-table|s/65518, 65501,/65519, 65501,/
nexp-slope|s|(ux \& 0xff) \* (U32_MAX / 1000000)|(ux \& 0xff) * (U32_MAX / 999000)|
effective-31|s/CDG_EFFECT_US\t\t(-32)/CDG_EFFECT_US\t\t(-31)/
tolerance-unsigned|s/DIV_ROUND_CLOSEST(g.min, CDG_TOLERANCE_US)/DIV_ROUND_CLOSEST(g.min, 64U)/
extrapolate-off-by-one|s|(grad \* window) / (int)ca->tail|(grad * window) / (int)(ca->tail + 1)|
never-filled|s/else if (ca->tail == 0)/else if (0)/
no-ring-no-scale|s/grad \*= window;/grad *= 1;/
delack-filter|s/sample->pkts_acked == 1 \&\& ca->delack/sample->pkts_acked == 2 \&\& ca->delack/
delack-max|s/CDG_DELACK_MAX\t\t5/CDG_DELACK_MAX\t\t6/
train-gap|s/CDG_TRAIN_GAP_US\t3000/CDG_TRAIN_GAP_US\t3001/
hystart-samples|s/CDG_HYSTART_SAMPLES\t8/CDG_HYSTART_SAMPLES\t7/
hystart-floor|s/CDG_HYSTART_MIN_US\t125/CDG_HYSTART_MIN_US\t120/
beta-shift|s/READ_ONCE(backoff_beta)) >>/READ_ONCE(backoff_beta) \/ 2) >>/
halve-shadow|s/ca->shadow_wnd = min(ca->shadow_wnd >> 1, cwnd);/ca->shadow_wnd = min(ca->shadow_wnd, cwnd);/
tolerance-ignored|s/ca->state == CDG_NONFULL \&\& READ_ONCE(use_tolerance)/ca->state == CDG_FULL \&\& READ_ONCE(use_tolerance)/
restart-keeps-ring-data|s/memset(gradients, 0, window \* sizeof(gradients\[0\]));/memset(gradients, 0, 0);/
release-keeps-pointer|/kfree(ca->gradients);/{n;s/ca->gradients = NULL;/;/}
init-keeps-pointer|/A child socket starts/,/cdg_ring_alloc/{s/^\tca->gradients = NULL;/\t;/}
backoff-boundary|s/get_random_u32() > stay/get_random_u32() >= stay/
ineff-off-by-one|s/ca->backoff_cnt > ineff/ca->backoff_cnt >= ineff/
applimited-no-clamp|s/ca->shadow_wnd = min(ca->shadow_wnd, tcp_snd_cwnd(tp));/;/
complete-cwr-keeps-prev|/case CA_EVENT_COMPLETE_CWR:/,/break;/{s/ca->rtt_prev = ca->rtt;/;/}
rtt-min-zero|s/ca->rtt.min = min_not_zero(ca->rtt.min, sample->rtt_us);/ca->rtt.min = min(ca->rtt.min, sample->rtt_us);/
window-range|s/n < 1 || n > CDG_WINDOW_MAX/n < 1 || n > 512/
runtime-erange|s/kp->mod->state == MODULE_STATE_LIVE ? -EINVAL : -ERANGE;/kp->mod->state == MODULE_STATE_LIVE ? -ERANGE : -ERANGE;/
load-einval|s/kp->mod->state == MODULE_STATE_LIVE ? -EINVAL : -ERANGE;/kp->mod->state == MODULE_STATE_LIVE ? -EINVAL : -EINVAL;/
register-ignored|s/^\tif (ret) {$/\tif (0) {/
pernet-leak|/tcp_cdg.name, ret, ret == -EEXIST/,/return ret;/{s/unregister_pernet_subsys(\&cdg_net_ops);/;/}
product-u32|s/u64 x = (u64)used \* READ_ONCE(backoff_factor);/u64 x = (u32)(used * READ_ONCE(backoff_factor));/
trace-unscaled-grad|s/trace_cdg_backoff(sk, used,/trace_cdg_backoff(sk, grad,/
backoff-cnt-wraps|s/if (ca->backoff_cnt < U16_MAX)/if (1)/
no-nowarn|s/GFP_NOWAIT | __GFP_NOWARN/GFP_NOWAIT/
ring-no-retry|s/if (!is_power_of_2(++ca->ring_rounds))/if (++ca->ring_rounds)/
ring-retry-unbounded|s/if (ca->ring_rounds == U8_MAX)/if (0)/
trace-wrong-arg|s/trace_cdg_round(sk, ca->rtt.min, ca->rtt.max/trace_cdg_round(sk, ca->rtt.max, ca->rtt.max/
counter-wrong|s/cdg_count(sk, CDG_MIB_SOCKETS);/cdg_count(sk, CDG_MIB_ROUNDS);/'

# Mutants of the opt-in parameters and the counters.
mutants="$mutants
drain-inverted|s/if (READ_ONCE(backoff_drain) \&\& base_us/if (!READ_ONCE(backoff_drain) \&\& base_us/
drain-gives-nothing|s/wnd = max(wnd, min(drain, cwnd - 1));/wnd = max(wnd, min(drain, cwnd));/
extrapolate-inverted|s/else if (!READ_ONCE(no_extrapolate))/else if (READ_ONCE(no_extrapolate))/
ref-rtt-inverted|s|div_u64((u64)grad \* ref_us, base_us)|div_u64((u64)grad * base_us, ref_us)|
counter-backoffs|s/cdg_count(sk, CDG_MIB_BACKOFFS);/;/
counter-ineffectual|s/cdg_count(sk, CDG_MIB_INEFFECTUAL);/cdg_count(sk, CDG_MIB_ROUNDS);/
counter-tolerated|s/cdg_count(sk, CDG_MIB_TOLERATED);/;/
counter-ring-late|s/cdg_count(sk, CDG_MIB_RING_LATE);/cdg_count(sk, CDG_MIB_RING_NOMEM);/
counter-hystart-swapped|s/train ? CDG_MIB_HYSTART_TRAIN : CDG_MIB_HYSTART_DELAY/train ? CDG_MIB_HYSTART_DELAY : CDG_MIB_HYSTART_TRAIN/"

# Mutants of compete (issue 22): the detector, the mode, the probe, cubic.
mutants="$mutants
compete-rounds|s/CDG_COMPETE_ROUNDS\t8/CDG_COMPETE_ROUNDS\t7/
compete-no-restart|/The queue shrank/,/break;/{s/ca->q_backoffs = 0;/;/}
compete-base-no-hold|s/ca->q_rounds < CDG_BASE_HOLD_ROUNDS))/ca->q_rounds < 0))/
compete-shrinking-queue|s/(u32)rtt_min_us >= ca->q_first_us)/1)/
compete-no-backoffs-needed|s/ca->q_backoffs < CDG_COMPETE_BACKOFFS)/ca->q_backoffs < 0)/
compete-backoffs-kept|/tcp_in_slow_start(tp)) {/{n;n;s/ca->q_backoffs = 0;/;/}
compete-margin-wider|s/return max_t(u32, base_us >> 3, CDG_COMPETE_MARGIN_MIN_US);/return max_t(u32, base_us >> 2, CDG_COMPETE_MARGIN_MIN_US);/
compete-entry-margin|s/return max_t(u32, base_us >> 1, CDG_COMPETE_MARGIN_MIN_US);/return max_t(u32, base_us >> 2, CDG_COMPETE_MARGIN_MIN_US);/
compete-margin-narrower|s/return max_t(u32, base_us >> 3, CDG_COMPETE_MARGIN_MIN_US);/return max_t(u32, base_us >> 4, CDG_COMPETE_MARGIN_MIN_US);/
compete-base-follows-queue|s/^\tif (delay_mode \&\&$/\tif (1 \&\&/
compete-backoffs-go-on|s/return grad > 0 \&\& delay_mode \&\& ca->mode == CDG_MODE_DELAY \&\&/return grad > 0 \&\&/
compete-no-exit-on-empty|/case CDG_MODE_COMPETE:/,/break;/{s/if (!standing) {/if (0) {/}
compete-probe-interval|s/CDG_PROBE_ROUNDS\t8/CDG_PROBE_ROUNDS\t9/
compete-judge-inverted|/case CDG_MODE_JUDGE:/,/break;/{s/if (!standing) {/if (standing) {/}
compete-share-formula|s/want = div_u64((u64)cwnd \* qtot, 2 \* (qtot - qother));/want = div_u64((u64)cwnd * qtot, qtot - qother);/
compete-beta|s/CDG_CUBIC_BETA\t\t717/CDG_CUBIC_BETA\t\t512/
compete-cubic-c|s/CDG_CUBIC_K3_PER_SEG\t2500000000ULL/CDG_CUBIC_K3_PER_SEG\t1250000000ULL/
compete-param-range|s/\&compete, 1$/\&compete, 2/
compete-counter|s/cdg_count(sk, CDG_MIB_COMPETE_EXIT);/;/
compete-cbrt|s/b = 3 \* y \* (y + 1) + 1;/b = 3 * y * (y + 1);/
compete-low-rounds|s/CDG_COMPETE_LOW_ROUNDS\t4/CDG_COMPETE_LOW_ROUNDS\t3/
compete-low-kept|s/^\t\tca->low_rounds = 0;$/\t\t;/
compete-share-step|s/CDG_SHARE_STEP_MAX\t4/CDG_SHARE_STEP_MAX\t3/"

# --list: the mutants, one "name|sed expression" a line (tests/peer/mutants.sh
# runs the same ones against the scripted peer).
if [ "${1:-}" = --list ]; then
	printf '%s\n' "$mutants"
	exit 0
fi

jobs=${MUTATE_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "mutate.sh: MUTATE_JOBS must be a positive integer" >&2; exit 2; }

# fails BIN: its not-ok lines; a hang or a crash counts as one more.
fails() {
	(timeout 120 "$1" 2>/dev/null || echo "not ok") 2>/dev/null | grep -c '^not ok'
}

make -s -C "$here" B="$work/base" plain >"$work/base.log" 2>&1 ||
	{ echo "not ok 1 - mutants: the unmodified build failed (log: $work/base.log)"; exit 1; }
declare -A base
total=0
for t in $tests; do
	base[$t]=$(fails "$work/base/plain/$t")
	total=$((total + base[$t]))
done
echo "# unmodified module: $total failing results"

# mutant N NAME EXPR: one TAP line into $work/N.tap.
mutant() {
	local n=$1 name=$2 expr=$3 src=$work/$2.c dir=$work/$2 t f
	sed -e "$expr" "$top/tcp_cdg.c" >"$src"
	if cmp -s "$src" "$top/tcp_cdg.c"; then
		echo "not ok $n - mutant $name: the sed expression changed nothing"
		return
	fi
	# The unmodified build's objects, then only what the source changes.
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a "$work/base/plain" "$dir/"
	if ! make -s -C "$here" B="$dir" CDG_SRC="$src" \
		ORACLE="$work/base/oracle/net/ipv4/tcp_cdg.c" plain >"$work/$name.log" 2>&1; then
		# Not a catch: a mutant must be a module that builds.
		echo "not ok $n - mutant $name: does not build (log: $work/$name.log)"
		return
	fi
	for t in $tests; do
		f=$(fails "$dir/plain/$t")
		if [ "$f" -gt "${base[$t]}" ]; then
			echo "ok $n - mutant $name: caught by $t ($f failing results, ${base[$t]} before)"
			rm -rf "$dir"
			return
		fi
	done
	echo "not ok $n - mutant $name: SURVIVED"
}

n=0
running=0
while IFS='|' read -r name expr; do
	n=$((n + 1))
	while [ "$running" -ge "$jobs" ]; do
		wait -n || true
		running=$((running - 1))
	done
	mutant "$n" "$name" "$expr" >"$work/$n.tap" &
	running=$((running + 1))
done <<<"$mutants"
wait
fail=0
for i in $(seq 1 "$n"); do
	cat "$work/$i.tap"
	grep -q '^not ok' "$work/$i.tap" && fail=$((fail + 1))
done
echo "1..$n"
[ "$fail" -eq 0 ]
