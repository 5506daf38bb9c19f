#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-exclusive: measures goodput and RTT
# vm-timeout: 900
# vm-tier: newest
#
# On the newest kernel only in make check (10-11 minutes of VM time a
# kernel, the longest test): the statistical comparison catches a wrong
# parameter or formula, which does not depend on the kernel line, and
# the scripted peer (tests/vm/peer.sh) compares the two modules ACK by
# ACK on every line.  make check-full runs it on every kernel.
#
# Parity with the reference (cdg-spec preamble: "a user who swaps Debian's
# in-tree tcp_cdg.ko for ours sees the same congestion behaviour"): the
# same bulk transfers with cdg, alternately with Debian's in-tree module
# and with ours, swapped by rmmod + insmod in one boot, the order
# alternating round by round.  Two phases:
#
#   delay   RUNS rounds over netem delay 10ms rate 20mbit limit 1000, no
#           random loss: the delay backoff alone
#   loss    LOSS_RUNS rounds over netem delay 20ms rate 100mbit limit
#           1000 with 0.02 % random loss: the loss response
#
# Each module's transfers are pooled per phase and compared:
#
#   goodput   (delay) medians within GP_TOL of the in-tree one
#   RTT       (delay) medians within RTT_TOL of the in-tree one
#   beta      (delay) the median of ssthresh / cwnd at a delay backoff
#             (lib.sh MB_BETA) within BETA_TOL: a wrong backoff_beta
#   backoffs  (delay) delay backoffs in all transfers, ours / in-tree
#             within 1/BO_TOL .. BO_TOL: a wrong backoff probability
#   shadow    (loss) the share of loss reductions that keep more than
#             0.55 of cwnd (the shadow window after a delay backoff):
#             ours at least 1/SHADOW_TOL of the in-tree one and at most
#             SHADOW_TOL times it.  Without the shadow window the share
#             is 0: every loss halves cwnd
#
#   parity.sh [RUNS [SECONDS [LOSS_RUNS]]]   default 16 and 4 rounds of 8 s
#
# Why the delay phase is short and slow, and long: CDG takes a backoff
# decision once per RTT, so a 10 ms path gives twice the decisions of a
# 20 ms one per second, and at 20 Mbit/s the guest spends a fifth of the
# instructions per second of traffic (wall time): there an 8 s transfer
# has 14-37 delay backoffs.  Each transfer is one random draw, and the
# pooled figures of 6 rounds still spread widely between two correct
# modules (RTT medians -17 % to +5 %, backoffs x1.02 to x1.37, four
# seeds), while doubling backoff_factor moved them by only -22 % and
# x1.26: hence 16 rounds.  Random loss makes the backoff count swing with
# the losses drawn, so the delay phase has none.
#
# The guest runs in virtual time (scripts/vm/run.sh): the figures do not
# depend on the host (runs with one seed repeat closely but not bit for
# bit: docs/benchmarks.md, "Virtual time").  The spread is
# CDG's own: its random backoffs and netem's losses, drawn from the
# guest's RNG.  The bounds come from runs with several seeds
# (CDG_VM_SEED) and from three mutants that must fail (backoff_factor=84,
# backoff_beta=870, use_shadow=0: --env CDG_OURS_PARAMS=...);
# docs/reliability.md has the figures.
. "$(dirname "$0")/lib.sh"

runs=${1:-16}
secs=${2:-8}
loss_runs=${3:-4}
GP_TOL=0.30
RTT_TOL=0.15
BETA_TOL=0.03
BO_TOL=1.3
SHADOW_TOL=3

[ -n "$CDG_INTREE" ] || skip_all "no in-tree tcp_cdg in the guest"
ns_pair

