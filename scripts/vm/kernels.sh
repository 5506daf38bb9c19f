#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's kernel lines 5.10, 6.1, 6.12 and 7.3, from Debian's packages
# only: apt finds the newest ABI of each line, its image, modules and
# headers are unpacked into one tree that the VM harness boots
# (CDG_KROOT), and `build` compiles the module against each.
#
#   scripts/vm/kernels.sh [--update] [fetch|build] [LINE...]
#   scripts/vm/kernels.sh ko K
#   scripts/vm/kernels.sh vm [LINE|K]
#
#   fetch      (default) choose, download and unpack; make the chroots
#   build      fetch, then `make ko KVER=K W=1 C=1` for every line, into
#              build/K/tcp_cdg.ko as `make ko` puts it (`make kernels`)
#   ko K       only that build, for kernel K as it is already unpacked:
#              no apt, nothing fetched or removed (scripts/vm/suite.sh)
#   vm         the kernel one VM boots (make demo, make bench): LINE
#              (default 6.1) fetched and its module built as by build, or
#              K as ko does; prints K alone on stdout
#   LINE       5.10 6.1 6.12 7.3 (default: all four)
#   --update   refresh apt's lists even if they are less than an hour old
#
#   line  package (the newest ABI apt offers)             suite              compiler
#   5.10  linux-image-5.10.0-N-amd64                       bullseye-security  gcc-10, bullseye chroot
#   6.1   linux-image-6.1.0-N-amd64                        bookworm(-security) gcc-12, this host
#   6.12  linux-image-6.12.N+deb12-amd64-unsigned          bookworm-security  gcc-12, this host
#   7.3   linux-image-7.3.N+deb13-amd64 (+ linux-binary,   trixie-backports   gcc-14, trixie chroot
#         linux-modules, linux-base)
#
# with each the matching linux-headers-K, linux-headers-*-common and
# linux-kbuild-* packages.  A line's headers want the compiler its suite
# built the kernel with (.kernelvariables: CC = gcc-10, gcc-12, gcc-14)
# and kbuild binaries linked against that suite's libc, so a line from
# another suite than this host's (bookworm) builds in a debootstrap
# --variant=minbase chroot of that suite.
#
# Everything lives under build/kernels/ (gitignored):
#   apt/         a private apt configuration: its own sources list, lists,
#                cache and an empty dpkg status; the host's apt is untouched
#   debs/LINE/   the downloaded packages
#   root/        the unpacked tree: boot/vmlinuz-K, lib/modules/K/ with
#                build -> ../../../usr/src/linux-headers-K, inside root/
#   chroot/SUITE the foreign toolchains
#   stamps/      what was done, keyed by the chosen versions: a run with
#                everything in place costs seconds
#   logs/        K.log per build, summary (one line per kernel line),
#                debootstrap-SUITE.log
#
# Its standard output is TAP lines (make check counts them): "# LINE: K
# (version, suite)" per line, or "ok - LINE # SKIP reason" when its
# packages cannot be had (the other lines go on), "not ok - LINE: ..." when
# preparing it failed otherwise; with build, one "ok - build ..." or
# "not ok - build ..." per kernel.  Exit status: 0 unless a line failed or
# a build failed or warned (1), 2 for a usage or setup error.
#
# Boot one: CDG_KROOT=$PWD/build/kernels/root scripts/vm/run.sh --kver K TEST
#
# Needs root (debootstrap, chroot, mount), apt-get, dpkg-deb, depmod,
# debootstrap and unshare (scripts/deps.sh installs them).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
kb=$top/build/kernels
aptdir=$kb/apt
root=$kb/root
stamps=$kb/stamps
logs=$kb/logs
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
all_lines="5.10 6.1 6.12 7.3"

