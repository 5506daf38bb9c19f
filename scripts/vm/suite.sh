#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM test suite: `make check-vm [T="test ..."] [KVER=...]` runs this.
#
#   scripts/vm/suite.sh [--kver K]... [TEST...]
#
# For each kernel (the --kver ones, else every kernel unpacked under
# build/kernels/root by scripts/vm/kernels.sh, which this runs once when that
# tree is empty) it builds the module and runs each TEST (default: every
# tests/vm/*.sh but lib.sh)
# in its own VM with scripts/vm/run.sh, CDG_VM_JOBS (default: the number
# of CPUs) VMs at a time.  That is safe for the throughput tests because
# the VMs run in virtual time (run.sh); with CDG_VM_CLOCK=real they run one
# at a time.
#
# CDG_KROOT=DIR takes the kernels from DIR/boot and DIR/lib/modules instead
# (see run.sh; CDG_KROOT=/ is this host's own); their headers are
# DIR/lib/modules/K/build.
#
# The matrix.  A whole suite (no TEST named) runs every test on the oldest
# and the newest kernel, and on the kernels between only the functional
# tests, those whose script has a line "# vm-tier: functional" (load,
# parameters, selection, unload, traffic); the others report a SKIP there.
# What differs between kernel lines is the API the module is built
# against and the TCP stack around it: the oldest and newest line bound
# both, and the lines between are checked for what a user meets first.
# A test with a line "# vm-tier: newest" runs on the newest kernel only.
# CDG_VM_FULL_MATRIX=1 (make check-full) runs every test on every kernel,
# and so does naming tests (T=...).
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
# The kernels: scripts/vm/kernels.sh's, never installed on the host.
kroot=${CDG_KROOT:-$top/build/kernels/root}
[ "$kroot" != / ] || kroot=
export CDG_KROOT=${kroot:-/}
kvers=()
tests=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kvers+=("$2"); shift 2 ;;
	-*) echo "suite.sh: unknown option $1" >&2; exit 2 ;;
	*) tests+=("${1%.sh}"); shift ;;
	esac
done

