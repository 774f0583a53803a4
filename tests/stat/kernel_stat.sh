#!/bin/sh
# Issue 11 c: pmutrace stat on the real kernel with software events, against perf 7.3 (the
# layouts, byte for byte once the numbers are masked) and perf 6.1 (the columns it shares),
# the counts it keeps (-o) read back by perf 6.1's and 7.3's `perf stat report`, and
# pmutrace metrics reading them equal to the same counts as perf stat -x prints them.
#   kernel_stat.sh PMUTRACE [PERF73]
set -u
P=$1 P73=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v python3 >/dev/null || { echo "SKIP: python3 masks the numbers"; exit 77; }
EV=task-clock,page-faults,context-switches,cpu-migrations
# absolute paths: perf 7.3 puts its own libexec folder first in the workload's PATH
WL="/bin/sh -c 'for i in 1 2 3; do /bin/ls -R /usr/share >/dev/null; done; /bin/sleep 0.25'"

if ! "$P" stat -e task-clock -- true 2>"$T/err"; then
	grep -q "no permission" "$T/err" && { echo "SKIP: perf_event_open not allowed: $(cat "$T/err")"; exit 77; }
	bad "stat -- true: $(cat "$T/err")"
fi

# mask, mask_plain: the numbers of a layout as N
. "$HERE/stat_mask.sh"

# perf 7.3's layouts: the same command line, both outputs masked
if [ -n "$P73" ] && [ -x "$P73" ]; then
	for opts in "" "-a" "-a -A" "-a --per-core" "-a --per-socket" "-I 100" "-a -A -I 100" \
		"-a --per-core -I 100" "-a --per-socket -I 100" "-x, -a" "-x, -a -A" "-x: -a --per-core" \
		"-x, -a --per-socket -I 100" "-x, -I 100" "-j -a" "-j -a -A -I 100" "-j -a --per-core" \
		"-C 1" "-C 0 -A" "-a --per-die" "-a --per-die -I 100" "-x, -a --per-die" \
		"-j -a --per-die" "-x, -r 3" "-j -r 3" "-x, -a -r 2"; do
		# shellcheck disable=SC2086
		eval "\"$P73\" stat $opts -e $EV -- $WL" 2>"$T/perf.raw" >/dev/null
		# shellcheck disable=SC2086
		eval "\"$P\" stat $opts -e $EV -- $WL" 2>"$T/pmt.raw" >/dev/null
		# perf's own chatter about a workload without -a
		m=mask
		case "$opts" in -x* | -j*) m=mask_plain ;; esac
		grep -v "^Warning:\|^workload '.*' specified" "$T/perf.raw" >"$T/perf.kept"
		mv "$T/perf.kept" "$T/perf.raw"
		# the number of intervals depends on timing: compare the first interval's lines
		if echo "$opts" | grep -q -- "-I"; then
			for f in perf pmt; do
				awk -F'[ ,:]+' 'NR == 1 && /^#/ { print; next } { k = $1 == "" || $1 ~ /interval/ ? $2 : $1 } !n { first = k; n++ } k == first' \
					"$T/$f.raw" >"$T/$f.first"
				mv "$T/$f.first" "$T/$f.raw"
			done
		fi
		$m <"$T/perf.raw" >"$T/perf.txt"
		$m <"$T/pmt.raw" >"$T/pmt.txt"
		if ! cmp -s "$T/perf.txt" "$T/pmt.txt"; then
			bad "layout of stat $opts differs from perf 7.3 (perf < > pmutrace):"
			diff "$T/perf.txt" "$T/pmt.txt" | head -8
		fi
	done
else
	echo "note: perf 7.3 not built; its layouts not compared"
fi

