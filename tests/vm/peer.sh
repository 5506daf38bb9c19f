#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
# vm-tier: functional
#
# The scripted peer (tests/peer/): every script tests/peer/*.pkt runs
# against our module and against the kernel's in-tree tcp_cdg, with the
# same expectations, over IPv4, and over IPv6 too for a script with a
# line "# ipv6" (the module sees no address family; a few scripts cover
# the IPv6 side of the stack, and the suite's VM time stays about half).
# Each run loads the module fresh (default parameters; the script sets
# the ones it needs through sysfs),
# and `peer` plays the remote end of one connection over a tun device,
# acknowledging each segment when the script says and asserting TCP_INFO.
# Every expect of a script becomes one TAP line here, named
# "SCRIPT ipvF MODULE: line N: expect ...".  The in-tree column SKIPs
# where the kernel has no tcp_cdg.ko, and for a script with a line
# "# ours-only" (an opt-in parameter the in-tree module lacks).  A
# script with "# min-kernel: X.Y" SKIPs on older kernels.  Tier
# functional: every kernel line runs it, since the TCP stack around the
# module (PRR, RACK, F-RTO, undo, idle restart) is what it checks, and
# that differs between the lines; 3-4 minutes of VM time per kernel.
. "$(dirname "$0")/lib.sh"

require_cmd peer ip
require_mod tun
[ -c /dev/net/tun ] || { mkdir -p /dev/net; mknod /dev/net/tun c 10 200; }
# No ssthresh carried from one connection to the next.
sysctl -qw net.ipv4.tcp_no_metrics_save=1

# CDG_PEER_SCRIPTS (run.sh --env) picks scripts by name: "slow_start no_backoff".
if [ -n "${CDG_PEER_SCRIPTS:-}" ]; then
	scripts=()
	for s in $CDG_PEER_SCRIPTS; do scripts+=("/tests/peer/$s.pkt"); done
else
	scripts=(/tests/peer/*.pkt)
fi
[ -f "${scripts[0]}" ] || skip_all "no scripts in /tests/peer"

# load_args SCRIPT: the parameters of its "# load: P=V ..." line, if any
# (window, which is read-only after the load).
load_args() { sed -n 's/^# load: //p' "$1"; }

# run_one SCRIPT FAMILY MODULE: one connection, its expects as TAP lines.
run_one() {
	local pkt=$1 fam=$2 mod=$3 name out rc=0 line
	name="$(basename "$pkt" .pkt) ipv$fam $mod"
	# shellcheck disable=SC2046 # "# load: window=256": load-time parameters
	if [ "$mod" = ours ]; then cdg_load_ours $(load_args "$pkt")
	else cdg_load_intree $(load_args "$pkt"); fi
	out=$(peer $([ "$fam" = 6 ] && echo -6) "$pkt" 2>&1) || rc=$?
	cdg_unload || true
	# peer prints "ok - ...", "not ok - ..." and "# ..." lines.
	local n=0 diags=
	while IFS= read -r line; do
		case $line in
		"ok - "*) tap_ok "$name: ${line#ok - }"; n=$((n + 1)) ;;
		"not ok - "*) tap_fail "$name: ${line#not ok - }"; n=$((n + 1)) ;;
		*) diags+="$line"$'\n' ;;
		esac
	done <<< "$out"
	[ -z "$diags" ] || [ "$rc" = 0 ] || printf '%s' "$diags" | sed 's/^\([^#]\)/# \1/'
	[ "$n" -gt 0 ] || tap_fail "$name: peer printed no result (status $rc)" "$out"
	[ "$rc" = 0 ] || [ "$_tap_failed" -gt 0 ] ||
		tap_fail "$name: peer exited $rc without a failed check"
}

# CDG_PEER_MUTANTS=1 (tests/peer/mutants.sh): each module in /out/mutants/
# as ours, IPv4 only, the scripts in turn until one fails.
if [ -n "${CDG_PEER_MUTANTS:-}" ]; then
	for ko in /out/mutants/*.ko; do
		m=$(basename "$ko" .ko) killer=
		CDG_KO=$ko CDG_VERSION=$(modinfo -F version "$ko")
		for pkt in "${scripts[@]}"; do
			# shellcheck disable=SC2046
			cdg_load_ours $(load_args "$pkt") ||
				{ killer="(load failed)"; break; }
			rc=0
			peer "$pkt" > /dev/null 2>&1 || rc=$?
			cdg_unload || true
			[ "$rc" = 0 ] || { killer=$(basename "$pkt" .pkt); break; }
		done
		if [ -n "$killer" ]; then
			tap_ok "mutant $m: killed by $killer"
		else
			tap_fail "mutant $m: survived every script"
		fi
	done
	tap_end
	exit
fi

# min_kernel SCRIPT: its "# min-kernel: X.Y" line, if any.
min_kernel() { sed -n 's/^# min-kernel: *\([0-9.]*\).*/\1/p' "$1"; }
kver=$(uname -r)

for pkt in "${scripts[@]}"; do
	name=$(basename "$pkt" .pkt)
	mk=$(min_kernel "$pkt")
	if [ -n "$mk" ] && [ "$(printf '%s\n%s\n' "$mk" "$kver" | sort -V | head -n 1)" != "$mk" ]; then
		tap_skip "$name" "needs kernel $mk or later (its '# min-kernel:' line says why)"
		continue
	fi
	fams=4
	! grep -q '^# ipv6$' "$pkt" || fams="4 6"
	for fam in $fams; do
		run_one "$pkt" "$fam" ours
		if grep -q '^# ours-only' "$pkt"; then
			tap_skip "$name ipv$fam intree" \
				"ours-only: the in-tree module has no such parameter"
		elif [ -n "$CDG_INTREE" ]; then
			run_one "$pkt" "$fam" intree
		else
			tap_skip "$name ipv$fam intree" \
				"this kernel has no in-tree tcp_cdg.ko"
		fi
	done
done
tap_end
