#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test of the project, with one closing line
#
#   N passed, N failed, N skipped
#
# 1. scripts/deps.sh (installs what is missing; a no-op otherwise)
# 2. the kernel matrix: Debian's lines 5.10, 6.1, 6.12 and 7.3 from
#    Debian's packages, unpacked under build/kernels (scripts/vm/kernels.sh;
#    nothing is installed on the host), the module built W=1 against each
#    (C=1 where sparse parses the kernel's headers); and W=1 C=1 against
#    every kernel whose headers this host has (what DKMS builds against)
# 3. checkpatch --strict: no error in the sources, no warning in tcp_cdg.c
# 4. the userspace unit tests (tests/unit), and the mutation check: every
#    mutant of tcp_cdg.c in tests/unit/mutate.sh fails them
# 5. the packaging tests (tests/pkg: make check-pkg), beside step 6
# 6. the VM suite (tests/vm) on the kernels of step 2: every test on the
#    oldest and the newest, the functional tests on the others
#    (scripts/vm/suite.sh; CHECK_FULL=1, make check-full, runs every test
#    on every kernel)
#
# Every suite prints TAP-like lines; this script counts them.  A suite that
# fails without printing a `not ok` line is counted as one failure.
#   CHECK_SKIP_VM=1    skip step 6 and the guest part of step 5
#
# The whole script is one compound command, read before any of it runs
# (as scripts/vm/suite.sh): bash reads a script as it goes, and an edit
# made during a 25-minute run once broke the run's last lines.
{
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$top/build/check
mkdir -p "$log"
: >"$log/results.tap"
git describe --always --dirty >"$log/commit" 2>/dev/null || echo "a tree outside git" >"$log/commit"

emit() { echo "$*" | tee -a "$log/results.tap"; }

# run NAME CMD...: run one suite, copy its TAP lines to the results
# ($run_tap: $log/results.tap, or another file for a suite that runs
# beside another one, added to the results when both are done).
run_tap=$log/results.tap
run() {
	local name=$1 rc t0=$SECONDS tap=$run_tap
	shift
	echo "# --- $name: $*"
	"$@" 2>"$log/$name.err" | tee "$log/$name.out" | tee -a "$tap"
	rc=${PIPESTATUS[0]}
	echo "# $name took $((SECONDS - t0)) s (make check so far: $SECONDS s)"
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$log/$name.out"; then
		echo "not ok - $name exited $rc (stderr: $log/$name.err)" | tee -a "$tap"
		tail -n 20 "$log/$name.err" | sed 's/^/# /'
	fi
	return 0
}

if ! scripts/deps.sh >"$log/deps.out" 2>&1; then
	emit "not ok - scripts/deps.sh failed (log: $log/deps.out)"
	tail -n 20 "$log/deps.out" | sed 's/^/# /'
fi

# Debian's kernel lines are downloaded and unpacked (network and disk,
# little CPU) while the host builds and the unit tests run; the matrix's
# build below waits for it (kernels.sh takes a lock) and reuses it all.
scripts/vm/kernels.sh fetch >"$log/kernels-fetch.out" 2>&1 &
fetch_pid=$!

kernels=$(ls -d /lib/modules/*/build/Makefile 2>/dev/null |
	sed 's|/lib/modules/\([^/]*\)/build/Makefile|\1|' | sort -V)
[ -n "$kernels" ] || emit "not ok - no kernel headers under /lib/modules/*/build"

for k in $kernels; do
	out=$log/build-$k.out
	if make -s ko KVER="$k" W=1 C=1 >"$out" 2>&1 &&
	   ! grep -E 'warning:|error:' "$out" | grep -q .; then
		emit "ok - build for $k with W=1 C=1 has no warning"
	else
		emit "not ok - build for $k with W=1 C=1 (log: $out)"
		grep -E 'warning:|error:' "$out" | head -n 20 | sed 's/^/# /'
	fi
done

if scripts/checkpatch.sh >/dev/null 2>"$log/checkpatch.out"; then
	emit "ok - checkpatch --strict: no error in tcp_cdg.c include/*.h"
else
	emit "not ok - checkpatch --strict (log: $log/checkpatch.out)"
fi
if grep -q '^tcp_cdg.c:.*: \(ERROR\|WARNING\|CHECK\):' "$log/checkpatch.out"; then
	emit "not ok - checkpatch --strict tcp_cdg.c is clean (log: $log/checkpatch.out)"
else
	emit "ok - checkpatch --strict tcp_cdg.c is clean"
fi

run unit make -s unit
# Each mutant of tcp_cdg.c (tests/unit/mutate.sh) must fail the unit suite.
run mutants make -s -C tests/unit mutants

# The kernel lines (fetched once, then cached under build/kernels).
wait "$fetch_pid" || true
run kernels scripts/vm/kernels.sh build
# Packaging (DKMS, .deb, install, sign; tests/pkg/vm-dkms.sh boots guests
# unless CHECK_SKIP_VM is set), beside the VM suite: the packaging tests
# run one at a time and mostly on one core, and they build in a copy of
# the tree (tests/pkg/lib.sh), so they leave the other core to the VMs
# and cannot race them.  Every guest runs in virtual time, so sharing the
# cores changes how long the suites take, not what they measure.  Their
# lines are kept apart and added to the results after the VM suite's.
echo "# --- pkg: make -s check-pkg, beside the VM suite (its lines follow the VM suite's)"
: >"$log/pkg.tap"
(run_tap=$log/pkg.tap run pkg make -s check-pkg >"$log/pkg.run" 2>&1) &
pkg_pid=$!
if [ -n "${CHECK_SKIP_VM:-}" ]; then
	emit "ok - VM suite # SKIP CHECK_SKIP_VM is set"
else
	CDG_VM_FULL_MATRIX=${CHECK_FULL:-} run vm make -s check-vm
fi
wait "$pkg_pid"
cat "$log/pkg.run"
cat "$log/pkg.tap" >>"$log/results.tap"

pass=$(grep -c '^ok ' "$log/results.tap" | tr -d ' ')
skip=$(grep -c '^ok .*# *SKIP' "$log/results.tap" | tr -d ' ')
fail=$(grep -c '^not ok' "$log/results.tap" | tr -d ' ')
pass=$((pass - skip))
echo "# results: $log/results.tap"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
exit
}
