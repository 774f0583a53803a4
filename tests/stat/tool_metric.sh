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
	python3 "$SRC/tests/stat/tool_metric_check.py" counts "$T/out" "$T/m" "$o" ||
		fail=$((fail + 1))
	python3 "$SRC/tests/stat/mask_cpu_time.py" "$T/out" "$max" >"$T/why" ||
		{ echo "FAIL: $opts"; cat "$T/why"; fail=$((fail + 1)); }
done
# several grouped metrics reading them alone (CpuG: not reproduced, pmutrace's own metric
# lines after the counts): in -j every line JSON, each value the counts'
for o in -j -A_-j; do
	opts=$(echo "$o" | tr _ ' ')
	# shellcheck disable=SC2086
	"$P" stat --metrics "$T/t.json" -M CpuG -a $opts -- sh -c "$W" 2>"$T/out" >/dev/null
	python3 "$SRC/tests/stat/tool_metric_check.py" own "$T/out" - "$o" ||
		fail=$((fail + 1))
done
echo "$fail failed"
[ $fail = 0 ]
