#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# Scale: 1,000 concurrent cdg connections through one netem bottleneck for
# STRESS_SECS (default 30) seconds.  All must make progress, each must have
# its gradient ring (window=256: a 2 KiB ring, so kmalloc-2k grows by about
# 1,000 objects while they live), and after they close the slab is back to
# its baseline and the module unloads: no ring and no reference leaked.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
conns=${STRESS_CONNS:-1000}
secs=${STRESS_SECS:-30}
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
# Which TCP timer or event ended a connection, if one did.
nst() { nsx "$1" nstat -az "${@:2}" | awk '$2 > 0 { printf "%s=%s ", $1, $2 }'; }
diag "client: $(nst "$NS_C" 'TcpExtTCPAbortOn*' TcpExtTCPTimeouts TcpExtTCPWinProbe)"
diag "server: $(nst "$NS_S" 'TcpExtTCPAbortOn*' TcpExtListenOverflows TcpExtListenDrops)"
aborts=$(nsx "$NS_C" nstat -az TcpExtTCPAbortOnTimeout |
	awk '$1 == "TcpExtTCPAbortOnTimeout" { print $2 }')

# 1,000 flows share 100 Mbit/s through a 2,000-packet queue on a TCG
# guest: every flow sees RTOs (TCPTimeouts runs to 100-400).  On Debian's
# 6.12, and only there, TCP itself gives up on some connections within the
# minute (ETIMEDOUT, counted as TcpExtTCPAbortOnTimeout): 0 to 13 of 1,000
# in CI runs, after each had sent 260 KB or more (docs/reliability.md,
# still open).  Those pass when the counter accounts for every error and
# each connection made progress first; any other error fails.
errors=$(echo "$out" | awk '{ print $NF }')
if [ "$errors" -eq 0 ]; then
	tap_ok "$conns connections, no error"
elif [ "${aborts:-0}" -ge "$errors" ] && [ "$errors" -le $((conns / 20)) ]; then
	tap_ok "$conns connections, $errors aborted by TCP's own retransmission timeout"
else
	tap_fail "$conns connections: $errors errors, $aborts of them TCP timeouts" "$out"
fi
tap_eq "every connection made progress" \
	"$(echo "$out" | awk '{ print $4 }')" "$conns"
# Less any that TCP had already aborted (above) by then.
if [ "$live" -le "$conns" ] && [ "$live" -ge $((conns - ${aborts:-0})) ]; then
	tap_ok "ss sees $live established cdg sockets mid-run (of $conns, ${aborts:-0} aborted)"
else
	tap_fail "ss sees $live established cdg sockets mid-run, want $conns less ${aborts:-0} aborted"
fi
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
