#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict on the module's sources.
# checkpatch is taken from Debian's linux-source-* tarball (the newest
# installed) into build/tools/, once.  Exit 0 when it reports no ERROR.
#
#   scripts/checkpatch.sh [FILE...]      default: tcp_cdg.c include/*.h

set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tools=$top/build/tools
cp_pl=$tools/scripts/checkpatch.pl

if [ ! -x "$cp_pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$tarball" ]; then
		echo "checkpatch.sh: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)" >&2
		exit 2
	fi
	mkdir -p "$tools"
	tar -C "$tools" --strip-components=1 -xJf "$tarball" --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi

cd "$top"
[ $# -gt 0 ] || set -- tcp_cdg.c include/*.h
"$cp_pl" --no-tree --strict --terse --show-types -f "$@" | tee "$tools/checkpatch.out" >&2 || true
! grep -q ': ERROR:' "$tools/checkpatch.out"