# -r: the mean, "( +- x% )" and the elapsed time's spread; task-clock alone, whose runs
# always differ (a count equal in every run has no noise column in text)
if [ -n "$P73" ] && [ -x "$P73" ]; then
	for opts in "-r 3" "-a -r 2" "-a -A -r 2"; do
		# shellcheck disable=SC2086
		eval "\"$P73\" stat $opts -e task-clock -- $WL" 2>"$T/perf.raw" >/dev/null
		# shellcheck disable=SC2086
		eval "\"$P\" stat $opts -e task-clock -- $WL" 2>"$T/pmt.raw" >/dev/null
		mask <"$T/perf.raw" >"$T/perf.txt"
		mask <"$T/pmt.raw" >"$T/pmt.txt"
		cmp -s "$T/perf.txt" "$T/pmt.txt" || { bad "layout of stat $opts differs from perf 7.3:"; diff "$T/perf.txt" "$T/pmt.txt" | head -6; }
		case "$opts" in *-A*) ;; *) grep -q "task-clock .*( +- *[0-9.]*% )$" "$T/pmt.raw" ||
			bad "stat $opts: no noise on task-clock: $(cat "$T/pmt.raw")" ;; esac
	done
	# perf 6.1 prints the noise after its shadow metric: the count columns and the runs
	perf stat -r 3 -e task-clock -- true 2>"$T/p61.raw" >/dev/null
	"$P" stat -r 3 -e task-clock -- true 2>"$T/pmt61.raw" >/dev/null
	for f in p61 pmt61; do grep "runs\|task-clock" "$T/$f.raw" | cut -c1-56 | mask | sed 's/ *$//' >"$T/$f.txt"; done
	cmp -s "$T/p61.txt" "$T/pmt61.txt" || { bad "-r columns differ from perf 6.1:"; diff "$T/p61.txt" "$T/pmt61.txt"; }
fi

# --per-thread -p: a unit per thread (COMM-TID) of a process with three busy threads; the
# lines sorted (perf and pmutrace list /proc/PID/task in the order it gives)
if [ -n "$P73" ] && [ -x "$P73" ]; then
	python3 -c '
import threading, time
def busy():
    t = time.time()
    while time.time() - t < 20: pass
for _ in range(3): threading.Thread(target=busy).start()' &
	PY=$!
	for i in $(seq 50); do [ "$(ls /proc/$PY/task 2>/dev/null | wc -l)" -ge 4 ] && break; sleep 0.1; done
	for opts in "" "-x," "-j"; do
		# shellcheck disable=SC2086
		"$P73" stat --per-thread $opts -e task-clock,context-switches -p $PY -- sleep 0.3 2>"$T/perf.raw" >/dev/null
		# shellcheck disable=SC2086
		"$P" stat --per-thread $opts -e task-clock,context-switches -p $PY -- sleep 0.3 2>"$T/pmt.raw" >/dev/null
		m=mask
		[ -n "$opts" ] && m=mask_plain
		$m <"$T/perf.raw" | sort >"$T/perf.txt"
		$m <"$T/pmt.raw" | sort >"$T/pmt.txt"
		cmp -s "$T/perf.txt" "$T/pmt.txt" || { bad "stat --per-thread $opts differs from perf 7.3:"; diff "$T/perf.txt" "$T/pmt.txt" | head -6; }
		[ "$(grep -c "python3-" "$T/pmt.raw")" = 8 ] || bad "--per-thread $opts: not 4 threads x 2 events: $(cat "$T/pmt.raw")"
	done
	kill $PY
	# a workload alone has no threads of its own to show (tests/stat/per_thread.sh: -a)
	"$P" stat --per-thread -e task-clock -- true 2>"$T/err"
	[ $? = 129 ] && grep -q "The --per-thread option is only available" "$T/err" || bad "--per-thread -- true: $(cat "$T/err")"
fi

