#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a debug kernel for the VM tests from Debian's linux-source package
# and print its release.
#
#   scripts/vm/debug-kernel.sh [--print-root]
#   scripts/vm/debug-kernel.sh --check    is the cache usable?  Says why not
#                                      (exit 1) or prints the release;
#                                      builds nothing
#
# Source:  /usr/src/linux-source-*.tar.xz (the newest; scripts/deps.sh
#          installs linux-source).
# Config:  x86_64_defconfig + kvm_guest.config, minus what a diskless
#          guest with -nic none never uses (disks, NICs, USB, sound, DRM,
#          netfilter, wireless), plus what the tests use (veth, netem, tbf,
#          tun, bbr, vegas, inet_diag, virtio 9p, tracepoints, IPv6, netns)
#          and the debugging options of issue 8: KASAN (generic, inline),
#          KMEMLEAK, UBSAN (bounds, shift, div-zero), PROVE_LOCKING,
#          DEBUG_ATOMIC_SLEEP, FAILSLAB and
#          debugfs.  CONFIG_TCP_CONG_CDG is off: ours is the only cdg, as on
#          the distributions that do not build the in-tree module.
# Output:  build/debug-kernel/
#            src/                 the kernel tree (also the KDIR for our
#                                 module: `make ko KDIR=... KVER=KREL`)
#            root/boot/vmlinuz-KREL, root/lib/modules/KREL/  installed as a
#                                 root prefix for scripts/vm (CDG_KROOT)
#            build.log, build.time (seconds of the last full build)
# Cache:   nothing is rebuilt when the tarball, this script and the config
#          fragment below are unchanged (their hash is in root/.key) and
#          the tree is whole: vmlinuz, every module root/'s modules.dep
#          names (a kbuild `make M=... clean` over the checkout once
#          deleted every .ko here and left .key in place), and
#          src/Module.symvers (our module builds against src/).
#
# Measured on a 2-core host: see docs/reliability.md.
set -eu

die() { echo "debug-kernel: $*" >&2; exit 1; }

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/debug-kernel
src=$out/src
root=$out/root

tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$tarball" ] || die "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source, or scripts/deps.sh)"

# The config fragment: "NAME=y|m|n" lines applied with scripts/config.
fragment() {
	cat <<'EOF'
LOCALVERSION="-cdg-debug"
LOCALVERSION_AUTO=n
MODULES=y
MODULE_UNLOAD=y
MODULE_FORCE_UNLOAD=n
MODULE_SIG=n
MODULE_COMPRESS_NONE=y
DEBUG_INFO_NONE=y
DEBUG_INFO_BTF=n
BLK_DEV_INITRD=y
DEVTMPFS=y
TMPFS=y
PROC_FS=y
SYSFS=y
DEBUG_FS=y
DEBUG_FS_ALLOW_ALL=y
SERIAL_8250=y
SERIAL_8250_CONSOLE=y
SERIAL_8250_NR_UARTS=4
SERIAL_8250_RUNTIME_UARTS=4
VIRTIO_PCI=y
NET_9P=y
NET_9P_VIRTIO=y
9P_FS=y
NET=y
INET=y
IPV6=y
NET_NS=y
VETH=m
TUN=m
NET_SCHED=y
NET_SCH_NETEM=m
NET_SCH_TBF=m
NET_SCH_FQ=m
NET_SCH_FQ_CODEL=y
TCP_CONG_ADVANCED=y
TCP_CONG_CUBIC=y
TCP_CONG_BBR=m
TCP_CONG_VEGAS=m
TCP_CONG_CDG=n
DEFAULT_CUBIC=y
INET_DIAG=m
INET_TCP_DIAG=m
PACKET=y
UNIX=y
FTRACE=y
TRACEPOINTS=y
EVENT_TRACING=y
FUNCTION_TRACER=n
KALLSYMS=y
KALLSYMS_ALL=y
KASAN=y
KASAN_GENERIC=y
KASAN_INLINE=y
KASAN_VMALLOC=n
DEBUG_KMEMLEAK=y
DEBUG_KMEMLEAK_DEFAULT_OFF=n
DEBUG_KMEMLEAK_AUTO_SCAN=n
DEBUG_KMEMLEAK_MEM_POOL_SIZE=40000
UBSAN=y
UBSAN_BOUNDS=y
UBSAN_SHIFT=y
UBSAN_DIV_ZERO=y
UBSAN_SANITIZE_ALL=y
UBSAN_TRAP=n
PROVE_LOCKING=y
DEBUG_ATOMIC_SLEEP=y
DEBUG_LIST=y
PANIC_ON_OOPS=n
FAULT_INJECTION=y
FAILSLAB=y
FAULT_INJECTION_DEBUG_FS=y
SLUB_DEBUG=y
NETFILTER=n
WIRELESS=n
WLAN=n
CFG80211=n
RFKILL=n
BT=n
ETHERNET=n
USB_SUPPORT=n
SOUND=n
DRM=n
FB=n
AGP=n
ATA=n
SCSI=n
BLK_DEV_SD=n
MD=n
INPUT_MOUSE=n
INPUT_JOYSTICK=n
INPUT_TOUCHSCREEN=n
HID=n
EXT4_FS=n
NFS_FS=n
SECURITY_SELINUX=n
AUDIT=n
KVM=n
XEN=n
HYPERV=n
EFI=n
MICROCODE=n
PCCARD=n
I2C=n
WATCHDOG=n
EOF
}

