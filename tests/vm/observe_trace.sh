#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tcp_cdg tracepoints during real traffic (netem, deep buffer), and
# that their fields agree with each other and with the module's rules:
#   - cdg_round carries the flow's addresses, a round RTT range at or above
#     the emulated base RTT, cwnd > 0, and a base_rtt between the two;
#   - every cdg_backoff that backed off is followed by the cdg_loss of its
#     CWR, state backoff, ssthresh = max(2, cwnd * backoff_beta / 1024) of
#     the cwnd the backoff saw;
#   - prob is 1 - e^(-grad * backoff_factor * 1e-6) in 1/2^32 (1 % or 2e-4);
#   - with ref_rtt_us set, cdg_backoff's grad is the one the decision used:
#     cdg_round's grad * ref_rtt_us / base_rtt, and prob still follows it;
#   - cdg_hystart events match the kernel's TcpExt HyStart counters;
#   - a lossy path gives cdg_loss events in state != backoff, ssthresh >= 2;
#   - trace-cmd records the same events.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
need_tracefs

cdg_load_ours
beta=$(cdg_param backoff_beta)
factor=$(cdg_param backoff_factor)

for ev in cdg_round cdg_backoff cdg_hystart cdg_loss; do
	tap_cmd "tracepoint tcp_cdg:$ev exists" test -r "$T/events/tcp_cdg/$ev/format"
done

ns_pair
netem_bottleneck 20ms 100mbit 1000
cleanup_add "echo 0 > $T/events/tcp_cdg/enable"

# record FILE SECONDS: trace one bulk cdg transfer into FILE.
record() {
	echo 8192 > $T/buffer_size_kb
	: > $T/trace
	echo 1 > $T/events/tcp_cdg/enable
	measure_bulk cdg "$ADDR_S" "$2"
	echo 0 > $T/events/tcp_cdg/enable
	grep -v '^#' $T/trace > "$1" || true
	diag "$(mb_summary cdg)"
}

hy0=$(nsx "$NS_C" nstat -az TcpExtTCPHystartTrainDetect TcpExtTCPHystartDelayDetect |
	awk '/Hystart/ { s += $2 } END { print s + 0 }')
record /tmp/trace.txt 8
diag "events: $(awk '{ print $5 }' /tmp/trace.txt | sort | uniq -c | tr '\n' ' ')"

rounds=$(grep -c ' cdg_round: ' /tmp/trace.txt || true)
if [ "$rounds" -ge 50 ]; then tap_ok "cdg_round: $rounds rounds in 8 s at 20 ms"
else tap_fail "cdg_round: $rounds rounds in 8 s at 20 ms, want >= 50"; fi

# Only the bulk data flow (client to the server's port 5201).
flow=" src=$ADDR_C:[0-9]+ dest=$ADDR_S:5201 "
bad=$(grep ' cdg_round: ' /tmp/trace.txt | grep -Evc -- "$flow" || true)
tap_eq "cdg_round: every event names the flow's addresses and port" "$bad" 0

