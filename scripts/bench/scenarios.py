# SPDX-License-Identifier: GPL-2.0
"""The benchmark's scenarios and the run list (plan) the guest runner reads.

A run is one line of key=value words for scripts/bench/guest/bench.sh:

  id      unique name, also the directory /out/runs/ID
  scen    scenario (s1..s6, demo); label: the variant's name (cdg,
          cdg-intree, cubic, ...); rep: repetition number
  module  ours | intree | any: the tcp_cdg that must be loaded (any: none
          of this run's flows uses cdg, leave whatever is loaded)
  load    load-time parameters of ours (window=16), comma-separated
  params  run-time parameters of ours, written to /sys/module/tcp_cdg/
          parameters/ on top of the defaults before the run
  rate    bottleneck rate, Mbit/s; buf: bottleneck queue, packets
  loss    random (non-congestion) loss on the data path, percent
  rtt1, rtt2  base RTT of sender 1 and sender 2, ms
  dur     seconds of the run; every bulk flow ends at dur
  flows   bulk flows, comma-separated CC@SENDER+START (start in s)
  short   sizes (bytes) of short transfers run one after the other, in
          turn, while the bulk flow runs, comma-separated
  trace   1: record the tcp_cdg tracepoints
"""

import os

MSS = 1448            # payload of a full segment (with TCP timestamps)
FRAME = 1514          # its Ethernet frame: what netem's rate and limit count
RATE = 100            # Mbit/s, every scenario

# label -> (kernel name, module, load params, run-time params)
VARIANTS = {
    'cdg':        ('cdg', 'ours', '', ''),
    'cdg-intree': ('cdg', 'intree', '', ''),
    'cubic':      ('cubic', 'any', '', ''),
    'reno':       ('reno', 'any', '', ''),
    'vegas':      ('vegas', 'any', '', ''),
    'bbr':        ('bbr', 'any', '', ''),
    'cdg-tol':    ('cdg', 'ours', '', 'use_tolerance=1'),
    'cdg-scav':   ('cdg', 'ours', '', 'use_ineff=0,use_shadow=0'),
    'cdg-w16':    ('cdg', 'ours', 'window=16', ''),
    # docs/tuning.md: the opt-in mode beyond the in-tree defaults.
    'cdg-drain':  ('cdg', 'ours', '', 'backoff_drain=1'),
    'cdg-drain-w16': ('cdg', 'ours', 'window=16', 'backoff_drain=1'),
    'cdg-noext':  ('cdg', 'ours', '', 'no_extrapolate=1'),
    'cdg-drain-noext': ('cdg', 'ours', '',
                        'backoff_drain=1,no_extrapolate=1'),
    'cdg-drain-noext-w16': ('cdg', 'ours', 'window=16',
                            'backoff_drain=1,no_extrapolate=1'),
    # ref_rtt_us=20000: the in-tree probability at 20 ms, a quarter at 80;
    # 10000: half of it at 20 ms, an eighth at 80.
    'cdg-dnr':    ('cdg', 'ours', '',
                   'backoff_drain=1,no_extrapolate=1,ref_rtt_us=20000'),
    'cdg-dnr10':  ('cdg', 'ours', '',
                   'backoff_drain=1,no_extrapolate=1,ref_rtt_us=10000'),
    # Each opt-in parameter alone (the targets set): does it help?
    'cdg-ref20':  ('cdg', 'ours', '', 'ref_rtt_us=20000'),
    # Issue 22: the competitive mode against loss-based flows.
    'cdg-compete': ('cdg', 'ours', '', 'compete=1'),
}
CCS = ['cdg', 'cdg-intree', 'cubic', 'reno', 'vegas', 'bbr']

DESCRIPTION = {
    's1': 'single bulk flow',
    's2': 'several flows of the same CC (four unless the configuration '
          'names n)',
    's3': 'coexistence with one cubic flow',
    's4': 'non-congestion (random) loss',
    's5': 'RTT unfairness: 10 ms and 80 ms flows',
    's6': 'short transfers during a bulk flow',
    's7': 'the test bed: one flow at 100 Mbit/s to 1 Gbit/s',
    'demo': 'demo: one bulk flow',
}


def bdp_packets(rtt_ms, rate=RATE):
    """Bandwidth-delay product in full-size frames."""
    return round(rate * 1e6 * rtt_ms / 1e3 / 8 / FRAME)


