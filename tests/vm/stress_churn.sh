#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# Churn: 20,000 short cdg connections (connect, send 1,000 bytes, close),
# then 50 connections that switch congestion control every 50 ms
# (cdg -> cubic -> cdg ...) while sending through netem.  Every connection
# succeeds, the Sockets counter counts exactly one init per connection and
# per switch to cdg, and after all close the slab is back to baseline and
# the module unloads.  window=256 makes each ring a kmalloc-2k object.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
shorts=${STRESS_SHORT:-20000}	# a multiple of 4
ulimit -n 65536

cdg_load_ours window=256
ns_pair
# The server closes first: TIME_WAIT stays off the client's ports.
churn_server 5001 1000
churn_server 5002

base=$(slab_active kmalloc-2k)

# Four clients at once: both vCPUs busy, half the wall time of one.  Wait
# for the clients only: a bare wait would also wait for the servers.
pids=
for i in 1 2 3 4; do
	nsx "$NS_C" churn short "$ADDR_S" 5001 $((shorts / 4)) 1000 cdg > /tmp/short.$i &
	pids="$pids $!"
done
# shellcheck disable=SC2086	# a list of pids
wait $pids || true
out=$(cat /tmp/short.[1-4])
diag "short: $out"
tap_eq "$shorts short connections, no error" \
	"$(echo "$out" | awk '{ d += $4; e += $6 } END { print d "/" e }')" "$shorts/0"
tap_eq "Sockets counter: one init per connection" "$(cdg_counter "$NS_C" Sockets)" "$shorts"

netem_bottleneck 10ms 100mbit 1000
s0=$(cdg_counter "$NS_C" Sockets)
out=$(nsx "$NS_C" churn bulk "$ADDR_S" 5002 50 10 cdg 50) || true
diag "switch: $out"
tap_eq "50 switching connections, no error" "$(echo "$out" | awk '{ print $2 "/" $NF }')" "50/0"
tap_eq "every switching connection made progress" "$(echo "$out" | awk '{ print $4 }')" 50
to_cc=$(echo "$out" | awk '{ print $12 }')
# Every connection went cdg -> cubic -> cdg at least once; how many more
# times depends on the machine's speed (5000 switches back on Debian's
# kernel here, 100 under KASAN): a figure, not a rule.
if [ "${to_cc:-0}" -ge 50 ]; then tap_ok "$to_cc switches back to cdg (>= 50)"
else tap_fail "only ${to_cc:-0} switches back to cdg, want >= 50"; fi
perf_check "$to_cc switches back to cdg in 10 s, >= 1000" "${to_cc:-0} >= 1000"
tap_eq "Sockets counter: one init per connection and per switch to cdg" \
	"$(( $(cdg_counter "$NS_C" Sockets) - s0 ))" "$((50 + to_cc))"

ns_wait_closed "$NS_C" || true
sleep 2	# closed sockets are freed after an RCU grace period
tap_slab_back "after all closed" kmalloc-2k "$base"
tap_cmd "rmmod after the last connection closed" cdg_unload
tap_end