# weak groups: the kernel refuses a pinned member of a group (EINVAL: "only a group leader
# can be exclusive or pinned"), so {task-clock,page-faults:D}:W cannot be scheduled as a
# group; perf 7.3 reopens both on their own and counts them, with -v "Weak group for
# task-clock/2 failed". Without W the member stays <not supported>.
if [ -n "$P73" ] && [ -x "$P73" ]; then
	for opts in "" "-a" "-a -A -I 100" "-x, -a"; do
		# shellcheck disable=SC2086
		eval "\"$P73\" stat $opts -e '{task-clock,page-faults:D}:W' -- $WL" 2>"$T/perf.raw" >/dev/null
		# shellcheck disable=SC2086
		eval "\"$P\" stat $opts -e '{task-clock,page-faults:D}:W' -- $WL" 2>"$T/pmt.raw" >/dev/null
		m=mask
		case "$opts" in -x*) m=mask_plain ;; esac
		for f in perf pmt; do
			grep -v "^Warning:\|^workload '.*' specified" "$T/$f.raw" |
				if echo "$opts" | grep -q -- "-I"; then awk '/^#/ || $1 == k || !k { k = k ? k : ($1 ~ /^#/ ? "" : $1); print }'; else cat; fi |
				$m >"$T/$f.txt"
		done
		cmp -s "$T/perf.txt" "$T/pmt.txt" || { bad "weak group, stat $opts: layout differs from perf 7.3:"; diff "$T/perf.txt" "$T/pmt.txt" | head -6; }
		grep -q "not supported\|not counted" "$T/pmt.raw" && bad "weak group, stat $opts: a member was not counted: $(cat "$T/pmt.raw")"
	done
	"$P" stat -v -e '{task-clock,page-faults:D}:W' -- true 2>&1 >/dev/null | grep -q "Weak group for task-clock/2 failed" ||
		bad "stat -v of a weak group that failed: no 'Weak group for task-clock/2 failed'"
	"$P" stat -e '{task-clock,page-faults:D}' -- true 2>&1 >/dev/null | grep -q "<not supported> *page-faults:D" ||
		bad "a pinned member of a group (not weak) was counted"
fi

# a group (not weak) that cannot be counted whole: the member the kernel refuses is
# <not supported>, and the leader and the members it did open are <not counted>, as perf
# 7.3 prints them (its group read finds fewer members than the group has, so nothing is
# read); no numbers to mask. Where `cycles` is not supported (no hardware PMU, as in a
# VM), a group it leads opens nothing, and with no other event perf 7.3 stops with "No
# supported events found."
if [ -n "$P73" ] && [ -x "$P73" ]; then
	groups="{task-clock,page-faults:D} {task-clock,page-faults:D,context-switches}"
	"$P73" stat -e cycles -- true 2>&1 | grep -q "cycles event is not supported" &&
		groups="$groups {task-clock,cycles} {task-clock,cycles,context-switches}"
	for g in $groups; do
		for opts in "" "-x," "-j" "-a -A"; do
			# shellcheck disable=SC2086
			"$P73" stat $opts -e "$g" -- true 2>&1 >/dev/null | grep -v "seconds\|^$" >"$T/perf.txt"
			# shellcheck disable=SC2086
			"$P" stat $opts -e "$g" -- true 2>&1 >/dev/null | grep -v "seconds\|^$" >"$T/pmt.txt"
			grep -q "not counted" "$T/perf.txt" || bad "group $g, stat $opts: perf 7.3 counted the leader: $(cat "$T/perf.txt")"
			cmp -s "$T/perf.txt" "$T/pmt.txt" || { bad "group $g, stat $opts: differs from perf 7.3:"; diff "$T/perf.txt" "$T/pmt.txt" | head -6; }
		done
	done
	if "$P73" stat -e cycles -- true 2>&1 | grep -q "cycles event is not supported"; then
		for g in cycles "{cycles,task-clock}"; do
			"$P73" stat -e "$g" -- true 2>"$T/perf.err" >/dev/null
			st73=$?
			"$P" stat -e "$g" -- true 2>"$T/err" >/dev/null
			st=$?
			[ $st73 = 1 ] && [ $st = 1 ] && grep -q "No supported events found" "$T/perf.err" &&
				grep -q "No supported events found. The cycles event is not supported." "$T/err" ||
				bad "stat -e $g with cycles not supported: perf 7.3 $st73 $(cat "$T/perf.err"), pmutrace $st $(cat "$T/err")"
		done
	fi
