#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-trace`: what the tracepoints cost per ACK.  Builds the module
# twice (with tracepoints, and with -DNOTRACE), boots one VM and measures
# CPU time per ACK with tracepoints compiled out, compiled in but disabled,
# and enabled (scripts/bench/guest/trace_cost.sh).  A benchmark: it prints the
# medians and ratios and writes results/trace-cost-<time>/, never asserts.
#
#   scripts/bench/trace-cost.sh [ROUNDS [SECONDS]]     KVER= picks the kernel

set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
rounds=${1:-5}
secs=${2:-4}
# Debian's 6.1 from build/kernels (scripts/vm/kernels.sh), with our module.
kver=$(scripts/vm/kernels.sh vm "${KVER:-6.1}") ||
	{ echo "trace-cost: no kernel to boot (scripts/vm/kernels.sh said why, above)" >&2; exit 1; }
out=$top/results/trace-cost-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

nt=$top/build/$kver-notrace
mkdir -p "$nt/include"
cp tcp_cdg.c Kbuild dkms.conf "$nt/"
cp include/*.h "$nt/include/"
make -s -C "$top/build/kernels/root/lib/modules/$kver/build" M="$nt" CDG_NOTRACE=1 modules >/dev/null
cp "$nt/tcp_cdg.ko" "$out/tcp_cdg-notrace.ko"

scripts/vm/run.sh --kver "$kver" --in "$out/tcp_cdg-notrace.ko" --timeout $((rounds * secs * 3 * 4 + 120)) \
	scripts/bench/guest/trace_cost "$rounds" "$secs" | tee "$out/run.tap" | grep -v '^# bench:' || true
rm -f "$out/tcp_cdg-notrace.ko"
grep '^# bench:' "$out/run.tap" | awk '{ print $3, $4, $5, $6, $7 }' > "$out/samples.txt"
[ -s "$out/samples.txt" ] || { echo "trace-cost: no samples (see $out/run.tap)" >&2; exit 1; }

awk '
	{ v[$1] = v[$1] " " $3; n[$1]++ }
	function median(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	function spread(s,   a, k, i, lo, hi) {
		k = split(s, a, " "); lo = hi = a[1]
		for (i = 2; i <= k; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
		return sprintf("%.3f-%.3f", lo, hi)
	}
	END {
		base = median(v["notrace"])
		printf "%-8s %6s %12s %14s %8s\n", "variant", "runs", "us/ACK med", "min-max", "ratio"
		split("notrace tp-off tp-on", order, " ")
		for (i = 1; i <= 3; i++) {
			k = order[i]
			printf "%-8s %6d %12.3f %14s %8.3f\n", k, n[k], median(v[k]), spread(v[k]), median(v[k]) / base
		}
	}' "$out/samples.txt" | tee "$out/summary.txt"
echo "trace-cost: $out (CPU time per ACK in the guest, QEMU TCG; ratio to the build without tracepoints)"
