#!/bin/sh
# pmutrace convert re-writes perf-recorded files (plain, -z compressed, pipe mode) so that
# perf prints the same thing for the copy as for the original. A byte-swapped copy keeps
# every record but CPU_MAP and EVENT_UPDATE (no swap layout yet; perf script needs
# neither): perf counts the same records of every other kind and prints the same samples
# (comm tid time period event ip; perf resolves no kernel symbols in a file of the other
# byte order, so sym/dso are not compared), and swapping the copy back gives them again
# (and the context switches, recorded with --switch-events).
# usage: convert_perf.sh PMUTRACE    (exit 77 = skipped: no perf or no perf_event_open)
PMUTRACE=$1
PERF=${PERF:-perf}   # the perf to check against (perf 6.1, or perf 7.3's wrapper)
COMPAT=${COMPAT:-6.1}
# the perf that records (perf 7.3's loader wrapper cannot start a host workload)
RECPERF=${RECPERF:-$PERF}
command -v "$PERF" >/dev/null 2>&1 || { echo "SKIP: perf missing"; exit 77; }
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
$RECPERF record -q -e cpu-clock --switch-events -o plain.data -- sh -c 'ls /usr/bin >/dev/null' >/dev/null 2>&1 ||
	{ echo "SKIP: $RECPERF record not permitted"; exit 77; }
$RECPERF record -q -z -e cpu-clock -o z.data -- sh -c 'ls /usr/bin >/dev/null' >/dev/null 2>&1 || exit 1
$RECPERF record -q -e cpu-clock -o - -- sh -c 'ls /usr/bin >/dev/null' 2>/dev/null | cat > p.pipe || exit 1
fail=0
for f in plain.data z.data p.pipe; do
	"$PMUTRACE" convert "$f" -o "$f.copy" || { echo "FAIL: convert $f"; fail=1; continue; }
	$PERF script -i "$f" > "$f.txt" 2>/dev/null
	$PERF script -i "$f.copy" > "$f.copy.txt" 2>/dev/null
	if [ ! -s "$f.txt" ] || ! cmp -s "$f.txt" "$f.copy.txt"; then
		echo "FAIL: $PERF script of the converted $f differs"
		diff "$f.txt" "$f.copy.txt" | head -5
		fail=1
	fi
done
counts() {
	$PERF report -D -i "$1" 2>/dev/null | sed -n '/^Aggregated stats/,/stats:$/p' |
		grep -E '^ *[A-Z_0-9]+ events:' | grep -v -E '^ *(TOTAL|CPU_MAP|EVENT_UPDATE) ' |
		awk '$3 > 0 { print $1, $3 }'
}
F=comm,tid,time,period,event,ip
# records that cannot change byte order are dropped and said: exit 2 (output written)
rc=0; "$PMUTRACE" convert plain.data --swap -o swapped.data 2>swap.err || rc=$?
if [ -s swap.err ]; then want=2; else want=0; fi
[ $rc = $want ] || { echo "FAIL: convert --swap exited $rc, want $want"; fail=1; }
rc=0; "$PMUTRACE" convert swapped.data -o back.data 2>/dev/null || rc=$?
[ $rc = 0 ] || [ $rc = 2 ] || { echo "FAIL: convert back exited $rc"; fail=1; }
counts plain.data > a.cnt
for f in swapped.data back.data; do
	counts $f > b.cnt
	if [ ! -s a.cnt ] || ! cmp -s a.cnt b.cnt; then
		echo "FAIL: record counts of the byte-swapped copy $f differ"
		diff a.cnt b.cnt
		fail=1
	fi
	# perf 6.1 misplaces the sample_id of a swapped PERF_RECORD_SWITCH by 8 bytes
	# (perf_event__switch_swap), so it shows a swapped file's switches with wrong
	# pids: they are compared on the copy swapped back only
	sw=; [ $f = back.data ] && sw=--show-switch-events
	$PERF script -i plain.data -F $F $sw > a.txt 2>/dev/null
	$PERF script -i $f -F $F $sw > b.txt 2>/dev/null
	if [ ! -s a.txt ] || ! cmp -s a.txt b.txt; then
		echo "FAIL: $PERF script of the byte-swapped copy $f differs"
		diff a.txt b.txt | head -5
		fail=1
	fi
done
# the records dropped are counted: perf's CPU_MAP and EVENT_UPDATE records
nd=$($PERF report -D -i plain.data 2>/dev/null | sed -n '/^Aggregated stats/,/stats:$/p' |
	awk '$1 == "CPU_MAP" || $1 == "EVENT_UPDATE" { n += $3 } END { print n + 0 }')
if [ "$nd" -gt 0 ]; then
	grep -q "^pmutrace convert: warning: $nd records of kinds that cannot change byte order" swap.err ||
		{ echo "FAIL: expected $nd dropped records to be reported:"; cat swap.err; fail=1; }
elif [ -s swap.err ]; then
	echo "FAIL: records dropped:"; cat swap.err; fail=1
fi
[ $fail = 0 ] && echo "OK: converted copies read the same in perf"
exit $fail
