# SPDX-License-Identifier: GPL-2.0
"""Raw measurements of one run (a directory the guest wrote) -> metrics.

Read by report.py and demo.py.  Files and their formats are described in
scripts/bench/guest/bench.sh.  Definitions (docs/benchmarks.md repeats them):

  goodput      iperf3 receiver's bits/s, summed over the bulk flows
  utilization  goodput / (rate * MSS / frame): the payload rate of a
               saturated link (95.6 Mbit/s at 100 Mbit/s)
  RTT          ping through the bottleneck every 100 ms while the flows
               run (sender 1's path); base RTT: ping on the idle path
  queue delay  RTT - base RTT
  power        Kleinrock's power, goodput / mean RTT, normalized by the
               ideal link rate / base RTT: utilization * base / mean RTT
  drops        the bottleneck qdisc's drops during the run (after - before)
"""
import json
import os
import re

from scenarios import max_goodput, parse_line


def pct(values, p):
    """Percentile p (0..100), linear between order statistics."""
    v = sorted(values)
    if not v:
        return None
    k = (len(v) - 1) * p / 100.0
    i = int(k)
    if i + 1 >= len(v):
        return v[-1]
    return v[i] + (v[i + 1] - v[i]) * (k - i)


def mean(values):
    return sum(values) / len(values) if values else None


def jain(xs):
    """Jain's fairness index: 1 = equal shares, 1/n = one flow has all."""
    if not xs or not sum(xs):
        return None
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def read(path, default=''):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


PING = re.compile(r'^\[(\d+\.\d+)\].*time=([\d.]+) ms')


def ping_samples(path):
    """[(wall time, rtt ms)] of a ping -D output."""
    out = []
    for line in read(path).splitlines():
        m = PING.match(line)
        if m:
            out.append((float(m.group(1)), float(m.group(2))))
    return out


def idle_rtt(path):
    """Smallest RTT of a plain ping output (the idle path)."""
    v = [float(x) for x in re.findall(r'time=([\d.]+) ms', read(path))]
    return min(v) if v else None


def qdisc_stats(text):
    """{(ns, dev): {'kind','sent_pkts','drops'}}, plus softnet drops."""
    out, ns, cur = {}, None, None
    softnet = 0
    for line in text.splitlines():
        if line.startswith('== '):
            ns = line[3:].strip()
            continue
        if ns == 'softnet':
            f = line.split()
            if len(f) > 1:
                softnet += int(f[1], 16)
            continue
        m = re.match(r'qdisc (\S+) \S+ dev (\S+) ', line)
        if m:
            cur = (ns, m.group(2))
            out[cur] = {'kind': m.group(1)}
            continue
        m = re.search(r'Sent (\d+) bytes (\d+) pkt \(dropped (\d+)', line)
        if m and cur:
            out[cur].update(sent_pkts=int(m.group(2)), drops=int(m.group(3)))
            cur = None
    out['softnet_drops'] = softnet
    return out


def counters(text):
    d = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            d[f[0]] = int(f[1])
    return d


def samples(path):
    """Parse samples.txt: [(t, {sport: {k: v}}, {dev: {k: v}})]."""
    out = []
    for line in read(path).splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == '@':
            out.append((float(f[1]), {}, {}))
        elif f[0] == 'tcp' and out and len(f) > 4:
            kv = dict(w.split('=', 1) for w in f[4:] if '=' in w)
            d = {k: (v if k == 'cc' else int(v)) for k, v in kv.items()}
            d['ns'] = f[1]
            # Only the established data connection: a socket still in
            # SYN_SENT has the default CC, before iperf3 sets its own.
            if d.get('state') == 1:
                out[-1][1][int(f[2].rsplit(':', 1)[1])] = d
        elif f[0] == 'qdisc' and out:
            kv = dict(w.split('=', 1) for w in f[3:] if '=' in w)
            out[-1][2][f[2]] = {k: (v if k == 'kind' else int(v))
                                for k, v in kv.items()}
    return out


def meta(path):
    m = {'params': {}, 'flows': []}
    for line in read(path).splitlines():
        k, _, v = line.partition(' ')
        if k == 'plan':
            m['plan'] = parse_line('run ' + v)
        elif k == 'param':
            n, _, val = v.partition(' ')
            m['params'][n] = val
        elif k == 'flow':
            f = v.split()
            # "i cc sender start length [client port]"; older runs used
            # client port 41000 + i.
            m['flows'].append(dict(i=int(f[0]), cc=f[1], sender=f[2],
                                   start=float(f[3]), length=float(f[4]),
                                   sport=int(f[5]) if len(f) > 5 else 41000 + int(f[0])))
        elif k in ('start', 'end'):
            m[k] = float(v)
        elif k in ('module', 'version', 'kernel', 'available'):
            m[k] = v
    return m


