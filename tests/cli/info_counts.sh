#!/bin/sh
# pmutrace info lists a container's counts frames (formats/container/FORMAT.md, "Counts
# frames"): one summary line, and with -v a line per frame with the stream range of its
# data frame and its STAT and STAT_ROUND records. Checked against perf 6.1's `report -D`
# of `zstd -dc` of the same file: the STAT and STAT_ROUND records it prints at stream
# offsets inside each frame's range are those info counts, frame by frame and in all, on
#   - a counting recording (bench_stat_trace, 60 intervals x 8 CPUs) in 64 KiB frames
#     (version 1 frames);
#   - the kernel's samples and counts in one recording (record -e cpu-clock --count-events
#     --count-interval 10, 64 KiB frames: version 2 frames), where perf_event_open works;
# and a flipped byte in a counts frame: info names it not usable (its checksum fails).
#   info_counts.sh PMUTRACE BENCH_STAT_TRACE SHARED_DIR
set -u
P=$1 G=$2 S=${3:-}
M=$S/data/tpebs/gnr-metrics.json
[ -f "$M" ] || { echo "SKIP: no $M"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: no perf 6.1"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: no zstd"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# NAME FILE: info -v's per-frame counts against perf's records in each frame's range
check() {
	name=$1 f=$2
	"$P" info -v "$f" >"$T/info.txt" 2>"$T/info.err" || bad "$name: info exits $?: $(head -2 "$T/info.err")"
	zstd -qdc "$f" | perf report -D -i - 2>/dev/null |
		sed -n 's/^.* \(0x[0-9a-f]*\) \[0x[0-9a-f]*\]: PERF_RECORD_\(STAT\|STAT_ROUND\)$/\1 \2/p' >"$T/perf.txt"
	# frame lines: "... stream 0xLO-0xHI, version V, K keys, S STAT and R STAT_ROUND records"
	sed -n 's/.*stream \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\), version [0-9]*, [0-9]* keys, \([0-9]*\) STAT and \([0-9]*\) STAT_ROUND records.*/\1 \2 \3 \4/p' \
		"$T/info.txt" >"$T/frames.txt"
	[ -s "$T/frames.txt" ] || { bad "$name: info -v lists no counts frames"; return; }
	python3 - "$T/frames.txt" "$T/perf.txt" <<'PY' || bad "$name: info's counts per frame != perf report -D's"
import sys
frames = [tuple(int(x, 0) for x in l.split()) for l in open(sys.argv[1])]
# perf counts a pipe's offsets after its 16-byte header; the frames' stream offsets (what
# zstd -dc prints) include it
recs = [(int(a, 16) + 16, b) for a, b in (l.split() for l in open(sys.argv[2]))]
bad = 0
for lo, hi, s, r in frames:
    ps = sum(1 for o, t in recs if lo <= o < hi and t == 'STAT')
    pr = sum(1 for o, t in recs if lo <= o < hi and t == 'STAT_ROUND')
    if (ps, pr) != (s, r):
        print('frame 0x%x-0x%x: info %d STAT %d STAT_ROUND, perf %d %d' % (lo, hi, s, r, ps, pr))
        bad += 1
print('%d frames, %d of %d STAT records of perf in them' % (len(frames),
      sum(f[2] for f in frames), sum(1 for o, t in recs if t == 'STAT')))
sys.exit(bad > 0)
PY
	# the summary line adds them up
	sum=$(awk '{ s += $3; r += $4 } END { print s " STAT and " r " STAT_ROUND" }' "$T/frames.txt")
	grep -q "^counts frames: $(wc -l <"$T/frames.txt") for .*, $sum records" "$T/info.txt" ||
		bad "$name: the summary line does not add up ($sum): $(grep '^counts frames' "$T/info.txt")"
}

"$G" "$M" "$T/s.pmt" 60 8 >/dev/null 2>&1 || bad "bench_stat_trace"
"$P" convert "$T/s.pmt" --container --frame-size 64k -o "$T/s64.pmt" || bad "convert"
check "stat 60 x 8" "$T/s64.pmt"
grep -q "version 1," "$T/info.txt" || bad "stat: no version 1 frame listed"
# without -v: the summary alone
[ "$("$P" info "$T/s64.pmt" | grep -c 'counts frame')" = 1 ] || bad "info without -v lists frames"

# a flipped byte in the third counts frame: not usable, named
at=$(sed -n 's/^  counts frame at \([0-9]*\) .*/\1/p' "$T/info.txt" | sed -n 3p)
cp "$T/s64.pmt" "$T/d.pmt"
printf '\377' | dd of="$T/d.pmt" bs=1 seek=$((at + 60)) conv=notrunc 2>/dev/null
"$P" info -v "$T/d.pmt" >"$T/d.txt" 2>&1
grep -q "^  counts frame at $at .*not usable: its checksum fails" "$T/d.txt" ||
	bad "a flipped byte: info -v does not name the frame: $(grep "frame at $at" "$T/d.txt")"
grep -q "^counts frames: .*; 1 not usable" "$T/d.txt" || bad "a flipped byte: the summary does not count it"

if "$P" record -q -e cpu-clock -c 100000 -a --count-events task-clock,context-switches,page-faults \
	--count-interval 10 --count-per-cpu -o "$T/m.pmt" -- sleep 2 >/dev/null 2>"$T/err"; then
	"$P" convert "$T/m.pmt" --container --frame-size 64k -o "$T/m64.pmt" || bad "convert mixed"
	check "record --count-events" "$T/m64.pmt"
	grep -q "version 2, .*other records: .*PERF_RECORD_SAMPLE" "$T/info.txt" ||
		bad "record --count-events: no version 2 frame with samples listed"
else
	echo "note: record --count-events failed here ($(head -1 "$T/err")): left out"
fi
[ "$fail" -eq 0 ] && echo "ok: info's counts frames are perf's records"
exit $((fail > 0))
