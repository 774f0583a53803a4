#!/bin/sh
# stat --per-thread (issue 11) on the real kernel against x86 perf 7.3, with one process of
# known work (tests/stat/thread_work.c: threads pt-work-K, each round faults 64 * (K + 1)
# fresh pages and spins 50 ms of CPU) counted by both tools in turn:
#   -p PID, -t TID: the whole output, numbers masked, in text, -x, -j and -I;
#   -a (every thread of /proc): the fixture's rows equal, the rows in /proc's order (ls -f,
#   as perf's thread map reads it), no row of 0 (perf leaves them out);
#   both: each worker's page-faults 64 * (K + 1) (+ at most 4: a stack page) and its
#   task-clock near the 50 ms it spun (at least 40: task-clock and the thread CPU clock it
#   spins on account a little apart under load); -o: perf 7.3's `stat report` of pmutrace's
#   container prints the rows pmutrace printed live, numbers and all, and pmutrace metrics
#   of it a row per thread equal to the ratio of perf's report's numbers;
#   a soft open-files limit below the counters' number raised, as perf raises it;
#   a workload or -C without -a: perf's message, exit 129.
#   per_thread.sh PMUTRACE PERF73 SOURCE_DIR
set -u
P=$1 X=${2:-} SRC=$3
HERE=$(cd "$(dirname "$0")" && pwd)
[ -n "$X" ] && [ -x "$X" ] || { echo "SKIP: x86 perf 7.3 oracle not built (tests/oracles/setup)"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler for the fixture"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 masks the numbers"; exit 77; }
T=$(mktemp -d)
W=
trap '[ -n "$W" ] && kill $W 2>/dev/null; rm -rf "$T"' EXIT
fail=0 n=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
. "$HERE/stat_mask.sh"
if ! "$P" stat -e task-clock -- true 2>"$T/err"; then
	grep -q "no permission" "$T/err" && { echo "SKIP: perf_event_open not allowed: $(cat "$T/err")"; exit 77; }
fi
cc -O2 -pthread -o "$T/tw" "$HERE/thread_work.c" || exit 1
"$T/tw" 3 >"$T/ready" &
W=$!
for i in $(seq 100); do grep -q ready "$T/ready" && break; sleep 0.1; done
grep -q ready "$T/ready" || { bad "the fixture did not start"; exit 1; }
TIDS=$(ls /proc/$W/task | sort -n)
W1=$(echo "$TIDS" | sed -n 3p) # pt-work-1
# the fixture's own rows, by thread id: -a counts every thread of the system, another run
# of this test's fixture too (its threads have the same names: two runs at once differed)
MINE="(pt-work-[0-9]|tw)-($(echo "$TIDS" | paste -sd'|'))([ ,\"]|\$)"
EV=page-faults,task-clock,context-switches

# one counting run: the workload starts the fixture's round, so the work is counted
# (both tools enable their counters before they start the workload; a round started at a
# fixed 0.6 s came before the counters of -a under load and ASan), waits for the round to
# be done and lasts at least 1.5 s (-I 400 compares three intervals)
rounds=0
count() { # OUT TOOL ARGS...
	out=$1
	shift
	rounds=$((rounds + 1))
	"$@" -- sh -c "kill -USR1 $W; sleep 1.5; i=0; until grep -q '^round $rounds done' '$T/ready' || [ \$i -ge 600 ]; do sleep 0.1; i=\$((i + 1)); done" \
		2>"$out" >/dev/null
}

# the rows' known work: page-faults and task-clock of each worker (text, -x and -j rows)
work_ok() { # FILE WHAT
	python3 - "$1" "$W" $TIDS <<'EOF' || bad "$2: $(cat "$1")"
import re, sys
rows, mine = {}, set(sys.argv[3:])
for line in open(sys.argv[1]):
    m = (re.search(r'"thread" : "(pt-work-\d)-(\d+)", "counter-value" : "([0-9.]+)", "unit" : "[^"]*", "event" : "([a-z-]+)"', line)
         or re.search(r'(pt-work-\d)-(\d+),([0-9.]+),[^,]*,([a-z-]+),', line)
         or re.search(r'(pt-work-\d)-(\d+) +([0-9.]+) +(?:msec +)?([a-z-]+)', line))
    if m and m.group(2) in mine:
        rows[(m.group(1), m.group(4))] = float(m.group(3))
ok = len(rows) == 9
for k in range(3):
    pf, tc = rows.get(("pt-work-%d" % k, "page-faults"), -1), rows.get(("pt-work-%d" % k, "task-clock"), -1)
    if not (64 * (k + 1) <= pf <= 64 * (k + 1) + 4) or not (40 <= tc < 5000):
        print("pt-work-%d: page-faults %s (expected %d), task-clock %s msec (spun 50)" % (k, pf, 64 * (k + 1), tc))
        ok = False
sys.exit(0 if ok else 1)
EOF
}

