# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The TAP library of every shell test (tests/vm/*.sh in the guest,
# tests/pkg/*.sh on the host, the guest scripts of scripts/bench/guest and
# tests/pkg/guest), sourced through tests/vm/lib.sh or tests/pkg/lib.sh,
# which add what their side needs.
#
# Every result is exactly one line on stdout:
#   ok N - TEST: name            tap_ok, tap_eq, tap_match, tap_cmd, ...
#   not ok N - TEST: name        tap_fail (diagnostics follow as "# " lines)
#   ok N - TEST: name # SKIP why tap_skip, skip_all
# Anything else a test prints must start with "# " (diag) or go to stderr.
# A test ends with tap_end, which prints the plan "1..N" and exits 1 if any
# check failed.  A test that dies half way (set -e) gets a "not ok ...
# aborted at line L" from the EXIT trap, and the cleanups registered with
# cleanup_add run in every case, last added first.
#
# TEST is $TEST_NAME, else the basename of $CDG_TEST (the VM harness sets
# it), else of the script.  TAP_LOG, when set, is a file whose last lines
# are shown when a test aborts (where tap_cmd keeps commands' output).

set -eu
set -o pipefail
set -E	# the ERR trap in functions too

TEST_NAME=${TEST_NAME:-$(basename "${CDG_TEST:-$0}" .sh)}

_tap_n=0
_tap_failed=0
_tap_ended=0

diag() { local l; while IFS= read -r l; do printf '# %s\n' "$l"; done <<< "$*"; }

tap_ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $TEST_NAME: $1"; }

tap_fail() {	# tap_fail NAME [DIAG...]
	_tap_n=$((_tap_n + 1))
	_tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $TEST_NAME: $1"
	shift
	local d
	for d in "$@"; do diag "$d"; done
}

tap_skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $TEST_NAME: $1 # SKIP $2"; }

tap_end() {
	_tap_ended=1
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ] || exit 1
	exit 0
}

# The whole test cannot run here: a missing prerequisite, never a failure.
skip_all() {
	[ "$_tap_n" -eq 0 ] || { tap_fail "skip_all after results: $1"; tap_end; }
	tap_skip "all" "$1"
	tap_end
}

tap_eq() {	# tap_eq NAME GOT WANT
	if [ "$2" = "$3" ]; then tap_ok "$1"
	else tap_fail "$1" "got '$2', want '$3'"; fi
}

tap_match() {	# tap_match NAME STRING ERE
	if [[ $2 =~ $3 ]]; then tap_ok "$1"
	else tap_fail "$1" "'$2' does not match /$3/"; fi
}

tap_nomatch() {	# tap_nomatch NAME STRING ERE
	if [[ $2 =~ $3 ]]; then tap_fail "$1" "'$2' matches /$3/"
	else tap_ok "$1"; fi
}

# A string as an ERE matching itself ("6.12.118+deb12" has a '+').
re_quote() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }

tap_cmd() {	# tap_cmd NAME CMD...: ok when CMD succeeds
	local name=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	[ -z "${TAP_LOG:-}" ] || printf '%s\n' "$out" >>"$TAP_LOG"
	if [ "$rc" -eq 0 ]; then tap_ok "$name"
	else tap_fail "$name" "command failed ($rc): $*" "$(printf '%s\n' "$out" | tail -n 15)"; fi
}

tap_file() {	# tap_file NAME PATH: ok when PATH exists
	if [ -e "$2" ]; then tap_ok "$1"; else tap_fail "$1" "no $2"; fi
}

tap_nofile() {	# tap_nofile NAME PATH...: ok when none of PATH exists
	local name=$1 f left=()
	shift
	for f in "$@"; do [ -e "$f" ] && left+=("$f"); done
	if [ ${#left[@]} -eq 0 ]; then tap_ok "$name"
	else tap_fail "$name" "still there: ${left[*]}"; fi
}

# --- cleanup -------------------------------------------------------------------
_cleanups=()
cleanup_add() { _cleanups+=("$*"); }	# run at exit, last added first

_tap_err_line=
_tap_err_cmd=
_tap_signal=
trap '_tap_err_line=$LINENO _tap_err_cmd=$BASH_COMMAND' ERR

_tap_exit() {
	local rc=$? i
	trap - ERR
	set +e
	if [ "$_tap_ended" -eq 0 ]; then
		if [ -n "$_tap_signal" ]; then
			tap_fail "killed by SIG$_tap_signal (a timeout?)"
		elif [ -n "$_tap_err_line" ]; then
			tap_fail "aborted (status $rc) at line $_tap_err_line: $_tap_err_cmd"
		else
			tap_fail "exited (status $rc) before tap_end"
		fi
		[ -z "${TAP_LOG:-}" ] || [ ! -s "$TAP_LOG" ] || diag "$(tail -n 15 "$TAP_LOG")"
		echo "1..$_tap_n"
		rc=1
	fi
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_cleanups[i]}" >/dev/null 2>&1
	done
	exit "$rc"
}
trap _tap_exit EXIT
trap '_tap_signal=TERM; exit 143' TERM
trap '_tap_signal=INT; exit 130' INT
