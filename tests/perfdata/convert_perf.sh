#!/bin/sh
# pmutrace convert re-writes perf-recorded files (plain, -z compressed, pipe mode) so that
# perf prints the same thing for the copy as for the original; a byte-swapped copy keeps
# perf's record counts for the kinds pmutrace re-encodes (SAMPLE, COMM, MMAP2).
# usage: convert_perf.sh PMUTRACE    (exit 77 = skipped: no perf or no perf_event_open)
PMUTRACE=$1
command -v perf >/dev/null 2>&1 || { echo "SKIP: perf missing"; exit 77; }
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
perf record -q -e cpu-clock -o plain.data -- sh -c 'ls /usr/bin >/dev/null' >/dev/null 2>&1 ||
	{ echo "SKIP: perf record not permitted"; exit 77; }
perf record -q -z -e cpu-clock -o z.data -- sh -c 'ls /usr/bin >/dev/null' >/dev/null 2>&1 || exit 1
perf record -q -e cpu-clock -o - -- sh -c 'ls /usr/bin >/dev/null' 2>/dev/null | cat > p.pipe || exit 1
fail=0
for f in plain.data z.data p.pipe; do
	"$PMUTRACE" convert "$f" -o "$f.copy" || { echo "FAIL: convert $f"; fail=1; continue; }
	perf script -i "$f" > "$f.txt" 2>/dev/null
	perf script -i "$f.copy" > "$f.copy.txt" 2>/dev/null
	if [ ! -s "$f.txt" ] || ! cmp -s "$f.txt" "$f.copy.txt"; then
		echo "FAIL: perf script of the converted $f differs"
		diff "$f.txt" "$f.copy.txt" | head -5
		fail=1
	fi
done
counts() {
	perf report -D -i "$1" 2>/dev/null | sed -n '/^Aggregated stats/,/stats:$/p' |
		grep -E '^ *(SAMPLE|COMM|MMAP2) events' | awk '{ print $1, $3 }'
}
"$PMUTRACE" convert plain.data --swap -o swapped.data 2>/dev/null || { echo "FAIL: convert --swap"; fail=1; }
counts plain.data > a.cnt
counts swapped.data > b.cnt
if [ ! -s a.cnt ] || ! cmp -s a.cnt b.cnt; then
	echo "FAIL: record counts of the byte-swapped copy differ"
	diff a.cnt b.cnt
	fail=1
fi
[ $fail = 0 ] && echo "OK: converted copies read the same in perf"
exit $fail
