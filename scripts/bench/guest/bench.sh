#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark runner, inside the VM (scripts/bench/bench.sh and demo.sh boot
# it with scripts/vm/run.sh --out DIR scripts/bench/guest/bench PLAN).  Not
# a test: it lives outside tests/vm/*.sh so that `make check-vm` never runs
# it.
#
# It reads the run list /out/PLAN that the host wrote, one run per line of
# key=value words (scripts/bench/scenarios.py explains each key), runs them in
# order and leaves the raw measurements of run ID in /out/runs/ID/:
#
#   meta.txt        the run's plan line, module loaded, parameters, times
#   iperf-N.json    iperf3 -J of bulk flow N (sender side + server output)
#   samples.txt     every 100 ms: what `ss -tin` shows of the bulk flows
#                   and `tc -s qdisc` of the bottleneck (tcp_sample.c)
#   ping.txt        ping -D through the bottleneck during the run
#   ping-idle.txt   ping before the run (base RTT)
#   qdisc-before.txt, qdisc-after.txt   tc -s qdisc of every hop
#   cdgstat-before.txt, cdgstat-after.txt   /proc/net/stat/tcp_cdg (sender)
#   fct.txt         tcp_fct lines of the short transfers, if any
#   trace.txt       tcp_cdg tracepoints, if the run asked for them
#
# Topology (all in this guest; addresses from 198.18.0.0/15):
#
#   snd1 v1 198.18.1.1 ---- m1 198.18.1.254 \           / mr 198.19.0.254 ---- vr 198.19.0.1 rcv
#                                            +-- mid --+
#   snd2 v2 198.18.2.1 ---- m2 198.18.2.254 /
#
#   data  snd -> mid -> rcv: the bottleneck is mid's egress mr,
#         netem rate RATE limit BUF (packets): the only queue that builds;
#         random loss (non-congestion) is a separate netem on v1/v2.
#   ACKs  rcv -> mid -> snd: netem delay RTT1 on m1, RTT2 on m2 (limit
#         large), so that each sender's base RTT is what the plan says and
#         the bottleneck's queue is exactly BUF packets.
#   TSO/GSO/GRO are off on every veth: every skb is one MTU-sized packet,
#   so netem's packet limit and rate are exact.
#
# vm-exclusive: benchmark figures are worthless while other VMs share the CPUs
#
# Progress: one TAP line per run ("ok N - bench: ID ..."), which the host
# turns into a progress line with an ETA.  A run that fails is "not ok" and
# the next run goes on.
. "$(dirname "$0")/../../../tests/vm/lib.sh"
set +E
trap - ERR

plan=/out/${1:-plan.txt}
[ -r "$plan" ] || { tap_fail "no plan $plan"; tap_end; }
RUNS=/out/runs
mkdir -p "$RUNS"

A_SND1=198.18.1.1 A_SND2=198.18.2.1 A_RCV=198.19.0.1
FCT_PORT=9000
T=/sys/kernel/tracing

