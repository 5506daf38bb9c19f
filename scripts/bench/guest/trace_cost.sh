#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/bench/trace-cost.sh (a benchmark, not a test): the
# per-ACK CPU cost of our module built with its tracepoints (disabled, then
# enabled) and built without them (-DNOTRACE, /out/tcp_cdg-notrace.ko),
# measured in one boot, variants interleaved round by round so that drift
# of the TCG guest's speed hits them alike.
#
# Cost per ACK = non-idle CPU time of the guest (/proc/stat) / ACK segments
# the sender received (TcpInSegs), over an unshaped veth transfer without
# segmentation offloads that keeps both vCPUs busy.  Prints "# bench: VARIANT ROUND us_per_ack acks".
. "$(dirname "$0")/../../../tests/vm/lib.sh"

notrace=/out/tcp_cdg-notrace.ko
[ -f "$notrace" ] || skip_all "no $notrace (run scripts/bench/trace-cost.sh)"
rounds=${1:-4}
secs=${2:-4}
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T

ns_pair
# One ACK per one or two MTU-sized segments: no TSO/GSO/GRO on either end,
# so that the flow is CPU-bound on ACK processing, not on 64 KB copies.
for end in "$NS_C veth_c" "$NS_S veth_s"; do
	set -- $end
	nsx "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1 ||
		ip -n "$1" link set "$2" gso_max_segs 1 gso_max_size 1500
done
cleanup_add "echo 0 > $T/events/tcp_cdg/enable"

busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
insegs() { nsx "$NS_C" nstat -az TcpInSegs | awk '$1 == "TcpInSegs" { print $2 }'; }

measure() {	# measure VARIANT ROUND
	local b0 b1 a0 a1 hz
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	b0=$(busy); a0=$(insegs)
	measure_bulk cdg "$ADDR_S" "$secs"
	b1=$(busy); a1=$(insegs)
	awk -v v="$1" -v r="$2" -v b=$((b1 - b0)) -v a=$((a1 - a0)) -v hz="$hz" -v g="$MB_GOODPUT" \
		'BEGIN { printf "# bench: %s %d %.3f %d %s\n", v, r, b * 1e6 / hz / a, a, g }'
}

for r in $(seq 1 "$rounds"); do
	cdg_unload; insmod "$notrace"
	measure notrace "$r"
	cdg_load_ours
	measure tp-off "$r"
	echo 1 > $T/events/tcp_cdg/enable
	measure tp-on "$r"
	echo 0 > $T/events/tcp_cdg/enable
	: > $T/trace
done
cdg_unload
tap_ok "trace cost: $rounds rounds measured"
tap_end
