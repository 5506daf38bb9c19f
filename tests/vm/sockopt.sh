#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# Per-socket selection with setsockopt(TCP_CONGESTION):
#  - setsockopt "cdg" + getsockopt reads "cdg" back; an unknown name: ENOENT;
#  - `iperf3 -C cdg` carries data and ss -ti shows cdg on its data socket
#    while the namespace default stays cubic;
#  - an unprivileged process (uid/gid 65534, no capabilities) gets EPERM
#    for cdg until cdg is in net.ipv4.tcp_allowed_congestion_control, and
#    succeeds once it is added (and cubic, allowed, works throughout).
. "$(dirname "$0")/lib.sh"

require_cmd setpriv
port=5201
cdg_load_ours

tap_eq "setsockopt(cdg) + getsockopt" "$(cc_sockopt set cdg)" "OK cdg"
res=$(cc_sockopt set nosuchcc) || true
tap_match "setsockopt(nosuchcc): ENOENT" "$res" "^ERR ENOENT "

ns_pair
nsx "$NS_S" iperf3 -s -1 -p $port >/dev/null 2>&1 &
srv=$!
wait_listen "$NS_S" $port
nsx "$NS_C" iperf3 -c "$ADDR_S" -p $port -t 4 -C cdg -f m > /tmp/iperf.log 2>&1 &
cli=$!
wait_established "$NS_C" "dport = :$port"
sleep 1.5
ccs=$(ss_cc "$NS_C" "dport = :$port" | tr '\n' ' ' | sed 's/ $//')
rc=0
wait "$cli" || rc=$?
wait "$srv" || true
gp=$(awk '/receiver/ { print $(NF-2) }' /tmp/iperf.log)
if [ "$rc" -eq 0 ] && [ -n "$gp" ] && fcmp "$gp > 0"; then
	tap_ok "iperf3 -C cdg transfers data ($gp Mbit/s)"
else
	tap_fail "iperf3 -C cdg transfers data" "$(cat /tmp/iperf.log)"
fi
# The data socket is cdg; iperf3's control socket keeps the default.
tap_eq "ss -ti shows cdg (data) and cubic (control)" "$ccs" "cdg cubic"

# Unprivileged.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
tap_eq "setpriv drops all capabilities" \
	"$(nobody grep ^CapEff /proc/self/status | awk '{print $2}')" 0000000000000000
allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
cleanup_add "sysctl -qw net.ipv4.tcp_allowed_congestion_control='$allowed'"
tap_nomatch "cdg not in tcp_allowed_congestion_control ($allowed)" "$allowed" '(^| )cdg( |$)'
res=$(nobody cc_sockopt set cdg) || true
tap_match "unprivileged setsockopt(cdg): EPERM" "$res" "^ERR EPERM "
tap_eq "unprivileged setsockopt(cubic) (allowed)" "$(nobody cc_sockopt set cubic)" "OK cubic"

sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed cdg"
tap_match "cdg added to tcp_allowed_congestion_control" \
	"$(sysctl -n net.ipv4.tcp_allowed_congestion_control)" '(^| )cdg( |$)'
res=$(nobody cc_sockopt set cdg) || true
tap_eq "unprivileged setsockopt(cdg) once allowed" "$res" "OK cdg"

sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed"
res=$(nobody cc_sockopt set cdg) || true
tap_match "EPERM again once removed" "$res" "^ERR EPERM "

# Unprivileged, not loaded, allowed or not: no autoload for them (ENOENT).
cdg_unload
res=$(nobody cc_sockopt set cdg) || true
tap_match "unprivileged setsockopt(cdg) with the module unloaded: ENOENT, no autoload" \
	"$res" "^ERR ENOENT "
tap_eq "and nothing was loaded" "$(cdg_which)" none
tap_end
