#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS on the oldest and the newest of Debian's kernel lines (issue 19):
#
# 1. dkms.conf's BUILD_EXCLUSIVE_KERNEL, matched as dkms matches it (the
#    file sourced by bash, then [[ K =~ $BUILD_EXCLUSIVE_KERNEL ]]), accepts
#    the kernels from the floor of include/tcp_cdg_compat.h on (4.13) and
#    rejects older ones, so that DKMS's autoinstall skips those instead of
#    failing a build on each.
# 2. Per line (5.10, bullseye; 7.3, trixie-backports): in a copy of that
#    suite's chroot from scripts/vm/kernels.sh, with dkms and the line's
#    headers packages (build/kernels/debs/LINE/) installed by that suite's
#    apt, the module's sources staged as `make dkms-install` stages them
#    (scripts/pkg/dkms.sh stage), `dkms add/build/install -k K`: the module
#    must be installed in updates/dkms with K's vermagic and dkms.conf's
#    version, and `dkms build` for a 4.9 kernel must be refused as
#    excluded (status 77), not attempted.  The module DKMS built then
#    boots: one guest of K (scripts/vm/run.sh with CDG_KROOT, as kernels.sh
#    prints) runs tests/vm/params_load.sh with CDG_KO pointing at it
#    (skipped with CHECK_SKIP_VM=1, as vm-dkms.sh).  Then `dkms remove`.
#
# The kernels are not this host's: `make kernels` (scripts/vm/kernels.sh)
# fetches them into build/kernels/; a line it has not fetched SKIPs with
# the reason.  The chroots there are kernels.sh's; this test works in its
# own copies, build/kernels/dkms-chroot/SUITE (cp --reflink=auto, made
# once: the stamp beside each holds what it was made from), so that
# installing dkms never changes the toolchain kernels.sh builds with.
# Every command in a chroot runs in a private mount namespace (unshare),
# with /proc mounted there only: no mount outlives it.
#
#   CDG_DKMS_LINES="5.10 7.3"   the lines to test
. "$(dirname "$0")/lib.sh"

require_root
require_cmd unshare chroot modinfo flock

# --- 1. BUILD_EXCLUSIVE_KERNEL ---------------------------------------------------
# dkms reads dkms.conf by sourcing it (read_conf), with these set.
exclusive=$(bash -c 'kernel_source_dir=/k dkms_tree=/t; . "$1" && printf %s "${BUILD_EXCLUSIVE_KERNEL:-}"' \
	_ "$top/dkms.conf")
tap_match "dkms.conf sets BUILD_EXCLUSIVE_KERNEL" "$exclusive" .
floor=$(sed -n 's/^#if LINUX_VERSION_CODE < KERNEL_VERSION(\([0-9]*\), \([0-9]*\), 0)$/\1.\2/p' \
	"$top/include/tcp_cdg_compat.h")
tap_match "include/tcp_cdg_compat.h has a version floor" "$floor" '^[0-9]+\.[0-9]+$'
below=${floor%.*}.$((${floor#*.} - 1))
excl() { [[ $1 =~ $exclusive ]]; }
for k in "$floor.0" "$floor.0-1-amd64" 4.19.0-27-amd64 5.10.0-46-amd64 6.1.0-57-amd64 \
	6.12.118+deb12-amd64 7.3.4+deb13-amd64 10.0.0-1-amd64; do
	if [ -n "$exclusive" ] && excl "$k"; then tap_ok "BUILD_EXCLUSIVE_KERNEL accepts $k"
	else tap_fail "BUILD_EXCLUSIVE_KERNEL accepts $k" "/$exclusive/ does not match $k"; fi
done
for k in "$below.0" "$below.14-1-amd64" 4.9.0-19-amd64 3.16.0-6-amd64 2.6.32-5-amd64; do
	if [ -n "$exclusive" ] && ! excl "$k"; then tap_ok "BUILD_EXCLUSIVE_KERNEL rejects $k (below $floor)"
	else tap_fail "BUILD_EXCLUSIVE_KERNEL rejects $k (below $floor)" "/$exclusive/ matches $k"; fi
done

# --- 2. DKMS in each line's chroot ----------------------------------------------
# Its real path: /proc/self/mounts has no symbolic links.
kb=$(cd "$top/build/kernels" 2>/dev/null && pwd -P || echo "$top/build/kernels")
dc=$kb/dkms-chroot

suite_of() {	# as scripts/vm/kernels.sh's line_info
	case $1 in 5.10) echo bullseye ;; 7.3) echo trixie ;; *) return 1 ;; esac
}

mounted_under() {
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mounts
}

# in_chroot DIR CMD...: CMD in chroot DIR, /proc mounted in a private mount
# namespace (as kernels.sh's in_env), a clean environment.
in_chroot() {
	local c=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- /bin/bash -eu -c '
		c=$1
		shift
		mount -t proc proc "$c/proc"
		exec chroot "$c" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"' _ "$c" "$@"
}