def max_goodput(rate=RATE):
    """TCP payload rate of a saturated link, Mbit/s."""
    return rate * MSS / FRAME


# Sizes: durations (s) per scenario, repetitions, which configurations.
# Sized on this project's 2-core machine: a run costs its duration plus
# 1.5 s on an idle host (iperf3 start and end, tc, module swaps, copying
# out; measured over a whole default run) and 2-2.5 s on a busy one, so
# the default set (192 runs, 1044 s of traffic) takes about 23 minutes
# with the boot, the quick one (30 runs, 4 CCs, one repetition) about 3.
# s6 is longer: its short transfers need the bulk flow to outlast them.
SETS = {
    'default': dict(reps=3, ccs=CCS, s1_rtts=(20, 80), s1_bufs=(1, 8),
                    dur_s1={20: 4, 80: 7}, s1_extra={'rtt20-buf8': ['cdg-w16']},
                    dur=dict(s2=5, s3=6, s4=4, s5=6, s6=8),
                    losses=(0.1, 1), short='100000,1000000'),
    'quick': dict(reps=1, ccs=['cdg', 'cdg-intree', 'cubic', 'bbr'],
                  s1_rtts=(20,), s1_bufs=(1, 8), dur_s1={20: 4}, s1_extra={},
                  dur=dict(s2=4, s3=4, s4=4, s5=4, s6=5),
                  losses=(1,), short='100000,1000000'),
    # docs/benchmarks.md, "Virtual time": the same plan under several
    # seeds and host loads, to show what repeats and what varies.
    'repeat': dict(reps=1, ccs=['cubic', 'reno', 'cdg', 'cdg-intree'],
                   s1_rtts=(20,), s1_bufs=(8,), dur_s1={20: 8}, s1_extra={},
                   dur={}, scens=('s1',)),
    # docs/benchmarks.md, "Virtual time": how fast a link the guest's
    # virtual CPU can fill, and what a second of traffic costs in wall time.
    'rates': dict(reps=1, ccs=['cubic', 'cdg'], s1_rtts=(), s1_bufs=(),
                  dur_s1={}, s1_extra={}, dur=dict(s7=5),
                  rates=(100, 250, 500, 1000), scens=('s7',)),
    # Issue 18's targets, in virtual time: the defaults, each opt-in
    # parameter alone and the recommended mode of docs/tuning.md, beside
    # their references, in every scenario a target names.  Flows long
    # enough that slow start is a small part of them (about 42 minutes
    # of wall time per repetition at 3 s per second of traffic).
    'targets': dict(reps=1, ccs=['cdg', 'cdg-intree', 'cubic', 'bbr',
                                 'cdg-drain', 'cdg-noext', 'cdg-ref20',
                                 'cdg-dnr'],
                    s1_rtts=(20, 80), s1_bufs=(1, 8),
                    dur_s1={20: 8, 80: 12}, s1_extra={},
                    dur=dict(s2=8, s3=15, s6=8), short='100000,1000000',
                    scens=('s1', 's2', 's3', 's6')),
    # The single-flow half of targets, twice more: what each opt-in
    # parameter does to utilization and queueing delay is the question
    # that needs repetitions (about 50 minutes).
    'optin': dict(reps=2, ccs=['cdg', 'cdg-intree', 'cubic', 'bbr',
                               'cdg-drain', 'cdg-noext', 'cdg-ref20',
                               'cdg-dnr'],
                  s1_rtts=(20, 80), s1_bufs=(1, 8),
                  dur_s1={20: 8, 80: 12}, s1_extra={}, dur={},
                  scens=('s1',)),
    # Google's BBR test matrix (nsperf), in two sets that can run side
    # by side: coexistence with cubic (14 minutes of traffic), and
    # bufferbloat, a shallow buffer with many flows and random loss (11).
    'coexist': dict(reps=1, ccs=['cdg', 'cdg-intree', 'bbr', 'cubic'],
                    s1_rtts=(), s1_bufs=(), dur_s1={}, s1_extra={}, dur={},
                    scens=(), paths='coexist'),
    'paths': dict(reps=1, ccs=['cdg', 'cdg-intree', 'bbr', 'cubic'],
                  s1_rtts=(), s1_bufs=(), dur_s1={}, s1_extra={}, dur={},
                  scens=(), paths='paths'),
    # Issue 22: one traced run of ours against cubic (the diagnosis), and
    # the competitive mode's targets (docs/tuning.md, "Against cubic").
    'compete-diag': dict(reps=1, ccs=['cdg', 'cdg-compete'], s1_rtts=(), s1_bufs=(),
                         dur_s1={}, s1_extra={}, dur={}, scens=(),
                         compete=('diag',), dur_compete=30),
    # Sized to the wall time of issue 22's session (2-3 minutes a run on
    # a busy host): compete=1 three times on the 8-BDP paths, twice on
    # the 1-BDP ones; vs2 and four once (rep1).  Cut, to run apart with
    # BENCH_PARTS: vs1ref (the references once on the deep-buffer paths)
    # and stop (set compete-check has it).
    'compete': dict(reps=3, ccs=['cdg-compete'], reps_buf1=2,
                    s1_rtts=(), s1_bufs=(), dur_s1={}, s1_extra={}, dur={},
                    scens=(), compete=('vs1', 'vs2', 'four'),
                    dur_compete=30, rep1=('vs1ref', 'vs2', 'four', 'stop'),
                    trace=1),
    'compete-check': dict(reps=1, ccs=['cdg-compete'], s1_rtts=(),
                          s1_bufs=(), dur_s1={}, s1_extra={}, dur={},
                          scens=(), compete=('alone', 'four', 'vs2', 'stop'),
                          dur_compete=30, trace=1),
    # Single flows of 20 s, four times: ours against the in-tree module
    # (the two alternate which goes first, rep by rep, so that a drift
    # cannot favour one), and the recommended opt-in mode (cdg-dnr).
    'confirm': dict(reps=4, ccs=['cdg', 'cdg-intree', 'cdg-dnr', 'bbr',
                                 'cubic'],
                    s1_rtts=(20, 80), s1_bufs=(1, 8),
                    dur_s1={20: 20, 80: 20}, s1_extra={}, dur={},
                    scens=('s1',), alternate=True),
}