# -p and -t: both outputs whole, masked
for opts in "-p $W" "-p $W -x," "-p $W -j" "-t $W1" "-t $W1 -x," "-p $W -I 400" "-p $W -I 400 -x,"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	count "$T/perf.raw" "$X" stat --per-thread $opts -e $EV
	# shellcheck disable=SC2086
	count "$T/pmt.raw" "$P" stat --per-thread $opts -e $EV || bad "stat --per-thread $opts: exit $?"
	m=mask
	case "$opts" in *-x* | *-j*) m=mask_plain ;; esac
	# the intervals' number depends on timing: the first three
	for f in perf pmt; do
		case "$opts" in *-I*) awk -F'[ ,]+' '/^#/ { print; next } { t = $1 == "" ? $2 : $1 } t != last { k++; last = t } k <= 3' "$T/$f.raw" ;;
		*) cat "$T/$f.raw" ;; esac | $m >"$T/$f.txt"
	done
	cmp -s "$T/perf.txt" "$T/pmt.txt" || { bad "stat --per-thread $opts differs from perf 7.3 (perf < > pmutrace):"; diff "$T/perf.txt" "$T/pmt.txt" | head -8; }
	case "$opts" in
	-p*-I*) ;;
	-p*) work_ok "$T/pmt.raw" "pmutrace --per-thread $opts"; work_ok "$T/perf.raw" "perf 7.3 --per-thread $opts (the fixture's work)" ;;
	-t*) [ "$(grep -c "pt-work-1-$W1" "$T/pmt.raw")" = 3 ] && [ "$(grep -c "pt-work-" "$T/pmt.raw")" = 3 ] ||
		bad "--per-thread $opts: not pt-work-1's rows alone: $(cat "$T/pmt.raw")" ;;
	esac
done

# -a: every thread of the system; rows of threads that did nothing are left out
ls -f /proc | grep '^[0-9]*$' | while read -r p; do ls -f /proc/$p/task 2>/dev/null | grep '^[0-9]*$'; done |
	awk '{ print $1, NR }' >"$T/order"
