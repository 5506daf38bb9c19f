#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The scripted peer against the unit suite's mutants (tests/unit/mutate.sh
# --list: tcp_cdg.c with one deliberate bug each).
#
#   tests/peer/mutants.sh [--build-only] [KVER] [NAME...]
#
# Builds each mutant (default: all of them) as a module for KVER (default
# 6.1.0-57-amd64) into build/peer-mutants/KVER/ko/NAME.ko, with the host's
# compiler (so only for a kernel of the host's suite: 6.1 and 6.12 on
# Debian 12), then boots one VM in which tests/vm/peer.sh (with
# CDG_PEER_MUTANTS=1) runs the scripts over IPv4 against each mutant in
# turn, ours-only scripts included, until one fails.  One TAP line per
# mutant: "ok - mutant NAME: killed by SCRIPT", or "not ok - mutant NAME:
# survived every script".  A mutant is built with TCP_CDG_GIT=m-NAME, so
# its version string names it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build_only=
[ "${1:-}" != --build-only ] || { build_only=1; shift; }
kver=${1:-6.1.0-57-amd64}
[ $# -eq 0 ] || shift
kdir=$top/build/kernels/root/lib/modules/$kver/build
work=$top/build/peer-mutants/$kver
[ -e "$kdir/Makefile" ] || { echo "mutants.sh: no headers in $kdir" >&2; exit 2; }
mkdir -p "$work/ko"

list=$("$top/tests/unit/mutate.sh" --list)
if [ $# -gt 0 ]; then
	list=$(for n in "$@"; do printf '%s\n' "$list" | grep "^$n|"; done)
fi

# Build: a copy of the module's sources with one sed expression applied.
while IFS='|' read -r name expr; do
	ko=$work/ko/$name.ko dir=$work/src/$name
	if [ -f "$ko" ] && [ "$ko" -nt "$top/tcp_cdg.c" ]; then continue; fi
	rm -rf "$dir"
	mkdir -p "$dir/include"
	cp "$top/Kbuild" "$top/dkms.conf" "$dir/"
	cp "$top"/include/*.h "$dir/include/"
	sed -e "$expr" "$top/tcp_cdg.c" > "$dir/tcp_cdg.c"
	if cmp -s "$dir/tcp_cdg.c" "$top/tcp_cdg.c"; then
		echo "# mutant $name: the sed expression changed nothing" >&2
		continue
	fi
	if ! make -C "$kdir" M="$dir" TCP_CDG_GIT="m-$name" modules \
		> "$dir/build.log" 2>&1; then
		echo "# mutant $name: does not build (log: $dir/build.log)" >&2
		continue
	fi
	cp "$dir/tcp_cdg.ko" "$ko"
	echo "# built $name" >&2
done <<< "$list"
[ -z "$build_only" ] || exit 0

# Run: one VM, the modules carried in as its /out/mutants/.
rm -rf "$work/in"
mkdir -p "$work/in/mutants"
while IFS='|' read -r name _; do
	[ ! -f "$work/ko/$name.ko" ] || cp "$work/ko/$name.ko" "$work/in/mutants/"
done <<< "$list"
# CDG_PEER_SCRIPTS="a b" runs only those scripts.
"$top/scripts/vm/run.sh" --kver "$kver" --timeout 3600 --in "$work/in" \
	--env CDG_PEER_MUTANTS=1 ${CDG_PEER_SCRIPTS:+--env CDG_PEER_SCRIPTS="$CDG_PEER_SCRIPTS"} peer