# bootable KROOT: the kernels there with both headers and a vmlinuz.
bootable() {
	local d k
	for d in "$1"/lib/modules/*/build; do
		k=$(basename "$(dirname "$d")")
		[ -e "$d/Makefile" ] && [ -r "$1/boot/vmlinuz-$k" ] && echo "$k"
	done
	return 0
}
if [ ${#kvers[@]} -eq 0 ]; then
	mapfile -t kvers < <(bootable "$kroot")
	# A first run: Debian's kernel lines into build/kernels (once).
	if [ ${#kvers[@]} -eq 0 ] && [ "$kroot" = "$top/build/kernels/root" ]; then
		echo "# check-vm: no kernel in $kroot yet: scripts/vm/kernels.sh fetch"
		"$top/scripts/vm/kernels.sh" fetch >&2 || true
		mapfile -t kvers < <(bootable "$kroot")
	fi
	if [ ${#kvers[@]} -eq 0 ]; then
		echo "not ok 1 - check-vm: no kernel with both headers and boot/vmlinuz in ${kroot:-/} (make kernels)"
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
# Phase 1: the module and the initramfs, once per kernel.
declare -A img
ok_kvers=()
for k in "${kvers[@]}"; do
	build=(make -C "$top" --no-print-directory ko KVER="$k"
		KDIR="$kroot/lib/modules/$k/build")
	# scripts/vm/kernels.sh's kernels (CDG_KROOT=build/kernels/root) want
	# their own suite's compiler (5.10: gcc-10, 7.x: gcc-14), which this
	# host lacks: kernels.sh builds them, in that suite's chroot.
	if [ -n "$kroot" ] && [ "$kroot" -ef "$top/build/kernels/root" ]; then
		build=("$top/scripts/vm/kernels.sh" ko "$k")
	fi
	if ! "${build[@]}" >&2; then
		echo "not ok 1 - check-vm: the module build for $k failed (its tests did not run)"
		failed=1
		summary+=("$k: build failed")
		continue
	fi
	# Built (or found up to date) once: every test of this kernel boots it.
	if ! img[$k]=$("$top/scripts/vm/mkinitramfs.sh" "$k"); then
		echo "not ok 1 - check-vm: initramfs for $k failed (its tests did not run)"
		failed=1
		summary+=("$k: initramfs failed")
		continue
	fi
	ok_kvers+=("$k")
done

# Phase 2: every (kernel, test) pair, up to $jobs VMs at a time.  In
# virtual time a guest's figures do not depend on what else runs, so
# two guests share the two cores; each prints when it is done, in the
# order of the list, so the output reads as if they had run one by one.
jobs=${CDG_VM_JOBS:-$(nproc)}
[ "${CDG_VM_CLOCK:-virtual}" = virtual ] || jobs=1
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "suite.sh: CDG_VM_JOBS must be a positive integer" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cdg-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
pairs=()
for k in "${ok_kvers[@]}"; do
	for t in "${tests[@]}"; do pairs+=("$k $t"); done
done

# One pair, in the background: its stdout, stderr, status and seconds.
run_pair() {
	local i=$1 k=$2 t=$3 t0=$SECONDS rc=0
	if [ "$k" != "${kvers[0]}" ] && [ "$k" != "${kvers[-1]}" ] &&
	   [ "$named" = 0 ] && [ -z "${CDG_VM_FULL_MATRIX:-}" ] &&
	   ! grep -q '^# vm-tier: functional' "$top/tests/vm/$t.sh"; then
		echo "ok 1 - $t on $k # SKIP the functional tests only on the kernels between ${kvers[0]} and ${kvers[-1]}; CDG_VM_FULL_MATRIX=1 or T=$t runs it here" > "$work/$i.out"
	elif [ "$k" != "${kvers[-1]}" ] && [ "$named" = 0 ] &&
	   [ -z "${CDG_VM_FULL_MATRIX:-}" ] &&
	   grep -q '^# vm-tier: newest' "$top/tests/vm/$t.sh"; then
		echo "ok 1 - $t on $k # SKIP $t runs on the newest kernel only (${kvers[-1]}; its '# vm-tier: newest' line says why); CDG_VM_FULL_MATRIX=1 or T=$t runs it here" > "$work/$i.out"
	else
		CDG_VM_IMG=${img[$k]} "$top/scripts/vm/run.sh" --kver "$k" "$t" \
			>"$work/$i.out" 2>"$work/$i.err" || rc=$?
	fi
	echo "$((SECONDS - t0))" > "$work/$i.secs"
	echo "$rc" > "$work/$i.rc"	# last: it says the pair is done
}

declare -A ksecs kbad
next=0	# the first pair not printed yet
flush() {
	local k t rc secs
	while [ "$next" -lt "${#pairs[@]}" ] && [ -f "$work/$next.rc" ]; do
		read -r k t <<< "${pairs[next]}"
		echo "# --- $k: $t"
		cat "$work/$next.out"
		[ ! -f "$work/$next.err" ] || cat "$work/$next.err" >&2
		rc=$(cat "$work/$next.rc") secs=$(cat "$work/$next.secs")
		echo "# $k: $t took $secs s"
		ksecs[$k]=$(( ${ksecs[$k]:-0} + secs ))
		if [ "$rc" != 0 ]; then
			failed=1
			kbad[$k]+="$t "
		fi
		next=$((next + 1))
	done
}

# The longest first (by the test's "# vm-timeout:", 300 s if none), so
# that no long test starts last and runs alone on an idle core; the
# output still follows the list.
start=()
mapfile -t start < <(for i in "${!pairs[@]}"; do
	t=${pairs[i]#* }
	secs=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$top/tests/vm/$t.sh" | head -n 1)
	echo "${secs:-300} $i"
done | sort -s -k1,1nr | cut -d' ' -f2)
running=0
for i in "${start[@]}"; do
	while [ "$running" -ge "$jobs" ]; do
		wait -n || true
		running=$((running - 1))
		flush
	done
	# shellcheck disable=SC2086 # "kernel test"
	run_pair "$i" ${pairs[i]} &
	running=$((running + 1))
done
wait
flush
for k in "${ok_kvers[@]}"; do
	summary+=("$k: ${ksecs[$k]:-0} s of VM time, ${#tests[@]} test(s), failed: ${kbad[$k]:-none}")
done
echo "# check-vm: $jobs VM(s) at a time"
for s in "${summary[@]}"; do echo "# check-vm $s"; done
echo "# check-vm total $((SECONDS - t_all)) s"
exit "$failed"
}
