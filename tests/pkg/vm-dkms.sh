#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DKMS-installed module inside a guest, per kernel that has headers
# here and a vmlinuz in build/kernels/root (scripts/vm/kernels.sh's, which the
# VM suite boots) or in /boot: `make dkms-install KVER=K` here, then one boot of K
# (scripts/vm/run.sh, as is) running tests/pkg/guest/dkms.sh with this
# kernel's updates/ tree, the example modprobe.d (window uncommented and
# set to 16, as a user would) and sysctl.d files, a `make sign` build and
# the README's real-host lines (modprobe, sysctl, ip route, rmmod, as
# written) shared on /out/pkg; then `make dkms-remove KVER=K`.
# The guest's results are reported here as "K: guest: ..." lines.
#
#   CHECK_SKIP_VM=1   skip (as make check does)
. "$(dirname "$0")/lib.sh"

[ -z "${CHECK_SKIP_VM:-}" ] || skip_all "CHECK_SKIP_VM is set"
require_root
require_cmd dkms qemu-system-x86_64 openssl modinfo
[ -x "$top/scripts/vm/run.sh" ] || skip_all "no scripts/vm/run.sh"
require_kernels

openssl req -new -x509 -nodes -days 1 -newkey rsa:2048 -sha256 \
	-subj "/CN=tcp_cdg vm test key" -keyout "$_tmp/key.pem" \
	-outform DER -out "$_tmp/cert.der" >>"$_tmp/all.log" 2>&1

# The README's real-host lines that need a kernel which loads modules, as
# written, for the guest to run in order: from the "On a real host" block
# those with modprobe or sysctl, then from its text the per-route line and
# the unload.
{
	readme_block "On a real host" | grep -E 'modprobe|sysctl' || true
	readme_block "On a real host" text | grep -o '`ip route add [^`]*`' | tr -d '`' || true
	readme_block "On a real host" text | grep -o '`sudo rmmod tcp_cdg`' | tr -d '`' || true
} >"$_tmp/readme"
tap_eq "README's real-host lines for the guest: modprobe, 2 sysctl, ip route, rmmod" \
	"$(awk '{ print $1 == "sudo" ? $2 : $1 }' "$_tmp/readme" | paste -sd' ')" \
	"modprobe sysctl sysctl ip rmmod"
diag "$(cat "$_tmp/readme")"

booted=0
for k in $KERNELS; do
	# The same kernel, unpacked as test data, or this host's own.
	if [ -r "$top/build/kernels/root/boot/vmlinuz-$k" ] &&
	   [ -f "$top/build/kernels/root/lib/modules/$k/modules.dep" ]; then
		export CDG_KROOT=$top/build/kernels/root
	elif [ -r "/boot/vmlinuz-$k" ]; then
		export CDG_KROOT=/
	else
		tap_skip "$k: guest" "no vmlinuz-$k in build/kernels/root (make kernels) or /boot"
		continue
	fi
	# run.sh's initramfs carries build/K/tcp_cdg.ko of the work tree.
	if ! make -s -C "$top" ko KVER="$k" KDIR="${CDG_KROOT%/}/lib/modules/$k/build" >>"$_tmp/all.log" 2>&1; then
		tap_fail "$k: make ko for the VM harness" "$(tail -n 10 "$_tmp/all.log")"
		continue
	fi
	tap_cmd "$k: make dkms-install" tmake dkms-install KVER="$k"
	tap_cmd "$k: make sign (throwaway key)" \
		tmake sign KVER="$k" KEY="$_tmp/key.pem" CERT="$_tmp/cert.der"

	out=$_tmp/out-$k
	mkdir -p "$out/pkg/signed"
	cp -a "/lib/modules/$k/updates" "$out/pkg/"
	cp -r "$top/docs/examples/modprobe.d" "$top/docs/examples/sysctl.d" "$out/pkg/"
	# The example sets nothing as shipped (tests/pkg/docs.sh): change it
	# as a user would, uncommenting window, which the guest checks is 16.
	sed -i 's/^#options tcp_cdg window=8$/options tcp_cdg window=16/' "$out/pkg/modprobe.d/tcp_cdg.conf"
	grep -qx 'options tcp_cdg window=16' "$out/pkg/modprobe.d/tcp_cdg.conf" ||
		tap_fail "$k: modprobe.d example has no '#options tcp_cdg window=8' line to uncomment"
	cp "$TREE/build/$k/tcp_cdg.ko" "$out/pkg/signed/"
	cp "$_tmp/readme" "$out/pkg/readme"
	echo "$PKG_VER" >"$out/pkg/version"
	modinfo -F signer "$(module_path "$k" updates/dkms)" >"$out/pkg/dkms_signer" 2>/dev/null || true
	echo "tcp_cdg vm test key" >"$out/pkg/signer"

	# Re-report the guest's lines under this test's numbering.
	start=$SECONDS
	rc=0
	"$top/scripts/vm/run.sh" --kver "$k" --in "$out" --timeout 240 tests/pkg/guest/dkms \
		>"$_tmp/vm.tap" 2>"$_tmp/vm.err" || rc=$?
	booted=$((booted + 1))
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			name=${line#not ok }; name=${name#* - }
			tap_fail "$k: guest: $name" ;;
		"ok "*)
			name=${line#ok }; name=${name#* - }
			case $name in
			*" # SKIP "*) tap_skip "$k: guest: ${name%% # SKIP *}" "${name#* # SKIP }" ;;
			*) tap_ok "$k: guest: $name" ;;
			esac ;;
		"#"*) echo "$line" >&2 ;;
		esac
	done <"$_tmp/vm.tap"
	grep -q '^ok .* - dkms: .*version' "$_tmp/vm.tap" ||
		tap_fail "$k: guest ran the checks (run.sh status $rc)" "$(tail -n 15 "$_tmp/vm.err")"
	# A harness failure after the checks (kernel warning, lost exit status)
	# comes as a "not ok" line, reported above; any other non-zero status
	# is a failure too.
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$_tmp/vm.tap"; then
		tap_fail "$k: run.sh exited $rc" "$(tail -n 15 "$_tmp/vm.err")"
	fi
	grep '^# run.sh' "$_tmp/vm.err" >&2 || true
	diag "$k: guest run took $((SECONDS - start)) s (run.sh status $rc)"

	tap_cmd "$k: make dkms-remove" tmake dkms-remove KVER="$k"
	tap_eq "$k: no module left in updates/dkms" "$(module_path "$k" updates/dkms)" ""
done
[ "$booted" -gt 0 ] || tap_skip "guest" "no kernel with both headers and a vmlinuz"

pkg_end
