#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-exclusive: measures goodput and RTT
# vm-timeout: 420
#
# Parity with the reference (cdg-spec preamble: "a user who swaps Debian's
# in-tree tcp_cdg.ko for ours sees the same congestion behaviour"): the
# bottleneck of traffic.sh (netem delay 20ms rate 100mbit limit 1000), the
# same bulk transfer with cdg, alternately with Debian's in-tree module and
# with ours, swapped by rmmod + insmod in one boot.  The order alternates
# each round (in-tree first, then ours first) so that a drift of the host
# hits both alike.  The medians over the runs must agree:
#
#   goodput: |ours - in-tree| <= GP_TOL x in-tree
#   RTT:     |ours - in-tree| <= RTT_TOL_MS
#
#   parity.sh [RUNS [SECONDS]]      default 4 runs of 8 s per module
#
# Why these tolerances (measured on an idle host, 4 rounds of 6 runs per
# module, 6.1 and 6.12, 8 s runs; 24 runs per module):
#   goodput  in-tree 52.0-86.9 Mbit/s, median 77.4, sd 8.9
#            ours    57.0-89.5 Mbit/s, median 70.2, sd 7.9
#            (Mann-Whitney z = 1.28: no significant difference)
#   RTT      in-tree median 21.73 ms, sd 0.47; ours 21.48 ms, sd 0.50
# CDG backs off at random (1 - e^(-g*G) per RTT round), so one run is one
# draw from a wide distribution.  Drawing two medians of 4 runs each from
# the pooled 48 runs (20000 resamples), their relative difference exceeded
# 15 % in 10 % of the draws, 23 % in 1 %, 30 % in 0.1 %.  GP_TOL = 0.30 is
# that 0.1 % point: a false alarm about once in a thousand suites.  The RTT
# medians are much steadier (sd 0.5 ms per run, the queue stays within a
# few packets); RTT_TOL_MS = 2 ms is about 6 standard deviations of the
# difference of two medians of 4, while a module that let the queue grow
# by 2 ms (17 packets of 1500 bytes at 100 Mbit/s) or more would fail.
# With --env CDG_OURS_PARAMS=backoff_factor=0 (ours never backs off on
# delay) the RTT check fails.
#
# Two stages: when the goodput medians of the first RUNS rounds differ by
# more than GP_TOL, RUNS more rounds are run and the medians of all of them
# decide.  One CI run in the project's history failed with ours 74.7
# against the in-tree 55.8 Mbit/s (in-tree 38.6..80.0).  Each transfer
# then also inherited the ssthresh of the one before (tcp_metrics, now off
# in ns_add), so four runs were fewer than four draws; whether that was
# the whole cause is not known.  A real difference of
# 30 % or more stays in the medians of twice the runs; a draw rarely does.
. "$(dirname "$0")/lib.sh"

runs=${1:-4}
secs=${2:-8}
GP_TOL=0.30
RTT_TOL_MS=2

[ -n "$CDG_INTREE" ] || skip_all "no in-tree tcp_cdg in the guest"
ns_pair
netem_bottleneck 20ms 100mbit 1000

declare -A GP RTT
# rounds FIRST LAST: one transfer per module per round, the order
# alternating round by round so that a drift of the host hits both alike.
rounds() {
	local i m order
	for i in $(seq "$1" "$2"); do
		if [ $((i % 2)) = 1 ]; then order="intree ours"; else order="ours intree"; fi
		for m in $order; do
			"cdg_load_$m"
			measure_bulk cdg "$ADDR_S" "$secs"
			diag "run $i $m: $(mb_summary cdg)"
			if [ "$MB_CC" != cdg ]; then
				tap_fail "run $i $m: the transfer ran cdg" "ss saw '$MB_CC'"
			fi
			GP[$m]+="$MB_GOODPUT "
			RTT[$m]+="$MB_RTT "
		done
	done
}

spread() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }
# shellcheck disable=SC2086 # lists of numbers
medians() {
	gp_i=$(median ${GP[intree]}) gp_o=$(median ${GP[ours]})
	rtt_i=$(median ${RTT[intree]}) rtt_o=$(median ${RTT[ours]})
	diag "in-tree: goodput median $gp_i Mbit/s ($(spread ${GP[intree]})), RTT median $rtt_i ms ($(spread ${RTT[intree]}))"
	diag "ours:    goodput median $gp_o Mbit/s ($(spread ${GP[ours]})), RTT median $rtt_o ms ($(spread ${RTT[ours]}))"
}
# The goodput condition, for the second-stage decision and the check alike.
gp_expr() { echo "($gp_o - $gp_i) <= $GP_TOL * $gp_i && ($gp_i - $gp_o) <= $GP_TOL * $gp_i"; }

rounds 1 "$runs"
medians
n=$runs
if ! fcmp "$(gp_expr)"; then
	diag "goodput medians of $runs rounds differ by more than $GP_TOL: $runs more rounds"
	rounds $((runs + 1)) $((2 * runs))
	medians
	n=$((2 * runs))
fi
cdg_unload

perf_check "goodput medians of $n rounds agree within $(awk "BEGIN { print $GP_TOL * 100 }") %: ours $gp_o, in-tree $gp_i Mbit/s" \
	"$(gp_expr)"
perf_check "RTT medians of $n rounds agree within $RTT_TOL_MS ms: ours $rtt_o, in-tree $rtt_i ms" \
	"($rtt_o - $rtt_i) <= $RTT_TOL_MS && ($rtt_i - $rtt_o) <= $RTT_TOL_MS"
tap_end
