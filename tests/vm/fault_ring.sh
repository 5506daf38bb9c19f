#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# Ring allocation failure (spec: "silent fallback to no ring"), injected
# with failslab on a kernel that has it (make check-debug; Debian's kernels
# have no CONFIG_FAULT_INJECTION, so there this test skips).
#
# 50 bulk cdg connections through netem switch congestion control every
# 50 ms (cdg -> cubic -> cdg ...); each switch back to cdg runs cdg_init in
# the switching process's context, where the ring is kcalloc'ed with
# GFP_NOWAIT.  failslab's task-filter fails allocations only in a task that
# has make-it-fail set, and churn (CHURN_FAIL_SWITCHES=1) sets it only while
# it switches: connect and send are spared.  (6.1 has no stacktrace filter
# on x86_64 and its per-cache failslab flag is read-only at run time.)
#
#   probability 100: every switch to cdg fails to get its ring; the
#                    connections keep sending (no ring: the gradient of the
#                    last round alone, times window), RingAllocFail counts
#                    each failure; the socket tries again at its next round
#                    end, in softirq or after the switch, which failslab
#                    spares: RingAllocLate counts the rings that came so
#   probability 50:  about half fail, at most as many come late
#   make-it-fail 0:  none fail, none come late
# and the kernel log stays clean (run.sh fails the test otherwise).
. "$(dirname "$0")/lib.sh"

F=/sys/kernel/debug/failslab
[ -d /sys/kernel/debug/failslab ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
[ -w $F/probability ] ||
	skip_all "no $F: this kernel has no CONFIG_FAILSLAB (make check-debug builds one)"
[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"

cdg_load_ours window=256
ns_pair
netem_bottleneck 10ms 100mbit 1000
churn_server 5001

# Quiet: verbose failslab prints a stack per failure, which would read as
# a kernel warning.
echo 0 > $F/verbose
echo 1 > $F/interval
echo -1 > $F/times
echo 0 > $F/space
echo Y > $F/task-filter
echo Y > $F/ignore-gfp-wait
cleanup_add "echo 0 > $F/probability"

# round PROBABILITY FAIL_SWITCHES: one 8 s run of 50 switching connections;
# sets FAILS (RingAllocFail increase), LATE (RingAllocLate increase), TO_CC
# (switches back to cdg), INITS (Sockets increase: the connect-time inits
# plus TO_CC) and OUT.
late() { local n; n=$(cdg_counter "$NS_C" RingAllocLate); echo "${n:-0}"; }
round() {
	local f0 s0 l0
	echo "$1" > $F/probability
	f0=$(cdg_counter "$NS_C" RingAllocFail) s0=$(cdg_counter "$NS_C" Sockets)
	l0=$(late)
	OUT=$(CHURN_FAIL_SWITCHES=$2 nsx "$NS_C" churn bulk "$ADDR_S" 5001 50 8 cdg 50) || true
	echo 0 > $F/probability
	FAILS=$(($(cdg_counter "$NS_C" RingAllocFail) - f0))
	INITS=$(($(cdg_counter "$NS_C" Sockets) - s0))
	LATE=$(($(late) - l0))
	TO_CC=$(echo "$OUT" | awk '{ print $12 }')
	diag "probability $1 fail-switches $2: $OUT; RingAllocFail +$FAILS, RingAllocLate +$LATE, Sockets +$INITS"
}

check_alive() {
	tap_eq "$1: 50 connections, no error" "$(echo "$OUT" | awk '{ print $2 "/" $NF }')" "50/0"
	tap_eq "$1: every connection made progress" "$(echo "$OUT" | awk '{ print $4 }')" 50
	tap_eq "$1: Sockets counts every init" "$INITS" "$((50 + TO_CC))"
}

round 100 1
check_alive "all rings fail"
tap_eq "all rings fail: RingAllocFail counts every switch to cdg ($TO_CC)" "$FAILS" "$TO_CC"
if [ "${TO_CC:-0}" -ge 50 ]; then tap_ok "all rings fail: $TO_CC switches to cdg"
else tap_fail "all rings fail: only ${TO_CC:-0} switches to cdg, want >= 50"; fi
# A socket stays cdg for 50 ms, a few rounds on this path: most get their
# ring at a round end before they are switched away (some spend those
# 50 ms in recovery, where no round ends).
if [ "$FAILS" -gt 0 ] && fcmp "$LATE >= 0.25 * $FAILS && $LATE <= $FAILS"; then
	tap_ok "all rings fail at the switch: $LATE of $FAILS came at a later round end"
else
	tap_fail "all rings fail at the switch: $LATE of $FAILS came at a later round end, want 25..100 %"
fi

round 50 1
check_alive "half the rings fail"
if [ "$LATE" -le "$FAILS" ]; then tap_ok "half the rings fail: $LATE of $FAILS came later"
else tap_fail "half the rings fail: $LATE came later, more than the $FAILS that failed"; fi
if [ "${TO_CC:-0}" -ge 50 ] && fcmp "$FAILS >= 0.25 * $TO_CC && $FAILS <= 0.75 * $TO_CC"; then
	tap_ok "half the rings fail: RingAllocFail +$FAILS for $TO_CC switches"
else
	tap_fail "half the rings fail: RingAllocFail +$FAILS for $TO_CC switches, want 25..75 %"
fi

round 100 0
check_alive "no task marked"
tap_eq "no task marked: RingAllocFail +0" "$FAILS" 0
tap_eq "no task marked: RingAllocLate +0" "$LATE" 0

sleep 3
tap_cmd "rmmod after the last connection closed" cdg_unload
tap_end
