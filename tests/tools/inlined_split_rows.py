#!/usr/bin/env python3
"""Compare two report --stdio texts (-g none) whose only allowed difference is perf's
entries of one inlined function and line kept apart.

perf compares an inlined function's symbol by its name and, for equal names, by whether
its holding function's range touches the other's (sort.c _sort__sym_cmp, ends included),
and other symbols by their start: not a total order, so with the sym key its entry tree
(hists__findnew_entry) and its merge tree (hists__collapse_resort) can miss an equal entry
and print one "NAME (inlined)  FILE:LINE" in more rows than pmutrace, which merges them.
So: the same texts (the key columns) on both sides; the rows of a text both print as
often are equal (more than one: entries of other symbols that print alike); a text perf
prints more often is an inlined one, with the same sum of shares on both sides (each
rounded to 2 decimals). Prints how many texts perf split; exits 1 on any other difference.
    inlined_split_rows.py PERF_REPORT PMUTRACE_REPORT
"""
import re
import sys

ROW = re.compile(r'^ +((?:[0-9.]+% +)+)(\S.*)$')


def rows(path):
    out = {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = ROW.match(line.rstrip('\n'))
            if not m:
                continue
            shares = [float(x) for x in m.group(1).replace('%', ' ').split()]
            out.setdefault(' '.join(m.group(2).split()), []).append(shares)
    return out


def main():
    theirs, ours = rows(sys.argv[1]), rows(sys.argv[2])
    bad, split = [], 0
    if not theirs:
        bad.append('no entries in %s' % sys.argv[1])
    for text in sorted(set(theirs) | set(ours)):
        t, o = theirs.get(text, []), ours.get(text, [])
        if not o or not t:
            bad.append('%s: perf %d rows, pmutrace %d' % (text, len(t), len(o)))
        elif len(t) == len(o):
            # entries of other symbols that print alike (a .plt stub of two files)
            if sorted(t) != sorted(o):
                bad.append('%s: perf %s, pmutrace %s' % (text, sorted(t), sorted(o)))
        elif '(inlined)' not in text or len(t) < len(o):
            bad.append('%s: perf %d rows, pmutrace %d' % (text, len(t), len(o)))
        else:
            split += 1
            for col in range(len(o[0])):
                total = sum(r[col] for r in t)
                mine = sum(r[col] for r in o)
                if abs(total - mine) > 0.005 * (len(t) + len(o)) + 1e-9:
                    bad.append('%s: perf %.2f in %d rows, pmutrace %.2f in %d' %
                               (text, total, len(t), mine, len(o)))
    for b in bad[:20]:
        print(b)
    print('%d texts perf printed more than once (inlined), %d differences' % (split, len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
