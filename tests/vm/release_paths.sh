#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# The socket life cycles that reach a congestion control's init and release
# in unusual orders (cdg-spec §12), run many times under slub_debug=FZPU
# (which run.sh always boots with) so that a double free, a use after free
# or a leak of the gradient ring shows up in the kernel log:
#  - a listener with TCP_CONGESTION=cdg set before and after listen(), and
#    children that inherit it (the 2020 double free through a listener);
#  - switching cdg -> reno -> cdg on an established socket;
#  - connect(AF_UNSPEC) (tcp_disconnect releases the CC), setsockopt again,
#    close (CVE-2022-49775: release called twice);
#  - closes in every order, with unread data (RST), a child switched to
#    cubic, a socket that selected cdg but never connected;
# for IPv4 and IPv6, with the default window and with window=1 (no ring)
# and 256.  Afterwards the module unloads (no socket kept a reference) and
# the kmalloc caches hold no more objects than before (no ring leaked).
. "$(dirname "$0")/lib.sh"

N=${1:-300}
ns_pair

# Active objects of the small kmalloc caches the ring comes from (8 x 8
# bytes by default, up to 256 x 8 = 2 KB).
kmalloc_active() {
	slab_shrink kmalloc-64 kmalloc-128 kmalloc-256 kmalloc-512 kmalloc-1k kmalloc-2k
	awk '$1 ~ /^kmalloc-(64|128|256|512|1k|2k)$/ { n += $2 } END { print n + 0 }' /proc/slabinfo
}

port=6000
for params in "" "window=1" "window=256"; do
	cdg_load_ours $params
	for dst in "$ADDR_S" "$ADDR6_S"; do
		port=$((port + 1))
		# The listener lives in $NS_S, the clients connect from there too
		# (loopback would also do, but veth exercises the real path).
		res=$(nsx "$NS_S" cc_sockopt churn "$dst" $port cdg "$N") || true
		tap_eq "churn ${params:-defaults} to $dst: $N connections" "$res" "OK $N connections"
	done
	tap_cmd "rmmod after the churn (${params:-defaults}): no reference left" cdg_unload
done

# A leak check: the same churn again, comparing kmalloc's active objects
# before and after (other allocations move too, so allow some slack; a
# leaked ring per connection would be thousands).
cdg_load_ours window=256
nsx "$NS_S" cc_sockopt churn "$ADDR_S" 6100 cdg 20 >/dev/null	# warm the caches
sleep 1
before=$(kmalloc_active)
res=$(nsx "$NS_S" cc_sockopt churn "$ADDR_S" 6101 cdg 1000) || true
tap_eq "churn of 1000 connections with window=256" "$res" "OK 1000 connections"
sleep 2	# let closing sockets be freed (RCU)
cdg_unload
after=$(kmalloc_active)
diag "kmalloc-64..2k active objects: $before before, $after after"
if [ $((after - before)) -lt 500 ]; then
	tap_ok "no gradient rings leaked (kmalloc active objects $before -> $after)"
else
	tap_fail "no gradient rings leaked (kmalloc active objects $before -> $after)"
fi
tap_end