die() { echo "kernels.sh: $*" >&2; exit 2; }
msg() { echo "kernels.sh: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 && exec sudo -- "$0" "$@"
	die "must run as root (debootstrap, chroot and mount need it)"
fi

mode=fetch
update=0
lines=()
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=1 ;;
	fetch|build) mode=$1 ;;
	ko) [ $# -ge 2 ] || die "ko wants a kernel release"
	    mode=ko kver=$2
	    shift ;;
	vm) vm=${2:-6.1}
	    [ $# -lt 2 ] || shift
	    case " $all_lines " in
	    *" $vm "*) mode=build lines=("$vm") ;;
	    *) mode=ko kver=$vm ;;
	    esac
	    # Standard output: K alone.
	    exec {vm_fd}>&1 1>&2 ;;
	-h|--help) sed -n '4,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) case " $all_lines " in
	   *" $1 "*) lines+=("$1") ;;
	   *) die "unknown line $1 (lines: $all_lines)" ;;
	   esac ;;
	esac
	shift
done
[ ${#lines[@]} -gt 0 ] || read -r -a lines <<< "$all_lines"

for t in apt-get apt-cache dpkg-deb depmod debootstrap unshare chroot flock; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found (scripts/deps.sh installs it)"
done
[ -r "$keyring" ] || die "no $keyring (apt-get install debian-archive-keyring)"

mkdir -p "$kb" "$stamps" "$logs" "$root"
# One run at a time: two would unpack into the same tree.
exec {lock_fd}>"$kb/.lock"
flock -n "$lock_fd" || { msg "waiting for another kernels.sh"; flock "$lock_fd"; }

# --- the private apt -------------------------------------------------------
# Dir::State::status is an empty file, so apt resolves nothing against what
# the host has installed; sourceparts=- and our own (empty) preferences keep
# the host's sources and pins out.  The package cache file names are given
# again because the host's apt.conf.d may blank them (docker-clean does),
# and without them every apt-cache call re-parses 40 MB of lists.
apt_opts=(
	-o "Dir::Etc::sourcelist=$aptdir/sources.list"
	-o Dir::Etc::sourceparts=-
	-o "Dir::Etc::preferences=$aptdir/preferences"
	-o "Dir::Etc::preferencesparts=$aptdir/preferences.d"
	-o "Dir::State=$aptdir/state"
	-o "Dir::State::status=$aptdir/state/status"
	-o "Dir::Cache=$aptdir/cache"
	-o Dir::Cache::pkgcache=pkgcache.bin
	-o Dir::Cache::srcpkgcache=srcpkgcache.bin
	-o APT::Architecture=amd64
	-o APT::Architectures=amd64
	-o Acquire::Languages=none
	# Downloads land in build/, which apt's _apt user may not write.
	-o APT::Sandbox::User=root
)
kapt() { apt-get "${apt_opts[@]}" "$@"; }
kcache() { apt-cache "${apt_opts[@]}" "$@"; }

apt_setup() {
	local list
	mkdir -p "$aptdir/state/lists/partial" "$aptdir/cache/archives/partial" \
		"$aptdir/preferences.d"
	[ -f "$aptdir/state/status" ] || : > "$aptdir/state/status"
	list="# scripts/vm/kernels.sh: rewritten on every run
deb [signed-by=$keyring] $security bullseye-security main
deb [signed-by=$keyring] $mirror bookworm main
deb [signed-by=$keyring] $security bookworm-security main
deb [signed-by=$keyring] $mirror trixie main
deb [signed-by=$keyring] $mirror trixie-backports main"
	if [ "$(cat "$aptdir/sources.list" 2>/dev/null)" != "$list" ]; then
		printf '%s\n' "$list" > "$aptdir/sources.list"
		rm -f "$stamps/apt-update"
	fi
	# Within the hour the lists are new enough: a cached run then asks
	# the mirror nothing.
	if [ "$update" = 0 ] && [ -n "$(find "$stamps/apt-update" -mmin -60 2>/dev/null)" ]; then
		return 0
	fi
	msg "apt-get update (private lists in $aptdir)"
	if kapt -qq update >"$logs/apt-update.log" 2>&1; then
		touch "$stamps/apt-update"
	else
		# A suite that failed leaves its lines without candidates: they
		# SKIP below and the others go on.
		msg "apt-get update failed in part ($logs/apt-update.log); using the lists there are"
		sed 's/^/kernels.sh:   /' "$logs/apt-update.log" | grep -E '^kernels.sh:   (E|W):' >&2 || true
	fi
}

# --- one line: choose, download, unpack ------------------------------------
# line_info LINE: re (the ABI, K, in the image package's name), img_sfx,
# env (host, or the suite whose chroot builds it).
line_info() {
	case $1 in
	5.10) re='5\.10\.0-[0-9]+-amd64' img_sfx='' env=bullseye ;;
	6.1) re='6\.1\.0-[0-9]+-amd64' img_sfx='' env=host ;;
	6.12) re='6\.12\.[0-9]+\+deb12-amd64' img_sfx=-unsigned env=host ;;
	7.3) re='7\.3\.[0-9]+\+deb13-amd64' img_sfx='' env=trixie ;;
	esac
}

