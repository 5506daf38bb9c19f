#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
#
# The scripted peer (tests/peer/): every script tests/peer/*.pkt runs
# against our module and against the kernel's in-tree tcp_cdg, with the
# same expectations, over IPv4 and IPv6.  Each run loads the module fresh
# (default parameters; the script sets the ones it needs through sysfs),
# and `peer` plays the remote end of one connection over a tun device,
# acknowledging each segment when the script says and asserting TCP_INFO.
# Every expect of a script becomes one TAP line here, named
# "SCRIPT ipvF MODULE: line N: expect ...".  The in-tree column SKIPs
# where the kernel has no tcp_cdg.ko.
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

# run_one SCRIPT FAMILY MODULE: one connection, its expects as TAP lines.
run_one() {
	local pkt=$1 fam=$2 mod=$3 name out rc=0 line
	name="$(basename "$pkt" .pkt) ipv$fam $mod"
	if [ "$mod" = ours ]; then cdg_load_ours; else cdg_load_intree; fi
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

for pkt in "${scripts[@]}"; do
	for fam in 4 6; do
		run_one "$pkt" "$fam" ours
		if [ -n "$CDG_INTREE" ]; then
			run_one "$pkt" "$fam" intree
		else
			tap_skip "$(basename "$pkt" .pkt) ipv$fam intree" \
				"this kernel has no in-tree tcp_cdg.ko"
		fi
	done
done
tap_end
