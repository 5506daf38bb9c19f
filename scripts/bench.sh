#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: the reproducible benchmark, in one VM boot.
#
#   make bench [BENCH=default|quick|tune|tune-long|confirm] [KVER=6.1.0-...]
#
# Builds the module for KVER (default: the newest 6.1 kernel installed),
# writes the run list (scripts/bench/scenarios.py) into results/<time>/,
# boots the VM once with that directory shared as /out, and lets
# tests/vm/guest/bench.sh run every scenario x CC x repetition over veth +
# netem; one progress line per run with an ETA.  Then scripts/bench/
# report.py writes results.json, summary.md and the plots there.
# docs/benchmarks.md explains the scenarios, the topology and the metrics.
#
# This is a benchmark, not a test: it exits non-zero only when runs fail.
# Under QEMU TCG the figures depend on the host being otherwise idle; the
# script records the host's load and any other QEMU in host.txt.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3	# Debian's, with matplotlib (not a pyenv on PATH)
set_=${BENCH:-default}
case $set_ in default|quick|tune|tune-long|confirm) ;; *) echo "bench: BENCH=default, quick, tune, tune-long or confirm" >&2; exit 2 ;; esac

"$top/scripts/deps.sh" >/dev/null

kver=${KVER:-$(ls /boot | sed -n 's/^vmlinuz-\(6\.1\..*\)/\1/p' | sort -V | tail -n 1)}
[ -n "$kver" ] || kver=$(ls /boot | sed -n 's/^vmlinuz-//p' | sort -V | tail -n 1)
make -s -C "$top" ko KVER="$kver" >/dev/null

out=$top/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
(cd "$top/scripts/bench" && "$py" scenarios.py "$set_") > "$out/plan.txt"

# What else runs here: a compile or another VM makes TCG figures worthless.
others=$(pgrep -f qemu-system | wc -l)
{
	echo "set $set_"
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(uname -r)"
	echo "load $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min load average), $others other QEMU process(es)"
	echo "commit $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
} > "$out/host.txt"
# run.sh takes the machine-wide VM lock exclusively for this runner (its
# "# vm-exclusive" line) and waits a while for idle CPUs; what it measured
# goes into the report.
[ "$others" = 0 ] || echo "bench: $others other QEMU process(es) running: run.sh waits for them" >&2

# The VM's time limit: the plan's traffic plus a generous per-run overhead.
secs=$(awk '/^run /{ for (i = 2; i <= NF; i++) if ($i ~ /^dur=/) s += substr($i, 5) + 6 } END { print int(s * 1.5 + 180) }' "$out/plan.txt")
echo "bench: $set_ set on $kver, results in ${out#"$top"/}"
# run.sh from a copy: bash reads a script while it runs it, and in a tree
# where others work the harness may be edited during a 25-minute run (it
# was, twice: its last lines failed with a syntax error).  build/vm/ is two
# levels below the top, as scripts/vm/ is, so the copy finds the tree.
mkdir -p "$top/build/vm"
runsh=$top/build/vm/run.sh.$$
cp "$top/scripts/vm/run.sh" "$runsh"
trap 'rm -f "$runsh"' EXIT
rc=0
set -o pipefail	# a harness failure (timeout, panic) counts as well as a failed run
# run.sh's own lines (how busy the host was, how long it took) go to
# vm.log too: the report states them.
"$runsh" --kver "$kver" --timeout "$secs" --out "$out" guest/bench plan.txt \
	2> >(tee -a "$out/vm.log" >&2) |
	(cd "$top/scripts/bench" && "$py" progress.py "$out/plan.txt" "$out/bench.tap") || rc=$?
(cd "$top/scripts/bench" && "$py" report.py "$out")
echo "bench: summary in ${out#"$top"/}/summary.md"
exit "$rc"
