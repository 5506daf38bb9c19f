#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packaged module in a guest, as a Debian machine would use it (a
# guest script, not a test of its own: check-vm does not boot it).  Run by
# tests/pkg/vm-dkms.sh, which DKMS-installs the module on the host for this
# kernel and shares, on /out/pkg:
#   updates/       the host's /lib/modules/K/updates (DKMS's updates/dkms)
#   modprobe.d/ sysctl.d/   docs/examples' files
#   signed/tcp_cdg.ko      a `make sign` build, signed with a throwaway key
#   version dkms_signer signer   what the host expects
#
# Here the in-tree tcp_cdg is put back at kernel/net/ipv4/ (where Debian
# has it) so that depmod has to choose; `modprobe tcp_cdg` must then load
# ours from updates/dkms with window=16 from /etc/modprobe.d, modinfo must
# show our version and DKMS's signature, the sysctl.d example must make cdg
# the default by loading that same module on demand, and the make-sign
# module must load and show its signer.  Without /out/pkg (a plain
# `run.sh tests/pkg/guest/dkms`) it skips.
. "$(dirname "$0")/../../vm/lib.sh"

P=/out/pkg
[ -d "$P/updates" ] || skip_all "needs the host side: run tests/pkg/vm-dkms.sh"
[ -n "$CDG_INTREE" ] || skip_all "no in-tree tcp_cdg in the guest"
K=$(uname -r)
M=/lib/modules/$K
want_ver=$(cat "$P/version")

# The README's real-host lines that load and select the module, as written
# (the host read them from README.md into $P/readme), in their order, with
# a check after each.  No sudo in the guest, and root needs none: a
# stand-in runs the command as it is.
readme_lines() {
	local l v dst
	[ -s "$P/readme" ] || { tap_fail "README lines: no $P/readme from the host"; return; }
	mkdir -p /tmp/bin
	printf '#!/bin/sh\nexec "$@"\n' >/tmp/bin/sudo
	chmod +x /tmp/bin/sudo
	# The README's route goes via 192.0.2.1: a device on that net.
	ip link add cdgreadme0 type veth peer name cdgreadme1
	ip addr add 192.0.2.2/24 dev cdgreadme0
	ip link set cdgreadme1 up
	ip link set cdgreadme0 up
	cleanup_add "ip link del cdgreadme0"
	while IFS= read -r l; do
		case $l in
		*rmmod*)	# "once no socket and no namespace's sysctl uses it"
			sysctl -q -w net.ipv4.tcp_congestion_control=cubic
			ip route flush dev cdgreadme0 ;;
		esac
		tap_cmd "README: $l" env PATH="/tmp/bin:$PATH" bash -euc "$l"
		case $l in
		*modprobe*)
			tap_eq "README modprobe: our version" "$(cat /sys/module/tcp_cdg/version 2>&1)" "$want_ver"
			v=$(sed -n 's/.*window=\([0-9]*\).*/\1/p' <<<"$l")
			tap_eq "README modprobe: window=$v" "$(cdg_param window 2>&1)" "$v" ;;
		*tcp_congestion_control=*)
			tap_eq "README sysctl: the default is cdg" \
				"$(sysctl -n net.ipv4.tcp_congestion_control)" cdg ;;
		*tcp_allowed_congestion_control=*)
			tap_match "README sysctl: cdg allowed" \
				"$(sysctl -n net.ipv4.tcp_allowed_congestion_control)" '(^| )cdg( |$)' ;;
		"ip route add "*)
			dst=$(awk '{ print $4 }' <<<"$l")
			tap_match "README route: congctl cdg on $dst" \
				"$(ip route show "$dst" 2>&1)" 'congctl cdg' ;;
		*rmmod*)
			tap_nofile "README rmmod: unloaded" /sys/module/tcp_cdg ;;
		esac
	done <"$P/readme"
	sysctl -q -w net.ipv4.tcp_allowed_congestion_control="reno cubic"
}

cdg_unload
sysctl -q -w net.ipv4.tcp_congestion_control=cubic
cleanup_add "sysctl -q -w net.ipv4.tcp_congestion_control=cubic; cdg_unload"