# pkg_fields PKG...: "package version architecture" of each candidate
# apt has (one apt-cache call: each costs a few tenths of a second).
pkg_fields() {
	kcache show --no-all-versions "$@" 2>/dev/null | awk '
		/^Package: / { p = $2 } /^Version: / { v = $2 }
		/^Architecture: / { a = $2 }
		/^$/ { if (p != "") print p, v, a; p = "" }
		END { if (p != "") print p, v, a }'
}

# The names in PKG's Depends, every alternative, without versions.
deps_of() {
	kcache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Depends: //p' |
		tr ',|' '\n' | sed 's/(.*//; s/[[:space:]]//g' | grep . || true
}

# The suite(s) version V of PKG comes from, e.g. "bullseye-security".
suite_of() {
	kcache madison "$1" 2>/dev/null |
		awk -F'|' -v v="$2" '{ gsub(/ /, "", $2) } $2 == v { split($3, a, " "); sub(/\/.*/, "", a[2]); print a[2] }' |
		sort -u | paste -sd, -
}

skip() { echo "ok - kernel line $line # SKIP $*"; exit 3; }

# What apt's lists hold now: the choice below is redone only when an
# apt-get update brought something new (or the line's pattern changed).
lists_key() {
	find "$aptdir/state/lists" -maxdepth 1 -name '*_Packages*' -printf '%f %s %T@\n' |
		sort | sha256sum | cut -d' ' -f1
}

# choose: K, and in choice (a file) "K=..", "IMG=.." and one
# "package version architecture" line per package to fetch.  The newest
# ABI whose headers apt also has (backports publish an image before its
# headers); its image, for 7.x the split image packages, its headers and
# their -common and linux-kbuild packages.
choose() {
	local k d newer='' img fields v
	choice=$stamps/choice-$line
	if [ "$(sed -n 1p "$choice" 2>/dev/null)" = "lists=$lkey $re$img_sfx" ]; then
		K=$(sed -n 's/^K=//p' "$choice")
		return 0
	fi
	rm -f "$choice"
	for k in $(kcache search --names-only "^linux-image-($re)$img_sfx\$" 2>/dev/null |
		   awk '{ print $1 }' | sed -E "s/^linux-image-//; s/$img_sfx\$//" | sort -rV); do
		if [ "$(pkg_fields "linux-image-$k$img_sfx" "linux-headers-$k" | wc -l)" = 2 ]; then
			K=$k
			break
		fi
		newer="$newer $k"
	done
	[ -n "${K:-}" ] || skip "apt offers no package matching ^linux-image-($re)$img_sfx\$ with its headers (lists: $logs/apt-update.log)"
	[ -z "$newer" ] || msg "$line:$newer: no headers yet, taking $K"
	img=linux-image-$K$img_sfx
	pkgs=("$img")
	# 7.x splits the image: linux-image-K only depends on the kernel
	# (linux-binary-K), its modules and linux-base-K (System.map,
	# config, modules.builtin).
	for d in $(deps_of "$img"); do
		case $d in
		"linux-binary-$K"|"linux-modules-$K"|"linux-base-$K") pkgs+=("$d") ;;
		esac
	done
	pkgs+=("linux-headers-$K")
	for d in $(deps_of "linux-headers-$K"); do
		case $d in
		linux-headers-*-common|linux-kbuild-*) pkgs+=("$d") ;;
		esac
	done
	fields=$(pkg_fields "${pkgs[@]}")
	for d in "${pkgs[@]}"; do
		printf '%s\n' "$fields" | grep -q "^$d " || skip "apt has no $d"
	done
	{
		echo "lists=$lkey $re$img_sfx"
		echo "K=$K"
		v=$(printf '%s\n' "$fields" | awk -v p="$img" '$1 == p { print $2 }')
		echo "IMG=$img $v from $(suite_of "$img" "$v")"
		printf '%s\n' "$fields"
	} > "$choice.tmp"
	mv "$choice.tmp" "$choice"
}

