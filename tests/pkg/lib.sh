# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the host-side packaging tests (tests/pkg/*.sh), sourced.
# They run as root on the build machine and never load a module here.
#
# TAP as tests/lib/tap.sh describes it.  A test ends with pkg_end, which
# checks that the machine is as the test found it (that check is a result
# of its own), then tap_end.  A test that dies half way gets a "not ok ...
# aborted" line with the end of its log; its cleanup runs in every case.
#
# What a test changes is confined to tcp-cdg: /usr/src/tcp-cdg-*, the DKMS
# tree's tcp-cdg, the tcp-cdg-dkms package, tcp_cdg.ko* under
# /lib/modules/*/updates, the module indexes depmod rewrites, and DKMS's
# signing key /var/lib/dkms/mok.{key,pub} when DKMS created it during the
# test (bookworm's dkms 3.0.10 makes one at its first build).  A machine
# that already has tcp-cdg installed is not touched: the test skips.

# TAP, cleanup_add and the exit trap: tests/lib/tap.sh.
# shellcheck source=../lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PKG_NAME=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
PKG_VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

# --- prerequisites ------------------------------------------------------------
require_root() { [ "$(id -u)" -eq 0 ] || skip_all "needs root (installs into /usr/src and /lib/modules)"; }
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "no $c (scripts/deps.sh installs it)"
	done
}

# Kernels with headers, discovered (never named in a test).
kernels() {
	ls -d /lib/modules/*/build/Makefile 2>/dev/null |
		sed 's|/lib/modules/\([^/]*\)/build/Makefile|\1|' | sort -V
}
require_kernels() {	# PKG_KERNELS="K ..." narrows the list (debugging)
	KERNELS=$(kernels)
	if [ -n "${PKG_KERNELS:-}" ]; then
		KERNELS=$(printf '%s\n' $KERNELS | grep -Fx -f <(printf '%s\n' $PKG_KERNELS) || true)
	fi
	[ -n "$KERNELS" ] || skip_all "no kernel headers under /lib/modules/*/build"
}

# The module file a kernel would get, compressed as its own modules are.
module_path() {	# module_path KVER DIR (DIR relative to /lib/modules/KVER)
	ls "/lib/modules/$1/$2"/tcp_cdg.ko* 2>/dev/null | head -n 1 || true
}

