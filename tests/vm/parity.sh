#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-exclusive: measures goodput and RTT
# vm-timeout: 600
#
# Parity with the reference (cdg-spec preamble: "a user who swaps Debian's
# in-tree tcp_cdg.ko for ours sees the same congestion behaviour"): one
# bottleneck (netem delay 20ms rate 100mbit limit 1000, and a random loss
# of 0.02 % so that the loss response is exercised as well as the delay
# backoff), the same bulk transfer with cdg, alternately with Debian's
# in-tree module and with ours, swapped by rmmod + insmod in one boot.
# Each module's transfers are pooled and compared:
#
#   goodput   medians within GP_TOL of the in-tree one
#   RTT       medians within RTT_TOL_MS
#   beta      the median of ssthresh / cwnd at a delay backoff (lib.sh
#             MB_BETA) within BETA_TOL: catches a wrong backoff_beta
#   backoffs  delay backoffs in all transfers, ours / in-tree within
#             1/BO_TOL .. BO_TOL: catches a wrong backoff probability
#   shadow    the share of loss reductions that keep more than 0.55 of
#             cwnd (the shadow window after a delay backoff) within
#             SHADOW_TOL: catches a loss response without the shadow
#
#   parity.sh [RUNS [SECONDS]]      default 6 runs of 8 s per module
#
# The guest runs in virtual time (scripts/vm/run.sh): the figures do not
# depend on the host, and with one seed a run repeats bit for bit, so the
# verdict of a given commit is the same on every run.  The spread below
# is CDG's own: its random backoffs, drawn from the guest's RNG.
# Tolerances are from runs with several seeds (CDG_VM_SEED) and from three
# mutants that must fail (backoff_factor=84, backoff_beta=870,
# use_shadow=0: --env CDG_OURS_PARAMS=...); docs/reliability.md has the
# figures.
. "$(dirname "$0")/lib.sh"

runs=${1:-6}
secs=${2:-8}
GP_TOL=0.30
RTT_TOL_MS=1
BETA_TOL=0.03
BO_TOL=1.5
SHADOW_TOL=0.25

[ -n "$CDG_INTREE" ] || skip_all "no in-tree tcp_cdg in the guest"
ns_pair
netem_bottleneck 20ms 100mbit 1000 loss 0.02%

declare -A GP RTT BETA BO LOSS ABOVE
# One transfer per module per round, the order alternating round by round
# (a module loaded first starts from the same guest state in half the
# rounds).
for i in $(seq 1 "$runs"); do
	if [ $((i % 2)) = 1 ]; then order="intree ours"; else order="ours intree"; fi
	for m in $order; do
		"cdg_load_$m"
		measure_bulk cdg "$ADDR_S" "$secs"
		diag "run $i $m: $(mb_summary cdg)"
		if [ "$MB_CC" != cdg ]; then
			tap_fail "run $i $m: the transfer ran cdg" "ss saw '$MB_CC'"
		fi
		GP[$m]+="$MB_GOODPUT " RTT[$m]+="$MB_RTT "
		[ "$MB_BETA" = - ] || BETA[$m]+="$MB_BETA "
		BO[$m]=$(( ${BO[$m]:-0} + MB_BACKOFFS ))
		LOSS[$m]=$(( ${LOSS[$m]:-0} + MB_LOSSES ))
		ABOVE[$m]=$(( ${ABOVE[$m]:-0} + MB_LOSS_ABOVE ))
	done
done
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
perf_check "RTT medians agree within $RTT_TOL_MS ms: ours ${rtt[ours]}, in-tree ${rtt[intree]} ms" \
	"$(within "${rtt[ours]}" "${rtt[intree]}" "$RTT_TOL_MS")"
if [ "${beta[intree]}" = - ] || [ "${beta[ours]}" = - ]; then
	tap_fail "delay backoffs seen to compare beta" "in-tree ${beta[intree]}, ours ${beta[ours]}"
else
	perf_check "ssthresh/cwnd at a delay backoff within $BETA_TOL: ours ${beta[ours]}, in-tree ${beta[intree]}" \
		"$(within "${beta[ours]}" "${beta[intree]}" "$BETA_TOL")"
fi
perf_check "delay backoffs within x$BO_TOL: ours ${BO[ours]}, in-tree ${BO[intree]}" \
	"${BO[intree]} > 0 && ${BO[ours]} <= $BO_TOL * ${BO[intree]} && ${BO[intree]} <= $BO_TOL * ${BO[ours]}"
perf_check "share of loss reductions above 0.55 of cwnd within $SHADOW_TOL: ours ${sh[ours]}, in-tree ${sh[intree]}" \
	"${LOSS[intree]} > 0 && ${LOSS[ours]} > 0 && $(within "${sh[ours]}" "${sh[intree]}" "$SHADOW_TOL")"
tap_end
