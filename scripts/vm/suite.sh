#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM test suite: `make check-vm [T="test ..."] [KVER=...]` runs this.
#
#   scripts/vm/suite.sh [--kver K]... [TEST...]
#
# For each kernel (the --kver ones, else every kernel that has both headers,
# /lib/modules/K/build, and a /boot/vmlinuz-K) it builds the module with
# `make ko KVER=K` and runs each TEST (default: every tests/vm/*.sh but
# lib.sh; tests/vm/guest/ holds benchmarks, not tests) in its own VM with
# scripts/vm/run.sh.  Serially: the throughput tests must not share the
# machine's two cores with another guest (run.sh's VM lock also makes sure
# of that across checkouts).
#
# CDG_KROOT=DIR takes the kernels from DIR/boot and DIR/lib/modules instead
# (see run.sh); their headers are DIR/lib/modules/K/build.
#
# A test whose script has a line "# vm-kernels: first" runs, in a whole
# suite, on the first kernel only (the oldest: Debian 12's own) and reports
# a SKIP on the others; CDG_VM_FULL_MATRIX=1 runs it on every kernel, and so
# does naming it (T=...).  The stress tests carry it: they exercise the
# module's own paths at scale, the same code on every kernel, and running
# them twice took `make check` past its 30 minutes.
#
# stdout carries only TAP result lines and "# " comments, so that
# scripts/check.sh can count ok / not ok / # SKIP; build output goes to
# stderr.  A kernel whose module does not build gets one "not ok" for the
# build and none of its tests run.  Exit status: 0 if nothing failed.
# The whole script is one compound command, read before any of it runs:
# bash reads scripts as it goes, so editing this file while a long run is
# under way would otherwise feed the old run the new file's lines.
{
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
kroot=${CDG_KROOT:-}
kvers=()
tests=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kvers+=("$2"); shift 2 ;;
	-*) echo "suite.sh: unknown option $1" >&2; exit 2 ;;
	*) tests+=("${1%.sh}"); shift ;;
	esac
done

if [ ${#kvers[@]} -eq 0 ]; then
	for d in "$kroot"/lib/modules/*/build; do
		k=$(basename "$(dirname "$d")")
		[ -e "$d/Makefile" ] && [ -r "$kroot/boot/vmlinuz-$k" ] && kvers+=("$k")
	done
	if [ ${#kvers[@]} -eq 0 ]; then
		echo "not ok 1 - check-vm: no kernel with both headers and /boot/vmlinuz (scripts/deps.sh)"
		exit 1
	fi
	mapfile -t kvers < <(printf '%s\n' "${kvers[@]}" | sort -V)
fi
named=${#tests[@]}
if [ ${#tests[@]} -eq 0 ]; then
	for f in "$top"/tests/vm/*.sh; do
		t=$(basename "$f" .sh)
		[ "$t" = lib ] || tests+=("$t")
	done
fi
for t in "${tests[@]}"; do
	[ -f "$top/tests/vm/$t.sh" ] || { echo "suite.sh: no test tests/vm/$t.sh" >&2; exit 2; }
done

failed=0
summary=()
t_all=$SECONDS
for k in "${kvers[@]}"; do
	t_k=$SECONDS
	echo "# === kernel $k: ${#tests[@]} test(s) ==="
	if ! make -C "$top" --no-print-directory ko KVER="$k" \
		KDIR="$kroot/lib/modules/$k/build" >&2; then
		echo "not ok 1 - check-vm: make ko KVER=$k failed (its tests did not run)"
		failed=1
		summary+=("$k: build failed")
		continue
	fi
	# Built (or found up to date) once: every test of this kernel boots it.
	if ! img=$("$top/scripts/vm/mkinitramfs.sh" "$k"); then
		echo "not ok 1 - check-vm: initramfs for $k failed (its tests did not run)"
		failed=1
		summary+=("$k: initramfs failed")
		continue
	fi
	bad=()
	for t in "${tests[@]}"; do
		echo "# --- $k: $t"
		if [ "$k" != "${kvers[0]}" ] && [ "$named" = 0 ] &&
		   [ -z "${CDG_VM_FULL_MATRIX:-}" ] &&
		   grep -q '^# vm-kernels: first' "$top/tests/vm/$t.sh"; then
			echo "ok 1 - $t on $k # SKIP runs on the first kernel (${kvers[0]}) only; CDG_VM_FULL_MATRIX=1 or T=$t runs it here"
			continue
		fi
		t_t=$SECONDS
		if ! CDG_VM_IMG=$img "$top/scripts/vm/run.sh" --kver "$k" "$t"; then
			failed=1
			bad+=("$t")
		fi
		echo "# $k: $t took $((SECONDS - t_t)) s"
	done
	summary+=("$k: $((SECONDS - t_k)) s, ${#tests[@]} test(s), failed: ${bad[*]:-none}")
done
for s in "${summary[@]}"; do echo "# check-vm $s"; done
echo "# check-vm total $((SECONDS - t_all)) s"
exit "$failed"
}