key=$({ sha256sum < "$tarball"; sha256sum < "$0"; } | sha256sum | cut -d' ' -f1)

# cache_problem: why the cache cannot be used (one line), or nothing.
cache_problem() {
	local krel m
	krel=$(cat "$root/.release" 2>/dev/null) || { echo "no $root/.release"; return; }
	[ -s "$root/boot/vmlinuz-$krel" ] || { echo "no $root/boot/vmlinuz-$krel"; return; }
	[ -s "$root/lib/modules/$krel/modules.dep" ] ||
		{ echo "no $root/lib/modules/$krel/modules.dep"; return; }
	m=$(cut -d: -f1 "$root/lib/modules/$krel/modules.dep" |
		while IFS= read -r m; do
			[ -s "$root/lib/modules/$krel/$m" ] || { echo "$root/lib/modules/$krel/$m"; break; }
		done)
	[ -z "$m" ] || { echo "module missing: $m"; return; }
	[ -s "$src/Module.symvers" ] || { echo "no $src/Module.symvers"; return; }
	[ -f "$root/.key" ] || { echo "no $root/.key"; return; }
	[ "$(cat "$root/.key")" = "$key" ] ||
		echo "$root/.key differs: the tarball or this script changed"
}

problem=$(cache_problem)
if [ "${1:-}" = --check ]; then
	[ -z "$problem" ] || { echo "debug-kernel: cache not usable: $problem"; exit 1; }
	cat "$root/.release"
	exit 0
fi
if [ -z "$problem" ]; then
	[ "${1:-}" = --print-root ] && { echo "$root"; exit 0; }
	cat "$root/.release"
	exit 0
fi
[ ! -e "$root/.key" ] || echo "debug-kernel: rebuilding: $problem" >&2

mkdir -p "$out"
rm -rf "$src" "$root"
echo "debug-kernel: unpacking $tarball" >&2
mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1

t0=$SECONDS
{
	cd "$src"
	make -s x86_64_defconfig
	make -s kvm_guest.config
	while IFS= read -r l; do
		name=${l%%=*} val=${l#*=}
		case $val in
		y) scripts/config --enable "$name" ;;
		m) scripts/config --module "$name" ;;
		n) scripts/config --disable "$name" ;;
		\"*) scripts/config --set-str "$name" "$(eval echo "$val")" ;;
		*) scripts/config --set-val "$name" "$val" ;;
		esac
	done < <(fragment)
	make -s olddefconfig
	# Every option asked for must have survived olddefconfig's dependency
	# resolution: a silently dropped KASAN would make the whole run moot.
	missing=
	while IFS= read -r l; do
		name=${l%%=*} val=${l#*=}
		got=$(sed -n "s/^CONFIG_$name=\(.*\)/\1/p" .config)
		case $val in
		n) [ -z "$got" ] || [ "$got" = n ] || missing="$missing $name=$got(want n)" ;;
		y | m) [ "$got" = "$val" ] || missing="$missing $name=${got:-unset}(want $val)" ;;
		esac
	done < <(fragment)
	[ -z "$missing" ] || { echo "debug-kernel: config lost:$missing" >&2; exit 1; }
	nice -n "${CDG_NICE:-0}" make -j"$(nproc)" bzImage modules
} > "$out/build.log" 2>&1 || die "build failed: see $out/build.log (tail below)
$(tail -n 30 "$out/build.log")"
echo $((SECONDS - t0)) > "$out/build.time"

krel=$(make -s -C "$src" kernelrelease)
mkdir -p "$root/boot"
cp "$src/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$krel"
make -s -C "$src" INSTALL_MOD_PATH="$root" DEPMOD=/sbin/depmod modules_install >> "$out/build.log" 2>&1
ln -sfn "$src" "$root/lib/modules/$krel/build"
depmod -b "$root" "$krel"
echo "$krel" > "$root/.release"
echo "$key" > "$root/.key"
echo "debug-kernel: built $krel in $(cat "$out/build.time") s" >&2
[ "${1:-}" = --print-root ] && { echo "$root"; exit 0; }
echo "$krel"
