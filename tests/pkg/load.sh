#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make load` / `make unload` on a host whose running kernel cannot load
# modules (no CONFIG_MODULES, as on the test machines): both must fail
# with a message that says why and where to go instead, before trying to
# build or insmod anything.  On a host that can load modules this test
# skips: the test suite never loads a module into the machine it runs on.
. "$(dirname "$0")/lib.sh"

[ ! -e /proc/modules ] ||
	skip_all "the running kernel can load modules: not loading one into this host"

for target in "load ARGS=window=16" unload; do
	rc=0
	# shellcheck disable=SC2086
	tmake $target >"$_tmp/out" 2>&1 || rc=$?
	out=$(cat "$_tmp/out")
	tap_match "make $target fails" "$rc" '^[1-9]'
	tap_match "make $target says the kernel cannot load modules" "$out" \
		"running kernel $(re_quote "$(uname -r)") cannot load modules"
	tap_match "make $target names CONFIG_MODULES and the VM route" "$out" \
		"CONFIG_MODULES.*make check-vm"
done
tap_eq "make load built nothing" "$(ls "$TREE/build" 2>/dev/null)" ""

pkg_end
