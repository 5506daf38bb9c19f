#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# The per-namespace default (cdg-spec §1): once loaded, cdg is listed in
# tcp_available_congestion_control; net.ipv4.tcp_congestion_control=cdg set
# inside one namespace makes that namespace's new connections use cdg (ss -ti
# and getsockopt say so), while the other namespace and the initial one
# keep cubic.
#
# The kernel lets a namespace other than the initial one pick as its default
# only a congestion control listed in net.ipv4.tcp_allowed_congestion_control
# (others: EPERM), so cdg is allowed first.  The EPERM rule is checked with
# tcp_vegas, not cdg: Debian's 6.1 kernel leaks a module reference on that
# path (tcp_set_default_congestion_control takes it before the EPERM check
# and never drops it), which would pin the module for the rest of the test.
. "$(dirname "$0")/lib.sh"

avail() { cat /proc/sys/net/ipv4/tcp_available_congestion_control; }
port=5201

cdg_unload
tap_nomatch "cdg not available before loading" "$(avail)" '(^| )cdg( |$)'
cdg_load_ours
tap_match "cdg available once ours is loaded" "$(avail)" '(^| )cdg( |$)'

ns_pair
init_cc=$(sysctl -n net.ipv4.tcp_congestion_control)
tap_eq "initial namespace default is cubic" "$init_cc" cubic
tap_eq "$NS_S default is cubic" "$(nsx "$NS_S" sysctl -n net.ipv4.tcp_congestion_control)" cubic

# Restricted in a non-initial namespace: EPERM.
if modprobe -q tcp_vegas; then
	before=$(cat /sys/module/tcp_vegas/refcnt)
	out=$(nsx "$NS_C" sysctl -w net.ipv4.tcp_congestion_control=vegas 2>&1) || true
	tap_match "vegas (not allowed) as $NS_C default: EPERM" "$out" "Operation not permitted"
	after=$(cat /sys/module/tcp_vegas/refcnt)
	[ "$before" = "$after" ] ||
		diag "kernel bug: the refused sysctl leaked a tcp_vegas reference (refcnt $before -> $after)"
else
	tap_skip "vegas (not allowed) as $NS_C default: EPERM" "no tcp_vegas module"
fi

allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
cleanup_add "sysctl -qw net.ipv4.tcp_allowed_congestion_control='$allowed'"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed cdg"
tap_match "cdg added to tcp_allowed_congestion_control" \
	"$(sysctl -n net.ipv4.tcp_allowed_congestion_control)" '(^| )cdg( |$)'

out=$(nsx "$NS_C" sysctl -w net.ipv4.tcp_congestion_control=cdg 2>&1) || true
tap_eq "sysctl -w in $NS_C" "$out" "net.ipv4.tcp_congestion_control = cdg"
cleanup_add "ip netns exec $NS_C sysctl -qw net.ipv4.tcp_congestion_control=cubic"
tap_eq "$NS_C reads cdg" "$(nsx "$NS_C" sysctl -n net.ipv4.tcp_congestion_control)" cdg
tap_eq "$NS_S still reads cubic" "$(nsx "$NS_S" sysctl -n net.ipv4.tcp_congestion_control)" cubic
tap_eq "initial namespace still reads cubic" "$(sysctl -n net.ipv4.tcp_congestion_control)" cubic

# New sockets pick the namespace's default.
tap_eq "new socket in $NS_C starts with cdg" "$(nsx "$NS_C" cc_sockopt get)" "OK cdg"
tap_eq "new socket in $NS_S starts with cubic" "$(nsx "$NS_S" cc_sockopt get)" "OK cubic"
tap_eq "new socket in the initial namespace starts with cubic" "$(cc_sockopt get)" "OK cubic"

# A connection from $NS_C to $NS_S: each end takes its own namespace's
# default, and ss -ti shows it while data flows.
nsx "$NS_S" iperf3 -s -1 -p $port >/dev/null 2>&1 &
srv=$!
wait_listen "$NS_S" $port
nsx "$NS_C" iperf3 -c "$ADDR_S" -p $port -t $((4 * _wait_scale)) >/dev/null 2>&1 &
cli=$!
wait_established "$NS_C" "dport = :$port"
sleep 1	# the data connection comes after the control one
cli_cc=$(ss_cc "$NS_C" "dport = :$port" | tr '\n' ' ' | sed 's/ $//')
srv_cc=$(ss_cc "$NS_S" "sport = :$port" | tr '\n' ' ' | sed 's/ $//')
diag "ss in $NS_C: $(ss -N "$NS_C" -Htin state established | tr -s ' \t' ' ' | tr '\n' '|')"
wait "$cli" || tap_fail "iperf3 client" "failed"
wait "$srv" || true
tap_eq "ss -ti: client sockets in $NS_C use cdg" "$cli_cc" cdg
tap_eq "ss -ti: server sockets in $NS_S use cubic" "$srv_cc" cubic

# Back to cubic: new sockets follow, and cdg can be unloaded again.
nsx "$NS_C" sysctl -qw net.ipv4.tcp_congestion_control=cubic
tap_eq "after resetting, new socket in $NS_C starts with cubic" "$(nsx "$NS_C" cc_sockopt get)" "OK cubic"
tap_cmd "rmmod after the namespace went back to cubic" cdg_unload
tap_end
