#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, with apt, everything this project builds, tests and plots with.
# Idempotent: packages already installed are left alone, and nothing is
# downloaded when nothing is missing.  Needs root (or sudo) on Debian 12.
#
#   scripts/deps.sh            everything (build, VM tests, DKMS, plots)
#   scripts/deps.sh --build    only what `make` needs
#   scripts/deps.sh --list     print the packages it would want, install none
#
# It installs no kernel image: the kernels the VM tests boot are test data,
# which scripts/vm/kernels.sh downloads and unpacks under build/kernels/ (a
# kernel installed here would change the boot loader's default entry).
# The headers it installs (linux-headers-amd64) are what DKMS and
# `make install` build against on a real host.

set -eu

BUILD_PKGS="build-essential bc kmod libelf-dev sparse perl xz-utils"
TEST_PKGS="linux-headers-amd64 linux-source
	qemu-system-x86 busybox-static iperf3 iproute2 cpio gzip dkms
	debhelper fakeroot dpkg-dev python3 python3-matplotlib clang
	libclang-rt-14-dev valgrind bash procps util-linux openssl
	bison flex ethtool iputils-ping trace-cmd linux-perf dh-dkms
	debootstrap"
# debootstrap: the chroots in which scripts/vm/kernels.sh builds for kernel
# lines whose compiler is not bookworm's (5.10: gcc-10, 7.x: gcc-14).

die() { echo "deps.sh: $*" >&2; exit 1; }

want="$BUILD_PKGS"
[ "${1:-}" = "--build" ] || want="$want $TEST_PKGS"
if [ "${1:-}" = "--list" ]; then
	# shellcheck disable=SC2086 # one line, words apart
	echo $want
	exit 0
fi

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

# shellcheck disable=SC2086,SC2046 # package names, words apart
apt_install $(missing $want)

exit 0
