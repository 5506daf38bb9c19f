#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make clean` in a copy of the tree: it must remove the module's own
# products (build/<kver>/ and an in-place build's tcp_cdg.ko, *.o, ...)
# and nothing under build/kernels/ or build/debug-kernel/, where kernel
# trees keep their modules.  kbuild's `make M=<checkout> clean` runs find
# over the whole checkout and deletes every *.o and *.ko under it; the
# Makefile's clean once did that.  Then scripts/vm/debug-kernel.sh --check
# on a fake debug-kernel cache: a module that modules.dep names and that
# is gone must make the cache unusable, and the message must name it.
#
# Needs no root; without kernel headers only the fake products are made.
. "$(dirname "$0")/lib.sh"

k=$(kernels)
k=${k%%$'\n'*}

# Products of the kernel trees that clean must keep.
b=$TREE/build
krel=6.1.0-cdg-debug
mkdir -p "$b/kernels/x" "$b/debug-kernel/y" "$b/debug-kernel/root/boot" \
	"$b/debug-kernel/root/lib/modules/$krel/kernel/net/sched" "$b/debug-kernel/src/net/sched"
keep=("$b/kernels/x/foo.ko" "$b/debug-kernel/y/bar.ko" "$b/debug-kernel/y/baz.o"
	"$b/debug-kernel/root/lib/modules/$krel/kernel/net/sched/sch_netem.ko"
	"$b/debug-kernel/src/net/sched/sch_netem.ko" "$b/debug-kernel/src/net/sched/sch_netem.o"
	"$b/debug-kernel/src/Module.symvers" "$b/debug-kernel/root/boot/vmlinuz-$krel")
for f in "${keep[@]}"; do echo fake >"$f"; done
echo "kernel/net/sched/sch_netem.ko:" >"$b/debug-kernel/root/lib/modules/$krel/modules.dep"
echo "$krel" >"$b/debug-kernel/root/.release"

# The module's own products: a per-kernel build and an in-place one.
if [ -n "$k" ]; then
	tap_cmd "make ko KVER=$k" tmake ko KVER="$k"
	tap_cmd "make modules KVER=$k (in place)" tmake modules KVER="$k"
	tap_file "in-place build made tcp_cdg.ko" "$TREE/tcp_cdg.ko"
	gone=("$TREE/build/$k" "$TREE/tcp_cdg.ko" "$TREE/tcp_cdg.o" "$TREE/tcp_cdg.mod.c"
		"$TREE/Module.symvers" "$TREE/modules.order")
else
	tap_skip "make ko, make modules" "no kernel headers: fake products only"
	mkdir -p "$TREE/build/0.0.0-fake"
	echo fake >"$TREE/build/0.0.0-fake/tcp_cdg.ko"
	echo fake >"$TREE/tcp_cdg.o"
	gone=("$TREE/build/0.0.0-fake" "$TREE/tcp_cdg.o")
fi

tap_cmd "make clean" tmake clean
tap_nofile "make clean removed the module's products" "${gone[@]}"
lost=()
for f in "${keep[@]}"; do [ -e "$f" ] || lost+=("${f#"$TREE"/}"); done
tap_eq "make clean kept build/kernels/ and build/debug-kernel/" "${lost[*]}" ""
tap_eq "make clean left only kernels/ and debug-kernel/ in build/" \
	"$(ls "$TREE/build" | paste -sd' ')" "debug-kernel kernels"

# debug-kernel.sh --check on the fake cache: whole (it has no .key, so
# "not usable" still, but not for a module), then without a module.
if ls /usr/src/linux-source-*.tar.xz >/dev/null 2>&1; then
	out=$("$TREE/scripts/vm/debug-kernel.sh" --check 2>&1 || true)
	tap_match "debug-kernel --check: the fake cache after make clean lacks only its .key" \
		"$out" "not usable: no .*/\\.key"
	rm -f "$b/debug-kernel/root/lib/modules/$krel/kernel/net/sched/sch_netem.ko"
	rc=0
	out=$("$TREE/scripts/vm/debug-kernel.sh" --check 2>&1) || rc=$?
	tap_match "debug-kernel --check fails when a module is gone" "$rc" '^[1-9]'
	tap_match "debug-kernel --check names the missing module" "$out" \
		"module missing: .*/lib/modules/$(re_quote "$krel")/kernel/net/sched/sch_netem\\.ko"
else
	tap_skip "debug-kernel --check" "no /usr/src/linux-source-*.tar.xz (its cache key needs it)"
fi

pkg_end