kv() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
bad=$(grep " cdg_round: " /tmp/trace.txt | grep -E -- "$flow" | awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	f["rtt_min"] < 19000 || f["rtt_max"] < f["rtt_min"] || f["cwnd"] < 2 { n++ }
	END { print n + 0 }')
tap_eq "cdg_round: rtt_max >= rtt_min >= base RTT (20 ms), cwnd >= 2" "$bad" 0
# base_rtt includes the round just ended: never above its rtt_min.
bad=$(grep " cdg_round: " /tmp/trace.txt | grep -E -- "$flow" | awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	f["base_rtt"] == "" || f["base_rtt"] < 19000 || f["base_rtt"] > f["rtt_min"] { n++ }
	END { print n + 0 }')
tap_eq "cdg_round: rtt_min >= base_rtt >= the path's 20 ms" "$bad" 0

# Backoffs: each taken backoff (backoff=1 suppressed=0) is followed, for
# the same socket, by the cdg_loss of the CWR it entered.
awk -v beta="$beta" -v factor="$factor" '
	function field(name,   i, kv) {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
		return ""
	}
	/ cdg_backoff: / {
		g = field("grad"); p = field("prob")
		want = (1 - exp(-g * factor * 1e-6)) * 4294967296
		# nexp_u32 is a 16-bit table: allow 1 % or 2e-4 absolute.
		tol = want * 0.01; if (tol < 858993) tol = 858993
		if (p - want > tol || want - p > tol) {
			badprob++
			if (badprob <= 3) print "# prob " p " want " want ": " $0 > "/dev/stderr"
		}
		nprob++
		if (field("backoff") == 1 && field("suppressed") == 0) {
			if (pending) unmatched++
			pending = 1; cwnd = field("cwnd"); taken++
		}
		next
	}
	/ cdg_loss: / && pending {
		pending = 0
		want = int(cwnd * beta / 1024); if (want < 2) want = 2
		if (field("state") != "backoff" || field("cwnd") != cwnd || field("ssthresh") != want) {
			wrong++
			if (wrong <= 3) print "# backoff cwnd " cwnd ": " $0 > "/dev/stderr"
		} else ok++
	}
	END { printf "%d %d %d %d %d %d\n", taken, ok, wrong + 0, unmatched + pending, nprob, badprob + 0 }
' /tmp/trace.txt > /tmp/backoff.sum
read -r taken matched wrong unmatched decisions badprob < /tmp/backoff.sum
diag "backoff decisions $decisions, taken $taken, matched $matched, wrong $wrong, unmatched $unmatched"
if [ "$taken" -gt 0 ]; then tap_ok "cdg_backoff: $taken backoffs on a filling 20 ms path"
else tap_fail "cdg_backoff: no backoff taken in 8 s on a filling 20 ms path"; fi
tap_eq "cdg_backoff -> cdg_loss: ssthresh = cwnd * $beta / 1024 after each backoff" \
	"$wrong/$unmatched" "0/0"
tap_eq "cdg_backoff: prob = 1 - e^(-grad * $factor * 1e-6) in 1/2^32 (1 % or 2e-4)" "$badprob" 0

hy=$(grep -c ' cdg_hystart: ' /tmp/trace.txt || true)
hy1=$(nsx "$NS_C" nstat -az TcpExtTCPHystartTrainDetect TcpExtTCPHystartDelayDetect |
	awk '/Hystart/ { s += $2 } END { print s + 0 }')
tap_eq "cdg_hystart: one event per TcpExt HyStart exit" "$hy" "$((hy1 - hy0))"
bad=$(grep ' cdg_hystart: ' /tmp/trace.txt | grep -Evc 'detector=(train|delay) cwnd=[1-9]' || true)
tap_eq "cdg_hystart: detector and cwnd set" "$bad" 0

# ref_rtt_us scales the gradient a decision uses (here about 2x on this
# 20 ms path): cdg_backoff must report that one, with the probability it
# gave, right after the cdg_round of the same round end.
if [ -e "$CDG_PARAMS/ref_rtt_us" ]; then
	ref=40000
	echo $ref > "$CDG_PARAMS/ref_rtt_us"
	cleanup_add "echo 0 > $CDG_PARAMS/ref_rtt_us"
	record /tmp/trace-ref.txt 5
	echo 0 > "$CDG_PARAMS/ref_rtt_us"
	awk -v ref=$ref -v factor="$factor" -v flow="$flow" '
		function field(name,   i, kv) {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
			return ""
		}
		$0 !~ flow { next }
		/ cdg_round: / { rg = field("grad"); rb = field("base_rtt"); next }
		/ cdg_backoff: / {
			n++
			g = field("grad"); p = field("prob")
			if (rb <= 0 || g != int(rg * ref / rb)) {
				badgrad++
				if (badgrad <= 3) print "# grad " g " want " rg " * " ref " / " rb ": " $0 > "/dev/stderr"
			}
			want = (1 - exp(-g * factor * 1e-6)) * 4294967296
			tol = want * 0.01; if (tol < 858993) tol = 858993
			if (p - want > tol || want - p > tol) {
				badprob++
				if (badprob <= 3) print "# prob " p " want " want ": " $0 > "/dev/stderr"
			}
		}
		END { printf "%d %d %d\n", n, badgrad + 0, badprob + 0 }
	' /tmp/trace-ref.txt > /tmp/ref.sum
	read -r n badgrad badprob < /tmp/ref.sum
	if [ "$n" -ge 5 ]; then tap_ok "ref_rtt_us=$ref: $n backoff decisions"
	else tap_fail "ref_rtt_us=$ref: $n backoff decisions in 5 s, want >= 5"; fi
	tap_eq "ref_rtt_us=$ref: cdg_backoff grad = cdg_round grad * $ref / base_rtt" "$badgrad" 0
	tap_eq "ref_rtt_us=$ref: cdg_backoff prob = 1 - e^(-grad * $factor * 1e-6)" "$badprob" 0
else
	tap_skip "ref_rtt_us: cdg_backoff reports the scaled gradient" "no ref_rtt_us in this build"
fi

# A lossy path: losses that are not backoffs reach cdg_loss.
ip netns exec "$NS_C" tc qdisc change dev veth_c root netem \
	delay 20ms rate 100mbit limit 1000 loss 1%
record /tmp/trace-loss.txt 5
loss=$(grep ' cdg_loss: ' /tmp/trace-loss.txt | grep -vc 'state=backoff' || true)
if [ "$loss" -gt 0 ]; then tap_ok "cdg_loss: $loss loss events with 1 % netem loss"
else tap_fail "cdg_loss: no loss event with 1 % netem loss"; fi
bad=$(grep ' cdg_loss: ' /tmp/trace-loss.txt | kv ssthresh | awk '$1 < 2' | wc -l)
tap_eq "cdg_loss: ssthresh >= 2" "$bad" 0
bad=$(grep ' cdg_loss: ' /tmp/trace-loss.txt | grep -c 'tolerated=1' || true)
tap_eq "cdg_loss: nothing tolerated with use_tolerance=0" "$bad" 0

if command -v trace-cmd >/dev/null 2>&1; then
	ip netns exec "$NS_C" tc qdisc change dev veth_c root netem \
		delay 20ms rate 100mbit limit 1000
	(cd /tmp && exec trace-cmd record -q -e tcp_cdg -o /tmp/tc.dat) \
		> /tmp/tc.log 2>&1 &
	tc_pid=$!
	sleep 2	# trace-cmd enables the events before it starts recording
	measure_bulk cdg "$ADDR_S" 3
	kill -INT "$tc_pid"
	wait "$tc_pid" || true
	out=$(cat /tmp/tc.log)
	n=$(trace-cmd report -i /tmp/tc.dat 2>/dev/null | grep -c 'cdg_round:' || true)
	if [ "$n" -gt 0 ]; then tap_ok "trace-cmd record -e tcp_cdg: $n cdg_round events"
	else tap_fail "trace-cmd record -e tcp_cdg: no cdg_round event" "$out"; fi
else
	tap_skip "trace-cmd record -e tcp_cdg" "no trace-cmd in the guest"
fi

tap_end
