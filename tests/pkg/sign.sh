#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make sign KEY=... CERT=...` with a throwaway key made here by openssl,
# for every kernel with headers: the module gets one PKCS#7 signature by
# that key (signer = the certificate's CN, sha256, sig_key = the
# certificate's serial); signing again, with another key, replaces
# the signature instead of stacking a second one; without KEY it fails
# with a message; and `make install KEY= CERT=` installs a signed module.
. "$(dirname "$0")/lib.sh"

require_root
require_cmd openssl modinfo
require_kernels

mkkey() {	# mkkey NAME CN: NAME.pem (private key) and NAME.der (certificate)
	openssl req -new -x509 -nodes -days 1 -newkey rsa:2048 -sha256 \
		-subj "/CN=$2" -keyout "$_tmp/$1.pem" -outform DER -out "$_tmp/$1.der" \
		>>"$_tmp/all.log" 2>&1
}
# A PKCS#7 module signature names its key by issuer and serial number:
# modinfo's sig_key is the certificate's serial, as XX:XX:...
serial() {
	openssl x509 -inform DER -in "$1" -noout -serial |
		sed 's/^serial=//; s/\(..\)/\1:/g; s/:$//'
}
mkkey one "tcp_cdg test key one"
mkkey two "tcp_cdg test key two"

dest=$_tmp/destdir
for k in $KERNELS; do
	ko=$TREE/build/$k/tcp_cdg.ko
	tap_cmd "$k: make sign KEY=one" tmake sign KVER="$k" KEY="$_tmp/one.pem" CERT="$_tmp/one.der"
	tap_eq "$k: sig_id" "$(modinfo -F sig_id "$ko" 2>/dev/null)" "PKCS#7"
	tap_eq "$k: signer" "$(modinfo -F signer "$ko" 2>/dev/null)" "tcp_cdg test key one"
	tap_eq "$k: sig_hashalgo" "$(modinfo -F sig_hashalgo "$ko" 2>/dev/null)" sha256
	tap_eq "$k: sig_key is the certificate's serial" \
		"$(modinfo -F sig_key "$ko" 2>/dev/null)" "$(serial "$_tmp/one.der")"
	size1=$(stat -c %s "$ko")

	tap_cmd "$k: make sign again, KEY=two" tmake sign KVER="$k" KEY="$_tmp/two.pem" CERT="$_tmp/two.der"
	tap_eq "$k: re-signed: signer is key two" "$(modinfo -F signer "$ko" 2>/dev/null)" "tcp_cdg test key two"
	n=$(grep -c -a 'Module signature appended' "$ko" || true)
	tap_eq "$k: exactly one signature after signing twice" "$n" 1
	# Same key size and hash: the same length once the old one is gone.
	tap_eq "$k: same size as after the first signature" "$(stat -c %s "$ko")" "$size1"

	rc=0
	tmake sign KVER="$k" >"$_tmp/nokey.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'KEY=' "$_tmp/nokey.log"; then
		tap_ok "$k: make sign without KEY fails and says what it needs"
	else
		tap_fail "$k: make sign without KEY fails and says what it needs" "status $rc" "$(cat "$_tmp/nokey.log")"
	fi

	tap_cmd "$k: make install KEY= CERT= DESTDIR=" \
		tmake install KVER="$k" DESTDIR="$dest" KEY="$_tmp/one.pem" CERT="$_tmp/one.der"
	f=$(ls "$dest/lib/modules/$k/updates"/tcp_cdg.ko* 2>/dev/null | head -n 1 || true)
	tap_eq "$k: installed module is signed by key one" \
		"$(modinfo -F signer "$f" 2>/dev/null)" "tcp_cdg test key one"
	rm -rf "$dest"
done

pkg_end
