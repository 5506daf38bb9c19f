#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-exclusive: measures goodput shares
# (No "# vm-tier: functional": like parity and the stress tests it runs on
# the oldest and the newest kernel line in make check, about two minutes
# of wall time each; make check-full and T=coexist run it everywhere.)
#
# Issue 22: CDG with compete=1 holds its own against one cubic flow.  Both
# flows start together over one bottleneck (netem on the client's egress:
# delay 20ms rate 50mbit limit 1000, about 11 BDP of buffer, as
# tests/vm/traffic.sh) for SECONDS (default 20), and CDG's share of what
# the two received must be at least SHARE_MIN.
#
#   coexist.sh [SECONDS] [COMPETE]     COMPETE: the parameter (default 1)
#
# The bound.  In virtual time (make bench, docs/tuning.md "Against
# cubic"; 100 Mbit/s, 30 s) CDG with compete=1 took 0.41-0.47 of the link
# against one cubic flow at 20 ms with an 8-BDP buffer (3 runs), but
# 0.20-0.40 at 80 ms or with 1 BDP (and 0.01 once, at 80 ms / 8 BDP);
# here (50 Mbit/s, 20 ms, 11 BDP, 20 s, seed 1) 0.369 on 6.1 and 0.379
# on 6.12 with the module of ffc1584, then with the merged one 0.331
# (5.10), 0.262 (6.1), 0.285 (6.12) and 0.394 (7.3) (2026-12-07).
# At compete=0 CDG takes 0.02-0.04 (the in-tree module likewise; here
# 0.028 on 6.1), and this test then fails.
# With 0.4.0 (4 empty rounds end competing, a probe steps up to 4 x):
# 0.342 (5.10) and 0.182 (7.3) in make check, and 0.233 and 0.367 on 7.3
# with seeds 2 and 3.  SHARE_MIN = 0.10: the lowest measured, 0.182, is
# too close to the former bound (0.15) for a test that must not flake,
# and 0.10 is still 3.5 x what compete=0 gets.  SHARE_MAX = 0.85: holding its
# own must not starve cubic (an entry by slow start to the first loss,
# tried first, took 0.84 of the link).
#
# Also: the mode change happened (CompeteEnters in /proc/net/stat/tcp_cdg),
# and the link was used (the two flows together > 85 % of it).
. "$(dirname "$0")/lib.sh"

secs=${1:-20}
compete=${2:-1}
DELAY_MS=20
RATE_MBIT=50
SHARE_MIN=0.10
SHARE_MAX=0.85

require_cmd iperf3
cdg_load_ours compete="$compete"
tap_eq "compete=$compete at load" "$(cdg_param compete)" "$compete"
ns_pair
netem_bottleneck ${DELAY_MS}ms ${RATE_MBIT}mbit 1000
diag "bottleneck: $(nsx "$NS_C" tc qdisc show dev veth_c)"

enters0=$(cdg_counter "$NS_C" CompeteEnters)
logc=$(mktemp /tmp/coexist-cdg.XXXXXX)
logu=$(mktemp /tmp/coexist-cubic.XXXXXX)
cleanup_add "rm -f $logc $logu"
nsx "$NS_S" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
srv1=$!
nsx "$NS_S" iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
srv2=$!
cleanup_add "kill $srv1 $srv2 2>/dev/null || true"
wait_listen "$NS_S" 5201
wait_listen "$NS_S" 5202

nsx "$NS_C" iperf3 -c "$ADDR_S" -p 5201 -t "$secs" -C cdg -f m > "$logc" 2>&1 &
cli1=$!
nsx "$NS_C" iperf3 -c "$ADDR_S" -p 5202 -t "$secs" -C cubic -f m > "$logu" 2>&1 &
cli2=$!
rc1=0 rc2=0
wait "$cli1" || rc1=$?
wait "$cli2" || rc2=$?
wait "$srv1" "$srv2" 2>/dev/null || true
tap_eq "the cdg transfer completed" "$rc1" 0
tap_eq "the cubic transfer completed" "$rc2" 0

gp_cdg=$(awk '/receiver/ { v = $(NF-2) } END { print v + 0 }' "$logc")
gp_cubic=$(awk '/receiver/ { v = $(NF-2) } END { print v + 0 }' "$logu")
share=$(awk -v a="$gp_cdg" -v b="$gp_cubic" 'BEGIN { if (a + b > 0) printf "%.3f", a / (a + b); else print 0 }')
enters=$(( $(cdg_counter "$NS_C" CompeteEnters) - enters0 ))
diag "cdg $gp_cdg Mbit/s, cubic $gp_cubic Mbit/s: cdg's share $share; CompeteEnters +$enters, CompeteExits $(cdg_counter "$NS_C" CompeteExits), CompeteProbes $(cdg_counter "$NS_C" CompeteProbes)"

perf_check "the link was used: $gp_cdg + $gp_cubic Mbit/s > 85 % of $RATE_MBIT" \
	"$gp_cdg + $gp_cubic > 0.85 * $RATE_MBIT"
perf_check "cdg (compete=$compete) holds its own: share $share >= $SHARE_MIN" \
	"$share >= $SHARE_MIN"
perf_check "cdg does not starve cubic: share $share <= $SHARE_MAX" \
	"$share <= $SHARE_MAX"
if [ "$compete" = 1 ]; then
	perf_check "competitive mode was entered (CompeteEnters +$enters)" "$enters >= 1"
fi
tap_end
