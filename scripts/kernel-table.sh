#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's kernel table, from what the last `make check` ran.
#
#   scripts/kernel-table.sh [RESULTS]       print the table (markdown)
#   scripts/kernel-table.sh --update [RESULTS]
#                                           rewrite it in README.md, between
#                                           the kernel-table markers
#
# RESULTS is make check's build/check/results.tap (the default).  One row
# per kernel line scripts/vm/kernels.sh prepared: the package it chose, the
# module build (kernels.sh's result line), the VM tests on that kernel
# (scripts/vm/suite.sh's sections, "# --- K: test"), and the DKMS results
# that name it (tests/pkg).  Nothing is claimed that RESULTS does not hold.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
update=0
[ "${1:-}" != --update ] || { update=1; shift; }
res=${1:-$top/build/check/results.tap}
[ -r "$res" ] || { echo "kernel-table: no $res (run make check)" >&2; exit 1; }
# The choices of the tree that ran the check (a clean clone in CI).
stamps=$(cd "$(dirname "$res")/../.." && pwd)/build/kernels/stamps
[ -d "$stamps" ] || stamps=$top/build/kernels/stamps

table() {
	local line k img build vm dkms when commit
	commit=$(cat "$(dirname "$res")/commit" 2>/dev/null || echo "unknown commit")
	when=$(date -u -r "$res" +%Y-%m-%d)
	echo "From \`make check\` of $commit, $when (\`scripts/kernel-table.sh\`):"
	echo
	echo "| line | kernel | Debian package, suite | module build | VM tests on it | DKMS |"
	echo "|---|---|---|---|---|---|"
	for line in 5.10 6.1 6.12 7.3; do
		k=$(cat "$stamps/chosen-$line" 2>/dev/null || true)
		if [ -z "$k" ]; then
			echo "| $line | not prepared | | | | |"
			continue
		fi
		img=$(sed -n 's/^IMG=linux-image-[^ ]* //p' "$stamps/choice-$line" 2>/dev/null | sed 's/ from /, /')
		build=$(grep -F -- "- build $line $k: " "$res" | tail -n 1 |
			sed -E 's/^(not )?ok - build [^:]*: //; s/ \(log: [^)]*\)//; s/ \(cached\)//;
				s/sparse yes( \(forced[^)]*\))?/C=1 (sparse)/;
				s/sparse no: .*(cannot parse [^,]*).*/no C=1: sparse \1/')
		[ -n "$build" ] || build="not built"
		grep -q -F -- "not ok - build $line $k" "$res" && build="**failed**: $build"
		vm=$(awk -v k="$k" '
			/^# --- / { cur = ($3 == k ":") ; if (cur) { n++; t = $4 } next }
			/^# --- |^# check-vm/ { cur = 0 }
			cur && /^not ok / { f++ }
			cur && /^ok .*# *SKIP/ {
				if ($0 ~ /functional tests only/) tier++
				else if ($0 ~ /on the newest kernel only/) newest++
				else s++
				next
			}
			cur && /^ok / { p++ }
			END {
				if (!n) { print "not booted"; exit }
				if (tier)
					printf "functional, %d of %d tests", n - tier - newest, n
				else if (newest)
					printf "%d of %d tests (%d on the newest line only)", n - newest, n, newest
				else
					printf "all %d tests", n
				printf ": %d passed, %d failed, %d skipped", p, f, s
			}' "$res")
		dkms=$(awk -v k="$k" '
			/^# --- tests\/pkg\// { cur = 1; next } /^# --- / { cur = 0 }
			cur && index($0, ": " k ":") && /^not ok / { f++ }
			cur && index($0, ": " k ":") && /^ok / && !/# *SKIP/ { p++ }
			END { if (p + f) printf "%d passed, %d failed", p, f; else print "not tested" }' "$res")
		echo "| $line | $k | ${img:-?} | $build | $vm | $dkms |"
	done
}

if [ "$update" = 0 ]; then
	table
	exit 0
fi
readme=$top/README.md
if ! grep -q '^<!-- kernel-table: begin -->$' "$readme" ||
   ! grep -q '^<!-- kernel-table: end -->$' "$readme"; then
	echo "kernel-table: no kernel-table markers in $readme" >&2
	exit 1
fi
new=$(mktemp)
trap 'rm -f "$new"' EXIT
table >"$new.t"
awk -v t="$new.t" '
	/^<!-- kernel-table: end -->$/ { while ((getline l < t) > 0) print l; skip = 0 }
	!skip { print }
	/^<!-- kernel-table: begin -->$/ { skip = 1 }' "$readme" >"$new"
rm -f "$new.t"
cat "$new" >"$readme"
echo "kernel-table: README.md updated from $res"
