#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, with apt, everything this project builds, tests and plots with.
# Idempotent: packages already installed are left alone, and nothing is
# downloaded when nothing is missing.  Needs root (or sudo) on Debian 12.
#
#   scripts/deps.sh            everything (build, VM tests, DKMS, plots)
#   scripts/deps.sh --build    only what `make` needs

set -eu

BUILD_PKGS="build-essential bc kmod libelf-dev sparse perl xz-utils"
TEST_PKGS="linux-image-amd64 linux-headers-amd64 linux-source
	qemu-system-x86 busybox-static iperf3 iproute2 cpio gzip dkms
	debhelper fakeroot dpkg-dev python3 python3-matplotlib clang
	libclang-rt-14-dev valgrind bash procps util-linux openssl
	bison flex ethtool iputils-ping trace-cmd linux-perf dh-dkms
	debootstrap"
# debootstrap: the chroots in which scripts/kernels.sh builds for kernel
# lines whose compiler is not bookworm's (5.10: gcc-10, 7.x: gcc-14).

die() { echo "deps.sh: $*" >&2; exit 1; }

want="$BUILD_PKGS"
[ "${1:-}" = "--build" ] || want="$want $TEST_PKGS"

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo -- "$0" "$@"
	fi
	die "must run as root (or with sudo) to install packages with apt"
fi
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: Debian 12 expected"

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

updated=
apt_install() {
	[ $# -gt 0 ] || return 0
	if [ -z "$updated" ]; then
		apt-get update -qq || die "apt-get update failed"
		updated=1
	fi
	echo "deps.sh: installing $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$@" >/dev/null ||
		die "apt-get install $* failed"
}

# shellcheck disable=SC2086
apt_install $(missing $want)

[ "${1:-}" = "--build" ] && exit 0

# Debian's 6.12 kernel (bookworm-security) for the kernel matrix: the newest
# ABI that apt offers, never a hard-coded one.  Without it the matrix is 6.1
# only and the tests that need it say so.
if ! ls -d /lib/modules/6.12.*/build >/dev/null 2>&1; then
	[ -n "$updated" ] || { apt-get update -qq || true; updated=1; }
	abi=$(apt-cache search --names-only \
		'^linux-headers-6\.12\.[0-9.]*\+deb12-amd64$' 2>/dev/null |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -V | tail -n 1)
	if [ -n "$abi" ]; then
		apt_install "linux-headers-$abi" "linux-image-$abi-unsigned"
	else
		echo "deps.sh: no 6.12 kernel offered by apt; matrix is 6.1 only" >&2
	fi
fi
exit 0
