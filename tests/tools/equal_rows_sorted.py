#!/usr/bin/env python3
"""Print a report --stdio text with the entries of equal percentages in one order.

perf 7.3 orders entries of equal Children and Self by inserting them one by one into its
output tree with a comparison that is not a total order (call-chain depth is compared
only within a thread), so their order depends on the insertion order; pmutrace prints a
total order. An entry is its line and the graph lines below it (with the blank line after them); a run of consecutive
entries whose percentage columns are equal is printed sorted by its text, everything else
as it is, so two reports that differ in more than that order still differ.
    equal_rows_sorted.py REPORT
"""
import re
import sys

ENTRY = re.compile(r'^ +(?:[0-9.]+% +)+')


def blocks(lines):
    out, cur = [], None
    for line in lines:
        if ENTRY.match(line):
            cur = [line]
            out.append(('entry', cur))
        elif cur is not None and line.strip() and not line.startswith('#'):
            cur.append(line)
        elif cur is not None and not line.strip() and len(cur) > 1:
            cur.append(line)  # the blank line that ends an entry's graph
            cur = None
        else:
            cur = None
            out.append(('text', [line]))
    return out


def main():
    with open(sys.argv[1], encoding='utf-8', errors='replace') as f:
        bl = blocks(f.read().split('\n'))
    i = 0
    res = []
    while i < len(bl):
        kind, b = bl[i]
        if kind != 'entry':
            res.append(b)
            i += 1
            continue
        key = ENTRY.match(b[0]).group(0)
        j = i
        run = []
        while j < len(bl) and bl[j][0] == 'entry' and ENTRY.match(bl[j][1][0]).group(0) == key:
            run.append(bl[j][1])
            j += 1
        res.extend(sorted(run))
        i = j
    sys.stdout.write('\n'.join(line for b in res for line in b))


main()
