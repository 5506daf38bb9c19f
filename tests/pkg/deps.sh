#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deps.sh, which `make demo` and `make check` run on the user's
# machine, installs no kernel and leaves the boot loader alone:
#
#  1. what it wants (scripts/deps.sh --list), resolved by apt as if nothing
#     were installed (apt-get -s with an empty dpkg status), pulls in no
#     kernel image, initramfs-tools or boot loader package;
#  2. the same check with linux-image-amd64 added to the list does find
#     one (the check can fail);
#  3. running it leaves /boot, GRUB's configuration and the installed
#     kernel packages exactly as they were.
. "$(dirname "$0")/lib.sh"

require_root
require_cmd apt-get dpkg-query sha256sum

# Packages that, installed, change what or how the machine boots.
boot_re='^Inst (linux-image-|linux-signed-|grub|shim|systemd-boot|initramfs-tools|dracut|lilo|syslinux)'

# inst_boot PKG...: the boot-changing packages apt would install for PKG...
# on a machine with nothing installed.
inst_boot() {
	: >"$_tmp/empty-status"
	apt-get -s -o Dir::State::status="$_tmp/empty-status" install \
		--no-install-recommends "$@" 2>"$_tmp/sim.err" >"$_tmp/sim.out" || {
		echo "apt-get -s failed: $(tail -n 3 "$_tmp/sim.err")"
		return 0
	}
	grep -E "$boot_re" "$_tmp/sim.out" | cut -d' ' -f2 | sort -u | paste -sd' ' - || true
}

read -r -a want <<<"$("$top/scripts/deps.sh" --list)"
if [ ${#want[@]} -lt 10 ]; then
	tap_fail "scripts/deps.sh --list names its packages" "got: ${want[*]}"
else
	tap_ok "scripts/deps.sh --list names its packages (${#want[@]})"
fi
tap_eq "its packages pull in no kernel image, initramfs or boot loader" \
	"$(inst_boot "${want[@]}")" ""
got=$(inst_boot "${want[@]}" linux-image-amd64)
tap_match "the same check with linux-image-amd64 added finds it" "$got" "linux-image-amd64"

# Everything that says what boots: /boot (names, sizes, times), GRUB's
# configuration, the kernel packages dpkg has.
boot_state() {
	find /boot -xdev -printf '%p %s %T@ %l\n' 2>/dev/null | sort
	sha256sum /etc/default/grub /etc/default/grub.d/* /boot/grub/grub.cfg \
		/boot/grub/grubenv 2>/dev/null || true
	dpkg-query -W -f='${Package} ${Version} ${Status}\n' 'linux-image-*' \
		'grub*' 'initramfs-tools*' 2>/dev/null | sort || true
}
boot_state >"$_tmp/boot.before"
tap_cmd "scripts/deps.sh runs" "$top/scripts/deps.sh"
boot_state >"$_tmp/boot.after"
if cmp -s "$_tmp/boot.before" "$_tmp/boot.after"; then
	tap_ok "/boot, GRUB and the kernel packages are as they were ($(grep -c '^/boot' "$_tmp/boot.before") files under /boot)"
else
	tap_fail "/boot, GRUB and the kernel packages are as they were" \
		"$(diff "$_tmp/boot.before" "$_tmp/boot.after" | head -n 20)"
fi

pkg_end
