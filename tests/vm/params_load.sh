#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# Module parameters at load time (cdg-spec §2): the defaults, every
# parameter set at once, and the edges of the allowed ranges, all read back
# from /sys/module/tcp_cdg/parameters/.  Also: which parameters exist, their
# permissions (window is read-only), and that the module is ours.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"

# The parameters of cdg-spec §2, with their defaults and sysfs modes.
SPEC_PARAMS="backoff_beta backoff_factor hystart_detect use_ineff use_shadow use_tolerance window"
declare -A DEFAULT=(
	[window]=8 [backoff_beta]=724 [backoff_factor]=42 [hystart_detect]=3
	[use_ineff]=5 [use_shadow]=Y [use_tolerance]=N
)
declare -A MODE=(
	[window]=444 [backoff_beta]=644 [backoff_factor]=644 [hystart_detect]=644
	[use_ineff]=644 [use_shadow]=644 [use_tolerance]=644
)
# Ours beyond the spec: each must be opt-in (its default keeps the in-tree
# behaviour).  A parameter in neither list fails the test, so that a new
# one gets its default reviewed here.
declare -A EXTRA_DEFAULT=([backoff_drain]=N [no_extrapolate]=N [ref_rtt_us]=0 [compete]=0)
declare -A EXTRA_MODE=([backoff_drain]=644 [no_extrapolate]=644 [ref_rtt_us]=644 [compete]=644)
for p in "${!EXTRA_DEFAULT[@]}"; do
	DEFAULT[$p]=${EXTRA_DEFAULT[$p]} MODE[$p]=${EXTRA_MODE[$p]}
done

check_params() {	# check_params WHAT NAME=VALUE...: one line per parameter
	local what=$1 kv got
	shift
	for kv in "$@"; do
		got=$(cdg_param "${kv%%=*}" 2>&1) || got="(unreadable: $got)"
		tap_eq "$what: ${kv%%=*} reads ${kv#*=}" "$got" "${kv#*=}"
	done
}

cdg_unload
tap_eq "no tcp_cdg loaded at start" "$(cdg_which)" none

out=$(insmod "$CDG_KO" 2>&1) || true
tap_eq "insmod with defaults loads ours (version $CDG_VERSION)" "$(cdg_which)" ours
[ -z "$out" ] || diag "insmod: $out"
PARAMS=$(ls "$CDG_PARAMS" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')
missing=
for p in $SPEC_PARAMS; do [[ " $PARAMS " == *" $p "* ]] || missing+="$p "; done
tap_eq "every parameter of the spec is in sysfs ($PARAMS)" "$missing" ""
unknown=
for p in $PARAMS; do [ -n "${DEFAULT[$p]:-}" ] || unknown+="$p "; done
tap_eq "no parameter without a reviewed default" "$unknown" ""
tap_eq "modinfo lists the same parameters" \
	"$(modinfo -F parm "$CDG_KO" | cut -d: -f1 | sort | tr '\n' ' ' | sed 's/ $//')" "$PARAMS"

defaults=()
for p in $PARAMS; do defaults+=("$p=${DEFAULT[$p]:-?}"); done
check_params defaults "${defaults[@]}"

for p in $PARAMS; do
	tap_eq "$p has mode ${MODE[$p]:-?}" "$(stat -c %a "$CDG_PARAMS/$p" 2>&1)" "${MODE[$p]:-?}"
done
tap_match "cdg registered" "$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)" '(^| )cdg( |$)'

# Every parameter away from its default, at once.
all="window=16 backoff_beta=512 backoff_factor=100 hystart_detect=1 use_ineff=0 use_shadow=0 use_tolerance=1 backoff_drain=1 no_extrapolate=1 ref_rtt_us=20000 compete=1"
cdg_unload
# shellcheck disable=SC2086
if out=$(insmod "$CDG_KO" $all 2>&1); then
	tap_ok "insmod $all"
else
	tap_fail "insmod $all" "$out"
fi
check_params "all set" window=16 backoff_beta=512 backoff_factor=100 \
	hystart_detect=1 use_ineff=0 use_shadow=N use_tolerance=Y backoff_drain=Y no_extrapolate=Y \
	ref_rtt_us=20000 compete=1

# The edges of the ranges of §2 are accepted, not off by one.
for edge in window=1 window=256 "window=2 backoff_beta=0" backoff_beta=1024 \
	    hystart_detect=0 hystart_detect=3 use_ineff=0 use_shadow=1 use_tolerance=0; do
	cdg_unload
	# shellcheck disable=SC2086
	if out=$(insmod "$CDG_KO" $edge 2>&1); then
		# shellcheck disable=SC2086,SC2046 # split into NAME=VALUE words
		check_params "edge $edge" $(echo $edge | sed 's/use_shadow=1/use_shadow=Y/; s/use_tolerance=0/use_tolerance=N/')
	else
		tap_fail "insmod $edge accepted" "$out"
	fi
done

cdg_unload
tap_eq "unloaded at the end" "$(cdg_which)" none
tap_nomatch "cdg no longer registered" "$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)" '(^| )cdg( |$)'
tap_end
