#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest runner's TAP stream into one progress line per run.

  scripts/vm/run.sh ... scripts/bench/guest/bench PLAN | progress.py PLAN TAPLOG

Every line is copied to TAPLOG.  For each "ok N - ...: ID [k/n] NOTE" line
this prints  [k/n] ID: NOTE  elapsed M:SS, ETA M:SS.  The ETA is the sum
of the remaining runs' planned durations plus the per-run overhead
measured so far (module swaps, iperf3 start-up, copying out), so it gets
better as the benchmark goes.  Harness failures ("not ok") and the
runner's diagnostics pass through.  Exit status: 0, or 1 when a run failed.
"""
import re
import sys
import time

from scenarios import parse_line

RUN = re.compile(r'^(not )?ok \d+ - [^:]*: (\S+) \[(\d+)/(\d+)\] ?(.*)$')


def mmss(s):
    s = max(0, int(s + 0.5))
    return '%d:%02d' % (s // 60, s % 60)


def main():
    plan = [parse_line(l) for l in open(sys.argv[1]) if l.startswith('run ')]
    durs = {p['id']: float(p['dur']) for p in plan}
    total_dur = sum(durs.values())
    log = open(sys.argv[2], 'w')
    t_start = time.time()
    t_first = None       # when the guest started the first run
    done_dur, failed, overhead = 0.0, 0, 2.2   # s per run before we know
    print('%d runs, %s of traffic, about %s with overhead'
          % (len(plan), mmss(total_dur), mmss(total_dur + overhead * len(plan))),
          flush=True)
    for line in sys.stdin:
        log.write(line)
        log.flush()
        line = line.rstrip('\n')
        if line.startswith('# cdg-start'):
            t_first = time.time()
            print('guest booted after %s' % mmss(t_first - t_start), flush=True)
            continue
        m = RUN.match(line)
        if not m:
            if line.startswith('not ok') or (line.startswith('#') and
                                             not line.startswith('# cdg-')):
                print(line, flush=True)
            continue
        bad, rid, k, n, note = m.groups()
        k, n = int(k), int(n)
        done_dur += durs.get(rid, 0)
        now = time.time()
        if t_first is not None:
            overhead = max(0.0, (now - t_first - done_dur) / k)
        left = sum(durs[p['id']] for p in plan[k:]) + overhead * (n - k)
        failed += bool(bad)
        print('[%*d/%d] %s: %s%s  elapsed %s, ETA %s'
              % (len(str(n)), k, n, rid, 'FAILED ' if bad else '', note,
                 mmss(now - t_start), mmss(left)), flush=True)
    print('%s wall, %d run(s) failed' % (mmss(time.time() - t_start), failed),
          flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
