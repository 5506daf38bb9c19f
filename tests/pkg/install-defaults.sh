#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What `make install` and `make uninstall` do when the user leaves things
# out (issue 20, item 5):
#
# - `sudo make install` in a tree a user owns builds build/<kver>/ as root
#   (and `KEY= CERT=` signs there); every file it leaves in the tree must
#   belong to the tree's owner, and that user's next `make ko` must work.
#   The tree is owned by nobody here; the install goes to a DESTDIR.
# - Without KVER, the kernel is the running one when its headers are
#   there, else the newest with headers.
# - `make uninstall` without KVER must not say "not installed" for a
#   kernel the user did not mean: with no headers left (no default) it
#   fails and says to pass KVER=, naming the kernels that have the
#   module; with a default kernel that lacks it while others have it, the
#   same.  `make uninstall KVER=` still removes it.
#
# The last two need a /lib/modules of the test's making: each runs in a
# private mount namespace (unshare) with a tmpfs on /lib/modules, so the
# host's is never touched and the mount goes with the namespace.
. "$(dirname "$0")/lib.sh"

require_root
require_cmd runuser unshare openssl
require_kernels
k=${KERNELS%%$'\n'*}	# the first (no pipe: head's early exit is a SIGPIPE)

# --- root-owned products -------------------------------------------------------
user=nobody
group=$(id -gn "$user")
chmod 755 "$_tmp"	# nobody must reach the tree below
ut=$_tmp/utree
cp -a "$TREE" "$ut"
chown -R "$user:$group" "$ut"
dest=$_tmp/dest
notmine() { find "$ut" ! -user "$user" -printf '%P ' | head -c 300; }

tap_cmd "as root in $user's tree: make install KVER=$k DESTDIR=..." \
	make -s -C "$ut" install KVER="$k" DESTDIR="$dest"
tap_file "the build is in the tree" "$ut/build/$k/tcp_cdg.ko"
tap_eq "make install left no file in the tree that $user does not own" "$(notmine)" ""

openssl req -new -x509 -nodes -days 1 -newkey rsa:2048 -sha256 \
	-subj "/CN=tcp_cdg owner test" -keyout "$_tmp/key.pem" \
	-outform DER -out "$_tmp/cert.der" >>"$_tmp/all.log" 2>&1
tap_cmd "as root: make install KEY= CERT= (signs in build/$k)" \
	make -s -C "$ut" install KVER="$k" DESTDIR="$dest" KEY="$_tmp/key.pem" CERT="$_tmp/cert.der"
tap_eq "make install KEY= CERT= left no file that $user does not own" "$(notmine)" ""

echo '/* changed by the test */' >>"$ut/tcp_cdg.c"
tap_cmd "then as $user: make ko KVER=$k rebuilds in the same build/$k" \
	runuser -u "$user" -- make -s -C "$ut" ko KVER="$k"
tap_cmd "make uninstall KVER=$k DESTDIR=..." make -s -C "$ut" uninstall KVER="$k" DESTDIR="$dest"

# --- a /lib/modules of our own ---------------------------------------------------
kdir=$(readlink -f "/lib/modules/$k/build")
running=$(uname -r)
# ns SETUP: run SETUP (shell lines that fill /lib/modules), then the
# command in NS_CMD, in a private mount namespace; prints its output and
# "status N".
ns() {
	unshare --mount --propagation private -- /bin/bash -c '
		set -e
		mount -t tmpfs tcp-cdg-test /lib/modules
		eval "$1"
		set +e
		cd "$2"
		eval "$3" 2>&1
		echo "status $?"' _ "$1" "$TREE" "$NS_CMD"
}
fake=5.99.0-fake
have_fake="mkdir -p /lib/modules/$fake/updates; echo fake >/lib/modules/$fake/updates/tcp_cdg.ko"

NS_CMD="make -s headers-check"
out=$(ns "mkdir -p /lib/modules/$running /lib/modules/99.0.0-newest
	ln -s '$kdir' /lib/modules/$running/build
	ln -s '$kdir' /lib/modules/99.0.0-newest/build")
tap_match "no KVER, running kernel has headers: builds for it, not the newest" \
	"$out" "building against $(re_quote "$running") headers"
out=$(ns "mkdir -p /lib/modules/98.0.0-older /lib/modules/99.0.0-newest
	ln -s '$kdir' /lib/modules/98.0.0-older/build
	ln -s '$kdir' /lib/modules/99.0.0-newest/build")
tap_match "no KVER, running kernel has no headers: builds for the newest" \
	"$out" "building against 99\\.0\\.0-newest headers"

NS_CMD="make -s uninstall"
out=$(ns "$have_fake")
tap_match "uninstall, no KVER, no headers: fails" "$out" 'status [1-9][0-9]*$'
tap_match "uninstall, no KVER, no headers: says there are none and to pass KVER=" \
	"$out" "no kernel headers.*KVER="
tap_match "uninstall, no KVER, no headers: names the kernel that has the module" "$out" "for: $(re_quote "$fake")"
tap_match "uninstall, no KVER, no headers: left the module" \
	"$(NS_CMD="ls /lib/modules/$fake/updates" ns "$have_fake; make -s uninstall >/dev/null 2>&1 || true")" \
	"tcp_cdg\\.ko"

out=$(ns "$have_fake; mkdir -p /lib/modules/$k; ln -s '$kdir' /lib/modules/$k/build")
tap_match "uninstall, no KVER, default kernel lacks it, $fake has it: fails" "$out" 'status [1-9][0-9]*$'
tap_match "... and names the default it tried, where it is, and KVER=" "$out" \
	"$(re_quote "$k").*installed for: $(re_quote "$fake").*KVER="

NS_CMD="make -s uninstall KVER=$fake; ls /lib/modules/$fake/updates 2>&1"
out=$(ns "$have_fake")
tap_match "uninstall KVER=$fake without headers removes it" "$out" "removed /lib/modules/$(re_quote "$fake")/updates/tcp_cdg\\.ko"
tap_match "uninstall KVER=$fake: gone" "$out" "No such file"

NS_CMD="make -s uninstall"
out=$(ns "mkdir -p /lib/modules/$k; ln -s '$kdir' /lib/modules/$k/build")
tap_match "uninstall, no KVER, installed nowhere, headers there: succeeds" "$out" 'status 0$'
tap_eq "no mount left behind" "$(grep -c tcp-cdg-test /proc/self/mounts || true)" 0

pkg_end
