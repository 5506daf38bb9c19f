#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the tcp-cdg-dkms package.  Checks its metadata and contents,
# then installs it with dpkg -i: DKMS must have built and installed the
# module for every kernel with headers.  dpkg-reconfigure must leave it so
# too (dkms's common.postinst alone builds for two kernels at most on a
# machine whose running kernel is installed: the running and the newest;
# the package's postinst covers the others).
# dpkg -r must remove every trace: module files, DKMS tree, /usr/src.
. "$(dirname "$0")/lib.sh"

require_root
require_cmd dkms dpkg-buildpackage dh dh_dkms dpkg-reconfigure
require_kernels

pkg=$PKG_NAME-dkms
tap_cmd "make deb" tmake deb
deb=$TREE/build/deb/${pkg}_${PKG_VER}_all.deb
tap_file "make deb made $(basename "$deb")" "$deb"
[ -f "$deb" ] || pkg_end

field() { dpkg-deb -f "$deb" "$1"; }
tap_eq "Package" "$(field Package)" "$pkg"
tap_eq "Version is dkms.conf's" "$(field Version)" "$PKG_VER"
tap_eq "Architecture" "$(field Architecture)" all
tap_match "Depends on dkms" "$(field Depends)" '(^|, )dkms( |,|$)'
list=$(dpkg-deb -c "$deb" | awk '{print $6}')
src=./usr/src/$PKG_NAME-$PKG_VER
missing=
for f in dkms.conf Kbuild tcp_cdg.c include/tcp_cdg_compat.h include/tcp_cdg_trace.h; do
	grep -qx "$src/$f" <<<"$list" || missing="$missing $f"
done
tap_eq "ships the module sources in ${src#.}" "$missing" ""
tap_eq "ships no built module" "$(grep -c '\.ko' <<<"$list" || true)" 0
tap_match "ships the example modprobe.d and sysctl.d files" "$(tr '\n' ' ' <<<"$list")" \
	"examples/modprobe\\.d/tcp_cdg\\.conf .*examples/sysctl\\.d/"
# The dkms.conf it installs is the tree's (same name, version, location).
dpkg-deb -x "$deb" "$_tmp/x"
tap_cmd "its dkms.conf is the tree's" cmp "$top/dkms.conf" "$_tmp/x/${src#./}/dkms.conf"

check_all_kernels() {	# check_all_kernels WHEN
	local k f bad=
	for k in $KERNELS; do
		f=$(module_path "$k" updates/dkms)
		if [ -z "$f" ]; then
			bad="$bad $k:no-module"
		elif [ "$(modinfo -F version "$f" 2>/dev/null)" != "$PKG_VER" ]; then
			bad="$bad $k:version-$(modinfo -F version "$f" 2>/dev/null)"
		elif [ "$(modinfo -k "$k" -F filename tcp_cdg 2>/dev/null)" != "$f" ]; then
			bad="$bad $k:not-resolved"
		elif ! dkms status -m "$PKG_NAME" -v "$PKG_VER" -k "$k" 2>/dev/null | grep -q ': installed'; then
			bad="$bad $k:dkms-status"
		fi
	done
	tap_eq "$1: installed for every kernel with headers ($(echo $KERNELS))" "$bad" ""
}

tap_cmd "dpkg -i" dpkg -i "$deb"
tap_eq "dpkg status" "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" "install ok installed"
check_all_kernels "after dpkg -i"

# On this machine the running kernel is not installed, and dkms's
# common.postinst then builds for every kernel.  On an ordinary machine,
# where the running kernel is installed, it builds for that one and the
# newest only.  Make the newest one look running (a uname that says so,
# in PATH for the maintainer scripts) and reconfigure, which also makes
# common.postinst remove every build first: only the package's own loop
# brings back the other kernels.
newest=$(echo "$KERNELS" | tail -n 1)
mkdir -p "$_tmp/bin"
printf '#!/bin/sh\n[ "$1" = -r ] && { echo "%s"; exit 0; }\nexec /bin/uname "$@"\n' \
	"$newest" >"$_tmp/bin/uname"
chmod +x "$_tmp/bin/uname"
tap_cmd "dpkg-reconfigure with $newest running" \
	env PATH="$_tmp/bin:$PATH" DEBIAN_FRONTEND=noninteractive dpkg-reconfigure "$pkg"
check_all_kernels "after dpkg-reconfigure with $newest running"

tap_cmd "dpkg -r" dpkg -r "$pkg"
left=
for k in $KERNELS; do
	f=$(module_path "$k" updates/dkms)
	[ -z "$f" ] || left="$left $f"
	[ ! -d "/lib/modules/$k/updates" ] || left="$left /lib/modules/$k/updates"
done
tap_eq "dpkg -r: no module left in any updates/dkms" "$left" ""
tap_nofile "dpkg -r: DKMS tree and /usr/src sources gone" \
	"/var/lib/dkms/$PKG_NAME" "/usr/src/$PKG_NAME-$PKG_VER"
tap_eq "dpkg -r: package not installed" \
	"$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" ""

pkg_end
