#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sign a built module with your own key (`make sign KEY=... CERT=...`), for
# Secure Boot or CONFIG_MODULE_SIG_FORCE kernels, with the kernel's own
# scripts/sign-file from its headers tree.
#
#   scripts/pkg/sign.sh KDIR KEY CERT MODULE [HASH]
#
# KEY: private key, PEM (or a "pkcs11:" URI that sign-file understands).
# CERT: its X.509 certificate, PEM or DER (DKMS's /var/lib/dkms/mok.pub is
# DER).  HASH defaults to sha256.  The kernel only trusts the signature if
# CERT is enrolled (mokutil --import CERT, then reboot) or built in.
#
# The module is signed in place.  A signature already there is removed
# first, so signing again (another key, or the same) leaves exactly one.
set -eu

die() { echo "sign.sh: $*" >&2; exit 1; }
[ $# -ge 4 ] || die "usage: $0 KDIR KEY CERT MODULE [HASH]"
kdir=$1 key=$2 cert=$3 mod=$4 hash=${5:-sha256}

[ -n "$key" ] && [ -n "$cert" ] ||
	die "need KEY=private-key.pem CERT=certificate (make sign KEY=... CERT=...)"
case $key in
pkcs11:*) ;;
*) [ -r "$key" ] || die "cannot read KEY $key" ;;
esac
[ -r "$cert" ] || die "cannot read CERT $cert"
[ -f "$mod" ] || die "no module $mod (make ko first)"
signfile=$kdir/scripts/sign-file
[ -x "$signfile" ] || die "no $signfile: are the kernel headers in $kdir complete?"

# The kernel's layout (include/linux/module_signature.h): module, signature,
# a 12-byte struct module_signature whose last 4 bytes are the signature's
# length (big endian), then this 28-byte marker.
marker='~Module signature appended~'
strip_signature() {
	local size tail len
	size=$(stat -c %s "$1")
	[ "$size" -gt 40 ] || return 0
	tail=$(tail -c 28 "$1" | head -c 27)
	[ "$tail" = "$marker" ] || return 0
	len=$(tail -c 32 "$1" | head -c 4 | od -An -tu1 |
		awk '{print (($1 * 256 + $2) * 256 + $3) * 256 + $4}')
	[ "$len" -gt 0 ] && [ "$len" -lt "$((size - 40))" ] ||
		die "$1 has a malformed signature (length $len)"
	truncate -s "$((size - 40 - len))" "$1"
	echo "sign.sh: removed the old signature of $1"
}

strip_signature "$mod"
"$signfile" "$hash" "$key" "$cert" "$mod"
[ "$(tail -c 28 "$mod" | head -c 27)" = "$marker" ] || die "sign-file left $mod unsigned"
echo "sign.sh: signed $mod ($hash): signer '$(modinfo -F signer "$mod")'"
