#!/usr/bin/env python3
"""Checks a `pmutrace report --html --comms/--dsos/--symbols` page (or Chromium's DOM of
it) against the text report of the same trace with the same lists.

  html_list_check.py PAGE DIR

DIR holds sym.csv and sym.json (report --sort sym,dso --csv / --json with the lists),
mem.csv and tlb.csv (report --sort mem / tlb --csv with the lists). The page's tables
must hold the entries the lists keep, with the text's samples, periods and percentages,
and each event's header the text's totals (the whole file's, as perf's absolute
percentages). Exits 1 naming each difference."""
import csv
import html.parser
import json
import os
import re
import sys
from collections import defaultdict

page, d = sys.argv[1], sys.argv[2]
TOP = int(os.environ.get('HTML_TOP', '15'))
fails = []


class Collect(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.items = []  # [tag, attrs, title text]
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'title' and self.items:
            self.in_title = True
        elif any(k.startswith('data-') for k in a):
            self.items.append([tag, a, ''])

    def handle_endtag(self, tag):
        if tag == 'title':
            self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.items[-1][2] += data


c = Collect()
c.feed(open(page, encoding='utf-8').read())


def rows(name):
    with open(os.path.join(d, name), newline='') as f:
        return list(csv.DictReader(f))


def having(cls, tag):
    return [(a, t) for g, a, t in c.items if g == tag and cls in (a.get('class') or '').split()]


# the top entries of sym,dso: keys, samples, period and the title's percentage
want = defaultdict(list)
for r in rows('sym.csv'):
    if len(want[r['event']]) < TOP:
        want[r['event']].append((r['sym'], r['dso'], r['kernel'], int(r['samples']),
                                 int(r['period']), '%.2f' % float(r['overhead'])))
got = defaultdict(list)
for a, t in having('sym', 'g'):
    m = re.match(r'([0-9.]+)%', t)
    got[a['data-event']].append((a['data-sym'], a['data-dso'], a['data-kernel'],
                                 int(a['data-samples']), int(a['data-period']),
                                 m.group(1) if m else t))
if not want:
    fails.append('the text report kept no entry: nothing compared')
for ev in sorted(set(got) | set(want)):
    if got.get(ev) != want.get(ev):
        fails.append(f'{ev}: page {got.get(ev)} vs report --sort sym,dso --csv {want.get(ev)}')

# each event's header: the text's totals
rep = json.load(open(os.path.join(d, 'sym.json')))
want_tot = {e['event']: (e['samples'], len(e['entries'])) for e in rep['events'] if e['entries']}
got_tot = {a['data-event']: (int(a['data-samples']), int(a['data-entries']))
           for g, a, t in c.items if g == 'details' and 'data-entries' in a}
if got_tot != want_tot:
    fails.append(f'events (samples, entries): page {got_tot} vs report --json {want_tot}')

# data source and TLB of the page's event
for key in ('mem', 'tlb'):
    items = having(key, 'g')
    evs = {a['data-event'] for a, t in items}
    if len(evs) > 1:
        fails.append(f'{key}: entries of {len(evs)} events')
        continue
    ev = evs.pop() if evs else None
    w = sorted((r[key], int(r['samples'])) for r in rows(key + '.csv') if r['event'] == ev)
    g = sorted((a['data-' + key], int(a['data-samples'])) for a, t in items)
    if ev and g != w:
        fails.append(f'{key} of {ev}: page {g} vs report --sort {key} --csv {w}')

for f in fails:
    print('FAIL:', f)
sys.exit(1 if fails else 0)