# --- topology, once per boot ---------------------------------------------------
setup() {
	local n d ns
	modprobe -a veth sch_netem tcp_bbr tcp_vegas
	for n in snd1 snd2 mid rcv; do
		ip netns add "$n"
		ip -n "$n" link set lo up
	done
	ip link add v1 netns snd1 type veth peer name m1 netns mid
	ip link add v2 netns snd2 type veth peer name m2 netns mid
	ip link add mr netns mid type veth peer name vr netns rcv
	ip -n snd1 addr add $A_SND1/24 dev v1
	ip -n snd2 addr add $A_SND2/24 dev v2
	ip -n mid addr add 198.18.1.254/24 dev m1
	ip -n mid addr add 198.18.2.254/24 dev m2
	ip -n mid addr add 198.19.0.254/24 dev mr
	ip -n rcv addr add $A_RCV/24 dev vr
	for d in snd1:v1 snd2:v2 mid:m1 mid:m2 mid:mr rcv:vr; do
		ns=${d%:*} d=${d#*:}
		ip -n "$ns" link set "$d" up
		if command -v ethtool >/dev/null; then
			ip netns exec "$ns" ethtool -K "$d" tso off gso off gro off >&2
		else	# the harness's fallback: one segment per skb
			ip -n "$ns" link set "$d" gso_max_segs 1 gso_max_size 1500
		fi
	done
	ip -n snd1 route add default via 198.18.1.254
	ip -n snd2 route add default via 198.18.2.254
	ip -n rcv route add default via 198.19.0.254
	ip netns exec mid sysctl -qw net.ipv4.ip_forward=1
	# A packet that crosses a veth waits in the peer CPU's backlog until
	# softirq runs; under TCG that can lag, so give it room (drops there
	# would be losses nobody asked for; softnet_stat is saved anyway).
	sysctl -qw net.core.netdev_max_backlog=10000
	for n in snd1 snd2 rcv; do
		# Room for 80 ms at 100 Mbit/s plus an 8-BDP queue, and no
		# ssthresh carried from one run into the next (tcp_metrics).
		# The flows' client ports are nobody's ephemeral port: an
		# iperf3 control connection that drew 41032 made the next
		# flow's bind to it fail ("Address already in use", once in
		# the 28 runs of a coexist set).
		ip netns exec "$n" sysctl -qw \
			net.ipv4.tcp_rmem="4096 131072 33554432" \
			net.ipv4.tcp_wmem="4096 16384 33554432" \
			net.ipv4.tcp_no_metrics_save=1 \
			net.ipv4.tcp_tw_reuse=1 \
			net.ipv4.ip_local_reserved_ports=41000-41299
	done
	# Servers: iperf3 (one per flow port) and tcp_fct, kept for the boot.
	servers 4
	ip netns exec snd1 tcp_fct serve $FCT_PORT >/dev/null 2>&1 &
	FCT_PID=$!
	wait_listen snd1 $FCT_PORT
	if [ ! -d $T/events ]; then
		mount -t tracefs nodev $T 2>/dev/null || true
	fi
}

# --- the congestion control modules ----------------------------------------------
loaded=none	# what we loaded: none | intree | ours:LOADPARAMS
declare -A ours_load=()	# ours' parameters right after its load

# module WHICH LOAD PARAMS: make the loaded tcp_cdg what the run wants.
# Ours' run-time parameters go back to their values at load, then the
# run's params= on top, so that no variant leaks into the next run.
module() {
	local which=$1 load=${2//,/ } params=${3//,/ } kv f
	case $which in
	any) return 0 ;;
	intree)
		[ "$loaded" = intree ] || { cdg_load_intree && loaded=intree; } || return 1
		;;
	ours)
		if [ "$loaded" != "ours:$load" ]; then
			# shellcheck disable=SC2086
			cdg_load_ours $load || return 1
			loaded="ours:$load"
			ours_load=()
			for f in "$CDG_PARAMS"/*; do ours_load[${f##*/}]=$(<"$f"); done
		fi
		for f in "${!ours_load[@]}"; do
			[ "$(<"$CDG_PARAMS/$f")" = "${ours_load[$f]}" ] ||
				echo "${ours_load[$f]}" > "$CDG_PARAMS/$f" || return 1
		done
		for kv in $params; do
			echo "${kv#*=}" > "$CDG_PARAMS/${kv%%=*}" || return 1
		done
		;;
	*) echo "bench: unknown module $which" >&2; return 1 ;;
	esac
}

# --- one run -------------------------------------------------------------------------
# Every hop's qdisc with statistics (counters are cumulative: "replace"
# with the same kind keeps them, so a run's figures are after - before).
# One tc per namespace: each exec costs 100+ ms under TCG.
qdiscs() {
	local n
	for n in snd1 snd2 mid; do
		echo "== $n"
		tc -n "$n" -s qdisc show
	done
	echo "== softnet"
	cat /proc/net/softnet_stat
}

