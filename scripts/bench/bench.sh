#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: the reproducible benchmark, in one VM boot.
#
#   make bench [BENCH=default|quick|confirm|repeat|rates|targets|optin|coexist|paths|compete|compete-diag|compete-check] [SEED=n] [KVER=6.1.0-...]
#
# Builds the module for KVER (default: the newest 6.1 kernel installed),
# writes the run list (scripts/bench/scenarios.py) into results/<time>/,
# boots the VM once with that directory shared as /out, and lets
# scripts/bench/guest/bench.sh run every scenario x CC x repetition over veth +
# netem; one progress line per run with an ETA.  Then scripts/bench/
# report.py writes results.json, summary.md and the plots there.
# docs/benchmarks.md explains the scenarios, the topology and the metrics.
#
# This is a benchmark, not a test: it exits non-zero only when runs fail.
# The VM runs in virtual time (scripts/vm/run.sh), so the figures do not
# depend on what else the host runs: that only stretches the wall time.
# SEED=n (default 1) seeds the guest's random numbers (CDG's backoff draws
# among them): another SEED varies the draws; the same SEED repeats a run
# closely, not yet bit for bit (docs/benchmarks.md, "Virtual time").
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3	# Debian's, with matplotlib (not a pyenv on PATH)
set_=${BENCH:-default}
case $set_ in default|quick|confirm|repeat|rates|targets|optin|coexist|paths|compete|compete-diag|compete-check) ;; *) echo "bench: BENCH=default, quick, confirm, repeat, rates, targets, optin, coexist, paths, compete, compete-diag or compete-check" >&2; exit 2 ;; esac

"$top/scripts/deps.sh" >/dev/null

# The VM's kernel: Debian's 6.1 (or KVER, a line or a kernel of
# build/kernels), unpacked there by scripts/vm/kernels.sh, never installed on
# this host; the module built for it.
kver=$("$top/scripts/vm/kernels.sh" vm ${KVER:+"$KVER"}) ||
	{ echo "bench: no kernel to boot (scripts/vm/kernels.sh said why, above)" >&2; exit 1; }

out=$top/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
(cd "$top/scripts/bench" && "$py" scenarios.py "$set_") > "$out/plan.txt"

others=$(pgrep -f qemu-system | wc -l)
seed=${SEED:-1}
[[ $seed =~ ^[0-9]+$ ]] || { echo "bench: SEED must be a non-negative integer" >&2; exit 2; }
{
	echo "set $set_"
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(uname -r)"
	echo "load $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min load average), $others other QEMU process(es)"
	echo "commit $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "seed $seed"
} > "$out/host.txt"

# The VM's time limit in wall time: in virtual time a busy guest runs
# slower than its clock (measured: 3-5 s of wall time per second of
# traffic at 100 Mbit/s), so 6 times the plan plus a margin.
secs=$(awk '/^run /{ for (i = 2; i <= NF; i++) if ($i ~ /^dur=/) s += substr($i, 5) + 6 } END { print int(s * 6 + 300) }' "$out/plan.txt")
echo "bench: $set_ set on $kver, seed $seed, results in ${out#"$top"/}"
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
# run.sh's own lines (the clock, how much of the host others took, how
# long it took) go to vm.log too: the report states them.  The guest
# reads only the plan (--in): host.txt, vm.log and bench.tap differ from
# run to run, and every byte the guest boots is part of the run.
CDG_VM_SEED=$seed "$runsh" --kver "$kver" --timeout "$secs" --in "$out/plan.txt" --out "$out" scripts/bench/guest/bench plan.txt \
	2> >(tee -a "$out/vm.log" >&2) |
	(cd "$top/scripts/bench" && "$py" progress.py "$out/plan.txt" "$out/bench.tap") || rc=$?
(cd "$top/scripts/bench" && "$py" report.py "$out")
echo "bench: summary in ${out#"$top"/}/summary.md"
exit "$rc"