# fetch_debs: every package of the choice into debs/LINE/, once; sets debs.
fetch_debs() {
	local dir=$kb/debs/$line p v a f keep=" "
	debs=()
	mkdir -p "$dir"
	while read -r p v a; do
		f=${p}_${v//:/%3a}_$a.deb	# the name apt-get download gives it
		keep+="$f "
		debs+=("$dir/$f")
		[ -f "$dir/$f" ] && continue
		# Into a scratch directory first: an interrupted download
		# must not pass for a package next time.
		rm -rf "$dir/partial"
		mkdir -p "$dir/partial"
		(cd "$dir/partial" && kapt -qq download "$p=$v" >"$logs/download-$line.log" 2>&1) ||
			skip "apt-get download $p=$v failed ($logs/download-$line.log)"
		[ -f "$dir/partial/$f" ] || skip "apt-get download $p=$v gave no $f"
		mv "$dir/partial/$f" "$dir/$f"
	done < <(sed '/=/d' "$choice")
	rm -rf "$dir/partial"
	# An older ABI's packages are of no more use.
	for f in "$dir"/*.deb; do
		case $keep in *" ${f##*/} "*) ;; *) rm -f "$f" ;; esac
	done
}

# Remove kernel OLD (a line's previous ABI) from the tree.
remove_kernel() {
	local old=$1 abi=${1%-amd64}
	msg "$line: removing $old from $root"
	rm -rf "$root/boot/"*"-$old" "$root/lib/modules/$old" "$root/usr/lib/modules/$old" \
		"$root/usr/src/linux-headers-$abi-"* \
		"$root/usr/lib/linux-kbuild-$abi" "$root/usr/src/linux-kbuild-$abi"
}

# The headers' Makefile includes its -common tree by absolute path
# ("include /usr/src/linux-headers-K-common/Makefile", and 7.x sets
# KBUILD_OUTPUT=/usr/src/...), which is the host's tree or nothing.  Make
# those paths relative to the Makefile itself, so that root/ builds
# wherever it is, on the host and in a chroot alike.
fix_makefile() {
	local mk=$1
	grep -q '/usr/src/' "$mk" || return 0
	# shellcheck disable=SC2016 # make's $(...), not the shell's
	sed -i -e '1i\
# scripts/vm/kernels.sh: this tree is unpacked out of /; its paths are\
# taken relative to this Makefile (the parent of its directory).\
cdg_kroot_src := $(realpath $(dir $(lastword $(MAKEFILE_LIST)))..)' \
		-e 's|/usr/src/|$(cdg_kroot_src)/|g' "$mk"
}

