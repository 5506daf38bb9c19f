#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile paths: heavy reordering, duplication, corruption, jitter larger
# than the RTT, 30 % loss, a link that goes down for 5 s and returns, an
# RTT that jumps from 5 ms to 500 ms.  On each, two cdg connections must
# survive and make progress, and CDG's tracepoints must show sane windows:
# every ssthresh CDG returns is >= 2, and cwnd stays within [1, 10000]
# (1 only after a retransmission timeout: that is tcp_enter_loss(), not
# CDG).  The harness fails the test on any kernel warning.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
need_tracefs
ulimit -n 65536

cdg_load_ours
ns_pair
netem_bottleneck 10ms 100mbit 1000
churn_server 5001
cleanup_add "echo 0 > $T/events/tcp_cdg/enable"

netem() { ip netns exec "$NS_C" tc qdisc change dev veth_c root netem "$@"; }

# path NAME SECONDS [ACTION]: traffic for SECONDS on the current netem
# settings; ACTION (a function) runs in the background meanwhile.
path() {
	local name=$1 secs=$2 act=${3:-} out stats apid=
	echo 8192 > $T/buffer_size_kb
	: > $T/trace
	echo 1 > $T/events/tcp_cdg/enable
	if [ -n "$act" ]; then "$act" & apid=$!; fi
	out=$(nsx "$NS_C" churn bulk "$ADDR_S" 5001 2 "$secs" cdg 2>&1) || true
	[ -z "$apid" ] || wait "$apid" || true
	echo 0 > $T/events/tcp_cdg/enable
	stats=$(awk '
		function f(k,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } }
		/ cdg_round: / { c = f("cwnd"); n++; if (c < 1 || c > 10000) badc++; if (c == 1) one++; if (c > maxc) maxc = c }
		/ cdg_loss: / { s = f("ssthresh"); l++; if (s < 2) bads++ }
		END { printf "%d %d %d %d %d %d", n, badc, one, maxc, l, bads }' $T/trace)
	set -- $stats
	diag "$name: $out"
	diag "$name: rounds $1, cwnd max $4, rounds at cwnd 1: $3, ssthresh decisions $5"
	tap_eq "$name: 2 connections survive and progress" \
		"$(echo "$out" | awk '/^connections/ { print $4 "/" $NF }')" "2/0"
	tap_eq "$name: cwnd within [1, 10000] in all $1 rounds, ssthresh >= 2 in all $5 decisions" \
		"$2/$6" "0/0"
}

netem delay 10ms rate 100mbit limit 1000 reorder 25% 50%
path "reorder 25%" 5
netem delay 10ms rate 100mbit limit 1000 duplicate 5%
path "duplicate 5%" 5
netem delay 10ms rate 100mbit limit 1000 corrupt 1%
path "corrupt 1%" 5
netem delay 20ms 40ms rate 100mbit limit 1000
path "jitter 40 ms on 20 ms" 5
netem delay 10ms rate 100mbit limit 1000 loss 30%
path "loss 30%" 8
netem delay 10ms rate 100mbit limit 1000
link_flap() { sleep 2; ip -n "$NS_C" link set veth_c down; sleep 5; ip -n "$NS_C" link set veth_c up; }
path "link down for 5 s" 12 link_flap
# (The flap flushed the IPv6 addresses, keep_addr_on_down=0: IPv4 only here.)
netem delay 5ms rate 100mbit limit 1000
rtt_jump() { sleep 3; netem delay 500ms rate 100mbit limit 10000; }
path "RTT 5 ms -> 500 ms" 10 rtt_jump
tap_end
