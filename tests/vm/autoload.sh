#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# Module autoload, the way an installed module is used: ours copied to
# /lib/modules/$(uname -r)/updates/ and indexed by depmod, next to Debian's
# in-tree tcp_cdg in kernel/net/ipv4/ as a packaged kernel has it.
#  - before installing, nothing named tcp_cdg is found by name;
#  - setting net.ipv4.tcp_congestion_control=cdg auto-loads it (the kernel's
#    request_module("tcp_cdg") through /sbin/modprobe), and it is ours;
#  - setsockopt(TCP_CONGESTION, "cdg") by root auto-loads it too;
#  - `modprobe tcp_cdg window=16` picks ours, not the in-tree one (depmod
#    ranks updates/ before kernel/): modinfo's version and srcversion are
#    ours, /sys/module/tcp_cdg/version and window read back.
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"
kver=$(uname -r)
mods=/lib/modules/$kver

cdg_unload
tap_cmd "before installing, modinfo tcp_cdg finds nothing" \
	bash -c '! modinfo -F filename tcp_cdg 2>/dev/null'

mkdir -p "$mods/updates" "$mods/kernel/net/ipv4"
cp "$CDG_KO" "$mods/updates/tcp_cdg.ko"
[ -n "$CDG_INTREE" ] && cp "$CDG_INTREE" "$mods/kernel/net/ipv4/"
cleanup_add "rm -f $mods/updates/tcp_cdg.ko $mods/kernel/net/ipv4/$(basename "${CDG_INTREE:-none}"); depmod -a"
depmod -a
tap_eq "modinfo -n tcp_cdg resolves to updates/" "$(modinfo -n tcp_cdg 2>&1)" "$mods/updates/tcp_cdg.ko"
tap_eq "modinfo -F version tcp_cdg is ours" "$(modinfo -F version tcp_cdg 2>&1)" "$CDG_VERSION"
tap_eq "modinfo -F srcversion tcp_cdg is ours" "$(modinfo -F srcversion tcp_cdg 2>&1)" \
	"$(modinfo -F srcversion "$CDG_KO")"

# request_module() from the sysctl (the initial namespace: any loaded CC).
out=$(sysctl -w net.ipv4.tcp_congestion_control=cdg 2>&1) || true
tap_eq "sysctl -w net.ipv4.tcp_congestion_control=cdg" "$out" "net.ipv4.tcp_congestion_control = cdg"
cleanup_add "sysctl -qw net.ipv4.tcp_congestion_control=cubic"
tap_eq "the sysctl auto-loaded ours" "$(cdg_which)" ours
tap_eq "new sockets start with cdg" "$(cc_sockopt get)" "OK cdg"
sysctl -qw net.ipv4.tcp_congestion_control=cubic
tap_cmd "rmmod once the sysctl is back to cubic" cdg_unload

# request_module() from setsockopt (CAP_NET_ADMIN may load).
tap_eq "setsockopt(cdg) auto-loads" "$(cc_sockopt set cdg)" "OK cdg"
tap_eq "setsockopt loaded ours" "$(cdg_which)" ours
cdg_unload

# modprobe by name with a parameter.
out=$(modprobe tcp_cdg window=16 2>&1) || true
[ -z "$out" ] || diag "modprobe: $out"
tap_eq "modprobe tcp_cdg window=16 loads ours" "$(cdg_which)" ours
tap_eq "/sys/module/tcp_cdg/version" "$(cat "$CDG_SYS/version" 2>&1)" "$CDG_VERSION"
tap_eq "/sys/module/tcp_cdg/srcversion" "$(cat "$CDG_SYS/srcversion" 2>&1)" \
	"$(modinfo -F srcversion "$CDG_KO")"
tap_eq "window reads 16" "$(cdg_param window 2>&1)" 16
# A second modprobe with another value is a no-op (vm-notes): window stays.
modprobe tcp_cdg window=1 || true
tap_eq "modprobe again with window=1 changes nothing" "$(cdg_param window 2>&1)" 16
modprobe -r tcp_cdg
tap_eq "modprobe -r unloads" "$(cdg_which)" none

# Without ours in updates/, modprobe falls back to the in-tree module.
if [ -n "$CDG_INTREE" ]; then
	rm "$mods/updates/tcp_cdg.ko"
	depmod -a
	modprobe tcp_cdg
	tap_eq "without updates/, modprobe loads the in-tree module" "$(cdg_which)" intree
	cdg_unload
else
	tap_skip "without updates/, modprobe loads the in-tree module" "no in-tree tcp_cdg"
fi
tap_end
