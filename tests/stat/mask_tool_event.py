#!/usr/bin/env python3
"""Mask perf's duration_time tool event in a stat output (text, -x, or -j) and check it.

    mask_tool_event.py FILE

duration_time counts the wall-clock nanoseconds from its open, which differ run to run: its
count, and the value of a metric shown on its line (tma_info_system_time, duration_time in
seconds), are replaced by N in FILE.masked so that the caller compares the rest byte for
byte. Each masked line is checked first: the count a whole number of nanoseconds, at least
1 ms and below 60 s (the runs take 0.2 s), and the metric the count in seconds, within its
printed rounding. Prints a FAIL line and exits 1 otherwise."""
import re
import sys

NAME = r'(?:tool/duration_time/|duration_time)'
TEXT = re.compile(r'(\s)(\d+)(\s+' + NAME + r'\s+)(?:#\s+([0-9.]+) tma_info_system_time)?')
CSV = re.compile(r'(^|,)(\d+)(,,' + NAME + r',[^,]*,[^,]*,)([0-9.]*)')
JSON = re.compile(r'("counter-value" : ")([0-9.]+)(", "unit" : "", "event" : "' + NAME +
                  r'".*?)("metric-value" : "([0-9.]+)"|$)')


def check(count, metric, digits):
    ns = float(count)
    if not 1e6 <= ns < 6e10 or ns != int(ns):
        return f'duration_time counted {count} ns'
    if metric:
        if abs(float(metric) - ns / 1e9) > 0.5 * 10 ** -digits + 1e-9:
            return f'tma_info_system_time {metric} for duration_time {count} ns'
    return None


def main():
    path = sys.argv[1]
    out, bad, seen = [], 0, 0
    for line in open(path).read().split('\n'):
        m = (JSON.search(line) if line.startswith('{') else
             CSV.search(line) if ',' in line else TEXT.search(line))
        if m and 'duration_time' in line:
            seen += 1
            metric = m.group(5) if line.startswith('{') else m.group(4)
            # text: %8.2f; -x and -j: as perf prints them (6 decimals in -j)
            digits = 2 if not line.startswith('{') and ',' not in line else \
                len(metric.split('.')[1]) if metric and '.' in metric else 0
            why = check(m.group(2), metric, digits)
            if why:
                print(f'FAIL: {why}: {line.strip()}')
                bad += 1
            a, b = m.span(2)
            line = line[:a].rstrip(' ') + (' ' if a and line[a - 1] == ' ' else '') + 'N' + \
                line[b:]
            if metric:
                line = line.replace(metric, 'N', 1)
        out.append(line)
    return write_masked(path, out, seen, bad, 'duration_time')


def write_masked(path, out, seen, bad, what):
    """FILE.masked from the kept lines; the exit status (a FAIL line when no line of
    WHAT was seen). Shared with mask_cpu_time.py."""
    with open(path + '.masked', 'w') as f:
        f.write('\n'.join(out))
    if not seen:
        print(f'FAIL: no {what} line in {path}')
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
