#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's real-host build-and-install line, run exactly as the README
# has it (read from README.md's "On a real host" block, never copied here),
# from the top of a copy of the checkout: the module must land in
# /lib/modules/K/updates/ for the kernel `make` says it builds for, with
# modules.dep pointing at it.  Then the README's undo for that way (its
# "Install" table) must remove it, and "left as found" checks the rest.
# The lines that load and select the module need a kernel that loads
# modules: tests/pkg/vm-dkms.sh runs them in a guest.
. "$(dirname "$0")/lib.sh"

require_root
require_cmd make modinfo depmod
require_kernels

# The "On a real host" block's line that runs `make install`.
line=$(readme_block "On a real host" | grep 'make install' || true)
tap_eq "README's real-host block has one make-install line" \
	"$(printf '%s\n' "$line" | grep -c .)" 1
diag "README: $line"
# The undo of "from source into updates/" in the "## Install" table.
undo=$(awk -F'|' '/^## / { sec = ($0 == "## Install") }
	sec && /from source into/ { print $4 }' "$top/README.md" |
	sed -n 's/^ *`\(.*\)` *$/\1/p')
tap_eq "README's Install table has the undo" "$undo" "sudo make uninstall"

readme_run "the README's line runs" "$line"
# `make` names the kernel it builds for: "building against K headers".
k=$(sed -n '/building against/{s/.*building against \([^ ]*\) headers.*/\1/p;q}' "$_tmp/line.log")
tap_match "make said which kernel it built for" "$k" '.'
ko=$(module_path "$k" updates)
tap_match "installed in /lib/modules/$k/updates" "$ko" "^/lib/modules/$(re_quote "$k")/updates/tcp_cdg\\.ko"
tap_match "its vermagic is $k's" "$(modinfo -F vermagic "$ko" 2>&1)" "^$(re_quote "$k") "
tap_eq "its version is the tree's" "$(modinfo -F version "$ko" 2>&1)" "$PKG_VER"
tap_match "depmod ran: modules.dep lists it" \
	"$(grep -o '^updates/tcp_cdg\.ko[^:]*' "/lib/modules/$k/modules.dep" 2>&1)" '^updates/tcp_cdg\.ko'

readme_run "the README's undo runs" "$undo"
tap_nofile "nothing left in updates/" "/lib/modules/$k/updates/tcp_cdg.ko" \
	"/lib/modules/$k/updates/tcp_cdg.ko.xz" "/lib/modules/$k/updates/tcp_cdg.ko.zst"

pkg_end
