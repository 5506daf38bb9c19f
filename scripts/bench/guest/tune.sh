#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/bench/tune.sh (an experiment, not a test): bulk
# transfers over one netem path for a list of variants, interleaved
# round by round.  A variant is NAME:CC[:PARAM=VALUE,...]; the parameters
# are written to our module's sysfs before the run; window, read-only at
# run time, reloads the module when it changes.  Prints
#   # tune: NAME ROUND goodput_mbit rtt_p50_ms rtt_p90_ms retrans
#
#   tune.sh DELAY RATE LIMIT SECONDS ROUNDS VARIANT...
. "$(dirname "$0")/../../../tests/vm/lib.sh"

[ $# -ge 6 ] || { tap_fail "usage: tune.sh DELAY RATE LIMIT SECONDS ROUNDS VARIANT..."; tap_end; }
delay=$1 rate=$2 limit=$3 secs=$4 rounds=$5
shift 5
cdg_load_ours
ns_pair
netem_bottleneck "$delay" "$rate" "$limit"
defaults="window=8,backoff_beta=724,backoff_factor=42,hystart_detect=3,use_ineff=5,use_shadow=Y,use_tolerance=N,backoff_drain=N,no_extrapolate=N,ref_rtt_us=0"

set_params() {
	local kv
	# window first: a reload resets every other parameter.
	for kv in ${1//,/ }; do
		case $kv in
		window=*) [ "$(cdg_param window)" = "${kv#*=}" ] || cdg_load_ours "$kv" ;;
		esac
	done
	for kv in ${1//,/ }; do
		case $kv in
		window=*) ;;
		*) echo "${kv#*=}" > "$CDG_PARAMS/${kv%%=*}" ;;
		esac
	done
}

for r in $(seq 1 "$rounds"); do
	for v in "$@"; do
		IFS=: read -r name cc params <<< "$v"
		set_params "$defaults"
		[ -z "$params" ] || set_params "$params"
		if measure_bulk "$cc" "$ADDR_S" "$secs"; then
			echo "# tune: $name $r $MB_GOODPUT $MB_RTT $MB_RTT_P90 $MB_RETRANS"
		else
			echo "# tune: $name $r failed"
		fi
	done
done
tap_ok "tune: $rounds rounds of $# variants"
tap_end