def rate_series(smp, sport, t0, step=0.5):
    """Delivery rate (Mbit/s) of one flow on a fixed grid of STEP-second
    bins from t0, from bytes_acked in the samples: [(bin middle - t0,
    mbps)].  The same grid for every flow, so shares line up.  Each bin's
    rate is the bytes between the last samples at or before its edges
    over the time between those samples (dividing by STEP instead would
    alias: a bin holds 2 or 3 samples at 10 Hz).  Before the flow's first
    sample it counts from 0 bytes; bins after its last one are left out."""
    pts = [(t, s[sport]['acked']) for t, s, _ in smp if sport in s]
    if len(pts) < 2:
        return []
    out, i = [], 0
    prev_t, prev_a = t0, 0
    k = 1
    while t0 + k * step <= pts[-1][0]:
        edge = t0 + k * step
        while i < len(pts) and pts[i][0] <= edge:
            i += 1
        if i:
            t, a = pts[i - 1]
            if t > prev_t:
                out.append(((k - 0.5) * step, (a - prev_a) * 8 / (t - prev_t) / 1e6))
                prev_t, prev_a = t, a
        k += 1
    return out


def common_rates(smp, sports):
    """Delivery rate (Mbit/s) of each flow over the interval in which all
    of them have samples, from bytes_acked; None if that is under 1 s."""
    seen = {p: [(t, s[p]['acked']) for t, s, _ in smp
                if p in s and s[p]['acked'] > 0] for p in sports}
    if not all(seen.values()):
        return None
    ts = max(v[0][0] for v in seen.values())
    te = min(v[-1][0] for v in seen.values())
    if te - ts < 1:
        return None

    def at(v, t):   # acked at the last sample no later than t
        return max((a for u, a in v if u <= t), default=0)
    return [(at(seen[p], te) - at(seen[p], ts)) * 8 / (te - ts) / 1e6
            for p in sports]