def configs(size):
    """Yield (scen, conf, variants, settings) for one repetition."""
    s = SETS[size]
    ccs = s['ccs']
    if os.environ.get('BENCH_CCS'):     # BENCH_CCS=cdg,cubic: a subset
        ccs = os.environ['BENCH_CCS'].split(',')
    deep = 8 * bdp_packets(20)
    scens = s.get('scens', ('s1', 's2', 's3', 's4', 's5', 's6'))
    for rtt in s['s1_rtts'] if 's1' in scens else ():
        for b in s['s1_bufs']:
            conf = 'rtt%d-buf%d' % (rtt, b)
            yield ('s1', conf, ccs + s['s1_extra'].get(conf, []),
                   dict(rtt1=rtt, rtt2=rtt, buf=b * bdp_packets(rtt),
                        dur=s['dur_s1'][rtt], n=1))
    if 's2' in scens:
        yield ('s2', 'rtt20-buf8', ccs,
               dict(rtt1=20, rtt2=20, buf=deep, dur=s['dur']['s2'], n=4))
    if 's3' in scens:
        yield ('s3', 'rtt20-buf8', ccs + ['cdg-scav'],
               dict(rtt1=20, rtt2=20, buf=deep, dur=s['dur']['s3'],
                    vs='cubic'))
    for rate in s.get('rates', ()) if 's7' in scens else ():
        yield ('s7', 'rate%d-rtt20-buf8' % rate, ccs,
               dict(rtt1=20, rtt2=20, buf=8 * bdp_packets(20, rate),
                    dur=s['dur']['s7'], n=1, rate=rate))
    for loss in s['losses'] if 's4' in scens else ():
        yield ('s4', 'loss%g' % loss, ccs + ['cdg-tol'],
               dict(rtt1=20, rtt2=20, buf=deep, dur=s['dur']['s4'], n=1,
                    loss=loss))
    if 's5' in scens:
        yield ('s5', 'rtt10+80-buf8', ccs,
               dict(rtt1=10, rtt2=80, buf=deep, dur=s['dur']['s5'], rttfair=1))
    if 's6' in scens:
        yield ('s6', 'rtt20-buf8', ccs,
               dict(rtt1=20, rtt2=20, buf=deep, dur=s['dur']['s6'], n=1,
                    short=s['short']))
    for scen, conf, st in nsperf_paths(s['paths']) if 'paths' in s else ():
        yield (scen, conf, ccs, st)
    for scen, conf, st, extra in compete_paths(s) if 'compete' in s else ():
        yield (scen, conf, extra or ccs, st)