# unpack: pkgs into root/, then what a dpkg install would have left usable.
unpack() {
	local stamp=$stamps/unpack-$line key old d l t
	key=$(printf '%s\n' "K=$K" "${debs[@]##*/}")
	if [ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && [ -r "$root/boot/vmlinuz-$K" ] &&
	   [ -f "$root/lib/modules/$K/modules.dep" ] && [ -f "$root/lib/modules/$K/build/Makefile" ]; then
		return 0
	fi
	old=$(sed -n 's/^K=//p' "$stamp" 2>/dev/null || true)
	[ -z "$old" ] || [ "$old" = "$K" ] || remove_kernel "$old"
	rm -f "$stamp"
	msg "$line: unpacking ${#debs[@]} packages into $root"
	for d in "${debs[@]}"; do
		dpkg-deb -x "$d" "$root" || skip "dpkg-deb -x $d failed"
	done
	# 7.x is usrmerged: modules in usr/lib/modules/K, vmlinuz beside them.
	# The harness (and depmod -b) look in lib/modules/K and boot/.
	if [ -d "$root/usr/lib/modules/$K" ] && [ ! -e "$root/lib/modules/$K" ]; then
		mkdir -p "$root/lib/modules"
		ln -s "../../usr/lib/modules/$K" "$root/lib/modules/$K"
	fi
	if [ ! -e "$root/boot/vmlinuz-$K" ] && [ -f "$root/lib/modules/$K/vmlinuz" ]; then
		mkdir -p "$root/boot"
		ln -sr "$(readlink -f "$root/lib/modules/$K/vmlinuz")" "$root/boot/vmlinuz-$K"
	fi
	# Absolute links (lib/modules/K/build -> /usr/src/linux-headers-K
	# in 5.10 to 6.12) would leave root/: point them inside it.
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		ln -sfnr "$root$t" "$l"
	done < <(find "$root" -type l -lname '/*' -print0)
	fix_makefile "$root/usr/src/linux-headers-$K/Makefile"
	[ -r "$root/boot/vmlinuz-$K" ] || skip "no vmlinuz for $K in its packages"
	[ -f "$root/lib/modules/$K/build/Makefile" ] || skip "no headers at lib/modules/$K/build"
	depmod -b "$root" "$K" || skip "depmod -b $root $K failed"
	printf '%s\n' "$key" > "$stamp"
}

# --- the chroots --------------------------------------------------------------
# Compiler, libc headers and the tools kbuild runs (bc, bison, flex; pahole
# for 7.x's module BTF), the libraries linux-kbuild's binaries link against
# (libelf, libssl), and sparse for C=1.
chroot_pkgs() {
	case $1 in
	bullseye) echo make gcc-10 libc6-dev libelf-dev bc bison flex sparse libssl1.1 ;;
	trixie) echo make gcc-14 gcc-14-for-host libc6-dev libelf-dev bc bison flex sparse \
		libssl3t64 pahole ;;
	esac
}

# Is anything mounted at or under DIR?  (Never rm -rf through a mount.)
mounted_under() {
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mounts
}

