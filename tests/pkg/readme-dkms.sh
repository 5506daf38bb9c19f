#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's real-host DKMS line, run exactly as the README has it (read
# from README.md's "On a real host" block, never copied here), from the top
# of a copy of the checkout that holds what a used checkout holds: build/
# with a kernel's products, results/, tests/.  DKMS must then have only the
# module's sources in /usr/src/tcp-cdg-VERSION (dkms 3.0.10's `dkms
# install .` copies the whole directory, GBs of build/ included), and the
# module must be installed.  Undone with `make dkms-remove`, the README's
# "undo", and checked by "left as found".
. "$(dirname "$0")/lib.sh"

require_root
require_cmd dkms
require_kernels

# The "On a real host" block's line that names dkms.
line=$(readme_block "On a real host" | grep dkms || true)
tap_eq "README's real-host block has one DKMS line" "$(printf '%s\n' "$line" | grep -c .)" 1
diag "README: $line"

# A used checkout: the copy plus the directories that must not reach /usr/src.
cp "$top/README.md" "$TREE/"
cp -r "$top/tests" "$TREE/"
mkdir -p "$TREE/build/0.0.0-fake/include" "$TREE/build/kernels/root" "$TREE/results/demo-1"
echo junk >"$TREE/build/0.0.0-fake/tcp_cdg.ko"
echo junk >"$TREE/build/kernels/root/big"
echo junk >"$TREE/results/demo-1/table.txt"

readme_run "the README's line runs" "$line"

# What the module build needs, and nothing else.
srcdir=/usr/src/$PKG_NAME-$PKG_VER
(cd "$top" && printf '%s\n' tcp_cdg.c Kbuild dkms.conf LICENSE include include/*.h) |
	sort >"$_tmp/want"
(cd "$srcdir" 2>/dev/null && find . -mindepth 1 -printf '%P\n') | sort >"$_tmp/got" || true
# "+ name": in /usr/src but not wanted (the first 10), "- name": missing.
tap_eq "$srcdir holds the module's sources and nothing else" \
	"$(diff "$_tmp/want" "$_tmp/got" | sed -n 's/^> /+ /p; s/^< /- /p' | head -n 10 | paste -sd' ')" ""
tap_match "dkms status: installed for a kernel" \
	"$(dkms status -m "$PKG_NAME" -v "$PKG_VER" 2>/dev/null)" ": installed"

tap_cmd "make dkms-remove (the README's undo)" tmake dkms-remove
tap_nofile "nothing left in /usr/src and the DKMS tree" "$srcdir" "/var/lib/dkms/$PKG_NAME"

pkg_end
