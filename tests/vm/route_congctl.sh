#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# Per-route selection: `ip route add ... congctl cdg` makes the connections
# that use that route run cdg (ss -ti), while connections on other routes
# from the same namespace keep the default (cubic).  IPv4 and IPv6.
# Then: the route does not pin the module (it holds only a key); after an
# rmmod, connections on it fall back to the default; after loading ours
# again they get cdg again.
. "$(dirname "$0")/lib.sh"

cdg_load_ours
ns_pair
# A second server address on the same link: reached by the connected /24
# (and /64) route, with no congctl.
ADDR_S2=198.18.0.3
ADDR6_S2=fd00::3
ip -n "$NS_S" addr add "$ADDR_S2/24" dev veth_s
ip -n "$NS_S" addr add "$ADDR6_S2/64" dev veth_s nodad

out=$(ip -n "$NS_C" route add "$ADDR_S/32" dev veth_c congctl cdg 2>&1) || true
tap_eq "ip route add $ADDR_S/32 congctl cdg" "$out" ""
out=$(ip -n "$NS_C" -6 route add "$ADDR6_S/128" dev veth_c congctl cdg 2>&1) || true
tap_eq "ip -6 route add $ADDR6_S/128 congctl cdg" "$out" ""
tap_match "the route shows congctl cdg" "$(ip -n "$NS_C" route get "$ADDR_S" 2>&1)" "congctl cdg"
tap_nomatch "the other address's route has no congctl" "$(ip -n "$NS_C" route get "$ADDR_S2" 2>&1)" "congctl"

# cc_of DST PORT: the CC of a connection from $NS_C to DST:PORT, read by ss
# while iperf3 moves data.
cc_of() {
	local dst=$1 port=$2 srv cli ccs
	nsx "$NS_S" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	srv=$!
	wait_listen "$NS_S" "$port"
	# Long enough to outlast the waits on a slow (debug) kernel.
	nsx "$NS_C" iperf3 -c "$dst" -p "$port" -t $((2 * _wait_scale)) >/dev/null 2>&1 &
	cli=$!
	wait_established "$NS_C" "dport = :$port"
	sleep 1
	ccs=$(ss_cc "$NS_C" "dport = :$port" | tr '\n' ' ' | sed 's/ $//')
	wait "$cli" || ccs="$ccs (iperf3 failed)"
	wait "$srv" || true
	echo "$ccs"
}

tap_eq "IPv4 connection on the congctl route uses cdg" "$(cc_of "$ADDR_S" 5201)" cdg
tap_eq "IPv4 connection on the plain route uses cubic" "$(cc_of "$ADDR_S2" 5202)" cubic
tap_eq "IPv6 connection on the congctl route uses cdg" "$(cc_of "$ADDR6_S" 5203)" cdg
tap_eq "IPv6 connection on the plain route uses cubic" "$(cc_of "$ADDR6_S2" 5204)" cubic

# Route keys do not hold the module.
tap_cmd "rmmod with congctl routes in place" cdg_unload
tap_eq "without the module, the congctl route falls back to cubic" "$(cc_of "$ADDR_S" 5205)" cubic
cdg_load_ours
tap_eq "with ours loaded again, the route uses cdg again" "$(cc_of "$ADDR_S" 5206)" cdg
tap_end
