#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# Module references (cdg-spec §1, §12): rmmod must fail with "in use"
# (EBUSY) while anything uses cdg, and succeed after the last user is gone:
#  - a socket that selected cdg with setsockopt (never connected);
#  - an established connection using cdg;
#  - a network namespace whose default is cdg (until the sysctl changes, or
#    until the namespace is deleted);
# then 100 load/use/unload cycles without a kernel warning (the harness
# also checks the log), the use being a socket that selects cdg.
. "$(dirname "$0")/lib.sh"

cdg_load_ours
refcnt() { cat "$CDG_SYS/refcnt"; }

# rmmod_busy WHAT: rmmod fails, saying "in use", and the module stays.
rmmod_busy() {
	local out rc=0
	out=$(rmmod tcp_cdg 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] && [[ $out == *"in use"* ]] && [ "$(cdg_which)" = ours ]; then
		tap_ok "rmmod fails while $1 (refcnt $(refcnt))"
	else
		tap_fail "rmmod fails while $1" "status $rc: $out; loaded: $(cdg_which)"
	fi
}
# rmmod_ok WHAT: succeeds (a closing socket may hold on a moment: retry)
rmmod_ok() {
	if cdg_unload 2>/dev/null && [ "$(cdg_which)" = none ]; then
		tap_ok "rmmod succeeds after $1"
	else
		tap_fail "rmmod succeeds after $1" "refcnt $(refcnt 2>&1)"
	fi
}

tap_eq "refcnt is 0 with no user" "$(refcnt)" 0

# 1. An unconnected socket holding cdg.
# A plain background job, not a coproc: bash once unset HOLD_PID while the
# coprocess still ran (CI, 6.1), and the kill then aborted the test.
cc_sockopt hold cdg > /tmp/hold.out &
hold_pid=$!
cleanup_add "kill $hold_pid 2>/dev/null"
for _ in $(seq 1 $((100 * _wait_scale))); do
	[ -s /tmp/hold.out ] && break
	sleep 0.1
done
tap_eq "a socket selected cdg" "$(cat /tmp/hold.out)" "OK cdg"
tap_eq "refcnt is 1 with one socket" "$(refcnt)" 1
rmmod_busy "a cdg socket exists"
kill "$hold_pid"
wait "$hold_pid" 2>/dev/null || true
rmmod_ok "the socket closed"

# 2. An established connection.
cdg_load_ours
ns_pair
nsx "$NS_S" iperf3 -s -1 >/dev/null 2>&1 &
srv=$!
wait_listen "$NS_S" 5201
nsx "$NS_C" iperf3 -c "$ADDR_S" -t 3 -C cdg >/dev/null 2>&1 &
cli=$!
wait_established "$NS_C" "dport = :5201"
sleep 1
rmmod_busy "an iperf3 -C cdg connection runs"
wait "$cli" || tap_fail "iperf3 client" "exited with an error"
wait "$srv" || true
rmmod_ok "the connection closed"

# 3. A namespace default (allowed first: see sysctl_netns.sh).
cdg_load_ours
allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
cleanup_add "sysctl -qw net.ipv4.tcp_allowed_congestion_control='$allowed'"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed cdg"
ns_add cdg-x
nsx cdg-x sysctl -qw net.ipv4.tcp_congestion_control=cdg
tap_eq "refcnt is 1 with one namespace default" "$(refcnt)" 1
rmmod_busy "a namespace's tcp_congestion_control is cdg"
nsx cdg-x sysctl -qw net.ipv4.tcp_congestion_control=cubic
rmmod_ok "the namespace went back to cubic"

cdg_load_ours
# A reloaded module registers afresh, restricted: allow it again.
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed cdg"
ns_add cdg-y
nsx cdg-y sysctl -qw net.ipv4.tcp_congestion_control=cdg
rmmod_busy "another namespace's default is cdg"
ip netns del cdg-y
rmmod_ok "that namespace was deleted"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed"

# 4. 100 cycles.
kmsg_mark
fails=0
t0=$SECONDS
for i in $(seq 1 100); do
	if ! insmod "$CDG_KO" 2>/dev/null; then
		fails=$((fails + 1)); diag "cycle $i: insmod failed"; continue
	fi
	res=$(cc_sockopt set cdg) || true
	[ "$res" = "OK cdg" ] || { fails=$((fails + 1)); diag "cycle $i: $res"; }
	rmmod tcp_cdg 2>/dev/null || cdg_unload ||
		{ fails=$((fails + 1)); diag "cycle $i: rmmod failed"; }
done
tap_eq "100 load/use/unload cycles ($((SECONDS - t0)) s)" "$fails failed" "0 failed"
bad=$(dmesg_since | grep -E 'WARNING|BUG|Oops|[Ss]lab|general protection|refcount' || true)
tap_eq "no kernel warning during the cycles" "$bad" ""
tap_eq "nothing loaded at the end" "$(cdg_which)" none
tap_end