# The module tree a DKMS install leaves on a Debian machine.
cp -a "$P/updates" "$M/"
mkdir -p "$M/kernel/net/ipv4" /etc/modprobe.d /etc/sysctl.d
cp "$CDG_INTREE" "$M/kernel/net/ipv4/"
tap_cmd "depmod" depmod -a "$K"

readme_lines
cp "$P/modprobe.d/tcp_cdg.conf" /etc/modprobe.d/
cp "$P"/sysctl.d/*.conf /etc/sysctl.d/

ours=$(ls "$M"/updates/dkms/tcp_cdg.ko* 2>/dev/null | head -n 1 || true)
tap_match "DKMS module in updates/dkms" "$ours" "/updates/dkms/tcp_cdg\\.ko"
tap_eq "modinfo tcp_cdg resolves to updates/dkms, not kernel/net/ipv4" \
	"$(modinfo -F filename tcp_cdg 2>&1)" "$ours"
tap_eq "modinfo tcp_cdg: version" "$(modinfo -F version tcp_cdg 2>&1)" "$want_ver"
tap_eq "modinfo tcp_cdg: sig_id" "$(modinfo -F sig_id tcp_cdg 2>&1)" "PKCS#7"
tap_eq "modinfo tcp_cdg: signer is DKMS's key" "$(modinfo -F signer tcp_cdg 2>&1)" "$(cat "$P/dkms_signer")"
tap_eq "modprobe --show-depends picks updates/dkms" \
	"$(modprobe --show-depends tcp_cdg 2>&1 | awk '$1 == "insmod" {print $2}')" "$ours"

tap_cmd "modprobe tcp_cdg" modprobe tcp_cdg
tap_eq "loaded module's version" "$(cat /sys/module/tcp_cdg/version 2>&1)" "$want_ver"
tap_eq "loaded module is the DKMS build (srcversion)" \
	"$(cat /sys/module/tcp_cdg/srcversion 2>&1)" "$(modinfo -F srcversion "$ours" 2>&1)"
tap_eq "window=16 from /etc/modprobe.d/tcp_cdg.conf" "$(cdg_param window 2>&1)" 16
diag "taint of the loaded module: $(cat /sys/module/tcp_cdg/taint 2>&1)"
cdg_unload

# sysctl.d example: setting the default asks modprobe for tcp_cdg.
tap_cmd "sysctl -p the sysctl.d example" sysctl -p /etc/sysctl.d/90-tcp-cdg.conf
tap_eq "default congestion control" "$(sysctl -n net.ipv4.tcp_congestion_control)" cdg
tap_match "allowed congestion controls include cdg" \
	"$(sysctl -n net.ipv4.tcp_allowed_congestion_control)" '(^| )cdg( |$)'
tap_eq "loaded on demand: our version" "$(cat /sys/module/tcp_cdg/version 2>&1)" "$want_ver"
tap_eq "loaded on demand: window=16 from modprobe.d" "$(cdg_param window 2>&1)" 16
sysctl -q -w net.ipv4.tcp_allowed_congestion_control="reno cubic"
sysctl -q -w net.ipv4.tcp_congestion_control=cubic
cdg_unload

# A module signed with `make sign`.  The kernel does not know the key, so it
# loads only because Debian's kernel does not enforce signatures; on a
# Secure Boot machine the key must be enrolled (mokutil --import).
s=$P/signed/tcp_cdg.ko
tap_eq "make-sign module: sig_id" "$(modinfo -F sig_id "$s" 2>&1)" "PKCS#7"
tap_eq "make-sign module: signer" "$(modinfo -F signer "$s" 2>&1)" "$(cat "$P/signer")"
tap_cmd "make-sign module loads" insmod "$s" window=32
tap_eq "make-sign module: window=32" "$(cdg_param window 2>&1)" 32
diag "kernel on the unknown key: $(dmesg | grep -m 1 -i 'module verification\|signature' || echo nothing)"
cdg_unload

tap_end
