#!/bin/sh
# A perf.data without SPE data (a cpu-clock recording) is not decoded to an empty output:
# script and report say the file has no AUX trace and what it holds, with the sample
# count perf itself counts (issue 15 item 13). Usage: no_aux.sh PMUTRACE
set -u
pmt=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "SKIP: perf not installed"; exit 77; }
perf record -q -e cpu-clock -c 100000 -o "$tmp/c.data" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
	>/dev/null 2>&1 || { echo "SKIP: perf record not permitted"; exit 77; }
n=$(perf script -i "$tmp/c.data" -F event 2>/dev/null | grep -c cpu-clock)
for cmd in script report; do
	rc=0
	"$pmt" $cmd "$tmp/c.data" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ $rc = 1 ] || fail "$cmd: exit $rc, want 1"
	grep -q "c.data has no AUX area trace (no SPE data) to decode; it holds cpu-clock: $n samples" \
		"$tmp/err" || fail "$cmd: $(cat "$tmp/err") (perf counts $n samples)"
done
echo "OK: a recording without SPE data is described ($n cpu-clock samples, as perf counts)"
