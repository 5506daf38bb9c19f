#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The base RTT follows a path that got longer (a route change, a
# handover): it is the smallest round minimum RTT of the last 10 s, not of
# the socket's life, so that ref_rtt_us and backoff_drain do
# not measure a queue that is not there.
#
# One cdg flow, limited to 20 Mbit/s by the application (16 KB writes, so
# that it sends every round) on a 100 Mbit/s netem path (no standing
# queue: each round's minimum RTT is the path's), runs 20 s; 4 s in, the
# path's delay goes from 10 to 40 ms.  The
# cdg_round tracepoint's base_rtt must be
#   - the 10 ms path before the change;
#   - still the 10 ms path 1-5 s after it (a window, not the last round);
#   - the 40 ms path from 11.5 s after it on (10 s and a few rounds).
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
need_tracefs

cdg_load_ours
ns_pair
netem_bottleneck 10ms 100mbit 1000
cleanup_add "echo 0 > $T/events/tcp_cdg/cdg_round/enable"

port=5201
echo 8192 > $T/buffer_size_kb
: > $T/trace
echo 1 > $T/events/tcp_cdg/cdg_round/enable
nsx "$NS_S" iperf3 -s -1 -p $port >/dev/null 2>&1 &
srv=$!
wait_listen "$NS_S" $port
nsx "$NS_C" iperf3 -c "$ADDR_S" -p $port -t 20 -b 20M -l 16K -C cdg -f m \
	> /tmp/iperf.log 2>&1 &
cli=$!
sleep 4
nsx "$NS_C" tc qdisc change dev veth_c root netem delay 40ms rate 100mbit limit 1000
echo "cdg-test: delay 40ms" > $T/trace_marker
rc=0
wait "$cli" || rc=$?
wait "$srv" || true
echo 0 > $T/events/tcp_cdg/cdg_round/enable
grep -v '^#' $T/trace > /tmp/trace.txt || true
tap_eq "iperf3 -b 20M -l 16K -C cdg for 20 s" "$rc" 0
[ "$rc" -eq 0 ] || diag "$(cat /tmp/iperf.log)"

# "T BASE_RTT RTT_MIN" per round of the data flow, T in seconds after the
# delay change (the trace_marker line).
awk -v flow="^src=$ADDR_C:[0-9]+$" -v dest="dest=$ADDR_S:$port" '
	function ts(i) { v = $(i - 1); sub(/:$/, "", v); return v + 0 }
	{
		for (i = 2; i <= NF; i++) {
			if ($i == "tracing_mark_write:" && $(i + 1) == "cdg-test:")
				t0 = ts(i)
			if ($i == "cdg_round:" && $(i + 1) ~ flow && $(i + 2) == dest) {
				t = ts(i); base = ""; min = ""
				for (j = i + 1; j <= NF; j++) {
					split($j, kv, "=")
					if (kv[1] == "base_rtt") base = kv[2]
					if (kv[1] == "rtt_min") min = kv[2]
				}
				n++; rt[n] = t; rb[n] = base; rm[n] = min
			}
		}
	}
	END { for (k = 1; k <= n; k++) printf "%.3f %s %s\n", rt[k] - t0, rb[k], rm[k] }
' /tmp/trace.txt > /tmp/rounds.txt
diag "$(wc -l < /tmp/rounds.txt) rounds; base_rtt at -1, 3, 9, 12, 15 s:" \
	"$(awk '{ s = int($1 + 100) - 100 }
		s != last && (s == -1 || s == 3 || s == 9 || s == 12 || s == 15) {
			print $0; last = s }' /tmp/rounds.txt)"

# check NAME FROM TO LOW HIGH MIN_ROUNDS: the rounds from FROM to TO s
# after the change have LOW <= base_rtt < HIGH (us), and there are some.
check() {
	local res
	res=$(awk -v a="$2" -v b="$3" -v lo="$4" -v hi="$5" '
		$1 >= a && $1 < b { n++; if ($2 < lo || $2 >= hi) { bad++; if (!w) w = $0 } }
		END { printf "%d %d %s\n", n, bad, w }' /tmp/rounds.txt)
	set -- "$1" "$6" $res
	if [ "$3" -ge "$2" ] && [ "$4" -eq 0 ]; then
		tap_ok "$1 ($3 rounds)"
	else
		tap_fail "$1" "$3 rounds (want >= $2), $4 outside; first: ${*:5}"
	fi
}

check "before the change: base_rtt is the 10 ms path" -2 0 9900 12000 30
check "1-5 s after: still the 10 ms path (a window, not the last round)" \
	1 5 9900 12000 30
check "11.5 s after and later: the 40 ms path" 11.5 99 39900 42000 30

tap_end
