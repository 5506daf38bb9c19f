#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
# vm-exclusive: measures goodput and RTT
#
# What CDG is for, IPv4 and IPv6: a 50 Mbit/s bottleneck with 20 ms of
# delay and a deep buffer (netem on the client's egress: delay 20ms rate
# 50mbit limit 1000; the BDP is 50 Mbit/s x 20 ms = 125 KB = ~83 packets,
# and the limit, which also counts the ~83 packets in netem's delay line,
# leaves ~917 packets = ~220 ms of queue: 11 BDP).
#
# Why 50 and not 100 Mbit/s: at 50 Mbit/s the guest's virtual CPU
# (scripts/vm/run.sh: one guest instruction a nanosecond) has ample time
# for both ends and netem, so the link and nothing else is the bottleneck,
# and each transfer takes about 9 s of wall time where 100 Mbit/s takes 14.
#
# A bulk transfer with cubic fills that buffer; with cdg the RTT measured
# during the transfer (srtt of the data socket, sampled every 50 ms through
# inet_diag, after the first second) stays near the 20 ms base while the
# goodput stays a large part of the link.
#
#   traffic.sh [SECONDS]     length of each transfer (default 8)
#
# cubic runs with HyStart off (tcp_cubic's hystart=0, restored after).
# With it, cubic may leave slow start early and then need 10-20 s of cubic
# growth to reach the buffer (in real time, under TCG's timing jitter, its
# median RTT in 8-12 s runs came out anywhere between 33 and 100 ms).
# Without it, slow start runs into the buffer within the first second,
# which is where a long-lived loss-based flow sits anyway, so 8 s runs
# show the steady state.  cdg is left as it is (its own HyStart on).
#
# The assertions.  The guest runs in virtual time, so the figures do not
# depend on the host, and cubic (no randomness) gives the same figures on
# every run: 47.4 and 46.8 Mbit/s, median RTT 225-226 ms, IPv4 and IPv6.
# CDG's figures vary with its random backoffs (the guest's seed,
# CDG_VM_SEED, and the module's bytes: a build from git carries its
# commit): in 30 transfers of the clean-clone CI runs of 2026-12-06/07,
# on 5.10, 6.1, 6.12 and 7.3, a median RTT of 21.0-24.3 ms, and once
# 30.95 ms (IPv6 on 6.12, 7 backoffs in 8 s where the others had 8-16).
# A bound of 1.5 x 20 ms, fitted to the first 8 of them, failed on that
# one: with 8 draws per CI run a 1-in-30 tail fails a run in four.  The
# bounds leave room for the spread seen, and a module that does not back
# off on delay still fails them (it sits where cubic does, at 11 x):
#   cubic goodput    > 90 % of the link   the link works at all
#   cubic median RTT > 5 x 20 ms          the scenario really has a queue
#   cdg median RTT   < 0.25 x cubic's     cdg keeps it short ...
#   cdg median RTT   < 2 x 20 ms          ... near the base RTT
#   cdg goodput      > 50 % of the link   without giving up the link
. "$(dirname "$0")/lib.sh"

secs=${1:-8}
DELAY_MS=20
RATE_MBIT=50
cdg_load_ours
ns_pair
netem_bottleneck ${DELAY_MS}ms ${RATE_MBIT}mbit 1000
diag "bottleneck: $(nsx "$NS_C" tc qdisc show dev veth_c)"
hystart=/sys/module/tcp_cubic/parameters/hystart
if [ -w "$hystart" ]; then
	cleanup_add "echo $(cat "$hystart") > $hystart"
	echo 0 > "$hystart"
else
	diag "no $hystart: cubic keeps its HyStart"
fi

for fam in 4 6; do
	if [ $fam = 4 ]; then dst=$ADDR_S; else dst=$ADDR6_S; fi
	measure_bulk cubic "$dst" "$secs"
	diag "IPv$fam $(mb_summary cubic)"
	cu_gp=$MB_GOODPUT cu_rtt=$MB_RTT cu_cc=$MB_CC
	measure_bulk cdg "$dst" "$secs"
	cd_gp=$MB_GOODPUT cd_rtt=$MB_RTT cd_cc=$MB_CC
	diag "IPv$fam $(mb_summary cdg)"

	tap_eq "IPv$fam: the cubic transfer ran cubic" "$cu_cc" cubic
	tap_eq "IPv$fam: the cdg transfer ran cdg" "$cd_cc" cdg
	perf_check "IPv$fam: cubic goodput $cu_gp Mbit/s > $((RATE_MBIT * 9 / 10)) (90 % of the link)" \
		"$cu_gp > 0.9 * $RATE_MBIT"
	perf_check "IPv$fam: cubic fills the queue: median RTT $cu_rtt ms > $((5 * DELAY_MS)) ms" \
		"$cu_rtt > 5 * $DELAY_MS"
	perf_check "IPv$fam: cdg median RTT $cd_rtt ms < a quarter of cubic's ($cu_rtt ms)" \
		"$cd_rtt < 0.25 * $cu_rtt"
	perf_check "IPv$fam: cdg median RTT $cd_rtt ms < $((2 * DELAY_MS)) ms" \
		"$cd_rtt < 2 * $DELAY_MS"
	perf_check "IPv$fam: cdg goodput $cd_gp Mbit/s > $((RATE_MBIT / 2)) (50 % of the link)" \
		"$cd_gp > 0.5 * $RATE_MBIT"
done
tap_end
