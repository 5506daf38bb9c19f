#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install` / `make uninstall` without DKMS, for every kernel with
# headers: first into a DESTDIR (a staging directory: the module lands in
# DESTDIR/lib/modules/K/updates/ and no depmod index is written there),
# then into the real /lib/modules/K/updates/, where depmod makes modprobe
# pick it over the in-tree module, and `make uninstall` restores the
# kernel's module index byte for byte (checked by "left as found").
. "$(dirname "$0")/lib.sh"

require_root
require_cmd modinfo depmod
require_kernels

dest=$_tmp/destdir
for k in $KERNELS; do
	kre=$(re_quote "$k")
	own=$(module_path "$k" kernel/net/ipv4)
	tap_cmd "$k: make install DESTDIR=..." tmake install KVER="$k" DESTDIR="$dest"
	f=$(ls "$dest/lib/modules/$k/updates"/tcp_cdg.ko* 2>/dev/null | head -n 1 || true)
	tap_match "$k: DESTDIR/lib/modules/$k/updates/tcp_cdg.ko*" "$f" "/lib/modules/$kre/updates/tcp_cdg\\.ko"
	tap_eq "$k: DESTDIR module compressed like the kernel's" "${f##*.ko}" "${own##*.ko}"
	tap_eq "$k: DESTDIR module version" "$(modinfo -F version "$f" 2>/dev/null)" "$PKG_VER"
	tap_eq "$k: no depmod index written into a bare DESTDIR" \
		"$(ls "$dest/lib/modules/$k"/modules.* 2>/dev/null)" ""
	tap_cmd "$k: make uninstall DESTDIR=..." tmake uninstall KVER="$k" DESTDIR="$dest"
	tap_eq "$k: DESTDIR holds no file after uninstall" "$(find "$dest" -type f)" ""

	tap_cmd "$k: make install (real /lib/modules)" tmake install KVER="$k"
	f=$(module_path "$k" updates)
	tap_match "$k: /lib/modules/$k/updates/tcp_cdg.ko*" "$f" "^/lib/modules/$kre/updates/tcp_cdg\\.ko"
	tap_eq "$k: modinfo version" "$(modinfo -F version "$f" 2>/dev/null)" "$PKG_VER"
	tap_eq "$k: depmod ran: modprobe resolves tcp_cdg to ours" \
		"$(modinfo -k "$k" -F filename tcp_cdg 2>/dev/null)" "$f"
	tap_cmd "$k: make uninstall" tmake uninstall KVER="$k"
	tap_nofile "$k: module and updates/ removed" "$f" "/lib/modules/$k/updates"
	tap_match "$k: modprobe resolves tcp_cdg to the in-tree module again" \
		"$(modinfo -k "$k" -F filename tcp_cdg 2>/dev/null)" "^/lib/modules/$kre/kernel/net/ipv4/tcp_cdg\\.ko"
done
tap_cmd "make uninstall when nothing is installed succeeds" tmake uninstall

pkg_end
