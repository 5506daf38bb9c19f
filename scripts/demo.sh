#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: what this module does, on a machine that cannot load modules.
#
#   make demo [KVER=6.1.0-...] [DEMO_SECS=8]
#
# Installs what is missing (scripts/deps.sh), builds tcp_cdg.ko for the
# VM's kernel (make ko), boots the VM once, and over the emulated path
# (100 Mbit/s, 20 ms, 8-BDP buffer) runs one bulk flow each of cubic, ours
# (cdg, with its tracepoints recorded) and Debian's in-tree cdg.  Prints a
# table and writes results/demo-<time>/: table.txt, demo.png (RTT and
# throughput over time), trace.png (scripts/cdg-trace plot of our run) and
# the raw measurements.  The runner is the benchmark's (tests/vm/guest/
# bench.sh); docs/benchmarks.md describes the topology.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3	# Debian's, with matplotlib

"$top/scripts/deps.sh"
kver=${KVER:-$(ls /boot | sed -n 's/^vmlinuz-\(6\.1\..*\)/\1/p' | sort -V | tail -n 1)}
[ -n "$kver" ] || kver=$(ls /boot | sed -n 's/^vmlinuz-//p' | sort -V | tail -n 1)
echo "demo: building tcp_cdg for $kver"
make -s -C "$top" ko KVER="$kver" >/dev/null

out=$top/results/demo-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
(cd "$top/scripts/bench" && "$py" -c "
import scenarios
print('\n'.join(scenarios.demo_plan(${DEMO_SECS:-8})))") > "$out/plan.txt"

echo "demo: booting the VM ($kver, QEMU); cubic, cdg (ours) and cdg (in-tree), ${DEMO_SECS:-8} s each"
# run.sh from a copy: bash reads a script while it runs it, and in a tree
# where others work the harness may be edited during a 25-minute run (it
# was, twice: its last lines failed with a syntax error).  build/vm/ is two
# levels below the top, as scripts/vm/ is, so the copy finds the tree.
mkdir -p "$top/build/vm"
runsh=$top/build/vm/run.sh.$$
cp "$top/scripts/vm/run.sh" "$runsh"
trap 'rm -f "$runsh"' EXIT
rc=0
set -o pipefail
# The guest reads only the plan (run.sh --in).
"$runsh" --kver "$kver" --timeout 300 --in "$out/plan.txt" --out "$out" guest/bench plan.txt \
	2> >(tee -a "$out/vm.log" | grep --line-buffered -E 'busy|waiting|WARNING|run.sh:.*status' >&2) |
	(cd "$top/scripts/bench" && "$py" progress.py "$out/plan.txt" "$out/bench.tap") || rc=$?
set +o pipefail
echo
(cd "$top/scripts/bench" && "$py" demo.py "$out") || rc=1

trace=$(ls "$out"/runs/demo-*-cdg-r1/trace.txt 2>/dev/null | head -n 1)
if [ -s "$trace" ]; then
	"$top/scripts/cdg-trace" plot -o "$out/trace.png" \
		-t "tcp_cdg (ours) during the demo: 100 Mbit/s, 20 ms, 8 BDP" "$trace" || rc=1
else
	echo "demo: no tracepoint record of our run" >&2
	rc=1
fi
echo "demo: results in ${out#"$top"/}/ (table.txt, demo.png, trace.png)"
exit "$rc"