# Our counters as the sender's namespace sees them, without an exec:
# /proc/PID/net is the net namespace of PID, and tcp_fct lives in snd1.
cdgstat() {
	local l
	if [ -r "/proc/$FCT_PID/net/stat/tcp_cdg" ]; then
		while IFS= read -r l; do echo "$l"; done < "/proc/$FCT_PID/net/stat/tcp_cdg"
	else
		echo none
	fi
}

# tcq NS DEV ARGS...: tc qdisc replace, skipped when the hop is already so.
declare -A tc_now=()
tcq() {
	local key="$1 $2" want="${*:3}"
	[ "${tc_now[$key]:-}" = "$want" ] && return 0
	tc -n "$1" qdisc replace dev "$2" root "${@:3}" || return 1
	tc_now[$key]=$want
}

# servers N: iperf3 servers on ports 5201..5200+N, started as runs need
# them (a plan with 50 flows) and kept for the boot.
NSERVERS=0
servers() {
	local n
	for ((n = NSERVERS + 1; n <= $1; n++)); do
		ip netns exec rcv iperf3 -s -p $((5200 + n)) >/dev/null 2>&1 &
	done
	for ((n = NSERVERS + 1; n <= $1; n++)); do wait_listen rcv $((5200 + n)); done
	[ "$1" -le "$NSERVERS" ] || NSERVERS=$1
}
# run_one LINE: everything of one plan line; returns non-zero on failure.
run_one() {
	local id='' module=any load='' params='' rate=100 buf=1000 loss=0 rtt1=20 rtt2=20
	local dur=8 flows='' short='' trace=0 kv k v dir i f cc snd start len end
	local pids=() t0 t1 spid ppid fpid rc=0 goodput='' n
	for kv in $1; do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		id|module|load|params|rate|buf|loss|rtt1|rtt2|dur|flows|short|trace|scen|conf|label|rep) ;;
		*) echo "bench: unknown key $k" >&2; return 1 ;;
		esac
		[ "$v" = - ] && v=
		printf -v "$k" '%s' "$v"
	done
	dir=$RUNS/$id
	tmp=/tmp/runs/$id	# fresh per run: no file of another run can linger
	mkdir -p "$tmp"

	local tp0=$EPOCHREALTIME tp_mod tp_path tp_idle tp_before tp_after
	module "$module" "$load" "$params" || { echo "module $module failed" >&2; return 1; }
	tp_mod=$EPOCHREALTIME

	# The path: ACK-path delays, random loss at the senders, the bottleneck.
	tcq mid m1 netem delay "${rtt1}ms" limit 100000 &&
	tcq mid m2 netem delay "${rtt2}ms" limit 100000 &&
	tcq snd1 v1 netem loss "${loss}%" limit 100000 &&
	tcq snd2 v2 netem loss "${loss}%" limit 100000 &&
	tcq mid mr netem rate "${rate}mbit" limit "$buf" || return 1

	# Builtins only ($(<f), not cat): every exec costs 50-300 ms here.
	{
		echo "plan $1"
		echo "kernel $KREL"
		echo "module $(cdg_which)"
		if [ -d "$CDG_PARAMS" ]; then
			for f in "$CDG_PARAMS"/*; do echo "param ${f##*/} $(<"$f")"; done
		fi
		[ -r /sys/module/tcp_cdg/version ] && echo "version $(</sys/module/tcp_cdg/version)"
		echo "available $(</proc/sys/net/ipv4/tcp_available_congestion_control)"
	} > "$tmp/meta.txt"

	tp_path=$EPOCHREALTIME
	# Base RTT of each sender on the idle path, while tc reads the
	# counters (two vCPUs: the execs overlap).
	local idle=()
	ip netns exec snd1 ping -n -c 5 -i 0.02 $A_RCV > "$tmp/ping-idle.txt" 2>&1 &
	idle+=($!)
	case $flows in *@2*)
		ip netns exec snd2 ping -n -c 5 -i 0.02 $A_RCV > "$tmp/ping-idle2.txt" 2>&1 &
		idle+=($!)
	esac
	tp_idle=$EPOCHREALTIME
	qdiscs > "$tmp/qdisc-before.txt"
	cdgstat > "$tmp/cdgstat-before.txt"
	wait "${idle[@]}"	# not a bare wait: the servers are our children too
	if [ "$trace" = 1 ] && [ -d $T/events/tcp_cdg ]; then
		echo 16384 > $T/buffer_size_kb
		: > $T/trace
		echo 1 > $T/events/tcp_cdg/enable
	fi

	# ss -tin and the bottleneck's tc -s every 100 ms (tcp_sample.c says
	# why not ss itself); the flows' client ports are in 41001..41299.
	tcp_sample 100 41001 41299 snd1 snd2 -q mid mr > "$tmp/samples.txt" & spid=$!
	# Ping outlives the flows (iperf3 takes a second to start); it is
	# stopped when they end.
	ip netns exec snd1 ping -n -D -i 0.1 -w $((${dur%.*} + 10)) $A_RCV > "$tmp/ping.txt" 2>&1 & ppid=$!
	t0=$EPOCHREALTIME
	tp_before=$t0
	echo "start $t0" >> "$tmp/meta.txt"
	# Bulk flows: cc@sender+start, flow i on server port 5200+i and a
	# fixed client port, so that the samples name the flow.  The client
	# ports rotate over nine blocks of ten from run to run: the same
	# 4-tuple a few seconds later can still be in TIME_WAIT ("Address
	# already in use", seen once in 192 runs before; tw_reuse helps too).
	# All flows end at dur.  Runs of more than nine flows (up to 99)
	# rotate over two blocks of a hundred above those.
	local cbase=$((41000 + 10 * (RUN_K % 9))) each nflows
	IFS=, read -ra each <<< "$flows"
	nflows=${#each[@]}
	[ "$nflows" -le 9 ] || cbase=$((41100 + 100 * (RUN_K % 2)))
	servers "$nflows" || return 1
	i=0
	for f in ${flows//,/ }; do
		i=$((i + 1))
		cc=${f%%@*} snd=${f#*@} start=${snd#*+} snd=${snd%+*} end=$dur
		# cc@sender+start-end: a flow that stops at end (issue 22).
		case $start in *-*) end=${start#*-} start=${start%-*} ;; esac
		if [ "$start" = 0 ] && [ "$end" = "$dur" ]; then len=$dur
		else len=$(awk -v d="$end" -v s="$start" 'BEGIN { print d - s }'); fi
		echo "flow $i $cc snd$snd $start $len $((cbase + i))" >> "$tmp/meta.txt"
		(
			sleep "$start"
			exec timeout -k 5 $((${len%.*} + 30)) ip netns exec "snd$snd" \
				iperf3 -c $A_RCV -p $((5200 + i)) --cport $((cbase + i)) \
				-C "$cc" -t "$len" -i 0.5 -J --get-server-output
		) > "$tmp/iperf-$i.json" 2> "$tmp/iperf-$i.err" &
		pids+=($!)
	done
	# Short transfers from snd1 while the bulk flow runs: from 1.5 s on
	# (after its slow start), the sizes in turn, one at a time, 200 ms
	# apart, until 1 s before the bulk flow's planned end.  iperf3 starts
	# its flow a little late, so all of these overlap it; the report also
	# drops any that ended after the bulk flow's last sample.
	fpid=
	if [ -n "$short" ]; then
		cc=${flows%%@*}
		(
			# shellcheck disable=SC2206 # sizes are plain numbers
			local sizes=(${short//,/ }) k=0 stop=$(( ${t0/./} + (${dur%.*} - 1) * 1000000 ))
			sleep 1.5
			while [ "${EPOCHREALTIME/./}" -lt "$stop" ]; do
				f=${sizes[k % ${#sizes[@]}]}
				ip netns exec rcv tcp_fct get $A_SND1 $FCT_PORT "$cc" "$f" 1 0 ||
					echo "error size $f"
				k=$((k + 1))
				sleep 0.2
			done
		) > "$tmp/fct.txt" 2>&1 & fpid=$!
	fi
	for n in "${pids[@]}"; do wait "$n" || rc=1; done
	[ -z "$fpid" ] || wait "$fpid" || rc=1
	t1=$EPOCHREALTIME
	echo "end $t1" >> "$tmp/meta.txt"
	kill "$spid" "$ppid" 2>/dev/null
	wait "$spid" "$ppid" 2>/dev/null
	if [ "$trace" = 1 ] && [ -d $T/events/tcp_cdg ]; then
		echo 0 > $T/events/tcp_cdg/enable
		grep -v '^#' $T/trace > "$tmp/trace.txt" || true
	fi
	qdiscs > "$tmp/qdisc-after.txt"
	cdgstat > "$tmp/cdgstat-after.txt"
	# The queue drains before the next run measures its idle RTT (it
	# usually has: the "after" counters show it without another tc).
	local q
	q=$(<"$tmp/qdisc-after.txt")
	q=${q#*dev mr }
	if [[ ${q%%== *} != *"backlog 0b 0p"* ]]; then
		for n in $(seq 1 50); do
			tc -n mid -s qdisc show dev mr | grep -q 'backlog 0b 0p' && break
			sleep 0.1
		done
	fi

	# Copy out only now: 9p writes during the run would cost the guest CPU.
	tp_after=$EPOCHREALTIME
	# Where the time between runs goes (wall clock, s since run start).
	echo "phases $tp0 module $tp_mod path $tp_path idle-ping $tp_idle before $tp_before flows-end $t1 after $tp_after copy $EPOCHREALTIME" >> "$tmp/meta.txt"
	rm -rf "$dir"
	cp -r "$tmp" "$RUNS/"
	local j re='"sum_received":[^}]*"bits_per_second":[[:space:]]*([0-9.e+]+)'
	for n in "${!pids[@]}"; do
		j=$(<"$tmp/iperf-$((n + 1)).json")
		if [[ $j =~ $re ]]; then
			[ "$n" != 0 ] || goodput=${BASH_REMATCH[1]}
		else
			echo "flow $((n + 1)): $(<"$tmp/iperf-$((n + 1)).err") ${j:0:300}" >&2
			rc=1
		fi
	done
	# The headline for the progress line: receiver goodput of flow 1, in
	# integer maths (cJSON prints bits/s as a plain decimal).
	n=$(( ${t1/./} - ${t0/./} ))
	goodput=${goodput:-0}
	[[ $goodput == *e* ]] && goodput=$(awk -v g="$goodput" 'BEGIN { printf "%d", g }')
	goodput=$(( ${goodput%%.*} / 100000 ))
	printf -v RUN_NOTE 'flow1 %d.%d Mbit/s, %d.%d s' $((goodput / 10)) \
		$((goodput % 10)) $((n / 1000000)) $((n % 1000000 / 100000))
	return $rc
}

KREL=$(uname -r)
setup
{
	echo "kernel $KREL"
	echo "cpus $(nproc)"
	echo "ethtool $(command -v ethtool || echo none)"
	echo "boot_uptime $(cut -d' ' -f1 /proc/uptime)"
} > /out/env.txt

total=$(grep -c '^run ' "$plan" || true)
k=0
while IFS= read -r line; do
	case $line in run\ *) ;; *) continue ;; esac
	line=${line#run }
	k=$((k + 1))
	id=$(sed -n 's/.*\bid=\([^ ]*\).*/\1/p' <<< "$line")
	RUN_NOTE=
	RUN_K=$k
	t_start=$EPOCHREALTIME
	if run_one "$line"; then
		tap_ok "$id [$k/$total] $RUN_NOTE"
	else
		tap_fail "$id [$k/$total] $RUN_NOTE"
	fi
	echo "$id $t_start $EPOCHREALTIME" >> /out/timing.txt
done < "$plan"
# No socket or namespace may hold cdg when the guest checks its log and
# powers off; nothing else to undo in a throwaway VM.
tap_end
