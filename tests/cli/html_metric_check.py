#!/usr/bin/env python3
"""Checks the metric tree of a `pmutrace report --html` page as Chromium's DOM holds it
(standard library only) against the independent sources of its numbers.

  html_metric_check.py DOM.html METRICS.csv TABLE.json [EVENTS.json CALIBRATE.json]

METRICS.csv is `pmutrace metrics TRACE ... --csv` of the same trace and options: the tree's
nodes are its rows, in order, with the same interval and CPU, name, value and unit, and the
printed value and the bar (a % of 100 on the 330-unit track; another unit against the
largest of its unit on the page; none for a metric not counted) say the same. Each node's depth is its
place in TABLE.json's tree (a metric under the selected metric whose "NAME_group" its
MetricGroup lists). Each :R event of a metric's expression has a line: its measured
latency is the rint of the samples' mean (`pmutrace calibrate`, CALIBRATE.json), absent
when the trace has none, its default the rint of the event JSON's RetirementLatencyMean;
the two bars are on one scale and the text prints both. Without EVENTS.json (a counting
recording) the tables have no :R event and the tree no latency line."""
import csv
import html.parser
import json
import re
import sys

BAR_W = 330.0
fails = []


def bad(msg):
    fails.append(msg)


class Tree(html.parser.HTMLParser):
    """The mtree SVG's nodes and :R lines: attributes, their bars' widths and texts."""

    def __init__(self):
        super().__init__()
        self.items, self.cur, self.text_class, self.in_tree = [], None, None, False
        self.svg_metrics = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get('class', '')
        if tag == 'svg' and 'mtree' in cls.split():
            self.in_tree, self.svg_metrics = True, a.get('data-metrics')
        if not self.in_tree:
            return
        if tag == 'g' and cls in ('mnode', 'mretlat'):
            self.cur = {'kind': cls, 'attrs': a, 'rects': {}, 'texts': {}}
            self.items.append(self.cur)
        elif self.cur and tag == 'rect':
            self.cur['rects'][cls] = float(a['width'])
        elif self.cur and tag == 'text':
            self.text_class = cls or 'name'
            self.cur['texts'].setdefault(self.text_class, '')

    def handle_endtag(self, tag):
        if tag == 'text':
            self.text_class = None
        elif tag == 'g':
            self.cur = None
        elif tag == 'svg':
            self.in_tree = False

    def handle_data(self, data):
        if self.cur and self.text_class:
            self.cur['texts'][self.text_class] += data


dom, metrics_csv, table_json = sys.argv[1:4]
events_json, cal_json = (sys.argv[4:6] + [None, None])[:2]
tree = Tree()
tree.feed(open(dom, encoding='utf-8').read())
nodes = [i for i in tree.items if i['kind'] == 'mnode']
lines = [i for i in tree.items if i['kind'] == 'mretlat']
rows = list(csv.DictReader(open(metrics_csv)))
if not rows:
    sys.exit('FAIL: pmutrace metrics printed no rows')
if not nodes:
    sys.exit('FAIL: no metric tree (svg.mtree with g.mnode) in the page')
if tree.svg_metrics != str(len(rows)):
    bad(f'svg data-metrics={tree.svg_metrics}, want {len(rows)}')
if len(nodes) != len(rows):
    bad(f'{len(nodes)} tree nodes, pmutrace metrics prints {len(rows)} rows')


def close(a, b, rel=6e-6, absolute=1e-6):
    return abs(a - b) <= max(absolute, rel * abs(b))


table = {m['MetricName']: m for m in json.load(open(table_json))}
groups = {n: m.get('MetricGroup', '').split(';') for n, m in table.items()}
names = [r['metric'] for r in rows]


def depth(name):
    parents = [p for p in names if p != name and p + '_group' in groups.get(name, [])]
    return depth(parents[0]) + 1 if parents else 0


def where(r):
    return ' '.join(x for x in (r['interval'], r['aggr']) if x)


NOT_COUNTED = '<not counted>'
# the bars' scale of a unit other than %: its largest magnitude on the page
largest = {}
for r in rows:
    if r['value'] != NOT_COUNTED:
        largest[r['unit']] = max(largest.get(r['unit'], 0.0), abs(float(r['value'])))