in_order() { # FILE WHAT: the first event's rows follow /proc's order (live threads)
	awk -v what="$2" 'NR == FNR { rank[$1] = $2; next }
		{ if (!match($0, /-[0-9]+[ ,"]/)) next; tid = substr($0, RSTART + 1, RLENGTH - 2) + 0 }
		/page-faults/ && (tid in rank) { if (rank[tid] < last) { print "FAIL: " what ": " tid " out of /proc order"; bad = 1 } last = rank[tid] }
		END { exit bad }' "$T/order" "$1" || fail=$((fail + 1))
}
for opts in "" "-x," "-j"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	count "$T/perf.raw" "$X" stat --per-thread -a $opts -e $EV
	# shellcheck disable=SC2086
	count "$T/pmt.raw" "$P" stat --per-thread -a $opts -e $EV || bad "stat --per-thread -a $opts: exit $?"
	m=mask
	[ -n "$opts" ] && m=mask_plain
	for f in perf pmt; do
		grep -E "$MINE" "$T/$f.raw" | $m >"$T/$f.txt"
		in_order "$T/$f.raw" "--per-thread -a $opts ($f)"
	done
	cmp -s "$T/perf.txt" "$T/pmt.txt" || {
		bad "the fixture's rows of stat --per-thread -a $opts differ from perf 7.3 (perf < > pmutrace):"
		diff "$T/perf.txt" "$T/pmt.txt" | head -8
		# unmasked, with each tool's line count and last line (an error?), and the rounds
		for f in perf pmt; do
			echo "$f: $(grep -c . "$T/$f.raw") lines, the last '$(tail -1 "$T/$f.raw")'"
			grep -E "$MINE" "$T/$f.raw" | head -12
		done
		echo "fixture (round $rounds): $(tail -2 "$T/ready" | tr '\n' ' ')"
	}
	work_ok "$T/pmt.raw" "pmutrace --per-thread -a $opts"
	grep -E '^ *[^ ]+-[0-9]+ +0 |,0,|"counter-value" : "0.000000"' "$T/pmt.raw" | grep -v "tw-$W" | head -3 | grep . &&
		bad "--per-thread -a $opts: rows of 0 printed"
	[ "$(grep -c . "$T/pmt.raw")" -gt 12 ] || bad "--per-thread -a $opts: only $(grep -c . "$T/pmt.raw") lines"
done

# more counters than the soft open-files limit: raised towards the hard one, as perf does
# (the workload's task-clock row is always there; its page-faults may be 0, a row left out)
n=$((n + 1))
if (ulimit -Sn 64 && "$X" stat --per-thread -a -e $EV -- true 2>"$T/perf.err" >/dev/null); then
	(ulimit -Sn 64 && exec "$P" stat --per-thread -a -e $EV -- true) 2>"$T/pmt.err" >/dev/null &&
		grep -q "task-clock" "$T/pmt.err" || bad "--per-thread -a under ulimit -Sn 64: $(tail -3 "$T/pmt.err")"
else
	echo "note: perf 7.3 failed under ulimit -Sn 64 too: $(tail -1 "$T/perf.err")"
fi

# -o: the counts kept are the counts printed
for opts in "-p $W" "-a"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	count "$T/live" "$P" stat --per-thread $opts -e $EV -o "$T/pt.ctr" || bad "stat --per-thread $opts -o: exit $?"
	zstd -dc "$T/pt.ctr" | "$X" stat report -i - 2>"$T/report" >/dev/null
	# perf's report prints the rows of 0 that -a leaves out live (it knows no -a)
	for f in live report; do grep -E "$MINE" "$T/$f" | grep -v " 0      page-faults" >"$T/$f.rows"; done
	[ -s "$T/live.rows" ] && cmp -s "$T/live.rows" "$T/report.rows" ||
		{ bad "--per-thread $opts -o: perf 7.3's stat report of the container differs from the live rows:"; diff "$T/live.rows" "$T/report.rows" | head -6; }
	# pmutrace metrics of the container: a row per thread, as perf's stat report has,
	# each worker's page-faults per msec of task-clock from perf's report's numbers (-p:
	# every thread ran; with -a the idle threads' rows are <not counted>, status 2)
	[ "$opts" = "-a" ] && continue
	n=$((n + 1))
	printf '%s\n' '[{"MetricName": "pf_per_ms", "MetricExpr": "page\\-faults / task\\-clock"}]' >"$T/m.json"
	"$P" metrics "$T/pt.ctr" --metrics "$T/m.json" >"$T/metrics" 2>"$T/metrics.err" ||
		bad "metrics of the --per-thread $opts container: exit $?: $(cat "$T/metrics.err")"
	python3 - "$T/report" "$T/metrics" <<'EOF' || bad "metrics of --per-thread $opts: $(cat "$T/metrics")"
import re, sys
pf, tc, got = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*(pt-work-\d-\d+)\s+([0-9.]+)\s+(msec\s+)?(page-faults|task-clock)", line)
    if m:
        (pf if m.group(4) == "page-faults" else tc)[m.group(1)] = float(m.group(2))
for line in open(sys.argv[2]):
    m = re.match(r"\s*(pt-work-\d-\d+)\s+pf_per_ms\s+([0-9.]+)", line)
    if m:
        got[m.group(1)] = float(m.group(2))
ok = len(pf) == 3 and set(got) == set(pf)
for k in pf:
    want = pf[k] / tc[k]
    if k not in got or abs(got[k] - want) > 2e-3 * want:
        print("%s: %s, perf's report gives %.5f" % (k, got.get(k), want))
        ok = False
sys.exit(0 if ok else 1)
EOF
done

# perf's refusals: the same first line, pmutrace's usage status
for opts in "-e task-clock -- true" "-C 0 -e task-clock -- true"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$X" stat --per-thread $opts >/dev/null 2>"$T/perf.err"
	# shellcheck disable=SC2086
	"$P" stat --per-thread $opts >/dev/null 2>"$T/pmt.err"
	st=$?
	line=$(head -1 "$T/perf.err")
	[ $st = 129 ] && [ -n "$line" ] && grep -qF "$line" "$T/pmt.err" ||
		bad "--per-thread $opts: exit $st, '$(cat "$T/pmt.err")', perf 7.3: '$line'"
done
echo "$n cases, $fail failures"
[ $fail = 0 ]
