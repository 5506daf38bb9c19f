#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load or unload the module on this machine (`make load`, `make unload`).
#
#   scripts/pkg/load.sh load [ARGS]     insmod build/$(uname -r)/tcp_cdg.ko ARGS
#                                   (building it first), e.g. "window=16"
#   scripts/pkg/load.sh unload          rmmod tcp_cdg
#
# Only for a real host whose running kernel has module support: the test
# machines of this project have none, and load the module in QEMU guests
# instead (make check-vm).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "load.sh: $*" >&2; exit 1; }
krel=$(uname -r)

# No CONFIG_MODULES: no /proc/modules, no init_module(2).  Say so plainly
# instead of letting insmod fail with "Function not implemented".
can_load() {
	[ -e /proc/modules ] && return 0
	echo "load.sh: the running kernel $krel cannot load modules" >&2
	echo "  (built without CONFIG_MODULES: /proc/modules does not exist)." >&2
	echo "  Boot a kernel with module support, or load tcp_cdg in a VM:" >&2
	echo "  make check-vm (see docs/install.md)." >&2
	exit 1
}

need_root() { [ "$(id -u)" -eq 0 ] || die "must run as root"; }

case ${1:-} in
load)
	shift
	can_load
	need_root
	if [ -d /sys/module/tcp_cdg ]; then
		v=$(cat /sys/module/tcp_cdg/version 2>/dev/null || echo "in-tree, no version")
		die "a tcp_cdg ($v) is already loaded: make unload first"
	fi
	ko=$top/build/$krel/tcp_cdg.ko
	if [ -e "/lib/modules/$krel/build/Makefile" ]; then
		make -s -C "$top" ko KVER="$krel" >&2
	elif [ ! -f "$ko" ]; then
		die "no headers for the running kernel $krel (apt-get install linux-headers-$krel)"
	fi
	# shellcheck disable=SC2068  # ARGS is a list of name=value words
	insmod "$ko" $@
	echo "load.sh: loaded $ko $*"
	for p in /sys/module/tcp_cdg/parameters/*; do
		echo "  $(basename "$p") = $(cat "$p")"
	done
	;;
unload)
	can_load
	need_root
	[ -d /sys/module/tcp_cdg ] || { echo "load.sh: tcp_cdg is not loaded"; exit 0; }
	if ! rmmod tcp_cdg; then
		echo "load.sh: tcp_cdg is in use: a socket or a network namespace's" >&2
		echo "  net.ipv4.tcp_congestion_control still uses cdg (sysctl it back)." >&2
		exit 1
	fi
	echo "load.sh: unloaded tcp_cdg"
	;;
*)
	die "usage: $0 load [ARGS] | unload"
	;;
esac
