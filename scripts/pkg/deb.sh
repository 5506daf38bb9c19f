#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the tcp-cdg-dkms Debian package (`make deb`) and print its path.
#
#   scripts/pkg/deb.sh [OUTDIR]          default OUTDIR: build/deb
#
# bookworm's dkms 3 has no `dkms mkdeb`, so this is an ordinary debhelper
# package with dh-dkms: packaging/debian/ is copied beside the module's
# sources into OUTDIR/tcp-cdg-VERSION/, a changelog is written there with
# dkms.conf's version (the one version string of the project), and
# dpkg-buildpackage builds the binary package only (nothing is compiled:
# DKMS compiles on the machine the package is installed on).
#
# The .deb installs the sources to /usr/src/tcp-cdg-VERSION; its postinst
# has DKMS build and install the module for every kernel with headers.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "deb.sh: $*" >&2; exit 1; }

out=${1:-$top/build/deb}
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ -n "$name" ] && [ -n "$ver" ] || die "no PACKAGE_NAME/PACKAGE_VERSION in dkms.conf"

for t in dpkg-buildpackage dh dh_dkms; do
	command -v "$t" >/dev/null 2>&1 ||
		die "$t not found: apt-get install dpkg-dev debhelper dh-dkms (or scripts/deps.sh)"
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$out/$name-$ver
rm -rf "$stage"
mkdir -p "$stage/include" "$stage/docs"
cd "$top"
cp tcp_cdg.c Kbuild dkms.conf LICENSE "$stage/"
cp include/*.h "$stage/include/"
cp -r docs/examples "$stage/docs/"
cp -r packaging/debian "$stage/debian"
sed -i "s/@NAME@/$name/g; s/@VERSION@/$ver/g" "$stage/debian/tcp-cdg-dkms.postinst"

# The changelog's date is the last commit's, so that rebuilding the same
# commit gives the same package.
maint=$(sed -n 's/^Maintainer: //p' packaging/debian/control)
date=$(git -C "$top" log -1 --format=%aD 2>/dev/null || date -R)
desc=$(git -C "$top" describe --always --dirty 2>/dev/null || echo "a source tree")
cat > "$stage/debian/changelog" <<EOF
$name ($ver) unstable; urgency=medium

  * Built by scripts/pkg/deb.sh from $desc.

 -- $maint  $date
EOF

rm -f "$out/$name-dkms_${ver}_all.deb"
log=$out/$name-dkms_$ver.build.log
if ! (cd "$stage" && dpkg-buildpackage --build=all -us -uc) >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "dpkg-buildpackage failed (log: $log)"
fi
deb=$out/$name-dkms_${ver}_all.deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb (log: $log)"
echo "$deb"
