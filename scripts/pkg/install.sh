#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install from source without DKMS (`make install`, `make uninstall`).
#
#   scripts/pkg/install.sh install KDIR BUILD_DIR [DESTDIR]
#   scripts/pkg/install.sh uninstall KDIR|KREL [DESTDIR]
#   scripts/pkg/install.sh uninstall --default [KREL] [DESTDIR]
#
# The kernel release is the headers' UTS_RELEASE, the one in the module's
# vermagic: Debian's 6.1 headers say "6.1.192" in kernel.release (and
# `make kernelrelease`) for the kernel whose modules live in 6.1.0-57-amd64.
#
# install: kbuild's modules_install of BUILD_DIR (made by `make ko`) into
# DESTDIR/lib/modules/KREL/updates/, compressed as that kernel's own
# modules are, then depmod.  updates/ comes before kernel/ in Debian's
# depmod search order, so modprobe picks this module over the in-tree one.
# DKMS uses updates/dkms/; the two never touch each other's files.
#
# uninstall --default: KREL is only the Makefile's default (the running
# kernel when its headers are there, else the newest with headers; empty
# when no kernel has headers), not a kernel the user named.  Without one,
# or when tcp_cdg is installed for other kernels but not for it, fail and
# say which kernels have it and to pass KVER=.
#
# depmod: for the real tree always; under a DESTDIR only when it already
# holds a module index (an image or chroot root), since a staging directory
# for a package must not ship modules.dep files.
set -eu

die() { echo "install.sh: $*" >&2; exit 1; }

do_depmod() {	# do_depmod KREL DESTDIR
	if [ -z "$2" ]; then
		depmod -a "$1"
	elif [ -f "$2/lib/modules/$1/modules.dep" ]; then
		depmod -a -b "$2" "$1"
	else
		echo "install.sh: $2/lib/modules/$1 has no modules.dep: not running depmod there"
	fi
}

krel_of() {	# krel_of KDIR|KREL
	local h=$1/include/generated/utsrelease.h
	if [ -f "$h" ]; then
		sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$h"
	elif [ -d "$1" ]; then
		die "no $h: not a kernel headers tree"
	else
		echo "$1"
	fi
}

case ${1:-} in
install)
	[ $# -ge 3 ] || die "usage: $0 install KDIR BUILD_DIR [DESTDIR]"
	kdir=$2 bdir=$3 dest=${4:-}
	krel=$(krel_of "$kdir")
	[ -n "$krel" ] || die "cannot tell the kernel release of $kdir"
	[ -f "$bdir/tcp_cdg.ko" ] || die "no $bdir/tcp_cdg.ko (make ko)"
	[ -n "$dest" ] || [ "$(id -u)" -eq 0 ] || die "must run as root to install into /lib/modules (or set DESTDIR=)"
	# CONFIG_MODULE_SIG_ALL= : kbuild would sign with the distribution's
	# key, which the headers do not ship (a noisy, ignored failure); a
	# signature made by `make sign` is kept as it is.
	# Debian's headers have no System.map, so kbuild skips its depmod
	# (and says so): do_depmod below does it.
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	rc=0
	make -s -C "$kdir" M="$bdir" KERNELRELEASE="$krel" INSTALL_MOD_DIR=updates \
		${dest:+INSTALL_MOD_PATH="$dest"} CONFIG_MODULE_SIG_ALL= \
		modules_install >"$log" 2>&1 || rc=$?
	grep -v "missing 'System.map' file" "$log" >&2 || true
	[ "$rc" -eq 0 ] || die "modules_install failed for $krel"
	f=$(ls "$dest/lib/modules/$krel/updates/tcp_cdg.ko"* 2>/dev/null | head -n 1)
	[ -n "$f" ] || die "modules_install did not install tcp_cdg for $krel"
	do_depmod "$krel" "$dest"
	echo "install.sh: installed $f"
	;;
uninstall)
	default=
	if [ "${2:-}" = --default ]; then
		default=1
		shift
	fi
	[ $# -ge 2 ] || [ -n "$default" ] || die "usage: $0 uninstall KDIR|KREL [DESTDIR]"
	krel=${2:-} dest=${3:-}
	[ -z "$krel" ] || krel=$(krel_of "$krel")
	if [ -n "$default" ]; then
		# The kernels that have it, for the messages.
		have=$(ls "$dest"/lib/modules/*/updates/tcp_cdg.ko* 2>/dev/null |
			sed 's|.*/lib/modules/\([^/]*\)/updates/.*|\1|' | sort -uV | paste -sd' ' || true)
		if [ -z "$krel" ]; then
			die "no KVER given, and no kernel headers under /lib/modules/*/build to take the default from (the running kernel is $(uname -r));" \
				"tcp_cdg is installed in $dest/lib/modules/*/updates for: ${have:-no kernel}." \
				"Say which: make uninstall KVER=<kernel>"
		fi
		if [ -n "$have" ] && ! ls "$dest/lib/modules/$krel/updates"/tcp_cdg.ko* >/dev/null 2>&1; then
			die "no KVER given: tried the default, $krel (the running kernel's headers, else the newest), where tcp_cdg is not installed;" \
				"it is installed for: $have. Say which: make uninstall KVER=<kernel>"
		fi
	fi
	[ -n "$krel" ] || die "no kernel release given"
	d=$dest/lib/modules/$krel/updates
	found=
	for f in "$d"/tcp_cdg.ko "$d"/tcp_cdg.ko.xz "$d"/tcp_cdg.ko.gz "$d"/tcp_cdg.ko.zst; do
		[ -e "$f" ] || continue
		rm -f "$f"
		echo "install.sh: removed $f"
		found=1
	done
	if [ -z "$found" ]; then
		echo "install.sh: tcp_cdg is not installed in $d"
		exit 0
	fi
	# updates/ was made for us unless something else lives there.
	rmdir "$d" 2>/dev/null || true
	do_depmod "$krel" "$dest"
	;;
*)
	die "usage: $0 install KDIR BUILD_DIR [DESTDIR] | uninstall [--default] KDIR|KREL [DESTDIR]"
	;;
esac
