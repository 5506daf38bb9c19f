#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check of the unit suite (make -C tests/unit mutants; not part of
# the default run): each mutant is tcp_cdg.c with one deliberate bug,
# built into its own directory; the suite must report more failures than
# on the unmodified module.  Prints one TAP line per mutant, and exits
# non-zero when a mutant survived or changed nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$top/build/unit-mutants
mkdir -p "$work"
tests=$(make -s -C "$here" print-tests)

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

count_fail() {	# count_fail BUILDDIR: not-ok lines of all tests
	local t n=0
	for t in $tests; do
		# A hang or a crash counts as a failure too.
		n=$((n + $( (timeout 120 "$1/plain/$t" 2>/dev/null || echo "not ok") |
			grep -c '^not ok')))
	done
	echo $n
}

make -s -C "$here" B="$work/base" plain >/dev/null 2>&1 || { echo "not ok - base build"; exit 1; }
base=$(count_fail "$work/base")
echo "# unmodified module: $base failing results"
n=0
fail=0
while IFS='|' read -r name expr; do
	n=$((n + 1))
	src=$work/$name.c
	sed -e "$expr" "$top/tcp_cdg.c" >"$src"
	if cmp -s "$src" "$top/tcp_cdg.c"; then
		echo "not ok $n - mutant $name: the sed expression changed nothing"
		fail=$((fail + 1))
		continue
	fi
	if ! make -s -C "$here" B="$work/$name" CDG_SRC="$src" \
		ORACLE="$work/base/oracle/net/ipv4/tcp_cdg.c" plain >"$work/$name.log" 2>&1; then
		echo "ok $n - mutant $name: does not build"
		continue
	fi
	f=$(count_fail "$work/$name")
	if [ "$f" -gt "$base" ]; then
		echo "ok $n - mutant $name: caught ($f failing results, $base before)"
	else
		echo "not ok $n - mutant $name: SURVIVED ($f failing results)"
		fail=$((fail + 1))
	fi
done <<<"$mutants"
echo "1..$n"
[ "$fail" -eq 0 ]