def run_metrics(d):
    """Everything report.py needs of run directory d, as plain data."""
    m = meta(os.path.join(d, 'meta.txt'))
    p = m.get('plan', {})
    r = {'id': p.get('id', os.path.basename(d)), 'scen': p.get('scen'),
         'conf': p.get('conf'), 'label': p.get('label'),
         'rep': int(p.get('rep', 1)), 'plan': p, 'module': m.get('module'),
         'module_version': m.get('version'), 'params': m['params'],
         'kernel': m.get('kernel'), 'ok': True, 'errors': []}
    rate = float(p.get('rate', 100))
    t0, t1 = m.get('start'), m.get('end')
    if t0 is None or t1 is None:
        r['ok'] = False
        r['errors'].append('run did not finish')
        return r
    r['duration_s'] = t1 - t0

    smp = samples(os.path.join(d, 'samples.txt'))
    flows = []
    for f in m['flows']:
        sport = f['sport']
        fl = {'i': f['i'], 'cc': f['cc'], 'sender': f['sender'], 'sport': sport,
              'base_rtt_ms': float(p.get('rtt%s' % f['sender'][-1], 0))}
        try:
            j = json.loads(read(os.path.join(d, 'iperf-%d.json' % f['i'])))
            fl['goodput_mbps'] = j['end']['sum_received']['bits_per_second'] / 1e6
            fl['retrans'] = j['end']['sum_sent'].get('retransmits', 0)
            fl['sender_cc'] = j['end'].get('sender_tcp_congestion')
            if j.get('error'):
                r['errors'].append('flow %d: %s' % (f['i'], j['error']))
        except (ValueError, KeyError, TypeError):
            r['ok'] = False
            r['errors'].append('flow %d: no iperf3 result (%s)' % (
                f['i'], read(os.path.join(d, 'iperf-%d.err' % f['i']))[:200].strip()))
            fl['goodput_mbps'], fl['retrans'] = 0.0, 0
        srtt = [s[sport]['rtt'] / 1e3 for _, s, _ in smp
                if sport in s and s[sport]['acked'] > 0]
        cwnd = [s[sport]['cwnd'] for _, s, _ in smp if sport in s]
        fl['srtt_ms'] = {'p50': pct(srtt, 50), 'p95': pct(srtt, 95),
                         'p99': pct(srtt, 99)}
        fl['cwnd_p50'] = pct(cwnd, 50)
        # iperf3 sets the CC after its 37-byte cookie: judge the data phase.
        ccs = {s[sport]['cc'] for _, s, _ in smp
               if sport in s and s[sport]['acked'] > 100000}
        fl['ss_cc'] = sorted(ccs)
        flows.append(fl)
    r['flows'] = flows
    good = [f['goodput_mbps'] for f in flows]
    r['goodput_mbps'] = sum(good)
    if len(flows) > 1:
        # The flows start a little apart (one iperf3 exec each), so the
        # sum of their own averages overstates the link's share of time:
        # use their delivery rates over the interval when all of them run.
        common = common_rates(smp, [f['sport'] for f in flows])
        if common:
            good = common
            r['goodput_iperf_sum_mbps'] = r['goodput_mbps']
            r['goodput_mbps'] = sum(good)
    r['utilization'] = r['goodput_mbps'] / max_goodput(rate)
    r['retrans'] = sum(f['retrans'] for f in flows)
    if len(flows) > 1:
        r['jain'] = jain(good)
        r['flow_goodput_mbps'] = good

    base = idle_rtt(os.path.join(d, 'ping-idle.txt'))
    r['base_rtt_ms'] = base
    rtts = [v for t, v in ping_samples(os.path.join(d, 'ping.txt'))
            if t0 <= t <= t1]
    r['rtt_ms'] = {'p50': pct(rtts, 50), 'p95': pct(rtts, 95),
                   'p99': pct(rtts, 99), 'mean': mean(rtts), 'n': len(rtts)}
    if base is not None and rtts:
        q = [max(0.0, v - base) for v in rtts]
        r['qdelay_ms'] = {'p50': pct(q, 50), 'p95': pct(q, 95),
                          'p99': pct(q, 99), 'mean': mean(q)}
        r['power_norm'] = r['utilization'] * base / mean(rtts)
    else:
        r['qdelay_ms'] = {}
        r['power_norm'] = None
        r['errors'].append('no ping samples')

    before = qdisc_stats(read(os.path.join(d, 'qdisc-before.txt')))
    after = qdisc_stats(read(os.path.join(d, 'qdisc-after.txt')))

    def delta(key, field='drops'):
        if key in before and key in after:
            return after[key].get(field, 0) - before[key].get(field, 0)
        return None
    r['drops'] = delta(('mid', 'mr'))
    r['bottleneck_pkts'] = delta(('mid', 'mr'), 'sent_pkts')
    rd = [delta(('snd1', 'v1')), delta(('snd2', 'v2'))]
    r['random_drops'] = sum(x for x in rd if x is not None)
    r['softnet_drops'] = after.get('softnet_drops', 0) - before.get('softnet_drops', 0)
    bl = [q['mr']['qlen'] for _, _, q in smp if 'mr' in q]
    r['backlog_pkts'] = {'p50': pct(bl, 50), 'p95': pct(bl, 95),
                         'max': max(bl) if bl else None}
    r['samples'] = len(smp)
    r['sample_hz'] = (len(smp) - 1) / (smp[-1][0] - smp[0][0]) if len(smp) > 2 else None

    c0 = counters(read(os.path.join(d, 'cdgstat-before.txt')))
    c1 = counters(read(os.path.join(d, 'cdgstat-after.txt')))
    if c1:
        r['cdg_counters'] = {k: c1[k] - c0.get(k, 0) for k in c1}

    if p.get('scen') == 's3' and len(flows) == 2:
        # Both flows from the first sample of either (iperf3 start-up).
        p1, p2 = flows[0]['sport'], flows[1]['sport']
        ts = min((t for t, s, _ in smp if p1 in s or p2 in s), default=t0)
        a = rate_series(smp, p1, ts)
        b = dict(rate_series(smp, p2, ts))
        share = [(t, x / (x + b[t])) for t, x in a if t in b and x + b[t] > 0]
        r['share_series'] = share
        r['share'] = good[0] / sum(good) if sum(good) else None
    if p.get('scen') == 's5' and len(flows) == 2 and good[1] > 0:
        r['rtt_ratio'] = good[0] / good[1]   # 10 ms flow / 80 ms flow

    fct = {}
    # A short transfer counts only if it ended while the bulk flow still
    # ran (its last sample): the point is completion time under load.
    bulk_end = max((t for t, s, _ in smp if flows and flows[0]['sport'] in s),
                   default=None)
    late = 0
    for line in read(os.path.join(d, 'fct.txt')).splitlines():
        f = line.split()
        if f and f[0] == 'fct' and len(f) >= 5:
            if int(f[2]) != int(f[1]):
                r['errors'].append('short transfer of %s got %s bytes' % (f[1], f[2]))
            elif bulk_end is not None and float(f[4]) + float(f[3]) / 1e3 > bulk_end:
                late += 1
            else:
                fct.setdefault(f[1], []).append(float(f[3]))
        elif f and f[0] == 'error':
            r['errors'].append(line)
    if late:
        r['fct_after_bulk'] = late
    if fct:
        r['fct_ms'] = {k: {'p50': pct(v, 50), 'max': max(v), 'n': len(v), 'all': v}
                       for k, v in fct.items()}
    # The CC really used: what ss saw on flow 1 must be what was asked for.
    want = flows[0]['cc'] if flows else None
    if flows and flows[0]['ss_cc'] and flows[0]['ss_cc'] != [want]:
        r['errors'].append('flow 1 ran %s, not %s' % (flows[0]['ss_cc'], want))
        r['ok'] = False
    return r