make_chroot() {
	local s=$1 dir=$kb/chroot/$1 stamp=$stamps/chroot-$1 key pkgs
	pkgs=$(chroot_pkgs "$s")
	key="$s $mirror $pkgs"
	if [ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && [ -x "$dir/usr/bin/make" ]; then
		return 0
	fi
	mounted_under "$dir" && die "something is mounted under $dir: unmount it first"
	rm -f "$stamp"
	rm -rf "$dir" "$dir.tmp"
	msg "debootstrap $s into $dir ($logs/debootstrap-$s.log)"
	mkdir -p "$kb/chroot"
	debootstrap --variant=minbase --include="${pkgs// /,}" "$s" "$dir.tmp" "$mirror" \
		>"$logs/debootstrap-$s.log" 2>&1 || {
		tail -n 5 "$logs/debootstrap-$s.log" >&2
		skip "debootstrap $s failed ($logs/debootstrap-$s.log)"
	}
	mv "$dir.tmp" "$dir"
	echo "$key" > "$stamp"
}

# in_env ENV CMD...: run CMD on the host, or in ENV's chroot with this
# checkout bind-mounted at its own path (so build/kernels/root and every
# path the Makefiles hold are the same in there), and /proc (7.x's objtool
# reads its stack limit there).  The mounts are made in a private mount
# namespace (unshare): they vanish with it however the run ends, even
# killed, and the host never sees them, so no trap has to unmount them and
# no rm -rf of build/ can walk through a chroot into the checkout.
in_env() {
	local env=$1
	shift
	if [ "$env" = host ]; then
		"$@"
		return
	fi
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- /bin/bash -eu -c '
		c=$1 top=$2
		shift 2
		mkdir -p "$c$top"
		mount --bind "$top" "$c$top"
		mount -t proc proc "$c/proc"
		exec chroot "$c" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C "$@"' _ "$kb/chroot/$env" "$top" "$@"
}

# --- build ------------------------------------------------------------------------
# sparse_check ENV K: sets sparse ("yes" or "no: why") and sparse_args.
# Recent kernels (Debian's 7.3 is one) drop C=1 themselves when
# scripts/checker-valid.sh does not accept sparse, and say so only in a
# make message; Debian's linux-kbuild-7.x does not even ship that script,
# so there C=1 is dropped always.  Run the same kind of test here (can
# sparse parse __typeof_unqual__, which those headers use), and when it
# passes force C=1 past the missing script with KBUILD_CHECKSRC.  After
# the build, a log without a CHECK line means sparse did not run after all.
sparse_check() {
	local env=$1 k=$2 src out ver
	sparse=yes sparse_args=(C=1)
	if ! ver=$(in_env "$env" sparse --version 2>/dev/null); then
		sparse="no: no sparse in $env"
		sparse_args=()
		return 0
	fi
	src=$root/lib/modules/$k/source
	grep -q checker-valid.sh "$src/Makefile" 2>/dev/null || return 0
	[ ! -x "$src/scripts/checker-valid.sh" ] || return 0	# kbuild's own test
	mkdir -p "$kb/probe"
	printf '%s\n' 'static int f(const volatile int *p)' '{' \
		'	__typeof_unqual__(*p) v = *p;' '' '	return v;' '}' > "$kb/probe/unqual.c"
	out=$(in_env "$env" sparse "$kb/probe/unqual.c" 2>&1 || true)
	if printf '%s\n' "$out" | grep -q 'error'; then
		sparse="no: $env's sparse $ver cannot parse __typeof_unqual__, which $k's headers use"
		sparse_args=()
	else
		sparse_args+=(KBUILD_CHECKSRC=1)
		sparse="yes (forced: Debian's linux-kbuild lacks scripts/checker-valid.sh)"
	fi
}

# build_line: make ko for K with W=1 (C=1 where sparse works); result in
# build/K/tcp_cdg.ko, the log in logs/K.log, one summary line.
build_line() {
	local log=$logs/$K.log stamp=$stamps/build-$line key f n rc=0
	local kdir=$root/lib/modules/$K/build
	sparse_check "$env" "$K"
	# Same sources, kernel, toolchain and flags: the last result stands.
	key=$( {
		echo "tap $K $env ${sparse_args[*]}"
		cat "$stamps/chroot-$env" 2>/dev/null || true
		in_env "$env" dpkg-query -W gcc-10 gcc-12 gcc-14 sparse 2>/dev/null || true
		cd "$top" && sha256sum tcp_cdg.c Kbuild dkms.conf Makefile include/*.h
	} | sha256sum)
	if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$key" ] &&
	   [ -f "$top/build/$K/tcp_cdg.ko" ]; then
		result=$(sed -n 2p "$stamp")
		echo "$result (cached)"
		return 0
	fi
	rm -f "$stamp"
	# Compile for real, so that the log holds every warning.
	rm -f "$top/build/$K/tcp_cdg.o" "$top/build/$K/tcp_cdg.ko"
	msg "$line: make ko KVER=$K W=1 ${sparse_args[*]} ($env)"
	in_env "$env" make -C "$top" --no-print-directory ko KVER="$K" KDIR="$kdir" \
		W=1 "${sparse_args[@]}" >"$log" 2>&1 || rc=$?
	n=$(grep -c -E '(warning|error):' "$log" || true)
	# C=1 asked for but no CHECK line: kbuild dropped sparse after all.
	if [ "${sparse%%[: ]*}" = yes ] && ! grep -q '^ *CHECK ' "$log"; then
		f=$(grep -m 1 'specified, but' "$log" || true)
		sparse="no: kbuild dropped C=1${f:+ ($f)}"
	fi
	if [ "$rc" != 0 ] || [ ! -f "$top/build/$K/tcp_cdg.ko" ]; then
		result="not ok - build $line $K: make exited $rc, $n warnings/errors, sparse $sparse (log: $log)"
	elif [ "$n" != 0 ]; then
		result="not ok - build $line $K: W=1, $n warnings, sparse $sparse (log: $log)"
	else
		result="ok - build $line $K: W=1, 0 warnings, sparse $sparse (log: $log)"
	fi
	echo "$result"
	if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
		grep -E '(warning|error):' "$log" | head -n 20 >&2
		return 1
	fi
	printf '%s\n%s\n' "$key" "$result" > "$stamp"
}

# --- main -----------------------------------------------------------------------
if [ "$mode" = ko ]; then
	K=$kver
	line=$(grep -lx -- "$K" "$stamps"/chosen-* 2>/dev/null | sed -n '1s|.*/chosen-||p')
	[ -n "$line" ] || die "$K is not one of build/kernels' kernels (scripts/vm/kernels.sh fetch)"
	line_info "$line"
	[ -f "$stamps/unpack-$line" ] || die "$K is not unpacked (scripts/vm/kernels.sh fetch $line)"
	[ "$env" = host ] || [ -f "$stamps/chroot-$env" ] || die "no $env chroot (scripts/vm/kernels.sh fetch $line)"
	build_line
	[ -z "${vm_fd:-}" ] || echo "$K" >&"$vm_fd"
	exit 0
fi
apt_setup
lkey=$(lists_key)
failed=0
summary=()
for line in "${lines[@]}"; do
	K='' re='' img_sfx='' env=''
	line_info "$line"
	# Each line in a subshell with set -e in force (a function called in
	# an if would run with errexit off): a line that cannot be had says
	# SKIP and exits 3, and the next line goes on.
	set +e
	(
		set -e
		choose
		fetch_debs
		unpack
		[ "$env" = host ] || make_chroot "$env"
		echo "$K" > "$stamps/chosen-$line"
		where="a $env chroot"
		[ "$env" != host ] || where="this host"
		echo "# $line: $K ($(sed -n 's/^IMG=//p' "$choice"); builds on $where)"
	)
	rc=$?
	set -e
	if [ "$rc" != 0 ]; then
		if [ "$rc" = 3 ]; then
			summary+=("ok - kernel line $line # SKIP (above)")
			[ -z "${vm_fd:-}" ] || failed=1	# nothing to boot
		else
			echo "not ok - kernel line $line: preparing it failed (status $rc; messages on stderr)"
			summary+=("not ok - kernel line $line: preparing it failed")
			failed=1
		fi
		continue
	fi
	[ "$mode" = build ] || continue
	K=$(cat "$stamps/chosen-$line")
	set +e
	result=$( set -e; build_line )
	rc=$?
	set -e
	echo "$result"
	summary+=("$result")
	[ "$rc" = 0 ] || failed=1
done
if [ "$mode" = build ] && [ -z "${vm_fd:-}" ]; then
	printf '%s\n' "${summary[@]}" > "$logs/summary"
	msg "summary in $logs/summary; boot one with CDG_KROOT=$root scripts/vm/run.sh --kver K TEST"
fi
if [ -n "${vm_fd:-}" ]; then
	[ "$failed" = 0 ] && [ -f "$stamps/chosen-$line" ] || die "no kernel $line to boot (above)"
	cat "$stamps/chosen-$line" >&"$vm_fd"
fi
exit "$failed"
