#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /proc/net/stat/tcp_cdg: one file per network namespace, counters that
# start at zero, count only their own namespace, and move as the scenario
# built for each one makes them move.  Each counter is checked against an
# independent witness: the tracepoints (rounds, backoffs, suppressed
# backoffs, shadow restores, tolerated losses) or the kernel's own TcpExt
# HyStart counters.  RingAllocFail and RingAllocLate need fault injection:
# the unit tests and fault_ring.sh cover them, here they must stay 0.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
need_tracefs

NAMES="Sockets RingAllocFail RingAllocLate Rounds Backoffs BackoffsIneffectual ShadowRestores HystartTrainExits HystartDelayExits LossesTolerated CompeteEnters CompeteExits CompeteProbes"

cdg_load_ours
stat_file=/proc/net/stat/tcp_cdg
tap_eq "$stat_file lists the counters in order" \
	"$(awk '{ print $1 }' $stat_file | tr '\n' ' ' | sed 's/ $//')" "$NAMES"

ns_pair
netem_bottleneck 20ms 100mbit 1000
cleanup_add "echo 0 > $T/events/tcp_cdg/enable"

tap_eq "a new namespace starts at zero" \
	"$(nsx "$NS_C" awk '{ s += $2 } END { print s + 0 }' $stat_file)" 0

init0=$(tr "\n" " " < $stat_file)

# traced CC SECONDS: one bulk transfer with the tcp_cdg events recorded in
# /tmp/t.txt; counters before it in /tmp/c0, after it in /tmp/c1.
traced() {
	nsx "$NS_C" cat $stat_file > /tmp/c0
	echo 8192 > $T/buffer_size_kb
	: > $T/trace
	echo 1 > $T/events/tcp_cdg/enable
	measure_bulk "$1" "$ADDR_S" "$2"
	echo 0 > $T/events/tcp_cdg/enable
	grep -v '^#' $T/trace > /tmp/t.txt || true
	nsx "$NS_C" cat $stat_file > /tmp/c1
	diag "$(mb_summary "$1")"
}
delta() { awk -v k="$1" 'FNR == NR { a[$1] = $2; next } $1 == k { print $2 - a[k] }' /tmp/c0 /tmp/c1; }
events() { grep -c " $1: .*${2:-}" /tmp/t.txt || true; }

# check NAME WITNESS [min]: the counter moved exactly as its witness says.
check() {
	local d
	d=$(delta "$1")
	tap_eq "$1 (+$d) agrees with $3" "$d" "$2"
	if [ -n "${4:-}" ] && [ "$d" -lt "$4" ]; then
		tap_fail "$1 moved by $d in a scenario built for it, want >= $4"
	fi
}

# 1. A plain bulk flow on a deep buffer: sockets, rounds, backoffs, HyStart.
hy0=$(nsx "$NS_C" nstat -az TcpExtTCPHystartTrainDetect TcpExtTCPHystartDelayDetect |
	awk '/Hystart/ { s += $2 } END { print s + 0 }')
traced cdg 6
hy1=$(nsx "$NS_C" nstat -az TcpExtTCPHystartTrainDetect TcpExtTCPHystartDelayDetect |
	awk '/Hystart/ { s += $2 } END { print s + 0 }')
# iperf3 -C sets cdg on the data socket only; its control socket is cubic.
check Sockets 1 "one iperf3 data socket"
check Rounds "$(events cdg_round)" "cdg_round events" 50
check Backoffs "$(events cdg_backoff 'backoff=1 suppressed=0')" "cdg_backoff events that backed off"
tap_eq "HyStart exits agree with TcpExt HyStart counters" \
	"$(( $(delta HystartTrainExits) + $(delta HystartDelayExits) ))" "$((hy1 - hy0))"
check RingAllocFail 0 "no allocation failure without fault injection"
check RingAllocLate 0 "no allocation failure without fault injection"
# The server applies iperf3's -C to its end too, but only receives: it has
# a cdg socket and no RTT rounds.  Its counters are its own.
tap_eq "the server's namespace: one cdg socket, no rounds, no backoffs" \
	"$(cdg_counter "$NS_S" Sockets)/$(cdg_counter "$NS_S" Rounds)/$(cdg_counter "$NS_S" Backoffs)" "1/0/0"
tap_eq "the initial namespace counted nothing" \
	"$(tr "\n" " " < $stat_file)" "$init0"

# 2. Back off on every positive gradient, tolerate one ineffectual backoff.
echo 1000000 > $CDG_PARAMS/backoff_factor
echo 1 > $CDG_PARAMS/use_ineff
traced cdg 5
check BackoffsIneffectual "$(events cdg_backoff 'suppressed=1')" \
	"cdg_backoff events suppressed by use_ineff" 1
check Backoffs "$(events cdg_backoff 'backoff=1 suppressed=0')" "cdg_backoff events that backed off" 1

# 3. Losses after backoffs: the shadow window sets ssthresh.  The witness
# is cdg_loss with shadow_wnd (after halving) above max(2, cwnd / 2).
echo 5 > $CDG_PARAMS/use_ineff
ip netns exec "$NS_C" tc qdisc change dev veth_c root netem \
	delay 20ms rate 100mbit limit 1000 loss 1%
traced cdg 6
shadow=$(grep ' cdg_loss: ' /tmp/t.txt | grep -v 'state=backoff' | awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	{ h = int(f["cwnd"] / 2); if (h < 2) h = 2; if (f["tolerated"] == 0 && f["shadow_wnd"] > h) n++ }
	END { print n + 0 }')
check ShadowRestores "$shadow" "cdg_loss events where the shadow beat cwnd/2" 1

# 4. Loss tolerance: losses while the queue is not full are ignored.
echo 42 > $CDG_PARAMS/backoff_factor
echo Y > $CDG_PARAMS/use_tolerance
traced cdg 6
check LossesTolerated "$(events cdg_loss 'tolerated=1')" "cdg_loss events with tolerated=1" 1

# 5. compete is off in all of the above: no mode change was counted
# (tests/vm/coexist.sh counts them with compete=1).
for c in CompeteEnters CompeteExits CompeteProbes; do
	tap_eq "$c is 0 with compete=0" "$(cdg_counter "$NS_S" "$c")" 0
done

tap_end
