#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot tcp_cdg tracepoints: what CDG saw and what it did, round by round.

Reads the text of the tracefs `trace` file or of `trace-cmd report`:

  <task>-<pid> [cpu] <flags> <seconds>: cdg_round: src=... dest=... k=v ...
"""
import argparse
import re
import sys

LINE = re.compile(r'\s(\d+\.\d+):\s+(?:tcp_cdg:)?(cdg_\w+):\s+(.*)$')
KV = re.compile(r'(\w+)=(\S+)')


def parse(lines, port=None):
    """Yield (seconds, event, {key: value}) for each tcp_cdg event."""
    for line in lines:
        m = LINE.search(line)
        if not m:
            continue
        fields = dict(KV.findall(m.group(3)))
        if port and not any(fields.get(k, '').endswith(':' + port)
                            for k in ('src', 'dest')):
            continue
        yield float(m.group(1)), m.group(2), fields


def flows(events):
    """The (src, dest) pair with the most events first."""
    count = {}
    for _, _, f in events:
        key = (f.get('src'), f.get('dest'))
        count[key] = count.get(key, 0) + 1
    return sorted(count, key=count.get, reverse=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('file', help='trace text, or - for stdin')
    ap.add_argument('-p', '--port', help='keep flows with this port')
    ap.add_argument('-o', '--output', default='cdg-trace.png')
    ap.add_argument('-t', '--title', default='tcp_cdg: what CDG did')
    args = ap.parse_args()

    try:
        src = sys.stdin if args.file == '-' else open(args.file)
    except OSError as e:
        sys.exit('cdg-trace: %s' % e)
    with src:
        events = list(parse(src, args.port))
    rounds = [e for e in events if e[1] == 'cdg_round']
    if not rounds:
        sys.exit('cdg-trace: no cdg_round events in %s' % args.file)
    flow = flows(rounds)[0]
    events = [e for e in events if (e[2].get('src'), e[2].get('dest')) == flow]
    t0 = events[0][0]

    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    def series(name, key, scale=1.0):
        pts = [(t - t0, int(f[key]) * scale) for t, ev, f in events
               if ev == name and key in f]
        return [p[0] for p in pts], [p[1] for p in pts]

    fig, (ax_rtt, ax_grad, ax_cwnd) = plt.subplots(3, 1, sharex=True,
                                                   figsize=(10, 8))
    for key, label in (('rtt_min', 'round min RTT'),
                       ('rtt_max', 'round max RTT')):
        ax_rtt.plot(*series('cdg_round', key, 1e-3), label=label, lw=1)
    ax_rtt.set_ylabel('RTT (ms)')
    ax_rtt.legend(loc='upper right', fontsize='small')

    for key, label in (('gsum_min', 'min gradient sum'),
                       ('gsum_max', 'max gradient sum'),
                       ('grad', 'gradient used')):
        ax_grad.plot(*series('cdg_round', key, 1e-3), label=label, lw=1)
    ax_grad.axhline(0, color='grey', lw=0.5)
    ax_grad.set_ylabel('gradient (ms/window)')
    ax_grad.legend(loc='upper right', fontsize='small')

    for key, label in (('cwnd', 'cwnd'), ('shadow_wnd', 'shadow window')):
        ax_cwnd.plot(*series('cdg_round', key), label=label, lw=1)
    x, y = series('cdg_round', 'ssthresh')
    ax_cwnd.plot(x, [v if v < 1e6 else float('nan') for v in y],
                 label='ssthresh', lw=1)
    marks = (
        ('cdg_backoff', lambda f: f['backoff'] == '1' and
         f['suppressed'] == '0', 'red', 'backoff'),
        ('cdg_backoff', lambda f: f['suppressed'] == '1', 'orange',
         'backoff suppressed (ineffectual)'),
        ('cdg_hystart', lambda f: True, 'green', 'HyStart exit'),
        ('cdg_loss', lambda f: f['state'] != 'backoff', 'black',
         'loss (ssthresh)'),
    )
    for name, pick, colour, label in marks:
        ts = [t - t0 for t, ev, f in events if ev == name and pick(f)]
        for i, t in enumerate(ts):
            ax_cwnd.axvline(t, color=colour, lw=0.6, alpha=0.6,
                            label=label if i == 0 else None)
    ax_cwnd.set_ylabel('packets')
    ax_cwnd.set_xlabel('time (s)')
    ax_cwnd.legend(loc='upper right', fontsize='small')

    n_back = sum(1 for _, ev, f in events
                 if ev == 'cdg_backoff' and f['backoff'] == '1'
                 and f['suppressed'] == '0')
    fig.suptitle('%s\n%s -> %s: %d rounds, %d backoffs'
                 % (args.title, flow[0], flow[1], len(
                     [e for e in events if e[1] == 'cdg_round']), n_back))
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print('cdg-trace: wrote %s' % args.output, file=sys.stderr)


if __name__ == '__main__':
    main()
