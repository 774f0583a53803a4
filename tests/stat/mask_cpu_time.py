#!/usr/bin/env python3
"""Mask perf's user_time and system_time tool events in a stat output (text, -x or -j).

    mask_cpu_time.py FILE MAX_NS

Their counts are CPU time in ns from /proc/stat (per CPU with -a) or /proc/PID/stat, which
differ run to run: each is replaced by N in FILE.masked so that the caller compares the
rest byte for byte. Each count is checked first: a whole number of clock ticks (ns per
tick from `getconf CLK_TCK`) and at most MAX_NS (the run's wall-clock time times the
CPUs); the lines of units without CPU 0 are then dropped (see OTHER_UNIT). Prints a
FAIL line and exits 1 otherwise, or when no such line is there."""
import os
import re
import sys

from mask_tool_event import write_masked

NAME = r'(?:tool/(?:user|system)_time/|user_time|system_time)'
# text: the padding before the count too, which its number of digits sets (a CPU's
# system_time of 0 or of 20000000 ns)
TEXT = re.compile(r'(\s+)(\d+)(\s+' + NAME + r'\s)')
CSV = re.compile(r'(^|,)(\d+)(,,' + NAME + r',)')
# perf 7.3 leaves out a tool event's line when its count is 0 on a unit without CPU 0
# (should_skip_zero_counter()), as pmutrace does: whether an idle CPU's or core's count is
# 0 differs run to run, so such units' lines are checked, then dropped
OTHER_UNIT = re.compile(r'^\s*(?:CPU[1-9]\d*|S\d+-D\d+-C[1-9]\d*)[ ,]|"(?:cpu" : "[1-9]|core" : "S\d+-D\d+-C[1-9])')
JSON = re.compile(r'("counter-value" : ")(\d+)\.000000(", "unit" : "", "event" : "' + NAME + '")')


def main():
    path, max_ns = sys.argv[1], int(sys.argv[2])
    tick = 10**9 // os.sysconf('SC_CLK_TCK')
    out, bad, seen = [], 0, 0
    for line in open(path).read().split('\n'):
        m = (JSON.search(line) if line.startswith('{') else
             CSV.search(line) if ',' in line else TEXT.search(line))
        if m:
            seen += 1
            ns = int(m.group(2))
            if ns % tick or ns > max_ns:
                print(f'FAIL: {ns} ns (tick {tick} ns, at most {max_ns}): {line.strip()}')
                bad += 1
            a, b = m.span(2)
            if m.re is TEXT:
                a = m.start(1)
            line = line[:a] + (' N' if m.re is TEXT else 'N') + line[b:]
            if OTHER_UNIT.search(line):
                continue
        out.append(line)
    return write_masked(path, out, seen, bad, 'user_time or system_time')


if __name__ == '__main__':
    sys.exit(main())
