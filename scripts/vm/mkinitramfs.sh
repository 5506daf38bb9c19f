#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's initramfs for one kernel and print its path.
#
#   scripts/vm/mkinitramfs.sh KVER
#
# Output: build/vm/KVER/initramfs.cpio.gz (gzip'd newc cpio).  It is rebuilt
# only when an input changed: the hash of every source path, destination and
# file content (binaries, libraries, modules, tests, our tcp_cdg.ko, this
# script) is kept beside it in initramfs.hash.
#
# Layout of the guest (merged /usr, like Debian 12):
#   /init                     scripts/vm/guest-init.sh (bash)
#   /usr/bin, /usr/sbin       real bash, iperf3, ip/tc/ss/nstat, kmod and its
#                             insmod/rmmod/modprobe/modinfo/depmod/lsmod links,
#                             setpriv, sysctl, timeout, sleep, plus busybox
#                             applets for every name no real tool provides;
#                             /bin/sh is bash (see guest-init.sh for why)
#   /usr/local/bin/NAME       static helpers built from tests/vm/NAME.c
#                             and tests/peer/NAME.c
#   /lib/modules/KVER/        the Debian modules the tests need, with their
#                             dependencies, indexed by depmod
#   /lib/modules/intree/      Debian's own tcp_cdg (the reference), outside
#                             the depmod tree: only an explicit insmod loads it
#   /opt/cdg/tcp_cdg.ko       ours, from build/KVER/tcp_cdg.ko (`make ko`)
#   /tests/vm/                the VM tests and lib.sh
#   /tests/lib/               the TAP library of every shell test
#   /scripts/bench/guest/,    scripts the guest runs that are not tests
#   /tests/pkg/guest/         (the benchmark's runners, the DKMS check)
#   /tests/peer/              the scripted peer's scripts (tests/peer/*.pkt)
#
# The kernel's modules come from KROOT/lib/modules/KVER, with KROOT
# CDG_KROOT, by default build/kernels/root (scripts/vm/kernels.sh's kernels,
# never installed on the host; CDG_KROOT=/ is this host's own).  A kernel
# such as scripts/vm/debug-kernel.sh's may lack the in-tree tcp_cdg, and the
# tests that need it skip.
set -eu