fi

# a group counted by the kernel: read through its leader, printed as perf 7.3 prints it
if [ -n "$P73" ] && [ -x "$P73" ]; then
	"$P73" stat -e '{task-clock,page-faults},context-switches' -- /bin/ls -R /usr/share 2>"$T/perf.raw" >/dev/null
	"$P" stat -e '{task-clock,page-faults},context-switches' -- /bin/ls -R /usr/share 2>"$T/pmt.raw" >/dev/null
	mask <"$T/perf.raw" >"$T/perf.txt"
	mask <"$T/pmt.raw" >"$T/pmt.txt"
	cmp -s "$T/perf.txt" "$T/pmt.txt" || { bad "a group's layout differs from perf 7.3:"; diff "$T/perf.txt" "$T/pmt.txt" | head -6; }
	grep -q "page-faults" "$T/pmt.raw" && ! grep -q "not counted\|not supported" "$T/pmt.raw" ||
		bad "the group was not counted: $(cat "$T/pmt.raw")"
fi

# perf 6.1: its text adds a shadow-metric column; the columns before it are the same
perf stat -e $EV -- true 2>"$T/p61.raw" >/dev/null
"$P" stat -e $EV -- true 2>"$T/pmt61.raw" >/dev/null
cut -c1-56 "$T/p61.raw" | mask | sed 's/ *$//' >"$T/p61.txt"
cut -c1-56 "$T/pmt61.raw" | mask | sed 's/ *$//' >"$T/pmt61.txt"
cmp -s "$T/p61.txt" "$T/pmt61.txt" || { bad "text columns differ from perf 6.1:"; diff "$T/p61.txt" "$T/pmt61.txt"; }

# the same program faults the same pages: counts near perf's (the dynamic loader and libc
# make these deterministic to a few pages)
cat >"$T/touch.c" <<'C'
#include <stdlib.h>
int main(void) { volatile char *p = malloc(16 << 20); for (int i = 0; i < (16 << 20); i += 4096) p[i] = 1; return 0; }
C
if cc -O2 -o "$T/touch" "$T/touch.c" 2>/dev/null; then
	pf() { "$@" -x, -e page-faults -- "$T/touch" 2>&1 >/dev/null | awk -F, '$3 == "page-faults" { print $1 }'; }
	a=$(pf "$P" stat) b=$(pf perf stat)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -ge 4096 ] && [ $((a - b)) -le 40 ] && [ $((b - a)) -le 40 ] ||
		bad "page-faults of a 16 MiB toucher: pmutrace $a, perf 6.1 $b (want >= 4096 and within 40)"
fi

# the workload's exit status is returned, as perf stat returns it
"$P" stat -e task-clock -- sh -c 'exit 3' 2>/dev/null
[ $? = 3 ] || bad "the workload's exit status 3 is not stat's"
"$P" stat -e task-clock -- /nonexistent/prog 2>"$T/err"
[ $? = 1 ] && grep -q "cannot run '/nonexistent/prog'" "$T/err" || bad "a missing program: $(cat "$T/err")"

# -p: the threads of a running process, per thread
sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' &
BUSY=$!
"$P" stat -x, -e task-clock,context-switches -p $BUSY -I 100 2>"$T/p.csv" &
STAT=$!
sleep 0.5
kill -INT $STAT
wait $STAT
kill $BUSY 2>/dev/null
awk -F, '$4 == "task-clock" && $2 > 20 { n++ } END { exit !(n >= 2) }' "$T/p.csv" ||
	bad "-p of a busy loop: not 2 intervals of > 20 ms task-clock: $(head -4 "$T/p.csv")"

