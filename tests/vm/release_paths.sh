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
# and 256.  Afterwards the module unloads (no socket kept a reference),
# and then, path by path, kmalloc-2k holds no more objects after a churn
# than before it (no ring leaked on any one path).
. "$(dirname "$0")/lib.sh"

N=${1:-300}
ns_pair

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

# The leak check, one close path at a time: with window=256 every ring is
# one kmalloc-2k object (256 x 8 bytes), so a ring leaked on one path adds
# one object per connection of that phase to kmalloc-2k, and little else
# uses that cache.  Each phase gets its own baseline, after a shrink: a
# leak on one path must not hide in the slack of three (until 2026-12-07
# one check over all paths allowed 500 objects, and a leak on one of the
# three, about 333 rings, passed).
#
# SLAB_NOISE: with the correct module kmalloc-2k moved by 0 in every phase
# on 5.10, 6.1, 6.12 and 7.3 (docs/reliability.md, "release_paths"), and
# by +1 over stress_churn's 20,000 connections (an skb head or similar
# that outlived the count).  10 leaves room for such a stray object; a
# path that leaks leaks one ring per connection, M = 300 here.
cdg_load_ours window=256
M=${2:-300}
SLAB_NOISE=${SLAB_NOISE:-10}
names=("disconnect, set again, close" "RST: server closes with unread data" "child switched to cubic, then closed")
port=6100
for p in 0 1 2; do
	port=$((port + 2))
	nsx "$NS_S" cc_sockopt churn "$ADDR_S" $port cdg 20 $p >/dev/null	# warm the caches
	sleep 1
	before=$(slab_active kmalloc-2k)
	res=$(nsx "$NS_S" cc_sockopt churn "$ADDR_S" $((port + 1)) cdg "$M" $p) || true
	tap_eq "close path $p (${names[p]}): $M connections" "$res" "OK $M connections"
	sleep 2	# let closing sockets be freed (RCU)
	after=$(slab_active kmalloc-2k)
	diag "close path $p: kmalloc-2k active objects $before -> $after ($((after - before)))"
	if [ $((after - before)) -le "$SLAB_NOISE" ]; then
		tap_ok "close path $p: no ring leaked (kmalloc-2k $before -> $after, noise <= $SLAB_NOISE)"
	else
		tap_fail "close path $p: kmalloc-2k $before -> $after after $M connections: leaked rings? (noise <= $SLAB_NOISE)"
	fi
done
tap_cmd "rmmod after the per-path churn: no reference left" cdg_unload
tap_end
