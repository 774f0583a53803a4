#!/usr/bin/env python3
"""Mask the --topdown columns that read duration_time in perf 7.3's and pmutrace's raw
stat outputs, and check those columns' values against each other.

    mask_duration.py PERF_RAW PMT_RAW METRIC...

The metrics that divide by the wall-clock duration (tma_info_system_core_frequency reads
duration_time, perf's tool event, which runs from its open) differ run to run, so their
cells are replaced by X in PERF_RAW.masked and PMT_RAW.masked (the caller compares the
rest byte for byte). The masked cells of the first interval (or of the run) are checked
instead: each is a count divided by one duration, so perf's value over pmutrace's is the
same ratio (the durations' inverse) in every cell, within the rounding of one decimal, and
that ratio is within a factor 50 (perf's runs, the opens' time on a loaded machine, differ
by up to 2.5, and a 150 ms interval of one tool against the other's came out 0.19 at load
8; a duration in the wrong unit would be off by 1e3 or more, a missing value fails the
first check). Exit 1 on a mismatch, with a line naming the column and both values."""
import re
import sys

TIME_RE = re.compile(r'^\s*(\d+\.\d{9})[ ,]')
JSON_TIME_RE = re.compile(r'"interval" : ([0-9.]+)')


def line_time(line):
    m = TIME_RE.match(line) or JSON_TIME_RE.search(line)
    return m.group(1) if m else None


def mask(path, cols):
    """the masked text and the first interval's cells: [(line number, column, value)]"""
    lines = open(path).read().split('\n')
    cells, heads, csv_idx, sep = [], None, None, ','
    first = None
    duration = None
    for i, line in enumerate(lines):
        m = re.search(r'([0-9.]+) seconds time elapsed', line)
        if m:
            duration = float(m.group(1))
        t = line_time(line)
        if t is not None and first is None:
            first = t
            duration = float(t)
        keep = t is None or t == first
        if line.startswith('{'):
            for c in cols:
                pat = re.compile('("' + re.escape(c) + '" : )"([^"]*)"')
                mm = pat.search(line)
                if mm:
                    if keep:
                        cells.append((c, mm.group(2)))
                    line = pat.sub(r'\1"X"', line)
            lines[i] = line
            continue
        if all(c in line for c in cols) and sep in line:
            fields = line.split(sep)
            csv_idx = [fields.index(c) for c in cols]
            continue
        if csv_idx is not None:
            fields = line.split(sep)
            for c, k in zip(cols, csv_idx):
                if k < len(fields):
                    if keep:
                        cells.append((c, fields[k]))
                    fields[k] = 'X'
            lines[i] = sep.join(fields)
            continue
        if all(c in line for c in cols):
            # text: each head ends its column, a value is right-aligned in it
            heads = [(m.group(0), m.end()) for m in re.finditer(r'%  \S+', line)]
            continue
        if heads and line.strip() and 'seconds' not in line:
            # a value line: its last tokens are the columns' values, one each (a blank
            # cell leaves one short: nothing is masked, the cell counts then differ)
            toks = list(re.finditer(r'\S+', line))
            if len(toks) < len(heads):
                continue
            chars = list(line)
            for (name, _), m in zip(heads, toks[len(toks) - len(heads):]):
                if name in cols:
                    if keep:
                        cells.append((name, m.group(0)))
                    # right-aligned as the value was: 9.9 and 10.1 mask alike
                    chars[m.start():m.end()] = ' ' * (m.end() - m.start() - 1) + 'X'
            lines[i] = ''.join(chars)
    return '\n'.join(lines), cells, duration


def closest(heads, pos):
    """the head whose column a value ending at pos is in: the first head ending at or
    after it (the values end left of their heads' ends)"""
    for name, end in heads:
        if end >= pos:
            return name
    return None


def number(s):
    try:
        return float(s)
    except ValueError:
        return None


def main():
    # the columns as perf heads them: a ScaleUnit's '%', two spaces, the metric
    perf_raw, pmt_raw, cols = sys.argv[1], sys.argv[2], ['%  ' + c for c in sys.argv[3:]]
    out = {}
    for p in (perf_raw, pmt_raw):
        out[p] = mask(p, cols)
        with open(p + '.masked', 'w') as f:
            f.write(out[p][0])
    pc, mc = out[perf_raw][1], out[pmt_raw][1]
    if len(pc) != len(mc) or not pc:
        print(f'FAIL: {len(pc)} duration cells from perf 7.3, {len(mc)} from pmutrace')
        return 1
    # every cell is a count over the duration: perf's / pmutrace's is one ratio (their
    # durations' inverse), taken from the largest value
    pairs = [(n, a, b, number(a), number(b)) for (n, a), (_, b) in zip(pc, mc)]
    nums = [(x, y) for _, _, _, x, y in pairs if x is not None and y is not None and y]
    big = max(nums, key=lambda p: abs(p[1]), default=None)
    ratio = big[0] / big[1] if big else 1
    bad = 0
    for name, a, b, x, y in pairs:
        if x is None or y is None:
            ok = a == b
        else:
            # one decimal printed: each value within 0.05 of its true one
            ok = abs(x - ratio * y) <= 0.06 * (1 + ratio) + 0.01 * abs(x)
        if not ok:
            print(f'FAIL: {name}: perf 7.3 {a!r}, pmutrace {b!r} (perf/pmutrace {ratio:.3f} '
                  'elsewhere: one duration divides every cell)')
            bad += 1
    if not 0.02 <= ratio <= 50:
        print(f'FAIL: the duration columns differ by {ratio:.3f}x (perf 7.3/pmutrace)')
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