# -o: the counts in a container; perf 6.1 and 7.3 stat report print what stat printed
"$P" stat -a -A -e page-faults,context-switches,task-clock -o "$T/a.pmt" -- sh -c "$WL" 2>"$T/a.txt" >/dev/null ||
	bad "stat -o: $(tail -3 "$T/a.txt")"
grep "^CPU" "$T/a.txt" >"$T/a.counts"
for perf in perf "$P73"; do
	[ -x "$(command -v "$perf")" ] || continue
	# perf 6.1 pads the CPU column wider than 7.3: compare the fields
	zstd -dc "$T/a.pmt" | "$perf" stat report -i - -A 2>&1 | awk '/^CPU/ { print $1, $2, $3 ($3 == "msec" ? " " $4 : "") }' >"$T/r.counts"
	awk '{ print $1, $2, $3 ($3 == "msec" ? " " $4 : "") }' "$T/a.counts" >"$T/a.cut"
	cmp -s "$T/a.cut" "$T/r.counts" || { bad "$perf stat report of the container differs from stat's output:"; diff "$T/a.cut" "$T/r.counts" | head; }
done

# a workload's counters (per thread: CPU -1 in perf's STAT records) and the last CPU alone
# (-C: the CPU, not its index in the map): perf 6.1 and 7.3 stat report read the counts
last=$(($(getconf _NPROCESSORS_ONLN) - 1))
for opts in "" "-C $last"; do
	# shellcheck disable=SC2086
	"$P" stat $opts -x, -e page-faults,context-switches -o "$T/t.pmt" -- sh -c "$WL" \
		2>"$T/t.csv" >/dev/null || bad "stat -o $opts: $(tail -3 "$T/t.csv")"
	awk -F, '{ print $3, $1 }' "$T/t.csv" | sort >"$T/t.want"
	for perf in perf "$P73"; do
		[ -x "$(command -v "$perf")" ] || continue
		zstd -dc "$T/t.pmt" | "$perf" stat -x, report -i - 2>&1 |
			awk -F, 'NF > 3 { print $3, $1 }' | sort >"$T/t.got"
		[ -s "$T/t.want" ] && cmp -s "$T/t.want" "$T/t.got" ||
			{ bad "$perf stat report of stat ${opts:-(workload)} -o: (stat < > report)"; diff "$T/t.want" "$T/t.got" | head -4; }
	done
done

# pmutrace metrics on the container = pmutrace metrics on the same counts as stat -x
# printed them (page-faults and context-switches are integers: exact; task-clock has two
# decimals in CSV, so its metric is compared to 0.005 ms)
cat >"$T/m.json" <<'J'
[{"MetricName": "faults_per_switch", "MetricExpr": "page\\-faults / context\\-switches", "MetricGroup": "t"},
 {"MetricName": "faults", "MetricExpr": "page\\-faults + 0 * cpu\\-migrations", "MetricGroup": "t"},
 {"MetricName": "switches", "MetricExpr": "context\\-switches", "MetricGroup": "t"},
 {"MetricName": "pf", "MetricExpr": "page\\-faults", "MetricGroup": "p"},
 {"MetricName": "clock", "MetricExpr": "task\\-clock", "MetricGroup": "c"}]
