#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tuning experiments (docs/tuning.md): one VM boot, bulk transfers over
# one netem path for several CDG variants and reference CCs, interleaved
# round by round (scripts/bench/guest/tune.sh).  Prints per variant the median
# and min-max of goodput, srtt p50/p90 and retransmissions, and ratios to
# the first variant.  An experiment: it never asserts.
#
#   scripts/bench/tune.sh [-d DELAY] [-r RATE] [-l LIMIT] [-t SECONDS] [-n ROUNDS] VARIANT...
#   VARIANT = NAME:CC[:PARAM=VALUE,...], e.g. drain:cdg:backoff_drain=Y
#   KVER= picks the kernel (default: the newest 6.1 with a built module)

set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
delay=20ms rate=100mbit limit=1000 secs=8 rounds=3
while getopts d:r:l:t:n: opt; do
	case $opt in
	d) delay=$OPTARG ;; r) rate=$OPTARG ;; l) limit=$OPTARG ;;
	t) secs=$OPTARG ;; n) rounds=$OPTARG ;;
	*) sed -n '9,12p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- cubic:cubic cdg:cdg drain:cdg:backoff_drain=Y bbr:bbr
# Debian's 6.1 from build/kernels (scripts/vm/kernels.sh), with our module.
kver=$("$top/scripts/vm/kernels.sh" vm "${KVER:-6.1}") || exit 1
out=$top/results/tune-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "tune: $delay $rate limit $limit, ${secs}s x $rounds rounds: $*" | tee "$out/setup.txt"
"$top/scripts/vm/run.sh" --kver "$kver" --timeout $(( (secs + 6) * rounds * $# + 120 )) \
	scripts/bench/guest/tune "$delay" "$rate" "$limit" "$secs" "$rounds" "$@" > "$out/run.tap" || true
grep '^# tune:' "$out/run.tap" | grep -v failed | awk '{ print $3, $5, $6, $7, $8 }' > "$out/samples.txt"
[ -s "$out/samples.txt" ] || { echo "tune: no samples, see $out/run.tap" >&2; exit 1; }
awk -v order="$*" '
	function med(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	function rng(s,   a, k, i, lo, hi) {
		k = split(s, a, " "); lo = hi = a[1] + 0
		for (i = 2; i <= k; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
		return sprintf("%.1f-%.1f", lo, hi)
	}
	{ g[$1] = g[$1] " " $2; r[$1] = r[$1] " " $3; p[$1] = p[$1] " " $4; x[$1] = x[$1] " " $5; n[$1]++ }
	END {
		printf "| variant | runs | goodput Mbit/s (min-max) | srtt p50 ms (min-max) | srtt p90 ms | retrans | goodput / first | p50 / first |\n"
		printf "|---|---|---|---|---|---|---|---|\n"
		k = split(order, o, " ")
		for (i = 1; i <= k; i++) {
			split(o[i], f, ":"); v = f[1]
			if (!(v in n)) continue
			if (!base_g) { base_g = med(g[v]); base_r = med(r[v]) }
			printf "| %s | %d | %.1f (%s) | %.1f (%s) | %.1f | %d | %.2f | %.2f |\n", o[i], n[v], med(g[v]), rng(g[v]), med(r[v]), rng(r[v]), med(p[v]), med(x[v]), med(g[v]) / base_g, med(r[v]) / base_r
		}
	}' "$out/samples.txt" | tee "$out/summary.md"
echo "tune: $out"
