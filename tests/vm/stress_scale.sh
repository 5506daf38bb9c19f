#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# Scale: 1,000 concurrent cdg connections through one netem bottleneck for
# STRESS_SECS (default 60) seconds.  All must make progress, each must have
# its gradient ring (window=256: a 2 KiB ring, so kmalloc-2k grows by about
# 1,000 objects while they live), and after they close the slab is back to
# its baseline and the module unloads: no ring and no reference leaked.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
conns=${STRESS_CONNS:-1000}
secs=${STRESS_SECS:-60}
ulimit -n 65536

cdg_load_ours window=256
ns_pair
netem_bottleneck 10ms 100mbit 2000
churn_server 5001

settle() {	# until no full socket is left (orphans drain their data)
	ns_wait_closed "$NS_C" 60 || true
	diag "sockets left: $(ss -N "$NS_C" -Htan | awk '{ print $1 }' | sort | uniq -c | tr '\n' ' ')"
	sleep 2
}

base=$(slab_active kmalloc-2k)
nsx "$NS_C" churn bulk "$ADDR_S" 5001 "$conns" "$secs" cdg > /tmp/scale.out &
client=$!
sleep $((secs / 2))
mid=$(slab_active kmalloc-2k)
live=$(ss -N "$NS_C" -Htin state established "dport = :5001" | grep -c ' cdg ' || true)
wait "$client" || true
out=$(cat /tmp/scale.out)
diag "churn: $out"
diag "kmalloc-2k: baseline $base, mid-run $mid"

tap_eq "$conns connections, no error" \
	"$(echo "$out" | awk '{ print $2 "/" $NF }')" "$conns/0"
tap_eq "every connection made progress" \
	"$(echo "$out" | awk '{ print $4 }')" "$conns"
tap_eq "ss sees $conns established cdg sockets mid-run" "$live" "$conns"
tap_eq "Sockets counter: $conns" "$(cdg_counter "$NS_C" Sockets)" "$conns"
tap_eq "RingAllocFail: 0" "$(cdg_counter "$NS_C" RingAllocFail)" 0
if [ "$((mid - base))" -ge $((conns * 9 / 10)) ]; then
	tap_ok "kmalloc-2k grew by $((mid - base)) objects: one ring per socket"
else
	tap_fail "kmalloc-2k grew by $((mid - base)) objects, want >= $((conns * 9 / 10))"
fi
settle
tap_slab_back "after close" kmalloc-2k "$base"
tap_cmd "rmmod after the last connection closed" cdg_unload
tap_end