die() { echo "mkinitramfs: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 KVER"
kver=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
# Debian's kernels as scripts/vm/kernels.sh unpacks them (never installed on
# the host); CDG_KROOT=/ boots this host's own /boot and /lib/modules.
kroot=${CDG_KROOT:-$top/build/kernels/root}
[ "$kroot" != / ] || kroot=
moddir=$kroot/lib/modules/$kver
ko=$top/build/$kver/tcp_cdg.ko
out=$top/build/vm/$kver
img=$out/initramfs.cpio.gz

[ -f "$moddir/modules.dep" ] || die "no modules for $kver in $moddir"
[ -f "$ko" ] || die "no $ko: run 'make ko KVER=$kver' first"
mkdir -p "$out"

# One build per kernel at a time (two check-vm runs must not interleave).
exec 9>"$out/.initramfs.lock"
flock 9

# The helpers (tests/vm/*.c, tests/peer/*.c), static so that they need
# nothing in the guest.
helpers=()
for c in "$top"/tests/vm/*.c "$top"/tests/peer/*.c; do
	helper=$top/build/vm/$(basename "$c" .c)
	if [ ! -x "$helper" ] || [ "$c" -nt "$helper" ]; then
		gcc -static -O2 -Wall -Wextra -o "$helper.tmp" "$c"
		mv "$helper.tmp" "$helper"
	fi
	helpers+=("$helper")
done

# --- the file list: "source<TAB>destination" lines --------------------------
declare -A dst_of=()
files=()
add() {	# add SRC DST: copy SRC (symlinks followed) to DST in the guest
	[ -n "${dst_of[$2]:-}" ] && return 0
	dst_of[$2]=$1
	files+=("$1	$2")
}

tool() {	# tool NAME [required]: a real binary and its shared libraries
	local p lib
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$1" 2>/dev/null) || {
		[ "${2:-}" = required ] && die "$1 not found on the host (scripts/deps.sh)"
		return 0	# busybox's applet stands in
	}
	p=$(readlink -f "$p")
	add "$p" "/usr/bin/$1"
	# ldd prints "name => /path (addr)" and "/path (addr)" for the loader.
	while read -r lib; do
		add "$lib" "/usr$(readlink -f "$(dirname "$lib")" | sed 's|^/usr||')/$(basename "$lib")"
	done < <(ldd "$p" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}
					    $1 ~ /^\// {print $1}')
}

for t in bash iperf3 ip tc ss kmod setpriv sysctl timeout; do
	tool "$t" required
done
# Nice to have: SNMP counters, a real ping, ethtool, trace-cmd (the
# tracepoint test), a real awk (busybox awk has no exp()); busybox covers ping.
for t in nstat ping ethtool trace-cmd awk; do tool "$t"; done
# coreutils' sleep: fractional, and not forked through busybox each time.
tool sleep required
add "$(readlink -f "$(command -v busybox)")" /usr/bin/busybox

# ldd shows the loader as /lib64/...; the guest has /lib64 -> usr/lib64.
ld_so=$(readlink -f /lib64/ld-linux-x86-64.so.2)
add "$ld_so" /usr/lib64/ld-linux-x86-64.so.2

# Modules with their dependencies, as the kernel's own modprobe resolves them
# (-S reads that kernel's modules.dep; "builtin" lines need nothing).
# tcp_diag: ss and cc_sockopt sample read sockets through inet_diag.
mods="veth sch_netem sch_tbf tun tcp_bbr tcp_vegas tcp_diag inet_diag virtio_pci 9pnet_virtio 9p"
for m in $mods; do
	while read -r cmd path _; do
		[ "$cmd" = insmod ] || continue
		add "$path" "/usr${path#"$kroot"}"
	done < <(modprobe -d "${kroot:-/}" -S "$kver" --show-depends "$m" 2>/dev/null ||
		 echo "mkinitramfs: no module $m for $kver" >&2)
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$moddir/$f" ] && add "$moddir/$f" "/usr/lib/modules/$kver/$f"
done

# The reference is the kernel package's own module, under kernel/: not
# whatever modprobe resolves "tcp_cdg" to, which is ours once DKMS or
# scripts/pkg/install.sh put it in updates/ on this host.  Looked up as a file,
# not in modules.dep: DKMS rewrites that (and may set the in-tree module
# aside while ours is installed).
intree=$(find "$moddir/kernel" -name 'tcp_cdg.ko*' -type f 2>/dev/null | sort | head -n 1)
if [ -n "$intree" ]; then
	add "$intree" "/usr/lib/modules/intree/$(basename "$intree")"
elif [ -n "$kroot" ]; then
	echo "mkinitramfs: $kver has no in-tree tcp_cdg: the tests that compare with it skip" >&2
else
	die "Debian's $kver has no kernel/.../tcp_cdg.ko* (the reference)"
fi

add "$ko" /opt/cdg/tcp_cdg.ko
for helper in "${helpers[@]}"; do
	add "$helper" "/usr/local/bin/$(basename "$helper")"
done
add "$top/scripts/vm/guest-init.sh" /init
# The shell the guest runs, where the tree has it: the tests, their
# libraries, and the guest scripts that are not tests (the benchmark's
# runners, the DKMS check's).
for f in "$top"/tests/vm/*.sh "$top"/tests/lib/*.sh \
	 "$top"/scripts/bench/guest/*.sh "$top"/tests/pkg/guest/*.sh; do
	[ -f "$f" ] && add "$f" "/${f#"$top"/}"
done
for f in "$top"/tests/peer/*.pkt; do
	[ -f "$f" ] && add "$f" "/tests/peer/$(basename "$f")"
done

# --- cache check ---------------------------------------------------------------
hash=$({
	echo "$kver $kroot"
	sha256sum "$0"
	for e in "${files[@]}"; do
		printf '%s\n' "$e"
		sha256sum < "${e%%	*}"
	done
} | sha256sum | cut -d' ' -f1)

if [ -f "$img" ] && [ "$(cat "$out/initramfs.hash" 2>/dev/null)" = "$hash" ]; then
	echo "$img"
	exit 0
fi

# --- build ---------------------------------------------------------------------
root=$(mktemp -d "$out/root.XXXXXX")
trap 'rm -rf "$root" "$img.tmp"' EXIT

mkdir -p "$root"/usr/{bin,sbin,lib,lib64,local/bin} "$root"/{dev,proc,sys,run,tmp,out,etc,root,var,opt/cdg}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
ln -s /run "$root/var/run"
# The kernel opens /dev/console before devtmpfs is mounted.
mknod -m 600 "$root/dev/console" c 5 1
mknod -m 666 "$root/dev/null" c 1 3

for e in "${files[@]}"; do
	src=${e%%	*} dst=${e#*	}
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst"
done
chmod 755 "$root/init"

for l in insmod rmmod modprobe modinfo depmod lsmod; do
	ln -s ../bin/kmod "$root/usr/sbin/$l"
done
ln -s bash "$root/usr/bin/sh"
# busybox for everything else (awk, sed, grep, dmesg, mount, ...), never
# in place of a real tool.
for a in $(busybox --list); do
	[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] ||
		ln -s busybox "$root/usr/bin/$a"
done

# Index the modules copied in: modprobe, and the kernel's request_module()
# through /sbin/modprobe, find exactly these.
depmod -b "$root" "$kver"

cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat > "$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
: > "$root/etc/fstab"

# The same inputs give the same bytes (sorted names, no mtimes, no inode
# numbers, no gzip time stamp): in virtual time the guest's run depends on
# every instruction it executes, unpacking included, so a rebuilt image
# (a fresh clone has fresh mtimes) must not change the figures.
# Our module without its debug information and build ID: they hold the
# checkout's path, so two clones would otherwise boot different bytes.
objcopy --strip-debug --remove-section=.note.gnu.build-id "$root/opt/cdg/tcp_cdg.ko"
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --reproducible --quiet) | gzip -n -1 > "$img.tmp"
mv "$img.tmp" "$img"
echo "$hash" > "$out/initramfs.hash"
echo "mkinitramfs: built $img ($(du -k "$img" | cut -f1) KiB)" >&2
echo "$img"
