#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module life under traffic: rmmod in a loop while cdg flows run (always
# "in use", never a crash), runtime parameter writes racing with the
# traffic: every parameter sysfs lets root write (all but window, which is
# 0444), the opt-ins backoff_drain, no_extrapolate, ref_rtt_us and
# compete included, each to its bounds and back (backoff_factor=0, backoff_beta=0,
# use_ineff=0, ref_rtt_us=10000000, ...); the test fails if the module
# has a writable parameter the list below does not race.  Then unload
# right after the last connection closes, reload with other parameters,
# and traffic again.  The harness fails the test on any kernel warning.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
secs=${STRESS_SECS:-15}
ulimit -n 65536

cdg_load_ours
ns_pair
netem_bottleneck 10ms 100mbit 1000
churn_server 5001

nsx "$NS_C" churn bulk "$ADDR_S" 5001 20 "$secs" cdg > /tmp/bulk.out &
client=$!
sleep 1

# rmmod while busy: every attempt must fail with "in use".
declare -A last
tries=0 busy=0 gone=0
writes=0 bad=0
values=(
	"backoff_factor 0" "backoff_factor 1000000" "backoff_factor 42"
	"backoff_beta 0" "backoff_beta 1024" "backoff_beta 724"
	"use_ineff 0" "use_ineff 255" "use_ineff 5"
	"hystart_detect 0" "hystart_detect 1" "hystart_detect 2" "hystart_detect 3"
	"use_shadow N" "use_shadow Y" "use_tolerance Y" "use_tolerance N"
	"backoff_drain Y" "backoff_drain N"
	"no_extrapolate Y" "no_extrapolate N"
	"ref_rtt_us 10000000" "ref_rtt_us 1" "ref_rtt_us 20000" "ref_rtt_us 0"
	"compete 1" "compete 0"
)
# Every parameter root may write must be in the race: a knob added to the
# module later fails here until it is.
raced=$(printf '%s\n' "${values[@]}" | awk '{ print $1 }' | sort -u | tr '\n' ' ')
# shellcheck disable=SC2012 # sysfs parameter names are plain words
writable=$(ls -l "$CDG_PARAMS" | awk '$1 ~ /^-.w/ { print $NF }' | sort | tr '\n' ' ')
tap_eq "the race writes every writable parameter: $writable" "$raced" "$writable"

while kill -0 "$client" 2>/dev/null; do
	tries=$((tries + 1))
	if out=$(rmmod tcp_cdg 2>&1); then
		gone=1
		break
	fi
	[[ $out == *"in use"* ]] && busy=$((busy + 1))
	for v in "${values[@]}"; do
		read -r name val <<< "$v"
		if echo "$val" > "$CDG_PARAMS/$name" 2>/dev/null; then
			writes=$((writes + 1))
		else
			bad=$((bad + 1))
		fi
	done
done
wait "$client" || true
out=$(cat /tmp/bulk.out)
diag "bulk: $out"
diag "rmmod attempts $tries (in use: $busy), parameter writes $writes (refused $bad)"
tap_eq "rmmod during traffic: never succeeds" "$gone" 0
if [ "$tries" -ge 10 ] && [ "$busy" -eq "$tries" ]; then
	tap_ok "rmmod during traffic: $tries attempts, all 'in use'"
else
	tap_fail "rmmod during traffic: $tries attempts, $busy said 'in use'"
fi
tap_eq "runtime writes racing with traffic: all accepted" "$bad" 0
# The list ends each knob on its default: what was written last reads back.
want='' got=''
for v in "${values[@]}"; do
	read -r name val <<< "$v"
	last[$name]=$val
done
for name in $raced; do
	want+="$name=${last[$name]} " got+="$name=$(cdg_param "$name") "
done
tap_eq "every raced parameter reads back its last write" "$got" "$want"
tap_eq "traffic survived: 20 connections progressed, no error" \
	"$(echo "$out" | awk '{ print $4 "/" $NF }')" "20/0"

# Unload right after the last connection is gone.
ns_wait_closed "$NS_C" || true
tap_cmd "unload right after the last connection closed" rmmod tcp_cdg

tap_cmd "reload with window=32 backoff_beta=900 use_tolerance=1" \
	insmod "$CDG_KO" window=32 backoff_beta=900 use_tolerance=1
tap_eq "reloaded parameters read back" \
	"$(cdg_param window)/$(cdg_param backoff_beta)/$(cdg_param use_tolerance)" "32/900/Y"
out=$(nsx "$NS_C" churn bulk "$ADDR_S" 5001 10 3 cdg) || true
tap_eq "traffic after reload: 10 connections progressed, no error" \
	"$(echo "$out" | awk '{ print $4 "/" $NF }')" "10/0"
ns_wait_closed "$NS_C" || true
tap_cmd "final unload" cdg_unload
tap_end
