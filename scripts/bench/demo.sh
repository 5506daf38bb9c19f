#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: what this module does, on a machine that cannot load modules.
#
#   make demo [KVER=6.1.0-...] [DEMO_SECS=8]
#
# Installs what is missing (scripts/deps.sh), fetches Debian's 6.1 kernel
# into build/kernels (scripts/vm/kernels.sh; nothing is installed on this
# host), builds tcp_cdg.ko for it, boots the VM once, and over the emulated path
# (100 Mbit/s, 20 ms, 8-BDP buffer) runs one bulk flow each of cubic, ours
# (cdg, with its tracepoints recorded) and Debian's in-tree cdg.  Prints a
# table and writes results/demo-<time>/: table.txt, demo.png (RTT and
# throughput over time), trace.png (scripts/trace/cdg-trace plot of our run) and
# the raw measurements.  The runner is the benchmark's (scripts/bench/guest/
# bench.sh); docs/benchmarks.md describes the topology.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3	# Debian's, with matplotlib

"$top/scripts/deps.sh"
# The VM's kernel: Debian's 6.1 (or KVER, a line or a kernel of
# build/kernels), unpacked there by scripts/vm/kernels.sh, never installed on
# this host; the module built for it.
kver=$("$top/scripts/vm/kernels.sh" vm ${KVER:+"$KVER"}) ||
	{ echo "demo: no kernel to boot (scripts/vm/kernels.sh said why, above)" >&2; exit 1; }

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
"$runsh" --kver "$kver" --timeout 300 --in "$out/plan.txt" --out "$out" scripts/bench/guest/bench plan.txt \
	2> >(tee -a "$out/vm.log" | grep --line-buffered -E 'busy|waiting|WARNING|run.sh:.*status' >&2) |
	(cd "$top/scripts/bench" && "$py" progress.py "$out/plan.txt" "$out/bench.tap") || rc=$?
set +o pipefail
echo
(cd "$top/scripts/bench" && "$py" demo.py "$out") || rc=1

trace=$(ls "$out"/runs/demo-*-cdg-r1/trace.txt 2>/dev/null | head -n 1)
if [ -s "$trace" ]; then
	"$top/scripts/trace/cdg-trace" plot -o "$out/trace.png" \
		-t "tcp_cdg (ours) during the demo: 100 Mbit/s, 20 ms, 8 BDP" "$trace" || rc=1
else
	echo "demo: no tracepoint record of our run" >&2
	rc=1
fi
echo "demo: results in ${out#"$top"/}/ (table.txt, demo.png, trace.png)"
exit "$rc"
