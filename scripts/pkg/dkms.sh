#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS install and removal from this source tree (`make dkms-install`,
# `make dkms-remove`).
#
#   scripts/pkg/dkms.sh install KVER     copy the module's sources to
#                                    /usr/src/tcp-cdg-VERSION, then dkms
#                                    add, build and install for KVER
#   scripts/pkg/dkms.sh remove [KVER]    remove it for KVER; without KVER (or
#                                    once no kernel has it) remove it from
#                                    DKMS entirely, /usr/src copy included
#   scripts/pkg/dkms.sh stage DIR        only copy the module's sources into
#                                    DIR (new or empty): what install puts
#                                    in /usr/src (tests/pkg/dkms-lines.sh)
#
# KVER need not be the running kernel: only /lib/modules/KVER/build is used.
# VERSION is dkms.conf's PACKAGE_VERSION, the project's one version string.
# A tree that the tcp-cdg-dkms package installed is left to dpkg/apt.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "dkms.sh: $*" >&2; exit 1; }

name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ -n "$name" ] && [ -n "$ver" ] || die "no PACKAGE_NAME/PACKAGE_VERSION in dkms.conf"
usrsrc=/usr/src/$name-$ver
# What a DKMS build needs, nothing else (the Makefile is for humans: DKMS
# runs kbuild directly, which reads Kbuild).
srcs="tcp_cdg.c Kbuild dkms.conf LICENSE"

# stage DIR: those sources and include/*.h into DIR, nothing else (never
# `dkms add .`: dkms copies the whole directory, build/ and all).
stage() {
	mkdir -p "$1/include"
	# shellcheck disable=SC2086  # a list of names
	(cd "$top" && cp $srcs "$1/" && cp include/*.h "$1/include/")
}

if [ "${1:-}" = stage ]; then
	[ $# -eq 2 ] && [ -n "$2" ] || die "usage: $0 stage DIR"
	stage "$2"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (DKMS writes /usr/src, /var/lib/dkms and /lib/modules)"
command -v dkms >/dev/null 2>&1 || die "dkms not found (apt-get install dkms, or scripts/deps.sh)"

# dkms status lines look like "tcp-cdg/0.1.0, 6.1.0-57-amd64, x86_64: installed".
# dkms 3.0.10 runs readelf on every module and warns on stderr: drop it.
status() { dkms status -m "$name" -v "$ver" "$@" 2>/dev/null; }
added() { [ -e "/var/lib/dkms/$name/$ver/source" ]; }
pkg_owned() { dpkg-query -S "$usrsrc" >/dev/null 2>&1; }

# Kernels for which DKMS has this version built or installed.
dkms_kernels() { status | sed -n 's/^[^,]*, \([^,]*\), .*/\1/p' | sort -u; }

install_one() {
	local kver=$1 k
	[ -e "/lib/modules/$kver/build/Makefile" ] ||
		die "no kernel headers for $kver in /lib/modules/$kver/build (apt-get install linux-headers-$kver)"

	if [ -d "$usrsrc" ] && pkg_owned; then
		# dpkg owns that tree: replacing files under it would corrupt
		# the package.  Its DKMS module is the same name and version.
		echo "dkms.sh: $usrsrc belongs to the tcp-cdg-dkms package; using it as is"
	else
		local stage
		stage=$(mktemp -d)
		# shellcheck disable=SC2064
		trap "rm -rf '$stage'" EXIT
		stage "$stage"
		if added && ! diff -r -q "$stage" "$usrsrc" >/dev/null 2>&1; then
			# Same version, other sources: DKMS caches built modules
			# per version, so the old ones must go first.  Reinstall
			# them for the kernels that had them.
			echo "dkms.sh: sources of $name $ver changed: rebuilding"
			local had
			had=$(dkms_kernels)
			dkms remove -m "$name" -v "$ver" --all
			rm -rf "$usrsrc"
			cp -a "$stage" "$usrsrc"
			dkms add -m "$name" -v "$ver"
			for k in $had; do
				[ "$k" = "$kver" ] || dkms install -m "$name" -v "$ver" -k "$k"
			done
		elif [ ! -d "$usrsrc" ] || ! diff -r -q "$stage" "$usrsrc" >/dev/null 2>&1; then
			rm -rf "$usrsrc"
			cp -a "$stage" "$usrsrc"
		fi
		chmod -R u=rwX,go=rX "$usrsrc"
	fi

	added || dkms add -m "$name" -v "$ver"
	# `dkms install` builds when needed; build first anyway so that a
	# compile error is reported as one.  Both say "skip" when done already.
	dkms build -m "$name" -v "$ver" -k "$kver"
	dkms install -m "$name" -v "$ver" -k "$kver"
	status -k "$kver" | grep -q ': installed' ||
		die "dkms reports $name $ver not installed for $kver"
	echo "dkms.sh: $name $ver installed for $kver:" \
		"$(modinfo -k "$kver" -F filename tcp_cdg 2>/dev/null)"
}

remove() {
	local kver=${1:-}
	if ! added && [ -z "$(status)" ]; then
		echo "dkms.sh: $name $ver is not in the DKMS tree"
	elif [ -n "$kver" ]; then
		if status -k "$kver" | grep -q .; then
			dkms remove -m "$name" -v "$ver" -k "$kver"
		else
			echo "dkms.sh: $name $ver is not built for $kver"
		fi
	fi
	# Nothing left built: drop the version from DKMS and the copy in /usr/src.
	if [ -z "$kver" ] || [ -z "$(dkms_kernels)" ]; then
		if pkg_owned; then
			echo "dkms.sh: $usrsrc belongs to the tcp-cdg-dkms package: use 'apt-get remove tcp-cdg-dkms'" >&2
			[ -n "$kver" ] || exit 1
			return 0
		fi
		if added || [ -n "$(status)" ]; then
			dkms remove -m "$name" -v "$ver" --all
		fi
		rm -rf "$usrsrc"
		# dkms leaves an empty /var/lib/dkms/NAME behind.
		rmdir "/var/lib/dkms/$name" 2>/dev/null || true
	fi
}

case ${1:-} in
install)
	[ $# -eq 2 ] && [ -n "$2" ] || die "usage: $0 install KVER"
	install_one "$2" ;;
remove)
	remove "${2:-}" ;;
*)
	die "usage: $0 install KVER | remove [KVER] | stage DIR" ;;
esac