# Whatever a run left in a chroot copy (an aborted one too): the module in
# DKMS, its sources, its installed files.
chroot_clean() {
	local c=$1
	[ -d "$c/var/lib/dkms/$PKG_NAME" ] &&
		in_chroot "$c" dkms remove -m "$PKG_NAME" -v "$PKG_VER" --all >>"$_tmp/all.log" 2>&1
	rm -rf "$c/var/lib/dkms/$PKG_NAME" "$c/usr/src/$PKG_NAME"-*
	rm -f "$c"/lib/modules/*/updates/dkms/tcp_cdg.ko* 2>/dev/null || true
}
cleaned=()
eval "lib_$(declare -f pkg_cleanup)"
pkg_cleanup() {
	local c
	for c in "${cleaned[@]}"; do chroot_clean "$c" || true; done
	lib_pkg_cleanup
}

# prepare LINE: sets c, the line's chroot copy with dkms and K's headers
# installed; made again only when kernels.sh's chroot or the debs changed.
prepare() {
	local line=$1 suite src key stamp d debs=()
	suite=$(suite_of "$line")
	src=$kb/chroot/$suite
	c=$dc/$suite
	stamp=$dc/$suite.stamp
	for d in "$kb/debs/$line"/*.deb; do
		case ${d##*/} in
		"linux-headers-"*|"linux-kbuild-"*|"linux-base-$K"_*) debs+=("$d") ;;
		esac
	done
	[ ${#debs[@]} -ge 2 ] || { why="no linux-headers debs for $K in $kb/debs/$line (make kernels LINES=$line)"; return 1; }
	key=$(printf '%s\n' "$(cat "$kb/stamps/chroot-$suite" 2>/dev/null)" "${debs[@]##*/}" dkms)
	if [ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && [ -x "$c/usr/sbin/dkms" ]; then
		return 0
	fi
	if mounted_under "$c" || mounted_under "$c.tmp"; then
		why="something is mounted under $c"
		return 1
	fi
	rm -rf "$c" "$c.tmp" "$stamp"
	mkdir -p "$dc"
	diag "$line: copying $src to $c, apt-get install dkms and ${#debs[@]} headers packages there"
	# kernels.sh rewrites its chroots and debs under this lock.
	(
		flock -w 1200 9 || exit 1
		cp -a --reflink=auto "$src" "$c.tmp"
		mkdir -p "$c.tmp/tmp/cdg-debs"
		cp "${debs[@]}" "$c.tmp/tmp/cdg-debs/"
	) 9>"$kb/.lock" || { why="could not copy $src"; return 1; }
	if ! in_chroot "$c.tmp" apt-get -q update >>"$_tmp/all.log" 2>&1 ||
	   ! in_chroot "$c.tmp" sh -c 'apt-get -q -y --no-install-recommends install dkms /tmp/cdg-debs/*.deb &&
			apt-get clean && rm -rf /tmp/cdg-debs' >>"$_tmp/all.log" 2>&1; then
		why="apt-get in the $suite chroot copy failed: $(tail -n 3 "$_tmp/all.log" | paste -sd' ')"
		rm -rf "$c.tmp"
		return 1
	fi
	mv "$c.tmp" "$c"
	printf '%s\n' "$key" >"$stamp"
}

# boot KO: one guest of K (scripts/vm/run.sh, CDG_KROOT=build/kernels/root)
# running tests/vm/params_load.sh on the DKMS-built module, given to the
# guest on /out and named by CDG_KO; the guest's lines are summed up in one.
boot() {
	local ko=$1 in=$_tmp/vm-$K rc=0 n
	if [ -n "${CHECK_SKIP_VM:-}" ]; then
		tap_skip "$K: DKMS-built module in a guest" "CHECK_SKIP_VM is set"; return 0
	fi
	if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
		tap_skip "$K: DKMS-built module in a guest" "no qemu-system-x86_64"; return 0
	fi
	if [ ! -r "$kb/root/boot/vmlinuz-$K" ] || [ ! -f "$top/build/$K/tcp_cdg.ko" ]; then
		tap_skip "$K: DKMS-built module in a guest" \
			"the harness needs $kb/root/boot/vmlinuz-$K and build/$K/tcp_cdg.ko for its initramfs (make kernels LINES=$line)"
		return 0
	fi
	mkdir -p "$in"
	case $ko in
	*.xz) xz -dc "$ko" >"$in/tcp_cdg.ko" ;;
	*.zst) zstd -q -dc "$ko" >"$in/tcp_cdg.ko" ;;
	*.gz) gzip -dc "$ko" >"$in/tcp_cdg.ko" ;;
	*) cp "$ko" "$in/tcp_cdg.ko" ;;
	esac
	local t0=$SECONDS
	CDG_KROOT=$kb/root "$top/scripts/vm/run.sh" --kver "$K" --in "$in" \
		--env CDG_KO=/out/tcp_cdg.ko --timeout 240 params_load \
		>"$_tmp/vm.tap" 2>"$_tmp/vm.err" || rc=$?
	cat "$_tmp/vm.tap" "$_tmp/vm.err" >>"$_tmp/all.log"
	n=$(grep -c '^ok ' "$_tmp/vm.tap" || true)
	if [ "$rc" -eq 0 ] && [ "$n" -gt 0 ] && ! grep -q '^not ok' "$_tmp/vm.tap"; then
		tap_ok "$K: DKMS-built module loads in a $K guest: params_load, $n ok ($((SECONDS - t0)) s)"
	else
		tap_fail "$K: DKMS-built module loads in a $K guest (params_load, run.sh status $rc)" \
			"$(grep '^not ok' "$_tmp/vm.tap" | head -n 10)" "$(tail -n 5 "$_tmp/vm.err")"
	fi
}

