#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# Scale: 1,000 concurrent cdg connections through one netem bottleneck for
# STRESS_SECS (default 30) seconds.  All must make progress and none may
# fail, each must have its gradient ring (window=256: a 2 KiB ring, so
# kmalloc-2k grows by about 1,000 objects while they live), and after they
# close the slab is back to its baseline and the module unloads: no ring
# and no reference leaked.
#
# The bottleneck is a router's egress, not the senders' own qdisc as
# lib.sh's netem_bottleneck sets it up:
#
#   $NS_C veth_c 198.18.0.1 -- veth_rc .0.254  $NS_R  .1.254 veth_rs [netem] -- veth_s 198.18.1.2 $NS_S
#
# A full queue on the sender's own device is a *local* drop: the
# socket's transmit fails (NET_XMIT_DROP), and a socket with nothing in
# flight then probes every 500 ms (tcp_send_probe0(), "local
# congestion", no backoff) and gives up with ETIMEDOUT after tcp_retries2
# = 15 failed probes with no ACK between them (tcp_probe_timer()).  With
# 1,000 flows in a 2,000-packet queue, which is full nearly all the time,
# that happened to 0-22 flows per minute (docs/reliability.md).  A router
# drops what it cannot queue without telling the sender, as a real path
# does; the sender sees loss and recovers, and a correct module loses no
# connection.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
conns=${STRESS_CONNS:-1000}
secs=${STRESS_SECS:-30}
ulimit -n 65536

cdg_load_ours window=256
require_mod veth tcp_diag sch_netem
NS_R=cdg-router
SRV=198.18.1.2
ns_add "$NS_C"
ns_add "$NS_S"
ns_add "$NS_R"
ip link add veth_c netns "$NS_C" type veth peer name veth_rc netns "$NS_R"
ip link add veth_s netns "$NS_S" type veth peer name veth_rs netns "$NS_R"
ip -n "$NS_C" addr add 198.18.0.1/24 dev veth_c
ip -n "$NS_R" addr add 198.18.0.254/24 dev veth_rc
ip -n "$NS_R" addr add 198.18.1.254/24 dev veth_rs
ip -n "$NS_S" addr add "$SRV/24" dev veth_s
for l in "$NS_C veth_c" "$NS_R veth_rc" "$NS_R veth_rs" "$NS_S veth_s"; do
	read -r ns dev <<< "$l"
	ip -n "$ns" link set "$dev" up
done
ip -n "$NS_C" route add default via 198.18.0.254
ip -n "$NS_S" route add default via 198.18.1.254
nsx "$NS_R" sysctl -qw net.ipv4.ip_forward=1
# One segment per skb from the senders (netem counts skbs), and a deep
# per-CPU backlog (see netem_bottleneck in lib.sh).
ip -n "$NS_C" link set veth_c gso_max_segs 1 gso_max_size 1500
sysctl -qw net.core.netdev_max_backlog=30000
nsx "$NS_R" tc qdisc replace dev veth_rs root netem delay 10ms rate 100mbit limit 2000
for i in $(seq 1 50); do
	nsx "$NS_C" ping -c 1 -W 1 "$SRV" >/dev/null 2>&1 && break
	[ "$i" -lt 50 ] || { tap_fail "no route from $NS_C to $SRV"; tap_end; }
	sleep 0.1
done
churn_server 5001

settle() {	# until no full socket is left (orphans drain their data)
	ns_wait_closed "$NS_C" 60 || true
	diag "sockets left: $(ss -N "$NS_C" -Htan | awk '{ print $1 }' | sort | uniq -c | tr '\n' ' ')"
	sleep 2
}

base=$(slab_active kmalloc-2k)
nsx "$NS_C" churn bulk "$SRV" 5001 "$conns" "$secs" cdg > /tmp/scale.out &
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

rdrops=$(nsx "$NS_R" tc -s qdisc show dev veth_rs | awk '/dropped/ { gsub(/[(),]/, ""); for (i = 1; i <= NF; i++) if ($i == "dropped") print $(i + 1); exit }')
diag "router: netem dropped ${rdrops:-?} packets; full per-CPU backlogs dropped $(softnet_drops)"
# 1,000 flows share 100 Mbit/s through a 2,000-packet queue: every flow
# sees losses and RTOs (TCPTimeouts in the hundreds), and TCP recovers
# from each.  Giving up needs tcp_retries2 = 15 backed-off RTOs, about 15
# minutes; the local-drop abort above cannot happen here.  So any error
# is a failure.
errors=$(echo "$out" | awk '{ print $NF }')
tap_eq "$conns connections, no error (TCP aborts: ${aborts:-0})" "$errors/${aborts:-0}" "0/0"
tap_eq "every connection made progress" \
	"$(echo "$out" | awk '{ print $4 }')" "$conns"
tap_eq "ss sees every connection established with cdg mid-run" "$live" "$conns"
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
