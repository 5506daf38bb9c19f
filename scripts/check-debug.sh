#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug [T="test ..."]`: the VM suite on a debug kernel, with one
# closing line "N passed, N failed, N skipped".
#
# 1. scripts/vm/debug-kernel.sh builds (or reuses) a 6.1 kernel from Debian's
#    linux-source with KASAN, KMEMLEAK, UBSAN, PROVE_LOCKING,
#    DEBUG_ATOMIC_SLEEP and FAILSLAB, and without the in-tree tcp_cdg.
# 2. scripts/vm/suite.sh builds our module against it and runs every VM test
#    (or the T= ones) on it.  Any KASAN/UBSAN/lockdep report in the kernel
#    log, and any object kmemleak finds unreferenced after a test, fails
#    that test (scripts/vm/guest-init.sh).  Timeouts are scaled by
#    CDG_VM_TIMEOUT_SCALE (default 4): a KASAN kernel executes that many
#    more instructions for the same work, and in virtual time (run.sh)
#    the guest's clock counts instructions.
#    Figures (goodput, RTT) are not judged on a KASAN kernel (lib.sh's
#    perf_check skips them); fault_ring.sh runs only here.
#
# Not part of `make check` / CI: the kernel build alone takes longer than
# CI's budget (docs/reliability.md has the figures).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$top/build/check-debug
mkdir -p "$log"
: > "$log/results.tap"

"$top/scripts/deps.sh" > "$log/deps.out" 2>&1 ||
	echo "not ok - scripts/deps.sh failed (log: $log/deps.out)" | tee -a "$log/results.tap"

t0=$SECONDS
if krel=$("$top/scripts/vm/debug-kernel.sh" 2> "$log/kernel.err"); then
	echo "# debug kernel $krel ready in $((SECONDS - t0)) s (build log: build/debug-kernel/build.log)"
	# shellcheck disable=SC2086	# T is a list of test names
	CDG_KROOT=$top/build/debug-kernel/root \
	CDG_VM_TIMEOUT_SCALE=${CDG_VM_TIMEOUT_SCALE:-4} \
	CDG_VM_MEM=${CDG_VM_MEM:-2048} \
		"$top/scripts/vm/suite.sh" --kver "$krel" ${T:-} 2> "$log/suite.err" |
		tee -a "$log/results.tap"
	[ "${PIPESTATUS[0]}" -eq 0 ] || grep -q '^not ok' "$log/results.tap" ||
		echo "not ok - suite.sh failed (stderr: $log/suite.err)" | tee -a "$log/results.tap"
else
	echo "not ok - debug kernel build (log: $log/kernel.err)" | tee -a "$log/results.tap"
	tail -n 20 "$log/kernel.err" | sed 's/^/# /'
fi

pass=$(grep -c '^ok ' "$log/results.tap")
skip=$(grep -c '^ok .*# *SKIP' "$log/results.tap")
fail=$(grep -c '^not ok' "$log/results.tap")
pass=$((pass - skip))
echo "# results: $log/results.tap"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
