#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make dkms-install` / `make dkms-remove` for every kernel with headers
# (none of which is the running kernel on the test machines).
#
# Checks dkms.conf itself, then per kernel: the module lands in
# /lib/modules/K/updates/dkms/, carries dkms.conf's version, is what
# modprobe would pick for K (depmod prefers it to the in-tree
# kernel/net/ipv4/tcp_cdg.ko), is signed by DKMS (bookworm's dkms 3.0.10
# signs every build with /var/lib/dkms/mok.key), and a second install is a
# no-op.  Changed sources under the same version are rebuilt for every
# kernel by one dkms-install.  Then removal kernel by kernel: the module goes, modprobe falls
# back to the in-tree one, and after the last kernel the DKMS tree and
# /usr/src/tcp-cdg-VERSION are gone.
. "$(dirname "$0")/lib.sh"

require_root
require_cmd dkms modinfo depmod
require_kernels

# --- dkms.conf -------------------------------------------------------------------
conf() { sed -n "s/^$1=\"\\(.*\\)\"/\\1/p" "$top/dkms.conf"; }
tap_match "dkms.conf PACKAGE_VERSION is a version" "$PKG_VER" '^[0-9]+\.[0-9]+(\.[0-9]+)?([~+.-][0-9A-Za-z.]+)?$'
tap_eq "dkms.conf PACKAGE_NAME" "$PKG_NAME" tcp-cdg
tap_eq "dkms.conf BUILT_MODULE_NAME[0]" "$(conf 'BUILT_MODULE_NAME\[0\]')" tcp_cdg
# /updates/ comes before /kernel/ in Debian's depmod search order: ours
# overrides the in-tree tcp_cdg of the same name.
tap_eq "dkms.conf DEST_MODULE_LOCATION[0] overrides the in-tree module" \
	"$(conf 'DEST_MODULE_LOCATION\[0\]')" /updates/dkms
tap_eq "dkms.conf AUTOINSTALL (rebuilt for each new kernel)" "$(conf AUTOINSTALL)" yes

running=$(uname -r)
for k in $KERNELS; do
	note=
	[ "$k" = "$running" ] || note=" (not the running kernel)"
	tap_cmd "make dkms-install KVER=$k$note" tmake dkms-install KVER="$k"
	f=$(module_path "$k" updates/dkms)
	kre=$(re_quote "$k")
	tap_match "$k: module in /lib/modules/$k/updates/dkms" "$f" "^/lib/modules/$kre/updates/dkms/tcp_cdg\\.ko(\\.xz|\\.gz|\\.zst)?\$"
	# Compressed like the kernel's own modules, as modprobe expects.
	own=$(module_path "$k" kernel/net/ipv4)
	tap_eq "$k: compressed like the kernel's modules" "${f##*.ko}" "${own##*.ko}"
	tap_eq "$k: modinfo version = dkms.conf's" "$(modinfo -F version "$f" 2>/dev/null)" "$PKG_VER"
	tap_eq "$k: vermagic is $k's" "$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)" "$k"
	tap_eq "$k: modprobe resolves tcp_cdg to ours" "$(modinfo -k "$k" -F filename tcp_cdg 2>/dev/null)" "$f"
	tap_eq "$k: dkms status" "$(dkms status -m "$PKG_NAME" -v "$PKG_VER" -k "$k" 2>/dev/null | sed 's/.*: //')" installed
	tap_eq "$k: signed by DKMS (sig_id)" "$(modinfo -F sig_id "$f" 2>/dev/null)" "PKCS#7"
	tap_cmd "$k: second dkms-install is a no-op" tmake dkms-install KVER="$k"
done

srcdir=/usr/src/$PKG_NAME-$PKG_VER
tap_file "sources in $srcdir" "$srcdir/dkms.conf"
differ=
for f in tcp_cdg.c Kbuild dkms.conf include/tcp_cdg_compat.h include/tcp_cdg_trace.h; do
	cmp -s "$top/$f" "$srcdir/$f" || differ="$differ $f"
done
tap_eq "sources in $srcdir are the tree's" "$differ" ""

# Same version, changed sources: one dkms-install must rebuild for every
# kernel that had the module, not keep DKMS's cached builds.
echo 'MODULE_INFO(pkgtest, "rebuilt");' >>"$TREE/tcp_cdg.c"
first=${KERNELS%%$'\n'*}
tap_cmd "changed sources: make dkms-install KVER=$first" tmake dkms-install KVER="$first"
tap_cmd "changed sources: $srcdir updated" cmp "$TREE/tcp_cdg.c" "$srcdir/tcp_cdg.c"
stale=
for k in $KERNELS; do
	f=$(module_path "$k" updates/dkms)
	[ "$(modinfo -F pkgtest "$f" 2>/dev/null)" = rebuilt ] || stale="$stale $k"
done
tap_eq "changed sources: rebuilt for every kernel that had it" "$stale" ""

for k in $KERNELS; do
	tap_cmd "make dkms-remove KVER=$k" tmake dkms-remove KVER="$k"
	tap_eq "$k: no module in updates/dkms" "$(module_path "$k" updates/dkms)" ""
	tap_match "$k: modprobe resolves tcp_cdg to the in-tree module again" \
		"$(modinfo -k "$k" -F filename tcp_cdg 2>/dev/null)" "^/lib/modules/$(re_quote "$k")/kernel/net/ipv4/tcp_cdg\\.ko"
done
tap_nofile "after the last kernel: DKMS tree and /usr/src copy removed" \
	"/var/lib/dkms/$PKG_NAME" "$srcdir"
tap_cmd "make dkms-remove when nothing is installed succeeds" tmake dkms-remove

pkg_end
