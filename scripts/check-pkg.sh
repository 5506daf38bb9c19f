#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-pkg`: the packaging tests, tests/pkg/*.sh, one after the other.
# Their TAP lines and "# " diagnostics go to stdout as they come (each
# test numbers its own), what the tools they run print to stderr.  Exit
# status 1 when any test failed.
#
# They install into this machine's /usr/src, DKMS tree and /lib/modules and
# remove it all again (each checks so); they need root and skip without it.
# tests/pkg/vm-dkms.sh boots QEMU guests: CHECK_SKIP_VM=1 skips it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

status=0
for t in "$top"/tests/pkg/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	echo "# --- tests/pkg/$(basename "$t")"
	start=$SECONDS
	bash "$t" || status=1
	echo "# tests/pkg/$(basename "$t") took $((SECONDS - start)) s"
done
exit "$status"
