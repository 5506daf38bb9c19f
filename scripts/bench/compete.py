#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 22's figures from a `make bench` results directory (sets compete,
compete-check, compete-diag; docs/tuning.md, "Against cubic").

  compete.py RESULTS_DIR...

One line per run: CDG's share (flow 1's goodput over all flows', over the
interval when all ran, as report.py takes it), utilization, queueing
delay p50/p95 (ping), Jain's index for several flows, the compete
counters; and for a run whose competitor stops mid-run ("stopN" in its
configuration): how long after the competitor's last sample the
bottleneck's backlog first fell below 10 ms of queue and stayed there for
a second (at 100 Mbit/s, 10 ms is 83 full frames).
"""
import json
import os
import sys

SHORT_PKTS = 83         # 10 ms at 100 Mbit/s, 1514-byte frames


def samples(path):
    """[(t, {sport: fields}, backlog)] from samples.txt."""
    out, t, flows, bl = [], None, {}, None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == '@':
                if t is not None:
                    out.append((t, flows, bl))
                t, flows, bl = float(w[1]), {}, None
            elif w[0] == 'tcp':
                kv = dict(x.split('=', 1) for x in w[4:] if '=' in x)
                flows[w[2].rsplit(':', 1)[1]] = kv
            elif w[0] == 'qdisc' and w[2] == 'mr':
                kv = dict(x.split('=', 1) for x in w[3:] if '=' in x)
                bl = int(kv.get('qlen', 0))
    if t is not None:
        out.append((t, flows, bl))
    return out


def back_to_short(d, r):
    """Seconds from the competitor's last sample to a short queue."""
    smp = samples(os.path.join(d, 'runs', r['id'], 'samples.txt'))
    port = str(r['flows'][1]['sport'])
    acked = [(t, int(fl[port].get('acked', 0))) for t, fl, _ in smp
             if port in fl]
    if not acked:
        return None, None
    last = max(a for _, a in acked)
    stop = min(t for t, a in acked if a == last)
    after = [(t, bl) for t, _, bl in smp if t >= stop and bl is not None]
    for i, (t, bl) in enumerate(after):
        if bl > SHORT_PKTS:
            continue
        window = [b for u, b in after[i:] if u <= t + 1.0]
        if max(window) <= SHORT_PKTS and after[-1][0] >= t + 1.0:
            rest = sorted(b for _, b in after[i:])
            return t - stop, rest[int(len(rest) * 0.95)]
    return None, None


def main():
    for d in sys.argv[1:]:
        res = json.load(open(os.path.join(d, 'results.json')))
        print('# %s' % d)
        for r in res['runs']:
            fg = r.get('flow_goodput_mbps')
            share = fg[0] / sum(fg) if fg and sum(fg) else None
            q = r.get('qdelay_ms', {})
            c = r.get('cdg_counters', {})
            line = '%-42s share %s util %.3f qdelay p50 %s p95 %s' % (
                r['id'], '%.3f' % share if share is not None else '-',
                r.get('utilization', 0), q.get('p50'), q.get('p95'))
            if r.get('jain') is not None and r['scen'] == 's2':
                line += ' jain %.3f' % r['jain']
            if c:
                line += ' enters %s exits %s probes %s' % (
                    c.get('CompeteEnters'), c.get('CompeteExits'),
                    c.get('CompeteProbes'))
            if 'stop' in (r.get('conf') or ''):
                s, p95 = back_to_short(d, r)
                line += ' short-queue-after-stop %s s (backlog p95 after: %s)' % (
                    '%.1f' % s if s is not None else 'never', p95)
            print(line)


if __name__ == '__main__':
    main()
