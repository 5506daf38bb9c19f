#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Benchmark report: results.json, summary.md and the plots.

  report.py RESULTS_DIR
  report.py --merge NEW_DIR RESULTS_DIR...

RESULTS_DIR is what the guest filled (plan.txt, runs/ID/, env.txt) plus
host.txt from scripts/bench/bench.sh.  --merge writes the report of several runs
(for example one set under several SEEDs) into NEW_DIR, as if they were
one run with more repetitions: each run's repetitions are numbered after
those of the runs before it, and the runs' files stay where they are.  Medians over the repetitions, with min and
max; the parity section compares ours with the in-tree module.
"""
import itertools
import json
import os
import sys

import metrics
from scenarios import CCS, DESCRIPTION, parse_line, max_goodput

# Plot colours: one per variant, the same in every figure.
COLOUR = {'cdg': 'tab:blue', 'cdg-intree': 'tab:cyan', 'cubic': 'tab:red',
          'reno': 'tab:orange', 'vegas': 'tab:green', 'bbr': 'tab:purple',
          'cdg-tol': 'tab:olive', 'cdg-scav': 'tab:gray',
          'cdg-w16': 'tab:brown', 'cdg-drain': 'tab:pink',
          'cdg-drain-w16': 'black', 'cdg-noext': 'goldenrod',
          'cdg-drain-noext': 'magenta', 'cdg-drain-noext-w16': 'darkgreen',
          'cdg-dnr': 'navy', 'cdg-dnr10': 'crimson',
          'cdg-ref20': 'darkorange'}

# Metric name -> (getter, label, unit, format)
METRICS = {
    'goodput': (lambda r: r.get('goodput_mbps'), 'goodput', 'Mbit/s', '%.1f'),
    'util': (lambda r: r.get('utilization'), 'utilization', '', '%.2f'),
    'rtt_p50': (lambda r: r['rtt_ms'].get('p50'), 'RTT p50', 'ms', '%.1f'),
    'rtt_p95': (lambda r: r['rtt_ms'].get('p95'), 'RTT p95', 'ms', '%.1f'),
    'rtt_p99': (lambda r: r['rtt_ms'].get('p99'), 'RTT p99', 'ms', '%.1f'),
    'qd_p50': (lambda r: r['qdelay_ms'].get('p50'), 'queue delay p50', 'ms', '%.1f'),
    'qd_p95': (lambda r: r['qdelay_ms'].get('p95'), 'queue delay p95', 'ms', '%.1f'),
    'retrans': (lambda r: r.get('retrans'), 'retransmits', 'segments', '%d'),
    'drops': (lambda r: r.get('drops'), 'bottleneck drops', 'packets', '%d'),
    'backlog_p95': (lambda r: r['backlog_pkts'].get('p95'), 'backlog p95', 'packets', '%.0f'),
    'power': (lambda r: r.get('power_norm'), 'power (norm.)', '', '%.2f'),
    'jain': (lambda r: r.get('jain'), 'Jain index', '', '%.3f'),
    'share': (lambda r: r.get('share'), 'share of the link', '', '%.2f'),
    'rtt_ratio': (lambda r: r.get('rtt_ratio'), 'goodput 10 ms / 80 ms flow', '', '%.2f'),
    'fct_100k': (lambda r: r.get('fct_ms', {}).get('100000', {}).get('p50'),
                 '100 kB completion p50', 'ms', '%.0f'),
    'fct_1m': (lambda r: r.get('fct_ms', {}).get('1000000', {}).get('p50'),
               '1 MB completion p50', 'ms', '%.0f'),
}

# Columns of each scenario's table.
COLUMNS = {
    's1': ['goodput', 'util', 'rtt_p50', 'rtt_p95', 'rtt_p99', 'qd_p95',
           'retrans', 'drops', 'backlog_p95', 'power'],
    's2': ['goodput', 'util', 'jain', 'rtt_p50', 'rtt_p95', 'qd_p95',
           'retrans', 'drops', 'power'],
    's3': ['share', 'goodput', 'rtt_p50', 'rtt_p95', 'qd_p95', 'retrans', 'drops'],
    's4': ['goodput', 'util', 'rtt_p50', 'rtt_p95', 'qd_p95', 'retrans', 'drops'],
    's5': ['rtt_ratio', 'jain', 'goodput', 'rtt_p95', 'qd_p95', 'retrans'],
    's6': ['fct_100k', 'fct_1m', 'goodput', 'rtt_p95', 'qd_p95', 'retrans'],
    'demo': ['goodput', 'rtt_p50', 'rtt_p95', 'retrans'],
}
# Metrics the parity section compares, per scenario.
PARITY = {'s1': ['goodput', 'qd_p95'], 's2': ['goodput', 'qd_p95', 'jain'],
          's3': ['share', 'qd_p95'], 's4': ['goodput'],
          's5': ['rtt_ratio', 'goodput'], 's6': ['fct_100k', 'fct_1m', 'goodput']}


def stat(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {'median': metrics.pct(v, 50), 'min': min(v), 'max': max(v),
            'n': len(v), 'values': v}


def rank_sum_p(a, b):
    """Two-sided p of the Mann-Whitney rank-sum test, exact: the share of
    the ways to split the pooled values into groups of len(a) and len(b)
    whose rank sum is at least as far from its mean as a's.  Ties get mid
    ranks.  None when either side has no value or the split is too large
    to enumerate (more than 24 values)."""
    n, m = len(a), len(b)
    if not n or not m or n + m > 24:
        return None
    pooled = sorted(a + b)
    rank = {}
    for v in set(pooled):
        first = pooled.index(v)
        rank[v] = first + (pooled.count(v) + 1) / 2.0
    ranks = [rank[v] for v in a + b]
    mid = n * (n + m + 1) / 2.0
    seen = abs(sum(ranks[:n]) - mid) - 1e-9
    hits = total = 0
    for pick in itertools.combinations(ranks, n):
        total += 1
        hits += abs(sum(pick) - mid) >= seen
    return hits / total


def fmt(s, f, spread=True):
    if s is None:
        return 'n/a'
    if not spread or s['n'] == 1 or s['min'] == s['max']:
        return f % s['median']
    return '%s [%s–%s]' % (f % s['median'], f % s['min'], f % s['max'])


def load(outdir):
    plan = [parse_line(l) for l in open(os.path.join(outdir, 'plan.txt'))
            if l.startswith('run ')]
    runs = []
    for p in plan:
        d = os.path.join(outdir, 'runs', p['id'])
        if os.path.isdir(d):
            runs.append(metrics.run_metrics(d))
            runs[-1]['dir'] = d
        else:
            runs.append({'id': p['id'], 'scen': p['scen'], 'conf': p['conf'],
                         'label': p['label'], 'rep': int(p['rep']), 'plan': p,
                         'ok': False, 'errors': ['not run']})
    return plan, runs


def order(labels):
    pref = CCS + ['cdg-tol', 'cdg-scav', 'cdg-w16'] + TUNED
    return sorted(labels, key=lambda x: pref.index(x) if x in pref else 99)


def summarize(runs):
    """{scen: {conf: {label: {metric: stat}}}} over the runs that worked."""
    groups = {}
    for r in runs:
        if r.get('ok'):
            groups.setdefault(r['scen'], {}).setdefault(r['conf'], {}) \
                  .setdefault(r['label'], []).append(r)
    out = {}
    for scen, confs in groups.items():
        for conf, labels in confs.items():
            for label, rs in labels.items():
                out.setdefault(scen, {}).setdefault(conf, {})[label] = {
                    k: stat([safe(g, r) for r in rs])
                    for k, (g, _, _, _) in METRICS.items()}
    return groups, out


def safe(getter, r):
    try:
        return getter(r)
    except (KeyError, TypeError):
        return None


def median_run(rs):
    """The repetition whose goodput is the median: the representative run."""
    rs = sorted(rs, key=lambda r: r.get('goodput_mbps') or 0)
    return rs[(len(rs) - 1) // 2]


# --- plots ---------------------------------------------------------------------
def plt_setup():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def scatter(plt, summ, scen, path, title):
    confs = sorted(summ[scen])
    n = len(confs)
    cols = min(n, 2)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 4.5 * rows),
                             squeeze=False)
    for ax, conf in zip(axes.flat, confs):
        for label in order(summ[scen][conf]):
            s = summ[scen][conf][label]
            x, y = s['qd_p95'], s['goodput']
            if not x or not y:
                continue
            ax.errorbar([x['median']], [y['median']],
                        xerr=[[x['median'] - x['min']], [x['max'] - x['median']]],
                        yerr=[[y['median'] - y['min']], [y['max'] - y['median']]],
                        fmt='o', capsize=3, color=COLOUR.get(label), label=label)
        ax.set_title('%s %s' % (scen, conf))
        ax.set_xlabel('queueing delay p95 (ms)')
        ax.set_ylabel('goodput (Mbit/s)')
        ax.set_ylim(0, max_goodput() * 1.05)
        ax.set_xlim(left=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize='small')
    for ax in list(axes.flat)[n:]:
        ax.axis('off')
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def timeseries(plt, outdir, rs_by_label, path, title):
    """RTT (TCP srtt) and cwnd of flow 1 over time, one line per CC."""
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(10, 7))
    for label in order(rs_by_label):
        r = median_run(rs_by_label[label])
        smp = metrics.samples(os.path.join(r['dir'], 'samples.txt'))
        sp = r['flows'][0]['sport']
        pts = [(t, s[sp]) for t, s, _ in smp if sp in s]
        if not pts:
            continue
        # Time zero: the flow's first sample (iperf3 takes a while to start).
        pts = [(t - pts[0][0], s) for t, s in pts]
        a1.plot([p[0] for p in pts], [p[1]['rtt'] / 1e3 for p in pts],
                label=label, color=COLOUR.get(label), lw=1)
        a2.plot([p[0] for p in pts], [p[1]['cwnd'] for p in pts],
                label=label, color=COLOUR.get(label), lw=1)
    a1.set_ylabel('smoothed RTT (ms)')
    a1.set_yscale('log')
    a2.set_ylabel('cwnd (packets)')
    a2.set_yscale('log')
    a2.set_xlabel('time since start of the flow (s)')
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.legend(fontsize='small', ncol=3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def share_plot(plt, rs_by_label, path, title):
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for label in order(rs_by_label):
        r = median_run(rs_by_label[label])
        s = r.get('share_series') or []
        ax.plot([p[0] for p in s], [p[1] for p in s], label='%s vs cubic' % label,
                color=COLOUR.get(label), lw=1.2)
    ax.axhline(0.5, color='black', lw=0.6, ls='--')
    ax.set_ylim(0, 1)
    ax.set_xlabel('time since start (s)')
    ax.set_ylabel('share of the two flows\' delivery rate (fraction)')
    ax.grid(alpha=0.3)
    ax.legend(fontsize='small', loc='center left', bbox_to_anchor=(1.01, 0.5))
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def bars(plt, summ, scen, metric, path, title, ylabel):
    confs = sorted(summ[scen])
    labels = order({l for c in confs for l in summ[scen][c]})
    fig, ax = plt.subplots(figsize=(10, 4.5))
    w = 0.8 / max(1, len(confs))
    for j, conf in enumerate(confs):
        xs, ys, lo, hi = [], [], [], []
        for i, label in enumerate(labels):
            s = summ[scen][conf].get(label, {}).get(metric)
            if not s:
                continue
            xs.append(i + (j - (len(confs) - 1) / 2) * w)
            ys.append(s['median'])
            lo.append(s['median'] - s['min'])
            hi.append(s['max'] - s['median'])
        ax.bar(xs, ys, w, yerr=[lo, hi], capsize=3, label=conf)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    ax.set_ylabel(ylabel)
    ax.set_xlabel('congestion control')
    ax.grid(alpha=0.3, axis='y')
    ax.legend(fontsize='small')
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --- the report ------------------------------------------------------------------------
def ratio(summ, scen, conf, a, b, metric):
    try:
        x = summ[scen][conf][a][metric]['median']
        y = summ[scen][conf][b][metric]['median']
    except (KeyError, TypeError):
        return None
    if x is None or not y:
        return None
    return x / y


# Variants of docs/tuning.md: the opt-in parameters, alone and combined.
TUNED = ['cdg-drain', 'cdg-noext', 'cdg-ref20', 'cdg-drain-w16',
         'cdg-drain-noext', 'cdg-drain-noext-w16', 'cdg-dnr', 'cdg-dnr10']


def med(summ, scen, conf, label, metric):
    try:
        return summ[scen][conf][label][metric]['median']
    except (KeyError, TypeError):
        return None


def target_rows(summ):
    """(target, goal, {variant: (value, met)}) for each target of issue 18
    (docs/benchmarks.md, "Against the targets"), over every CDG variant of
    the run: one flow on the 100 Mbit/s paths of s1 (utilization >= 0.95,
    p95 queueing delay <= 2 ms, power >= bbr's), four flows (Jain >= 0.95),
    against one cubic flow in an 8-BDP buffer (share >= 0.40), 100 kB
    transfers during a bulk flow (completion time <= the in-tree
    module's)."""
    labels = order({x for confs in summ.values() for c in confs.values()
                    for x in c if x.startswith('cdg') and x != 'cdg-scav'})
    rows = []

    def row(what, goal, value, met):
        cells = {}
        for x in labels:
            v = value(x)
            cells[x] = (v, None if v is None else met(x, v))
        if any(v is not None for v, _ in cells.values()):
            rows.append((what, goal, cells))
    for conf in sorted(summ.get('s1', {})):
        if not conf.startswith('rtt'):     # the 100 Mbit/s paths only
            continue
        row('s1 %s utilization' % conf, '>= 0.95',
            lambda x, c=conf: med(summ, 's1', c, x, 'util'),
            lambda x, v: v >= 0.95)
        row('s1 %s queue delay p95 (ms)' % conf, '<= 2',
            lambda x, c=conf: med(summ, 's1', c, x, 'qd_p95'),
            lambda x, v: v <= 2.0)
        pb = med(summ, 's1', conf, 'bbr', 'power')
        row('s1 %s power / bbr\'s' % conf, '>= 1',
            lambda x, c=conf, pb=pb: (med(summ, 's1', c, x, 'power') / pb
                                      if pb and med(summ, 's1', c, x, 'power')
                                      is not None else None),
            lambda x, v: v >= 1.0)
    row('s2 rtt20-buf8 Jain index, 4 flows', '>= 0.95',
        lambda x: med(summ, 's2', 'rtt20-buf8', x, 'jain'),
        lambda x, v: v >= 0.95)
    row('s3 rtt20-buf8 share against cubic', '>= 0.40',
        lambda x: med(summ, 's3', 'rtt20-buf8', x, 'share'),
        lambda x, v: v >= 0.40)
    fi = med(summ, 's6', 'rtt20-buf8', 'cdg-intree', 'fct_100k')
    row('s6 100 kB completion p50 (ms)', '<= in-tree\'s',
        lambda x: med(summ, 's6', 'rtt20-buf8', x, 'fct_100k'),
        lambda x, v: fi is not None and v <= fi)
    return labels, rows


def write_targets(add, summ):
    labels, rows = target_rows(summ)
    if not rows:
        return
    add('## Against the targets (issue 18)')
    add('')
    add('Medians; a value that misses its goal is in bold.')
    add('')
    add('| target | goal | ' + ' | '.join(labels) + ' |')
    add('|---|---' + '|---' * len(labels) + '|')
    for what, goal, cells in rows:
        out = []
        for x in labels:
            v, met = cells[x]
            t = 'n/a' if v is None else ('%.0f' % v if abs(v) >= 100 else
                                         '%.2f' % v)
            out.append('**%s**' % t if met is False else t)
        add('| %s | %s | %s |' % (what, goal, ' | '.join(out)))
    add('')


def parity_rows(summ):
    rows = []
    for scen in sorted(summ):
        for conf in sorted(summ[scen]):
            o = summ[scen][conf].get('cdg')
            t = summ[scen][conf].get('cdg-intree')
            if not o or not t:
                continue
            for m in PARITY.get(scen, []):
                so, st = o.get(m), t.get(m)
                if not so or not st:
                    continue
                diff = so['median'] - st['median']
                spread = max(so['max'] - so['min'], st['max'] - st['min'])
                rel = diff / st['median'] if st['median'] else None
                # One run each has no spread to compare with.
                within = (abs(diff) <= spread) if min(so['n'], st['n']) > 1 else None
                rows.append(dict(scen=scen, conf=conf, metric=m, ours=so,
                                 intree=st, diff=diff, rel=rel, spread=spread,
                                 within=within,
                                 p=rank_sum_p(so['values'], st['values'])))
    return rows


def write_summary(outdir, env, plan, runs, summ, figs):
    L = []
    add = L.append
    add('# CDG benchmark: %s set, %s' % (env.get('set', '?'), env.get('date', '')))
    add('')
    add('Machine: %s; guest kernel %s, QEMU TCG, %s vCPUs, %s. %d runs '
        'planned, %d worked. Host when the script started: load %s; other '
        'processes took %s of the host CPU during the run%s.'
        % (env.get('host', '?'), env.get('kernel', '?'), env.get('cpus', '?'),
           env.get('clock', 'clock not recorded'),
           len(plan), sum(1 for r in runs if r.get('ok')), env.get('load', '?'),
           # run.sh subtracts QEMU's CPU from the total: noise can go below 0
           '%s%%' % max(0, env['host_busy_during']) if 'host_busy_during' in env else 'an unmeasured part',
           ' (in virtual time that changes the wall time, not the figures)'
           if env.get('clock', '').startswith('virtual') else ''))
    if env.get('merged'):
        add('')
        add('Merged from: %s.' % env['merged'])
    if env.get('disturbed'):
        add('')
        add('**Possibly disturbed:** %s' % env['disturbed'])
    add('')
    add('Medians over the repetitions, [min–max] in brackets. Goodput: '
        'iperf3 receiver, summed over the flows; utilization: of the '
        'bottleneck\'s payload rate (%.1f %% of its rate: %.1f Mbit/s '
        'at 100 Mbit/s); RTT: ping through '
        'the bottleneck during the transfer; queue delay: RTT minus the idle '
        'RTT; power: utilization × base RTT / mean RTT (1 = full link, no '
        'queue). docs/benchmarks.md defines each scenario.'
        % (100 * max_goodput(1), max_goodput()))
    add('')
    # Headline ratios
    add('## Headline ratios')
    add('')
    add('| scenario | cdg/cubic goodput | cdg/cubic queue delay p95 | '
        'bbr/cubic goodput | bbr/cubic queue delay p95 | ours/in-tree goodput |')
    add('|---|---|---|---|---|---|')
    for scen in sorted(summ):
        if scen in ('s3',):
            continue
        for conf in sorted(summ[scen]):
            cells = [ratio(summ, scen, conf, 'cdg', 'cubic', 'goodput'),
                     ratio(summ, scen, conf, 'cdg', 'cubic', 'qd_p95'),
                     ratio(summ, scen, conf, 'bbr', 'cubic', 'goodput'),
                     ratio(summ, scen, conf, 'bbr', 'cubic', 'qd_p95'),
                     ratio(summ, scen, conf, 'cdg', 'cdg-intree', 'goodput')]
            add('| %s %s | %s |' % (scen, conf, ' | '.join(
                'n/a' if c is None else '%.2f' % c for c in cells)))
    add('')
    write_targets(add, summ)
    for scen in sorted(summ):
        add('## %s: %s' % (scen, DESCRIPTION.get(scen, scen)))
        add('')
        cols = COLUMNS.get(scen, COLUMNS['s1'])
        for conf in sorted(summ[scen]):
            add('**%s**' % conf)
            add('')
            add('| CC | ' + ' | '.join(
                METRICS[c][1] + (' (%s)' % METRICS[c][2] if METRICS[c][2] else '')
                for c in cols) + ' |')
            add('|---' * (len(cols) + 1) + '|')
            for label in order(summ[scen][conf]):
                s = summ[scen][conf][label]
                add('| %s | ' % label + ' | '.join(
                    fmt(s[c], METRICS[c][3]) for c in cols) + ' |')
            add('')
        for f, caption in figs.get(scen, []):
            add('![%s](%s)' % (caption, f))
            add('')
            add('*%s: %s*' % (f, caption))
            add('')
    rows = parity_rows(summ)
    if rows:
        add('## Parity: ours (cdg) vs the in-tree module (cdg-intree)')
        add('')
        add('Difference of the medians; "spread" is the larger of the two '
            'min–max ranges over the repetitions; "within" when the '
            'difference is no larger than that spread; p: the two-sided '
            'p-value of an exact Mann-Whitney rank-sum test over the runs '
            '(small when the two modules\' runs do not mix: with 4 runs '
            'each, 0.03 means one side had every larger value).')
        add('')
        add('| scenario | metric | ours | in-tree | difference | spread | within | p |')
        add('|---|---|---|---|---|---|---|---|')
        for r in rows:
            f = METRICS[r['metric']][3]
            add('| %s %s | %s | %s | %s | %s%s | %s | %s | %s |' % (
                r['scen'], r['conf'], METRICS[r['metric']][1],
                fmt(r['ours'], f), fmt(r['intree'], f), f % r['diff'] if '%d' not in f else '%d' % r['diff'],
                '' if r['rel'] is None else ' (%+.0f%%)' % (100 * r['rel']),
                f % r['spread'] if '%d' not in f else '%d' % r['spread'],
                {True: 'yes', False: '**no**', None: 'n/a (1 run)'}[r['within']],
                'n/a' if r['p'] is None else '%.2f' % r['p']))
        judged = [r for r in rows if r['within'] is not None]
        add('')
        add('%d of %d comparisons within the run-to-run spread.'
            % (sum(r['within'] for r in judged), len(judged)))
        add('')
    bad = [r for r in runs if not r.get('ok') or r.get('errors')]
    if bad:
        add('## Runs with problems')
        add('')
        for r in bad:
            add('- %s: %s%s' % (r['id'], '' if r.get('ok') else 'FAILED, ',
                                '; '.join(r.get('errors', [])) or 'no result'))
        add('')
    with open(os.path.join(outdir, 'summary.md'), 'w') as f:
        f.write('\n'.join(L))
    return rows


# The one metric per scenario that says what the scenario is about.
DOCS_METRIC = {'s1': None, 's2': 'jain', 's3': 'share', 's4': None,
               's5': 'rtt_ratio', 's6': 'fct_100k'}


def write_docs_section(outdir, summ, rows):
    """docs-section.md: the compact tables docs/benchmarks.md carries
    (goodput, p95 queueing delay, power and the scenario's own metric per
    CC and configuration), so that updating the docs after a run is a
    paste."""
    L = []
    add = L.append
    for scen in sorted(summ):
        if scen == 'demo':
            continue
        extra = DOCS_METRIC.get(scen)
        cols = ['goodput', 'qd_p95', 'power'] + ([extra] if extra else [])
        if scen == 's6':
            cols.append('fct_1m')
        add('**%s: %s**' % (scen, DESCRIPTION[scen]))
        add('')
        add('| configuration | CC | ' + ' | '.join(
            METRICS[c][1] + (' (%s)' % METRICS[c][2] if METRICS[c][2] else '')
            for c in cols) + ' |')
        add('|---' * (len(cols) + 2) + '|')
        for conf in sorted(summ[scen]):
            for label in order(summ[scen][conf]):
                st = summ[scen][conf][label]
                add('| %s | %s | ' % (conf, label) + ' | '.join(
                    fmt(st[c], METRICS[c][3]) for c in cols) + ' |')
        add('')
    judged = [r for r in rows if r['within'] is not None]
    add('**Parity, ours vs in-tree**: %d of %d comparisons within the '
        'run-to-run spread; outside it:' % (sum(r['within'] for r in judged),
                                           len(judged)))
    add('')
    for r in rows:
        if r['within'] is False:
            f = METRICS[r['metric']][3]
            add('- %s %s, %s: ours %s, in-tree %s' % (
                r['scen'], r['conf'], METRICS[r['metric']][1],
                fmt(r['ours'], f), fmt(r['intree'], f)))
    with open(os.path.join(outdir, 'docs-section.md'), 'w') as f:
        f.write('\n'.join(L) + '\n')


def read_env(outdir):
    env = {}
    for name in ('env.txt', 'host.txt'):
        for line in metrics.read(os.path.join(outdir, name)).splitlines():
            k, _, v = line.partition(' ')
            if k:
                env[k] = v
    # run.sh: "other processes used N% of the host CPU during the run" and
    # "... (tcg, virtual time, shift 0, seed 1): ..." or "(kvm, real time,
    # -smp 2)".  Only a real-time run's figures are disturbed by the host.
    import re
    log = metrics.read(os.path.join(outdir, 'vm.log'))
    m = re.search(r'\((?:tcg|kvm), ((?:virtual|real) time[^)]*)\)', log)
    if m:
        env['clock'] = m.group(1)
    m = re.search(r'other processes used (-?\d+)% of the host CPU', log)
    if m:
        env['host_busy_during'] = int(m.group(1))
    if (not env.get('clock', '').startswith('virtual')
            and env.get('host_busy_during', 0) > 10):
        env['disturbed'] = ('real time, and other processes took %d%% of '
                            'the host CPU during the run'
                            % env['host_busy_during'])
    return env


def merge(outdir, srcs):
    """The plans and runs of several results directories, repetitions
    renumbered; the environment of the first, with where each came from."""
    os.makedirs(outdir, exist_ok=True)
    env = read_env(srcs[0])
    plan, runs, base, came = [], [], 0, []
    for d in srcs:
        e = read_env(d)
        p, rs = load(d)
        top = max([int(x['rep']) for x in p] or [0])
        for x in p:
            x['rep'] = str(int(x['rep']) + base)
        for r in rs:
            r['rep'] += base
        plan += p
        runs += rs
        base += top
        came.append('%s (%s set, seed %s, %s)' % (
            os.path.basename(os.path.normpath(d)), e.get('set', '?'),
            e.get('seed', '?'), e.get('commit', '?')))
    env['merged'] = '; '.join(came)
    env['set'] = '+'.join(sorted({read_env(d).get('set', '?') for d in srcs}))
    return env, plan, runs


def main():
    if sys.argv[1] == '--merge':
        outdir = sys.argv[2]
        env, plan, runs = merge(outdir, sys.argv[3:])
    else:
        outdir = sys.argv[1]
        env = read_env(outdir)
        plan, runs = load(outdir)
    groups, summ = summarize(runs)
    plt = plt_setup()
    figs = {}

    def fig(scen, name, caption):
        figs.setdefault(scen, []).append((name, caption))
        return os.path.join(outdir, name)

    for scen in sorted(summ):
        if scen == 'demo':
            continue
        what = {'s1': 'one bulk flow per CC', 's2': 'several flows, aggregate goodput',
                's3': 'X + cubic, aggregate goodput', 's4': 'one flow with random loss',
                's5': '10 ms + 80 ms flows, aggregate goodput',
                's6': 'bulk flow goodput while short transfers run',
                's7': 'one flow per CC and link rate'}[scen]
        scatter(plt, summ, scen, fig(scen, '%s-scatter.png' % scen,
                'goodput vs p95 queueing delay, %s; median of the repetitions '
                'with min–max error bars' % what),
                '%s: %s' % (scen, DESCRIPTION[scen]))
    if 's1' in groups:
        conf = 'rtt20-buf8' if 'rtt20-buf8' in groups['s1'] else sorted(groups['s1'])[0]
        timeseries(plt, outdir, groups['s1'][conf],
                   fig('s1', 's1-timeseries.png',
                       'TCP smoothed RTT and cwnd of the representative '
                       '(median-goodput) run of each CC, s1 %s, log scales' % conf),
                   's1 %s: RTT and cwnd over time' % conf)
    if 's3' in groups:
        conf = sorted(groups['s3'])[0]
        share_plot(plt, groups['s3'][conf],
                   fig('s3', 's3-share.png',
                       'share of the delivery rate (from ss bytes_acked, 0.5 s '
                       'bins) taken by the named CC against one cubic flow; '
                       'representative run; 0.5 is an even split'),
                   's3 %s: throughput share against cubic' % conf)
    if 's4' in summ:
        bars(plt, summ, 's4', 'goodput',
             fig('s4', 's4-loss.png', 'goodput under random loss on the data '
                 'path; bars: median, whiskers: min–max; cdg-tol is ours with '
                 'use_tolerance=1'),
             's4: goodput with non-congestion loss', 'goodput (Mbit/s)')
    if 's6' in summ:
        bars(plt, summ, 's6', 'fct_100k',
             fig('s6', 's6-fct.png', 'median completion time of 100 kB '
                 'transfers (connect to last byte) during a bulk flow of the '
                 'same CC; whiskers: min–max of the medians'),
             's6: 100 kB completion time during a bulk flow', 'completion time (ms)')

    rows = write_summary(outdir, env, plan, runs, summ, figs)
    write_docs_section(outdir, summ, rows)
    with open(os.path.join(outdir, 'results.json'), 'w') as f:
        json.dump({'env': env, 'plan': plan, 'runs': runs, 'summary': summ,
                   'parity': rows}, f, indent=1, default=str)
    print('report: %s/summary.md, results.json, %d plots'
          % (outdir, sum(len(v) for v in figs.values())))


if __name__ == '__main__':
    main()