def compete_paths(s):
    """Issue 22 (docs/tuning.md, "Against cubic"): the share against one
    cubic flow on the four single-flow paths, against two, alone, four
    CDG flows, and a cubic flow that stops mid-run.  s['compete'] names
    the parts; extra (a list of labels) overrides the set's CCs."""
    for part, (scen, conf, st, extra) in compete_parts(s):
        if s.get('trace'):
            st['trace'] = 1
        if part in s.get('rep1', ()):
            st['rep1'] = 1
        yield scen, conf, st, extra


def compete_parts(s):
    dur = s['dur_compete']
    parts = s['compete']
    if os.environ.get('BENCH_PARTS'):   # BENCH_PARTS=four,stop: a subset
        parts = os.environ['BENCH_PARTS'].split(',')
    for part in parts:
        if part == 'vs1':
            for rtt in (20, 80):
                for b in (1, 8):
                    yield part, ('s3', 'rtt%d-buf%d' % (rtt, b),
                           dict(rtt1=rtt, rtt2=rtt, buf=b * bdp_packets(rtt),
                                dur=dur, vs='cubic',
                                maxrep=s.get('reps_buf%d' % b, 99)), None)
        elif part == 'vs1ref':
            # The references, once, on the two deep-buffer paths.
            for rtt in (20, 80):
                yield part, ('s3', 'rtt%d-buf8' % rtt,
                       dict(rtt1=rtt, rtt2=rtt, buf=8 * bdp_packets(rtt),
                            dur=dur, vs='cubic', rep1=1),
                       ['cdg', 'cdg-intree', 'bbr', 'cubic'])
        elif part == 'diag':
            yield part, ('s3', 'rtt20-buf8',
                   dict(rtt1=20, rtt2=20, buf=8 * bdp_packets(20), dur=dur,
                        vs='cubic', trace=1), None)
        elif part == 'vs2':
            yield part, ('s3', 'rtt20-buf8-vs2',
                   dict(rtt1=20, rtt2=20, buf=8 * bdp_packets(20), dur=dur,
                        vs='cubic', nvs=2), None)
        elif part == 'alone':
            for rtt in (20, 80):
                yield part, ('s1', 'rtt%d-buf8' % rtt,
                       dict(rtt1=rtt, rtt2=rtt, buf=8 * bdp_packets(rtt),
                            dur=dur, n=1), ['cdg', 'cdg-compete'])
        elif part == 'stop':
            # The cubic flow stops half-way: how soon is the queue short?
            yield part, ('s3', 'rtt20-buf8-stop%d' % (dur // 2),
                   dict(rtt1=20, rtt2=20, buf=8 * bdp_packets(20), dur=dur,
                        vs='cubic', vs_end=dur // 2), ['cdg-compete'])
        elif part == 'four':
            yield part, ('s2', 'rtt20-buf8',
                   dict(rtt1=20, rtt2=20, buf=8 * bdp_packets(20), dur=dur,
                        n=4), ['cdg-compete'])


def nsperf_paths(which):
    """The paths of Google's BBR test matrix (nsperf), as confs of the
    scenario whose metrics they need: s3 (share against one cubic flow),
    s1 (one flow), s2 (n flows), s4 (random loss).  nsperf's 1 Gbit/s
    paths run at 100 Mbit/s here: the guest's virtual CPU carries about
    175 Mbit/s (docs/benchmarks.md, "Virtual time")."""
    def buf(x, rtt, rate):
        return max(2, round(x * bdp_packets(rtt, rate)))
    if which == 'coexist':
        # 50 Mbit/s, 30 ms, 0.1-16 BDP: one flow of the CC against cubic.
        return [('s3', 'rate50-rtt30-buf%gbdp' % b,
                 dict(rate=50, rtt1=30, rtt2=30, buf=buf(b, 30, 50), dur=30,
                      vs='cubic'))
                for b in (0.1, 0.5, 1, 2, 4, 8, 16)]
    # bufferbloat: 50 Mbit/s, 30 ms, one flow, 1-100 BDP (RTT p50).
    paths = [('s1', 'rate50-rtt30-buf%gbdp' % b,
              dict(rate=50, rtt1=30, rtt2=30, buf=buf(b, 30, 50), dur=15, n=1))
             for b in (1, 10, 50, 100)]
    # shallow buffer: 2 % of the BDP of 100 Mbit/s, 100 ms; 1-50 flows.
    # Fifty iperf3 clients take about 10 s of guest time to start: the
    # longer run keeps the time when all of them send (Jain's index is
    # taken over it) about as long as the others.
    paths += [('s2', 'rate100-rtt100-buf0.02bdp-n%d' % n,
               dict(rate=100, rtt1=100, rtt2=100, buf=buf(0.02, 100, 100),
                    dur=15 + n // 5, n=n))
              for n in (1, 10, 50)]
    # random loss on a long path: 100 Mbit/s, 100 ms, 1 BDP.
    paths += [('s4', 'rate100-rtt100-buf1bdp-loss%g' % x,
               dict(rate=100, rtt1=100, rtt2=100, buf=buf(1, 100, 100),
                    dur=10, n=1, loss=x))
              for x in (0.001, 0.01, 0.1, 1, 10)]
    return paths


def flows_of(cc, st):
    if 'vs' in st:
        end = '-%d' % st['vs_end'] if 'vs_end' in st else ''
        return ','.join(['%s@1+0' % cc] +
                        ['%s@1+0%s' % (st['vs'], end)] * st.get('nvs', 1))
    if 'rttfair' in st:
        return '%s@1+0,%s@2+0' % (cc, cc)
    return ','.join(['%s@1+0' % cc] * st['n'])


def run_line(scen, conf, label, rep, st, trace=0):
    cc, module, load, params = VARIANTS[label]
    kv = [('id', '%s-%s-%s-r%d' % (scen, conf, label, rep)),
          ('scen', scen), ('conf', conf), ('label', label), ('rep', rep),
          ('module', module), ('load', load or '-'),
          ('params', params or '-'), ('rate', st.get('rate', RATE)),
          ('buf', st['buf']),
          ('loss', st.get('loss', 0)), ('rtt1', st['rtt1']),
          ('rtt2', st['rtt2']), ('dur', st['dur']),
          ('flows', flows_of(cc, st)), ('short', st.get('short', '-')),
          ('trace', st.get('trace', trace))]
    return 'run ' + ' '.join('%s=%s' % p for p in kv)


def group(label, intree_first=False):
    """Runs of one module go together: ours by load parameters, then the
    in-tree module, then the CCs that need neither (no swap); the in-tree
    module first with intree_first."""
    _, module, load, _ = VARIANTS[label]
    rank = {'ours': 0 if not load else 1, 'intree': 2, 'any': 3}[module]
    if intree_first and module != 'any':
        rank = (rank + 1) % 3
    return rank, load


def plan(size):
    """The run list: repetitions outermost (so that slow drift of the
    machine spreads over every CC), grouped by module inside each.  With
    the set's `alternate`, even repetitions run the in-tree module first."""
    lines = []
    alternate = SETS[size].get('alternate', False)
    for rep in range(1, SETS[size]['reps'] + 1):
        flip = alternate and rep % 2 == 0
        runs = [(group(label, flip), scen, conf, label, st)
                for scen, conf, variants, st in configs(size)
                for label in variants
                if (rep == 1 or not st.get('rep1')) and
                rep <= st.get('maxrep', 99)]
        runs.sort(key=lambda r: r[0])       # stable: scenario order kept
        lines += [run_line(scen, conf, label, rep, st)
                  for _, scen, conf, label, st in runs]
    return lines


def demo_plan(dur=8):
    st = dict(rtt1=20, rtt2=20, buf=8 * bdp_packets(20), dur=dur, n=1)
    return [run_line('demo', 'rtt20-buf8', 'cubic', 1, st),
            run_line('demo', 'rtt20-buf8', 'cdg', 1, st, trace=1),
            run_line('demo', 'rtt20-buf8', 'cdg-intree', 1, st)]


def parse_line(line):
    """A plan line back into a dict."""
    return dict(w.split('=', 1) for w in line.split()[1:])


if __name__ == '__main__':
    # scenarios.py default|quick|demo: print the run list.
    import sys
    which = sys.argv[1] if len(sys.argv) > 1 else 'default'
    if which == 'demo':
        lines = demo_plan()
    elif which in SETS:
        lines = plan(which)
    else:
        sys.exit('scenarios.py: unknown set %s (%s, demo)'
                 % (which, ', '.join(SETS)))
    print('\n'.join(lines))