for r, n in zip(rows, nodes):
    a, name = n['attrs'], r['metric']
    if r['value'] == NOT_COUNTED:
        if a.get('data-value') != 'nan' or n['texts'].get('mval') != NOT_COUNTED or \
           n['rects'].get('mbar') != 0:
            bad(f'{where(r)} {name}: not counted, the chart has {a.get("data-value")} '
                f'{n["texts"].get("mval")!r} bar {n["rects"].get("mbar")}')
        continue
    value = float(r['value'])
    label = f'{where(r)} {name}'.strip()
    if a.get('data-name') != name or a.get('data-where') != where(r) or a.get('data-unit') != r['unit']:
        bad(f'node {a.get("data-where")!r} {a.get("data-name")!r} {a.get("data-unit")!r}, '
            f'want {where(r)!r} {name!r} {r["unit"]!r}')
        continue
    if not close(float(a['data-value']), value):
        bad(f'{label}: data-value {a["data-value"]}, pmutrace metrics {r["value"]}')
    shown = n['texts'].get('mval', '').split()
    if not shown or not close(float(shown[0]), value) or ' '.join(shown[1:]) != r['unit']:
        bad(f'{label}: the chart prints {n["texts"].get("mval")!r}, want {value} {r["unit"]}')
    if n['texts'].get('name') != name:
        bad(f'{label}: the chart names it {n["texts"].get("name")!r}')
    if r['unit'] == '%':
        share = min(max(value, 0.0), 100.0) / 100
    else:
        share = max(value, 0.0) / largest[r['unit']]
    if abs(n['rects'].get('mbar', -1) - BAR_W * share) > 0.06:
        bad(f'{label}: bar {n["rects"].get("mbar")}, want {BAR_W * share:.1f} ({value} {r["unit"]})')
    if int(a.get('data-depth', -1)) != depth(name):
        bad(f'{label}: depth {a.get("data-depth")}, the table puts it at {depth(name)}')

# the :R lines: measured from the trace's samples, default from the event table
if not events_json:
    if lines:
        bad(f'{len(lines)} retire-latency lines in a tree without :R events')
    for f in fails:
        print('FAIL:', f)
    if not fails:
        print(f'ok: {len(nodes)} metrics equal pmutrace metrics and the table\'s tree')
    sys.exit(1 if fails else 0)
cal = json.load(open(cal_json))['Data']
evs = json.load(open(events_json))
evs = evs['Events'] if isinstance(evs, dict) else evs
default = {e['EventName']: float(e['RetirementLatencyMean']) for e in evs
           if 'RetirementLatencyMean' in e}
want_lines = []
for r in rows:
    for ev in re.findall(r'([A-Za-z0-9_.]+):R\b', table[r['metric']]['MetricExpr']):
        m = float(round(float(cal[ev]['MEAN']))) if ev in cal else None
        want_lines.append((where(r), r['metric'], ev + ':R', m, float(round(default[ev]))))
if not any(w[3] is not None for w in want_lines) or not any(w[3] is None for w in want_lines):
    bad('the check wants a measured latency and a default-only one: the trace or table changed')
if len(lines) != len(want_lines):
    bad(f'{len(lines)} retire-latency lines, want {len(want_lines)}')
scale = max(max(w[3] or 0, w[4]) for w in want_lines) if want_lines else 1
for n, (wh, metric, ev, m, d) in zip(lines, want_lines):
    a = n['attrs']
    got_m = float(a['data-retlat-measured']) if 'data-retlat-measured' in a else None
    got_d = float(a['data-retlat-default']) if 'data-retlat-default' in a else None
    if (a.get('data-metric'), a.get('data-event'), got_m, got_d) != (metric, ev, m, d):
        bad(f'{wh} {metric} line {a.get("data-metric")} {a.get("data-event")} {got_m} {got_d}, '
            f'want {ev} measured {m} default {d}')
        continue
    text = f'measured {"-" if m is None else f"{m:.1f}"} / default {d:.1f}'
    if n['texts'].get('mrl') != text:
        bad(f'{metric} {ev}: the chart prints {n["texts"].get("mrl")!r}, want {text!r}')
    if abs(n['rects'].get('rlm', -1) - BAR_W * (m or 0) / scale) > 0.06 or \
       abs(n['rects'].get('rld', -1) - BAR_W * d / scale) > 0.06:
        bad(f'{metric} {ev}: bars {n["rects"]}, want measured {BAR_W * (m or 0) / scale:.1f} '
            f'default {BAR_W * d / scale:.1f}')
for f in fails:
    print('FAIL:', f)
if not fails:
    print(f'ok: {len(nodes)} metrics and {len(lines)} retire-latency lines equal '
          'pmutrace metrics, the table\'s tree, calibrate and the event table')
sys.exit(1 if fails else 0)
