#!/bin/sh
# Issue 11: counting events recorded beside the samples on the real kernel (software
# events): `pmutrace record --count-events` keeps perf stat record's records in the
# recording's stream. Checks:
#  1. system-wide with rounds (--count-interval): perf 6.1 and 7.3 script still read every
#     sample (as many cpu-clock samples as pmutrace info counts); perf 7.3's stat report
#     reads the rounds, whose cumulative task-clock is the CPUs' time since the start (the
#     counters ran on every CPU all along); pmutrace metrics TRACE's context switches per
#     msec of each interval equal the deltas of perf 7.3's reading of the same records
#     (to perf's printed precision);
#  2. a workload: the counters follow it from its exec (enable_on_exec, inherited by its
#     children): its task-clock is the time its cpu-clock samples cover (samples x period),
#     and perf 6.1 and 7.3 stat report read the task-clock pmutrace metrics reads.
#   kernel_counts.sh PMUTRACE METRICS_DIR [PERF73]
set -u
P=$1 MD=$2 P73=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v zstd >/dev/null || { echo "SKIP: no zstd"; exit 77; }

# 1. system-wide, a round every 100 ms
"$P" record -q -e cpu-clock -a --count-events '{task-clock,context-switches},page-faults' \
	--count-interval 100 --duration 1 -o "$T/a.pmt" 2>"$T/err"
rc=$?
if [ $rc != 0 ]; then
	if grep -q "no permission\|not supported\|Function not implemented\|paranoid" "$T/err"; then
		echo "SKIP: system-wide perf_event_open is not allowed here: $(head -1 "$T/err")"
		exit 77
	fi
	bad "record -a --count-events exited $rc: $(cat "$T/err")"
fi
n=$("$P" info "$T/a.pmt" | sed -n 's/.*cpu-clock: \([0-9]*\) samples.*/\1/p')
[ "${n:-0}" -gt 100 ] || bad "record -a: ${n:-no} cpu-clock samples"
for perf in perf "$P73"; do
	[ -n "$perf" ] && [ -x "$(command -v "$perf")" ] || continue
	got=$(zstd -dc "$T/a.pmt" | "$perf" script -i - -F event 2>/dev/null | grep -c ' *cpu-clock:')
	[ "$got" = "$n" ] || bad "$perf script reads $got cpu-clock samples of $n"
done
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ -n "$P73" ] && [ -x "$P73" ]; then
	zstd -dc "$T/a.pmt" | "$P73" stat -x, report -i - >"$T/rep.csv" 2>&1
	rounds=$(grep -c ',task-clock,' "$T/rep.csv")
	[ "$rounds" -ge 5 ] && [ "$rounds" -le 11 ] ||
		bad "perf 7.3 stat report: $rounds rounds of counts in 1 s at 100 ms: $(head -3 "$T/rep.csv")"
	# time,msec,unit,event,...: task-clock counts time on every CPU from the start
	awk -F, -v n="$ncpu" '$4 == "task-clock" { want = n * $1 * 1000
		if ($2 < 0.9 * want || $2 > 1.1 * want) { print "at " $1 " s: " $2 " msec, want ~" want; bad = 1 } }
		END { exit bad }' "$T/rep.csv" >"$T/tc.txt" ||
		bad "task-clock is not $ncpu CPUs' time since the start: $(head -3 "$T/tc.txt")"
	# perf prints the cumulative counts of each round; the metric is of the interval
	awk -F, '$4 == "task-clock" { tc = $2 } $4 == "context-switches" { cs = $2
		printf "%s %.4f %.2f\n", $1, (cs - pcs) / (tc - ptc), tc - ptc; pcs = cs; ptc = tc }' \
		"$T/rep.csv" >"$T/cs_want.txt"
	"$P" metrics "$T/a.pmt" --metrics "$MD/tiny-metrics.json" -M cs_per_msec --csv 2>"$T/err" |
		awk -F, 'NR > 1 { printf "%s %.4f\n", $1, $5 }' >"$T/cs.txt"
	# perf prints msec to 2 decimals: the ratio of an interval of D msec is as close as
	# 0.01 / D of itself (a short last interval's less), and printed to 4 decimals
	[ -s "$T/cs.txt" ] && paste -d' ' "$T/cs_want.txt" "$T/cs.txt" | awk '
		{ d = $2 - $5; if (d < 0) d = -d }
		$1 != $4 || d > 0.011 / $3 * $2 + 0.0002 { bad = 1 }
		END { exit bad + (NR < 5) }' ||
		{ bad "metrics TRACE cs_per_msec per interval (perf 7.3's counts < > pmutrace)"; paste -d" " "$T/cs_want.txt" "$T/cs.txt"; cat "$T/err"; }
fi

# 2. a workload: its task-clock from its exec, its children's included
loop='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
"$P" record -q -e cpu-clock -c 100000 --count-events task-clock,page-faults -o "$T/w.pmt" \
	-- sh -c "$loop & $loop; wait" 2>"$T/err" || bad "record --count-events -- CMD: $(cat "$T/err")"
printf '[{"MetricName": "tc", "MetricExpr": "task\\\\-clock", "ScaleUnit": "1msec"}]\n' >"$T/tc.json"
tc=$("$P" metrics "$T/w.pmt" --metrics "$T/tc.json" -M tc --csv 2>"$T/err" |
	awk -F, '$4 == "tc" { print $5 }')
ns=$("$P" info "$T/w.pmt" | sed -n 's/.*cpu-clock: \([0-9]*\) samples.*/\1/p')
# each cpu-clock sample is 0.1 ms of the workload's CPU time
awk -v tc="${tc:-0}" -v ns="${ns:-0}" 'BEGIN { want = ns * 0.1
	exit !(ns > 100 && tc > 0.85 * want && tc < 1.15 * want) }' ||
	bad "workload: task-clock ${tc:-none} msec, but $ns cpu-clock samples of 0.1 ms: $(cat "$T/err")"
# perf 6.1 and 7.3 stat report read the workload's counts as pmutrace metrics does
for perf in perf "$P73"; do
	[ -n "$perf" ] && [ -x "$(command -v "$perf")" ] || continue
	ptc=$(zstd -dc "$T/w.pmt" | "$perf" stat -x, report -i - 2>&1 | awk -F, '$3 == "task-clock" { print $1 }')
	awk -v a="${ptc:-0}" -v b="${tc:-1}" 'BEGIN { d = a - b; exit !(d < 0.006 && d > -0.006) }' ||
		bad "$perf stat report of the workload recording: task-clock ${ptc:-none} msec, pmutrace metrics ${tc:-none}"
done
[ "$fail" = 0 ] || exit 1
echo "OK: $n samples read by perf as recorded beside $rounds rounds of counts; workload task-clock $tc msec for $ns samples of 0.1 ms"
