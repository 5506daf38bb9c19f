#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""`make demo`'s table and plot, from the runs the guest runner left.

  demo.py RESULTS_DIR

Prints one line per CC (goodput, RTT p50/p95, retransmits, CDG's delay
backoffs from /proc/net/stat/tcp_cdg) and writes table.txt and demo.png
(RTT and throughput over time of the three runs) into RESULTS_DIR.
"""
import os
import sys

import metrics
from scenarios import parse_line

COLOUR = {'cubic': 'tab:red', 'cdg': 'tab:blue', 'cdg-intree': 'tab:cyan'}


def main():
    out = sys.argv[1]
    plan = [parse_line(l) for l in open(os.path.join(out, 'plan.txt'))
            if l.startswith('run ')]
    runs = [metrics.run_metrics(os.path.join(out, 'runs', p['id']))
            for p in plan if os.path.isdir(os.path.join(out, 'runs', p['id']))]
    p0 = plan[0]
    head = ('%d Mbit/s bottleneck, %s ms base RTT, %s-packet buffer (8 BDP), '
            '%s s per CC' % (int(p0['rate']), p0['rtt1'], p0['buf'], p0['dur']))
    lines = [head, '',
             '%-11s %9s %9s %9s %8s %9s  %s' % ('CC', 'goodput', 'RTT p50',
                                               'RTT p95', 'retrans', 'backoffs',
                                               'module'),
             '%-11s %9s %9s %9s %8s %9s' % ('', 'Mbit/s', 'ms', 'ms', 'segs', '')]
    for r in runs:
        c = r.get('cdg_counters')
        if c is not None:
            backoffs = str(c.get('Backoffs', '?'))
        elif r['label'] == 'cdg-intree':
            backoffs = 'n/a'    # the in-tree module has no counters
        else:
            backoffs = '-'
        if not r.get('ok'):
            lines.append('%-11s FAILED: %s' % (r['label'], '; '.join(r['errors'])))
            continue
        lines.append('%-11s %9.1f %9.1f %9.1f %8d %9s  %s' % (
            r['label'], r['goodput_mbps'], r['rtt_ms']['p50'] or 0,
            r['rtt_ms']['p95'] or 0, r['retrans'], backoffs,
            {'ours': 'ours %s' % (r.get('module_version') or ''),
             'intree': "Debian's in-tree"}.get(r['module'], '')))
    lines += ['', 'RTT: ping through the bottleneck every 100 ms during the '
              'transfer; base RTT %.1f ms.' % (runs[0].get('base_rtt_ms') or 0)]
    text = '\n'.join(lines)
    print(text)
    with open(os.path.join(out, 'table.txt'), 'w') as f:
        f.write(text + '\n')

    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(10, 7))
    for r in runs:
        d = os.path.join(out, 'runs', r['id'])
        smp = metrics.samples(os.path.join(d, 'samples.txt'))
        sp = r['flows'][0]['sport']
        pts = [t for t, s, _ in smp if sp in s]
        if not pts:
            continue
        t0 = pts[0]     # the flow's first sample
        ping = [(t - t0, v) for t, v in metrics.ping_samples(os.path.join(d, 'ping.txt'))
                if t >= t0]
        a1.plot([p[0] for p in ping], [p[1] for p in ping], label=r['label'],
                color=COLOUR.get(r['label']), lw=1)
        rate = metrics.rate_series(smp, sp, t0, step=0.25)
        a2.plot([p[0] for p in rate], [p[1] for p in rate], label=r['label'],
                color=COLOUR.get(r['label']), lw=1)
    a1.set_ylabel('RTT through the bottleneck (ms)')
    a1.set_ylim(bottom=0)
    a2.set_ylabel('throughput (Mbit/s, 0.25 s bins)')
    a2.set_ylim(bottom=0)
    a2.set_xlabel('time since the flow started (s)')
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.legend(fontsize='small')
    fig.suptitle('demo: ' + head)
    fig.tight_layout()
    fig.savefig(os.path.join(out, 'demo.png'), dpi=90)
    print('demo: wrote %s' % os.path.join(out, 'demo.png'))


if __name__ == '__main__':
    main()
