# SPDX-License-Identifier: GPL-2.0
"""How much the same plan's figures vary across benchmark runs.

  python3 scripts/bench/spread.py RESULTS_DIR...

Reads results.json of each make bench output (the same set, typically run
with several SEEDs, or with one SEED under different host loads) and
prints, per run id and metric, the value of every run and the relative
spread, (max - min) / median.  A spread of 0 means the runs agree to the
last digit that results.json holds.
"""
import json
import os
import statistics
import sys

# (name, how to read it from a run of results.json)
METRICS = (('goodput_mbps', lambda r: r.get('goodput_mbps')),
           ('rtt_p50_ms', lambda r: r.get('rtt_ms', {}).get('p50')),
           ('qdelay_p95_ms', lambda r: r.get('qdelay_ms', {}).get('p95')),
           ('retrans', lambda r: r.get('retrans')),
           ('drops', lambda r: r.get('drops')))


def load(d):
    with open(os.path.join(d, 'results.json')) as f:
        res = json.load(f)
    seed = res['env'].get('seed', '?')
    return seed, {r['id']: r for r in res['runs'] if r.get('ok')}


def spread(values):
    med = statistics.median(values)
    if not med:
        return 0.0 if max(values) == min(values) else float('inf')
    return (max(values) - min(values)) / abs(med)


def main(dirs):
    runs = [load(d) for d in dirs]
    print('seeds: ' + ' '.join(str(s) for s, _ in runs))
    ids = sorted(set().union(*(r.keys() for _, r in runs)))
    for rid in ids:
        for m, get in METRICS:
            vals = [get(r[rid]) for _, r in runs if rid in r]
            vals = [v for v in vals if v is not None]
            if not vals:
                continue
            print('%-34s %-14s %s  spread %.2f%%'
                  % (rid, m, ' '.join('%.4g' % v for v in vals),
                     100 * spread(vals)))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
