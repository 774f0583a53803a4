#!/usr/bin/env python3
"""Checks a `pmutrace report --html` page against the same trace's text outputs.

  html_check.py PAGE.html DIR

DIR holds, from the same trace: report.json (report --json), sym.csv (report --sort
sym,dso --csv), mem.csv and tlb.csv (report --sort mem / tlb --csv), script.csv
(script --csv) and, optionally, aux.txt (perf report -D's PERF_RECORD_AUX and
PERF_RECORD_LOST lines). Exits 1 naming each difference."""
import csv
import html.parser
import json
import os
import re
import sys
from collections import Counter, defaultdict

page, d = sys.argv[1], sys.argv[2]
fails = []


def bad(msg):
    fails.append(msg)


class Collect(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.items = []  # (tag, attrs) of every element with data-* attributes
        self.tags = Counter()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] += 1
        if any(k.startswith('data-') for k in a):
            self.items.append((tag, a))


text = open(page, encoding='utf-8').read()
c = Collect()
c.feed(text)
items = c.items


def having(cls, tag=None):
    return [a for t, a in items if cls in (a.get('class') or '').split() and (not tag or t == tag)]


# Available samples: report --json's groups (samples and period of every listed event)
rep = json.load(open(os.path.join(d, 'report.json')))
want = {g['event']: (g['samples'], g['period']) for g in rep['groups']}
got = {a['data-event']: (int(a['data-samples']), int(a['data-period'])) for a in having('avail')}
if got != want:
    bad(f'Available samples: page {got} vs report --json {want}')

TOP = int(os.environ.get('HTML_TOP', '15'))


def csv_rows(name):
    with open(os.path.join(d, name), newline='') as f:
        return list(csv.DictReader(f))


# top symbols: report --sort sym,dso --csv, the first TOP entries of each event, in order
per_event = defaultdict(list)
for r in csv_rows('sym.csv'):
    if len(per_event[r['event']]) < TOP:
        per_event[r['event']].append((r['sym'], r['dso'], r['kernel'], int(r['samples']),
                                      int(r['period'])))
got = defaultdict(list)
for a in having('sym', 'g'):
    got[a['data-event']].append((a['data-sym'], a['data-dso'], a['data-kernel'],
                                 int(a['data-samples']), int(a['data-period'])))
if dict(got) != dict(per_event):
    for ev in sorted(set(got) | set(per_event)):
        if got.get(ev) != per_event.get(ev):
            bad(f'top symbols of {ev}: page {got.get(ev)} vs report --sort sym,dso '
                f'--csv {per_event.get(ev)}')
if not any(s[0] and not s[0].startswith('0x') for v in got.values() for s in v):
    print('note: no symbol resolved to a name in this trace')

# data source and TLB: the page's event, every entry of report --sort mem / tlb
for key in ('mem', 'tlb'):
    rows = having(key, 'g')
    evs = {a['data-event'] for a in rows}
    if len(evs) != 1:
        bad(f'{key}: entries of {len(evs)} events, want one')
        continue
    ev = evs.pop()
    want = sorted((r[key], int(r['samples'])) for r in csv_rows(key + '.csv') if r['event'] == ev)
    got = sorted((a['data-' + key], int(a['data-samples'])) for a in rows)
    if got != want:
        bad(f'{key} breakdown of {ev}: page {got} vs report --sort {key} --csv {want}')

# latencies and the timeline: one count per SPE record ((cpu, offset) in script --csv)
recs = {}
for r in csv_rows('script.csv'):
    recs[(r['cpu'], r['offset'])] = (int(r['weight']), int(r['issue_lat']), int(r['xlat_lat']),
                                     int(r['time']))


def bucket(v):
    return v.bit_length()


for i, kind in enumerate(('total', 'issue', 'translation')):
    want = Counter(bucket(v[i]) for v in recs.values())
    chart = [a for t, a in items if t == 'svg' and a.get('data-kind') == kind]
    if len(chart) != 1:
        bad(f'{kind} latency: {len(chart)} charts')
    got = Counter()
    # buckets follow their chart in document order
    cur = None
    for t, a in items:
        if t == 'svg':
            cur = a.get('data-kind')
        elif cur == kind and 'bucket' in a.get('class', ''):
            lo, hi, n = int(a['data-lo']), int(a['data-hi']), int(a['data-count'])
            if bucket(lo) != bucket(hi) or (lo and lo & (lo - 1)):
                bad(f'{kind} latency: bucket {lo}-{hi} is not a power-of-two range')
            if n:
                got[bucket(lo)] = n
    if got != want:
        bad(f'{kind} latency: page {dict(sorted(got.items()))} vs script --csv '
            f'{dict(sorted(want.items()))}')

want = Counter(cpu for cpu, _ in recs)
got = {a['data-cpu']: int(a['data-records']) for a in having('cpurow')}
if got != dict(want):
    bad(f'timeline records per CPU: page {got} vs script --csv {dict(want)}')

# losses: every AUX record with a loss flag and every LOST record perf report -D shows;
# an AUX loss spans from the CPU's last record before its stream offset to the first after
aux = os.path.join(d, 'aux.txt')
if os.path.exists(aux):
    flags = Counter()
    want_aux = []
    lost = 0
    for line in open(aux):
        m = re.match(r'\s*(\d+) \d+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_AUX offset: '
                     r'(0x[0-9a-f]+|0) size: (0x[0-9a-f]+|0) flags: (0x[0-9a-f]+|0)', line)
        if m:
            f = int(m.group(4), 16)
            if f & 0xd:
                want_aux.append((m.group(1), int(m.group(2), 16) + int(m.group(3), 16)))
            for bit, name in ((1, 'aux-truncated'), (4, 'aux-partial'), (8, 'aux-collision')):
                flags[name] += bool(f & bit)
        m = re.search(r'PERF_RECORD_LOST: id:\d+: lost:(\d+)', line)
        if m:
            lost += int(m.group(1))
    flags['lost'] = lost
    got = {a['data-loss']: int(a['data-count']) for t, a in items if 'data-loss' in a}
    for k, v in flags.items():
        if got.get(k) != v:
            bad(f'loss {k}: page {got.get(k)} vs perf report -D {v}')
    rects = [a for a in having('loss') if a['data-kind'].startswith('AUX')]
    got_aux = sorted((a['data-cpu'], int(a['data-stream-end'])) for a in rects)
    if got_aux != sorted(want_aux):
        bad(f'AUX losses drawn: {len(got_aux)}, perf report -D lists {len(want_aux)}')
    by_cpu = defaultdict(list)
    for (cpu, off), v in recs.items():
        by_cpu[cpu].append((int(off, 16), v[3]))
    for a in rects:
        before = [t for o, t in by_cpu[a['data-cpu']] if o < int(a['data-stream-end'])]
        after = [t for o, t in by_cpu[a['data-cpu']] if o >= int(a['data-stream-end'])]
        ws = str(max(before)) if before else (str(min(after)) if after else None)
        we = str(min(after)) if after else None
        if a.get('data-start') != ws or a.get('data-end') != we:
            bad(f'AUX loss at cpu {a["data-cpu"]} offset {a["data-stream-end"]}: page '
                f'{a.get("data-start")}..{a.get("data-end")} vs script --csv {ws}..{we}')
            break

# TPEBS: no metric data in these traces, and the page says so
if not any(a.get('data-metrics') == '0' for t, a in items):
    bad('metrics: the page does not say that the trace has no metric rows')

for f in fails:
    print('FAIL:', f)
sys.exit(1 if fails else 0)