J
for opts in "-a -A -I 100" "-a -I 100" "-a -A" "" "-I 100"; do
	# shellcheck disable=SC2086
	eval "\"$P\" stat $opts -x, -e $EV -o \"$T/m.pmt\" -- $WL" 2>"$T/m.csv" >/dev/null
	"$P" metrics "$T/m.pmt" --metrics "$T/m.json" -M t --csv >"$T/m1" 2>"$T/m1.err"
	"$P" metrics --counts "$T/m.csv" --metrics "$T/m.json" -M t --csv >"$T/m2" 2>"$T/m2.err"
	[ "$(wc -l <"$T/m1")" -gt 1 ] || bad "metrics of the container ($opts) printed nothing: $(cat "$T/m1.err")"
	cmp -s "$T/m1" "$T/m2" || { bad "metrics TRACE != metrics --counts for stat $opts"; diff "$T/m1" "$T/m2" | head -6; }
	"$P" metrics "$T/m.pmt" --metrics "$T/m.json" -M c --csv >"$T/c1" 2>/dev/null
	"$P" metrics --counts "$T/m.csv" --metrics "$T/m.json" -M c --csv >"$T/c2" 2>/dev/null
	paste -d, "$T/c1" "$T/c2" | awk -F, 'NR > 1 { d = $5 - $12; if (d < 0) d = -d; if (d > 0.005 || $4 != $11 || $1 != $8 || $2 != $9) bad++ } END { exit bad > 0 }' ||
		bad "task-clock metric of the container differs from the CSV's beyond rounding ($opts)"
done

# perf's own recordings: perf 6.1 stat record (file) and 7.3 (pipe) give pmutrace metrics
# the counts their stat report prints
perf stat record -o "$T/r61.data" -a -A -e page-faults,context-switches -- sh -c "$WL" >/dev/null 2>&1
perf stat report -i "$T/r61.data" -A 2>&1 | awk '/^CPU/ { print $1 "," $3 "," $2 }' | sort >"$T/r61.want"
"$P" metrics "$T/r61.data" --metrics "$T/m.json" -M pf -M switches --csv 2>"$T/err" |
	awk -F, 'NR > 1 { n = $4 == "pf" ? "page-faults" : "context-switches"; printf "%s,%s,%d\n", $2, n, $5 }' | sort >"$T/r61.got"
[ -s "$T/r61.want" ] && cmp -s "$T/r61.want" "$T/r61.got" || { bad "perf 6.1 stat record: metrics != stat report"; diff "$T/r61.want" "$T/r61.got" | head; }
if [ -n "$P73" ] && [ -x "$P73" ]; then
	"$P73" stat record -o - -a -A -e page-faults,context-switches -- sh -c "$WL" 2>/dev/null >"$T/r73.data"
	"$P73" stat report -i - -A <"$T/r73.data" 2>&1 | awk '/^CPU/ { print $1 "," $3 "," $2 }' | sort >"$T/r73.want"
	"$P" metrics "$T/r73.data" --metrics "$T/m.json" -M pf -M switches --csv 2>"$T/err" |
		awk -F, 'NR > 1 { n = $4 == "pf" ? "page-faults" : "context-switches"; printf "%s,%s,%d\n", $2, n, $5 }' | sort >"$T/r73.got"
	[ -s "$T/r73.want" ] && cmp -s "$T/r73.want" "$T/r73.got" || { bad "perf 7.3 stat record: metrics != stat report"; diff "$T/r73.want" "$T/r73.got" | head; }
	# a workload's counts: perf 7.3 writes CPU -1 for them
	"$P73" stat record -o - -e page-faults,context-switches -- sh -c "$WL" 2>/dev/null >"$T/w73.data"
	"$P73" stat -x, report -i - <"$T/w73.data" 2>&1 | awk -F, 'NF > 3 { print $3 "," $1 }' |
		sort >"$T/w73.want"
	"$P" metrics "$T/w73.data" --metrics "$T/m.json" -M pf -M switches --csv 2>"$T/err" |
		awk -F, 'NR > 1 { n = $4 == "pf" ? "page-faults" : "context-switches"; printf "%s,%d\n", n, $5 }' | sort >"$T/w73.got"
	[ -s "$T/w73.want" ] && cmp -s "$T/w73.want" "$T/w73.got" || { bad "perf 7.3 stat record of a workload: metrics != stat report"; diff "$T/w73.want" "$T/w73.got" | head; cat "$T/err"; }
fi

[ $fail = 0 ] && echo "stat on the kernel: layouts, counts, container and metrics agree"
exit $((fail > 0))
