#!/usr/bin/env python3
"""Check stat -j output of metrics reading user_time and system_time (tests/stat/tool_metric.sh).

    tool_metric_check.py counts OUT METRICS_CSV LABEL
    tool_metric_check.py own OUT - LABEL

counts: the Cpu group (perf's layout: each metric on its event's line) of OUT, a stat -j
or -A -j output: user_time opened before system_time (perf's tool PMU order), user_secs =
user_time / 1e9 and sys_per_user = system_time / user_time on each line's unit, and
METRICS_CSV (metrics FILE --csv on the run's recording) the same values per unit.
own: the CpuG group (pmutrace's own metric lines after the counts): every line JSON,
user_secs_g and user_share_g the unit's counts'. Prints a FAIL line per difference and
exits 1 when there is one."""
import csv
import json
import sys


def event_name(r):
    """-A names the tool events tool/NAME/"""
    return r['event'].replace('tool/', '').rstrip('/')


def metric_name(r):
    """the metric-unit's last word: "s  user_secs" is user_secs"""
    return r['metric-unit'].split()[-1]


def check_counts(out, mcsv):
    units, bad = {}, []
    for line in open(out):
        if not line.startswith('{'):
            continue
        r = json.loads(line)
        u = units.setdefault(r.get('cpu', ''), {'order': []})
        u['order'].append(event_name(r))
        u[event_name(r)] = float(r['counter-value'])
        if 'metric-value' in r:
            u[metric_name(r)] = float(r['metric-value'])
    for cpu, u in units.items():
        # a CPU's count of 0 has no -A line but on CPU 0 (perf's should_skip_zero_counter())
        u.setdefault('system_time', 0.0)
        u.setdefault('user_time', 0.0)
        if [e for e in u['order'] if e.endswith('_time')][:2] not in (
                ['user_time', 'system_time'], ['user_time']):
            bad.append(f'CPU {cpu!r}: events opened {u["order"]}, perf: user_time, system_time')
        if u['user_time'] and ('user_secs' not in u or
                               abs(u['user_secs'] - u['user_time'] / 1e9) > 5e-7):
            bad.append(f'CPU {cpu!r}: user_secs {u.get("user_secs")} for {u}')
        if u['system_time'] and u['user_time'] and (
                'sys_per_user' not in u or
                abs(u['sys_per_user'] - u['system_time'] / u['user_time']) > 5e-7):
            bad.append(f'CPU {cpu!r}: sys_per_user {u.get("sys_per_user")} for {u}')
    # metrics FILE on the run's recording: the same values, per CPU for -A's
    got = {}
    for r in csv.DictReader(open(mcsv)):
        got.setdefault(r['aggr'].replace('CPU', ''), {})[r['metric']] = float(r['value'])
    # a CPU but 0 whose counts were all 0 has no -A line at all (perf's rule, above), but
    # metrics FILE computes its metrics (a user_secs of 0)
    for cpu in sorted(set(got) - set(units)):
        if cpu == '0' or got[cpu].get('user_secs', -1) != 0:
            bad.append(f'metrics FILE: unit {cpu!r} ({got[cpu]}), stat printed '
                       f'{sorted(units)}')
    if set(units) - set(got):
        bad.append(f'metrics FILE: units {sorted(got)}, stat printed {sorted(units)}')
    for cpu, u in units.items():
        g = got.get(cpu, {})
        if abs(g.get('user_secs', -1) - u['user_time'] / 1e9) > 5e-7:
            bad.append(f'metrics FILE, CPU {cpu!r}: user_secs {g.get("user_secs")} for {u}')
        if u['user_time'] and abs(g.get('sys_per_user', -1) -
                                  u['system_time'] / u['user_time']) > 5e-6:
            bad.append(f'metrics FILE, CPU {cpu!r}: sys_per_user {g.get("sys_per_user")} '
                       f'for {u}')
    return bad + ([] if units else ['no count printed'])


def check_own(out):
    counts, metrics, bad = {}, {}, []
    for line in open(out).read().split('\n'):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except ValueError:
            bad.append(f'not JSON: {line}')
            continue
        unit = r.get('cpu', r.get('aggr', '').replace('CPU', ''))
        if 'event' in r:
            counts.setdefault(unit, {})[event_name(r)] = float(r['counter-value'])
        else:
            metrics.setdefault(unit, {})[metric_name(r)] = float(r['metric-value'])
    for unit, m in metrics.items():
        c = counts.get(unit, {})
        u, s = c.get('user_time', 0.0), c.get('system_time', 0.0)
        if abs(m.get('user_secs_g', -1) - u / 1e9) > 5e-7:
            bad.append(f'{unit!r}: user_secs_g {m} for {c}')
        if u and abs(m.get('user_share_g', -1) - 100 * u / (u + s)) > 5e-5:
            bad.append(f'{unit!r}: user_share_g {m} for {c}')
    return bad + ([] if metrics else ['no metric printed'])


def main():
    mode, out, mcsv, label = sys.argv[1:5]
    bad = check_counts(out, mcsv) if mode == 'counts' else check_own(out)
    for b in bad:
        print(f'FAIL ({label}, {mode}): {b}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
