#!/bin/sh
# -M of metrics reading perf's tool events user_time and system_time (issue 11, item 5), from
# a --metrics table the test makes (perf 7.3's own tables have no such metric, so there is
# no perf output to compare): stat -a -j (the total and -A) opens the tool events after
# the metrics' other events in perf's tool PMU order (user_time before system_time, as
# metricgroup.c's metricgroup__build_event_string() appends them, whatever order the
# formula names them in), each metric's value is the counts printed in the same output
# (user_secs = user_time / 1e9, sys_per_user = system_time / user_time, on each CPU with
# -A), those counts are whole clock ticks and at most the run's time times the CPUs
# (tests/stat/mask_cpu_time.py), and `metrics FILE` on the run's -o recording computes the
# same values; several grouped metrics reading them alone (whose layout pmutrace does not
# reproduce) print their own metric lines after the counts, in -j as JSON.
#   tool_metric.sh PMUTRACE SOURCE_DIR
set -u
P=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/t.json" <<'EOF'
[
  {"MetricName": "sys_per_user", "MetricExpr": "system_time / user_time",
   "MetricGroup": "Cpu", "MetricgroupNoGroup": "Cpu"},
  {"MetricName": "user_secs", "MetricExpr": "user_time / 1e9", "ScaleUnit": "1s",
   "MetricGroup": "Cpu", "MetricgroupNoGroup": "Cpu"},
  {"MetricName": "user_secs_g", "MetricExpr": "user_time / 1e9", "ScaleUnit": "1s",
   "MetricGroup": "CpuG"},
  {"MetricName": "user_share_g", "MetricExpr": "user_time / (user_time + system_time)",
   "ScaleUnit": "100%", "MetricGroup": "CpuG"}
]
EOF
# shellcheck disable=SC2016
W='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
fail=0
for o in -j -A_-j; do
	opts=$(echo "$o" | tr _ ' ')
	rm -f "$T/f.pmt"
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	"$P" stat --metrics "$T/t.json" -M Cpu -a $opts -o "$T/f.pmt" -- sh -c "$W" \
		2>"$T/out" >/dev/null || { echo "FAIL: stat $opts: $(cat "$T/out")"; fail=$((fail + 1)); }
	max=$((($(date +%s%N) - t0) * $(nproc)))
	"$P" metrics "$T/f.pmt" --metrics "$T/t.json" -M Cpu --csv >"$T/m" 2>&1 ||
		{ echo "FAIL: metrics FILE ($opts): $(cat "$T/m")"; fail=$((fail + 1)); }
	python3 - "$T/out" "$T/m" "$o" <<'EOF' || fail=$((fail + 1))
import csv, json, sys
out, mcsv, opt = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(l) for l in open(out) if l.startswith('{')]
units, bad = {}, []
for r in rows:
    u = units.setdefault(r.get('cpu', ''), {'order': []})
    ev = r['event'].replace('tool/', '').rstrip('/')
    u['order'].append(ev)
    u[ev] = float(r['counter-value'])
    if 'metric-value' in r:
        u[r['metric-unit'].split()[-1]] = float(r['metric-value'])
for cpu, u in units.items():
    # a CPU's count of 0 has no -A line but on CPU 0 (perf's should_skip_zero_counter())
    u.setdefault('system_time', 0.0)
    u.setdefault('user_time', 0.0)
    if [e for e in u['order'] if e.endswith('_time')][:2] not in (['user_time', 'system_time'],
                                                                  ['user_time']):
        bad.append(f'CPU {cpu!r}: events opened {u["order"]}, perf: user_time, system_time')
    if u['user_time'] and ('user_secs' not in u or
                           abs(u['user_secs'] - u['user_time'] / 1e9) > 5e-7):
        bad.append(f'CPU {cpu!r}: user_secs {u.get("user_secs")} for user_time {u["user_time"]}')
    if u['system_time'] and u['user_time'] and (
            'sys_per_user' not in u or
            abs(u['sys_per_user'] - u['system_time'] / u['user_time']) > 5e-7):
        bad.append(f'CPU {cpu!r}: sys_per_user {u.get("sys_per_user")} for {u}')
# metrics FILE on the run's recording: the same values, per CPU for -A's
got = {}
for r in csv.DictReader(open(mcsv)):
    got.setdefault(r['aggr'].replace('CPU', ''), {})[r['metric']] = float(r['value'])
if set(got) != set(units):
    bad.append(f'metrics FILE: units {sorted(got)}, stat printed {sorted(units)}')
for cpu, u in units.items():
    g = got.get(cpu, {})
    if abs(g.get('user_secs', -1) - u['user_time'] / 1e9) > 5e-7:
        bad.append(f'metrics FILE, CPU {cpu!r}: user_secs {g.get("user_secs")} for {u}')
    if u['user_time'] and abs(g.get('sys_per_user', -1) -
                              u['system_time'] / u['user_time']) > 5e-6:
        bad.append(f'metrics FILE, CPU {cpu!r}: sys_per_user {g.get("sys_per_user")} for {u}')
if not units:
    bad.append('no count printed')
for b in bad:
    print(f'FAIL ({opt}): {b}')
sys.exit(1 if bad else 0)
EOF
	python3 "$SRC/tests/stat/mask_cpu_time.py" "$T/out" "$max" >"$T/why" ||
		{ echo "FAIL: $opts"; cat "$T/why"; fail=$((fail + 1)); }
done
# several grouped metrics reading them alone (CpuG: not reproduced, pmutrace's own metric
# lines after the counts): in -j every line JSON, each value the counts'
for o in -j -A_-j; do
	opts=$(echo "$o" | tr _ ' ')
	# shellcheck disable=SC2086
	"$P" stat --metrics "$T/t.json" -M CpuG -a $opts -- sh -c "$W" 2>"$T/out" >/dev/null
	python3 - "$T/out" "$o" <<'EOF' || fail=$((fail + 1))
import json, sys
counts, metrics, bad = {}, {}, []
for line in open(sys.argv[1]).read().split('\n'):
    if not line.strip():
        continue
    try:
        r = json.loads(line)
    except ValueError:
        bad.append(f'not JSON: {line}')
        continue
    unit = r.get('cpu', r.get('aggr', '').replace('CPU', ''))
    if 'event' in r:
        counts.setdefault(unit, {})[r['event'].replace('tool/', '').rstrip('/')] = \
            float(r['counter-value'])
    else:
        metrics.setdefault(unit, {})[r['metric-unit'].split()[-1]] = float(r['metric-value'])
for unit, m in metrics.items():
    c = counts.get(unit, {})
    u, s = c.get('user_time', 0.0), c.get('system_time', 0.0)
    if abs(m.get('user_secs_g', -1) - u / 1e9) > 5e-7:
        bad.append(f'{unit!r}: user_secs_g {m} for {c}')
    if u and abs(m.get('user_share_g', -1) - 100 * u / (u + s)) > 5e-5:
        bad.append(f'{unit!r}: user_share_g {m} for {c}')
if not metrics:
    bad.append('no metric printed')
for b in bad:
    print(f'FAIL ({sys.argv[2]}, -M CpuG): {b}')
sys.exit(1 if bad else 0)
EOF
done
echo "$fail failed"
[ $fail = 0 ]
