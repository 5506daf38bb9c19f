#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds and runs the unit suite (make -C tests/unit, make unit): every
# test binary of the -O2 build, then the same binaries built with
# AddressSanitizer + UBSan.  Prints TAP lines numbered across binaries;
# each binary's stderr goes to build/unit/logs/.  A build that fails, a
# binary that crashes, or a sanitized run whose results differ from the
# plain run's or that reports an error is a "not ok" line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
b=$top/build/unit
logs=$b/logs
mkdir -p "$logs"
tests=$(make -s -C "$here" print-tests)
n=0
fail=0

say() {	# say ok|not ok DESCRIPTION
	n=$((n + 1))
	[ "$1" = ok ] || fail=$((fail + 1))
	echo "$1 $n - $2"
}

# Re-number a binary's TAP output; keep diagnostics, drop its plan.
renumber() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			local st=${line%% [0-9]*}
			local rest=${line#* [0-9]* - }
			say "$st" "$rest";;
		1..*) ;;
		*) echo "$line";;
		esac
	done
}

results() {	# the ok/not ok sequence of a TAP file (descriptions may differ:
		# the sanitized test_oracle samples fewer grid configurations)
	sed -n 's/^\(not ok\|ok\) [0-9]* - .*/\1/p' "$1"
}

run_variant() {	# run_variant plain|asan
	local v=$1 t rc
	if ! make -s -C "$here" "$v" >"$logs/build-$v.out" 2>&1; then
		say "not ok" "unit build ($v) failed (log: $logs/build-$v.out)"
		sed 's/^/# /' "$logs/build-$v.out" | tail -n 20
		return 1
	fi
	for t in $tests; do
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			"$b/$v/$t" >"$logs/$t.$v.tap" 2>"$logs/$t.$v.err"
		rc=$?
		if [ "$v" = plain ]; then
			renumber <"$logs/$t.$v.tap"
			[ $rc -eq 0 ] || say "not ok" "$t exited $rc (stderr: $logs/$t.$v.err)"
			continue
		fi
		local san
		san=$(grep -c 'runtime error\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer' \
			"$logs/$t.$v.err")
		if [ $rc -eq 0 ] && [ "$san" -eq 0 ] &&
		   cmp -s <(results "$logs/$t.plain.tap") <(results "$logs/$t.$v.tap"); then
			say ok "asan+ubsan: $t: $(results "$logs/$t.$v.tap" | wc -l) results as in the -O2 run, no sanitizer report"
		else
			say "not ok" "asan+ubsan: $t: exit $rc, $san sanitizer reports, results $(cmp -s <(results "$logs/$t.plain.tap") <(results "$logs/$t.$v.tap") && echo same || echo differ) (stderr: $logs/$t.$v.err)"
			grep -m 5 'runtime error\|ERROR:' "$logs/$t.$v.err" | sed 's/^/# /'
		fi
	done
}

run_variant plain
run_variant asan
echo "1..$n"
[ $fail -eq 0 ] || echo "# $fail of $n failed"
[ $fail -eq 0 ]