# --- the README's commands ------------------------------------------------------
# readme_block SECTION [text]: the lines of the fenced blocks of
# README.md's "## SECTION", for a test to run as the README has them;
# with "text", the section's lines outside them instead.
readme_block() {
	awk -v want="## $1" -v text="${2:+1}" '/^## / { sec = ($0 == want) }
		sec && /^```/ { fence = !fence; next }
		sec && fence + 0 != text + 0' "$top/README.md"
}

# readme_run NAME LINE: one result, LINE as bash runs it from the top of
# the copy of the tree; its output in $_tmp/line.log.  Without sudo on a
# machine where the test runs as root, a `sudo` that runs its arguments as
# they are stands in for it (root needs no sudo).
readme_run() {
	local rc=0
	if ! command -v sudo >/dev/null 2>&1 && [ ! -x "$_tmp/bin/sudo" ]; then
		mkdir -p "$_tmp/bin"
		printf '#!/bin/sh\nexec "$@"\n' >"$_tmp/bin/sudo"
		chmod +x "$_tmp/bin/sudo"
		diag "no sudo here: running as root, a stand-in runs the command as it is"
	fi
	(cd "$TREE" && PATH=$_tmp/bin:$PATH bash -euc "$2") >"$_tmp/line.log" 2>&1 || rc=$?
	cat "$_tmp/line.log" >>"$TAP_LOG"
	if [ "$rc" -eq 0 ]; then tap_ok "$1: $2"
	else tap_fail "$1: $2" "status $rc" "$(tail -n 15 "$_tmp/line.log")"; fi
}

# --- isolation ------------------------------------------------------------------
# One packaging test at a time on this machine, whichever clone runs it:
# they share /lib/modules and the DKMS tree.
exec 8>/run/lock/tcp-cdg-pkg-tests.lock
flock -w 1800 8 || { tap_fail "another packaging test holds the lock"; tap_end; }

_tmp=$(mktemp -d /tmp/tcp-cdg-pkg.XXXXXX)
TAP_LOG=$_tmp/all.log
: >"$TAP_LOG"
cleanup_add 'rm -rf "$_tmp"'

# A copy of the source tree for `make` to build in, so that a test never
# races the VM harness over build/KVER/tcp_cdg.ko in the work tree.
TREE=$_tmp/tree
mkdir -p "$TREE"
(cd "$top" && cp -r Makefile Kbuild dkms.conf tcp_cdg.c LICENSE include scripts packaging "$TREE/" &&
	mkdir -p "$TREE/docs" && cp -r docs/examples "$TREE/docs/")

# Everything tcp-cdg may leave on the machine, for "left as found".
state() {
	local k
	dpkg-query -W -f='pkg ${Status}\n' "$PKG_NAME-dkms" 2>/dev/null || echo "pkg none"
	ls -d /usr/src/"$PKG_NAME"-* 2>/dev/null || true
	# DKMS's signing key is DKMS's, made at its first build and kept by
	# `dkms remove`: pkg_cleanup removes it when the test made it.
	find /var/lib/dkms 2>/dev/null | grep -v '^/var/lib/dkms/mok\.' | sort
	for k in /lib/modules/*/; do
		find "$k" -path "$k/build" -prune -o \( -name 'tcp_cdg.ko*' -o -path "*/updates*" \) -print 2>/dev/null | sort
		(cd "$k" && md5sum modules.* 2>/dev/null) | sed "s|  |  $k|"
	done
}

already_installed() {
	[ -e "/var/lib/dkms/$PKG_NAME" ] && return 0
	ls -d /usr/src/"$PKG_NAME"-* >/dev/null 2>&1 && return 0
	dpkg-query -W -f='${Status}' "$PKG_NAME-dkms" 2>/dev/null | grep -q installed && return 0
	ls /lib/modules/*/updates/tcp_cdg.ko* /lib/modules/*/updates/dkms/tcp_cdg.ko* >/dev/null 2>&1 && return 0
	return 1
}

_mok_before=
[ -e /var/lib/dkms/mok.key ] && _mok_before=1
if [ "$(id -u)" -eq 0 ] && already_installed; then
	skip_all "tcp-cdg is already installed on this machine: not touching it"
fi
state >"$_tmp/state.before"

# Undo whatever a test left, however it ended.  Everything tcp-cdg is ours:
# a machine that had any was skipped above.
pkg_cleanup() {
	local k f dirty
	if dpkg-query -W -f='${Status}' "$PKG_NAME-dkms" 2>/dev/null | grep -q 'install\|config'; then
		dpkg --purge "$PKG_NAME-dkms" >>"$_tmp/all.log" 2>&1 || true
	fi
	if [ -e "/var/lib/dkms/$PKG_NAME" ]; then
		dkms remove -m "$PKG_NAME" -v "$PKG_VER" --all >>"$_tmp/all.log" 2>&1 || true
		rm -rf "/var/lib/dkms/$PKG_NAME"
	fi
	rm -rf /usr/src/"$PKG_NAME"-*
	for k in /lib/modules/*/; do
		k=$(basename "$k")
		dirty=
		for f in /lib/modules/"$k"/updates/tcp_cdg.ko* /lib/modules/"$k"/updates/dkms/tcp_cdg.ko*; do
			[ -e "$f" ] && { rm -f "$f"; dirty=1; }
		done
		rmdir "/lib/modules/$k/updates/dkms" "/lib/modules/$k/updates" 2>/dev/null || true
		[ -z "$dirty" ] || depmod -a "$k" 2>/dev/null || true
	done
	[ -n "$_mok_before" ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
}

# Whatever a test left is undone however it ended (before $_tmp goes).
cleanup_add pkg_cleanup

# pkg_end: check that the machine is as the test found it -- what the test
# ran to uninstall must have done that -- then clean up anyway, and report.
pkg_end() {
	local before=$_tmp/state.before after=$_tmp/state.after
	state >"$after"
	if cmp -s "$before" "$after"; then
		tap_ok "machine left as found (DKMS tree, /usr/src, /lib/modules, dpkg)"
	else
		tap_fail "machine left as found" "$(diff "$before" "$after" | head -n 20)"
	fi
	tap_end
}

# Make in the copied tree, output to the test's log (and stderr on failure).
tmake() { make -s -C "$TREE" "$@"; }