for line in ${CDG_DKMS_LINES:-5.10 7.3}; do
	suite=$(suite_of "$line") || { tap_fail "$line: no such line (5.10, 7.3)"; continue; }
	K=$(cat "$kb/stamps/chosen-$line" 2>/dev/null || true)
	if [ -z "$K" ]; then
		tap_skip "$line: DKMS" "scripts/vm/kernels.sh has not fetched it: no $kb/stamps/chosen-$line (make kernels LINES=$line)"
		continue
	fi
	if [ ! -x "$kb/chroot/$suite/usr/bin/make" ]; then
		tap_skip "$line: DKMS" "no $suite chroot in $kb/chroot (make kernels LINES=$line)"
		continue
	fi
	start=$SECONDS
	why=
	if ! prepare "$line"; then
		tap_skip "$line: DKMS" "$why"
		continue
	fi
	dkms_ver=$(in_chroot "$c" dpkg-query -W -f='${Version}' dkms 2>/dev/null || true)
	tap_ok "$line: $suite chroot copy with dkms $dkms_ver and $K's headers ($((SECONDS - start)) s)"
	cleaned+=("$c")
	chroot_clean "$c"

	"$top/scripts/pkg/dkms.sh" stage "$c/usr/src/$PKG_NAME-$PKG_VER"
	tap_cmd "$K: dkms add (sources staged by dkms.sh stage)" \
		in_chroot "$c" dkms add -m "$PKG_NAME" -v "$PKG_VER"
	tap_cmd "$K: dkms build -k $K" in_chroot "$c" dkms build -m "$PKG_NAME" -v "$PKG_VER" -k "$K"
	tap_cmd "$K: dkms install -k $K" in_chroot "$c" dkms install -m "$PKG_NAME" -v "$PKG_VER" -k "$K"
	f=$(ls "$c/lib/modules/$K/updates/dkms"/tcp_cdg.ko* 2>/dev/null | head -n 1 || true)
	tap_match "$K: module in /lib/modules/$K/updates/dkms" "$f" '/tcp_cdg\.ko(\.xz|\.gz|\.zst)?$'
	tap_eq "$K: vermagic is $K's" "$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)" "$K"
	tap_eq "$K: version is dkms.conf's" "$(modinfo -F version "$f" 2>/dev/null)" "$PKG_VER"
	tap_match "$K: dkms status" \
		"$(in_chroot "$c" dkms status -m "$PKG_NAME" -v "$PKG_VER" -k "$K" 2>/dev/null)" ': installed'
	boot "$f"
	# dkms 3 exits 77 for an excluded kernel (its autoinstall skips
	# those quietly), bullseye's 2.8 exits 9; both name the directive.
	rc=0
	in_chroot "$c" dkms build -m "$PKG_NAME" -v "$PKG_VER" -k 4.9.0-19-amd64 >"$_tmp/excl.log" 2>&1 || rc=$?
	cat "$_tmp/excl.log" >>"$_tmp/all.log"
	want=77
	case $dkms_ver in 2.*) want=9 ;; esac
	tap_eq "$suite's dkms $dkms_ver refuses 4.9.0-19-amd64 (status $want)" "$rc" "$want"
	tap_match "... because of BUILD_EXCLUSIVE" "$(cat "$_tmp/excl.log")" 'BUILD_EXCLUSIVE'
	tap_cmd "$K: dkms remove --all" in_chroot "$c" dkms remove -m "$PKG_NAME" -v "$PKG_VER" --all
	rm -rf "$c/usr/src/$PKG_NAME-$PKG_VER" "$c/var/lib/dkms/$PKG_NAME"
	tap_nofile "$K: module gone from the chroot" "$c/lib/modules/$K/updates/dkms/tcp_cdg.ko" \
		"$c/lib/modules/$K/updates/dkms/tcp_cdg.ko.xz"
	diag "$line: took $((SECONDS - start)) s"
done
if mounted_under "$kb"; then tap_fail "no mount left under $kb" "$(grep " $kb" /proc/self/mounts)"
else tap_ok "no mount left under $kb"; fi

pkg_end