declare -A GP RTT BETA BO LOSS ABOVE
# rounds PHASE N: one transfer per module per round, the order alternating
# round by round (a module loaded first starts from the same guest state
# in half the rounds).
rounds() {
	local phase=$1 i m order
	for i in $(seq 1 "$2"); do
		if [ $((i % 2)) = 1 ]; then order="intree ours"; else order="ours intree"; fi
		for m in $order; do
			"cdg_load_$m"
			measure_bulk cdg "$ADDR_S" "$secs"
			diag "$phase $i $m: $(mb_summary cdg)"
			if [ "$MB_CC" != cdg ]; then
				tap_fail "$phase $i $m: the transfer ran cdg" "ss saw '$MB_CC'"
			fi
			if [ "$phase" = delay ]; then
				GP[$m]+="$MB_GOODPUT " RTT[$m]+="$MB_RTT "
				[ "$MB_BETA" = - ] || BETA[$m]+="$MB_BETA "
				BO[$m]=$(( ${BO[$m]:-0} + MB_BACKOFFS ))
			else
				LOSS[$m]=$(( ${LOSS[$m]:-0} + MB_LOSSES ))
				ABOVE[$m]=$(( ${ABOVE[$m]:-0} + MB_LOSS_ABOVE ))
			fi
		done
	done
}
netem_bottleneck 10ms 20mbit 1000
rounds delay "$runs"
netem_bottleneck 20ms 100mbit 1000 loss 0.02%
rounds loss "$loss_runs"
cdg_unload

spread() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }
# Each module's pooled figures: goodput and RTT medians, the median beta,
# and the share of loss reductions above 0.55.
declare -A gp rtt beta sh
# shellcheck disable=SC2086 # lists of numbers
for m in intree ours; do
	gp[$m]=$(median ${GP[$m]}) rtt[$m]=$(median ${RTT[$m]})
	beta[$m]=$(median ${BETA[$m]:-})
	sh[$m]=$(awk -v a="${ABOVE[$m]}" -v n="${LOSS[$m]}" 'BEGIN { printf "%.3f", n ? a / n : 0 }')
	diag "$m: goodput median ${gp[$m]} Mbit/s ($(spread ${GP[$m]})), RTT median ${rtt[$m]} ms ($(spread ${RTT[$m]})), beta median ${beta[$m]}, ${BO[$m]} delay backoffs, ${LOSS[$m]} loss reductions, ${ABOVE[$m]} above 0.55"
done
# within A B TOL: |A - B| <= TOL, as an awk condition
within() { echo "($1 - $2) <= $3 && ($2 - $1) <= $3"; }

perf_check "goodput medians agree within $(awk "BEGIN { print $GP_TOL * 100 }") %: ours ${gp[ours]}, in-tree ${gp[intree]} Mbit/s" \
	"$(within "${gp[ours]}" "${gp[intree]}" "$GP_TOL * ${gp[intree]}")"
perf_check "RTT medians agree within $(awk "BEGIN { print $RTT_TOL * 100 }") %: ours ${rtt[ours]}, in-tree ${rtt[intree]} ms" \
	"$(within "${rtt[ours]}" "${rtt[intree]}" "$RTT_TOL * ${rtt[intree]}")"
if [ "${beta[intree]}" = - ] || [ "${beta[ours]}" = - ]; then
	tap_fail "delay backoffs seen to compare beta" "in-tree ${beta[intree]}, ours ${beta[ours]}"
else
	perf_check "ssthresh/cwnd at a delay backoff within $BETA_TOL: ours ${beta[ours]}, in-tree ${beta[intree]}" \
		"$(within "${beta[ours]}" "${beta[intree]}" "$BETA_TOL")"
fi
perf_check "delay backoffs within x$BO_TOL: ours ${BO[ours]}, in-tree ${BO[intree]}" \
	"${BO[intree]} > 0 && ${BO[ours]} <= $BO_TOL * ${BO[intree]} && ${BO[intree]} <= $BO_TOL * ${BO[ours]}"
perf_check "share of loss reductions above 0.55 of cwnd within x$SHADOW_TOL: ours ${sh[ours]}, in-tree ${sh[intree]}" \
	"${sh[intree]} > 0 && ${sh[ours]} * $SHADOW_TOL >= ${sh[intree]} && ${sh[ours]} <= $SHADOW_TOL * ${sh[intree]}"
tap_end
