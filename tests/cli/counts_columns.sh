#!/bin/sh
# Counts frames (issue 11; formats/container/FORMAT.md, "Counts frames"): `pmutrace metrics
# TRACE` prints the same bytes (stdout, stderr, exit status) whether a data frame's STAT
# records are read as records or from its counts frame, on
#   - synthetic recordings (bench_stat_trace: every count event of GNR's metric table, per
#     CPU, 40 intervals x 16 CPUs and 300 x 2): every metric --csv and --jsonl, as recorded
#     and --global; and -j 1 (one thread sums, evaluates and prints) against -j 2 and 3
#     (an interval printed on a thread of its own while the next is summed);
#   - the kernel's counts (software events): stat -a -A -I 10 (per CPU) and stat -I 10 of a
#     workload (its thread's counters), converted to 64 KiB frames so most frames have one;
#   - each read three ways: by counts frames, the same file through its records
#     (PMT_TEST_COUNTS_RECORDS) and the file written without counts frames
#     (PMT_CTR_TEST_NO_COUNTS, as writers before them did);
#   - bench_stat_trace's ODD recording (CPUs out of order, a key twice in a round, one left
#     out, multiplexed counts), in 4 MiB and 64 KiB frames: --global, per CPU, -j 1;
#   - perf 6.1's stat record (file mode) converted to a container: the rows of the
#     perf.data itself;
#   - recordings that mix samples and counts (version 2 counts frames: other records stand
#     between the STAT records): bench_stat_trace's MIX (SAMPLE records inside each round
#     and a STAT of an unknown id and one outside the CPU map, whose warnings carry their
#     stream offsets), the kernel's (record -e cpu-clock --count-events ... --count-interval,
#     64 KiB frames: zstd -dc of it and of the file without counts frames are the same
#     bytes, perf 6.1's stat report and script read them), and record --tpebs on the
#     simulated PEBS PMU (tests/pmusim) with its counts per CPU;
#   - counts frames of version 3 (as written now) and of version 1 (PMT_CTR_TEST_COUNTS_VERSION:
#     files written before version 3), each read by its columns;
#   - a counts frame with a flipped byte (60 x 32: counts frames before and after it), and a
#     file cut inside its last counts frame: the output of the records, and -v names the
#     frame not used;
#   - counts frames whose checksum holds and whose columns do not decode (a writer's bug,
#     PMT_CTR_TEST_BAD_COLUMNS): the rows of the records, a warning naming each, exit 2;
# and -v says counts frames were read (so the comparison is not of one path with itself),
# and zstd -dc gives the same perf.data with and without them (perf reads the records).
#   counts_columns.sh PMUTRACE BENCH_STAT_TRACE SHARED_DIR
set -u
P=$1 G=$2 S=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
M=$S/data/tpebs/gnr-metrics.json
[ -f "$M" ] || { echo "SKIP: no $M"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 finds the counts frames"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# NAME FILE METRICS ARGS...: the three reads of FILE compared (FILE.old: without counts frames)
same() {
	name=$1 f=$2 m=$3
	shift 3
	"$P" metrics "$f" --metrics "$m" "$@" >"$T/c.out" 2>"$T/c.err"
	echo "exit $?" >>"$T/c.err"
	PMT_TEST_COUNTS_RECORDS=1 "$P" metrics "$f" --metrics "$m" "$@" >"$T/r.out" 2>"$T/r.err"
	echo "exit $?" >>"$T/r.err"
	[ "$(wc -l <"$T/c.out")" -gt 1 ] || bad "$name: no rows: $(head -3 "$T/c.err")"
	cmp -s "$T/c.out" "$T/r.out" || { bad "$name: stdout by counts frames != by records"; diff "$T/c.out" "$T/r.out" | head -4; }
	cmp -s "$T/c.err" "$T/r.err" || { bad "$name: stderr/exit by counts frames != by records"; diff "$T/c.err" "$T/r.err" | head -4; }
	if [ -f "$f.old" ]; then
		"$P" metrics "$f.old" --metrics "$m" "$@" >"$T/o.out" 2>"$T/o.err"
		echo "exit $?" >>"$T/o.err"
		sed "s|$f.old|$f|g" "$T/o.err" >"$T/o.err2"
		cmp -s "$T/c.out" "$T/o.out" || bad "$name: stdout != the file without counts frames"
		cmp -s "$T/c.err" "$T/o.err2" || { bad "$name: stderr != the file without counts frames"; diff "$T/c.err" "$T/o.err2" | head -4; }
	fi
}

# NAME IN OUT: IN converted to OUT and OUT.old (without counts frames) in 64 KiB frames;
# zstd -dc gives the same perf.data of both ($T/a.data)
conv64() {
	"$P" convert "$2" --container --frame-size 64k -o "$3" || bad "$1: convert"
	PMT_CTR_TEST_NO_COUNTS=1 "$P" convert "$2" --container --frame-size 64k -o "$3.old"
	zstd -qdc "$3" >"$T/a.data"
	zstd -qdc "$3.old" >"$T/b.data"
	cmp -s "$T/a.data" "$T/b.data" || bad "$1: zstd -dc differs with counts frames"
}

# FILE: the number of data frames -v says were read from counts frames
used() {
	"$P" metrics "$1" --metrics "$2" -M "$3" --csv -v 2>&1 >/dev/null |
		sed -n 's/.*the STAT records of \([0-9]*\) data frames read from their counts frames.*/\1/p'
}

# the file offset of the first (first) or last (last) counts frame
frame_at() {
	python3 - "$1" "$2" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
at, pos, found = 0, 0, []
while pos + 8 <= len(b):
    magic = int.from_bytes(b[pos:pos + 4], 'little')
    if magic & 0xFFFFFFF0 == 0x184D2A50:
        if magic == 0x184D2A56:
            found.append(pos)
        pos += 8 + int.from_bytes(b[pos + 4:pos + 8], 'little')
    elif magic == 0xFD2FB528:
        # a data frame: its size from the frame info after it is not needed; find the
        # next skippable frame (the frame info the writer puts right after it)
        nxt = b.find(b'\x54\x2a\x4d\x18', pos + 4)
        if nxt < 0:
            break
        pos = nxt
    else:
        break
pick = {'first': 0, 'middle': len(found) // 2, 'last': -1}[sys.argv[2]]
print(found[pick] if found else '')
PY
}

# FILE: the versions of its counts frames, each once, sorted
versions() {
	python3 - "$1" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
pos, seen = 0, set()
while True:
    pos = b.find(b'PMTCOUNT', pos)
    if pos < 0:
        break
    seen.add(int.from_bytes(b[pos + 8:pos + 12], 'little'))
    pos += 8
print(' '.join(str(v) for v in sorted(seen)))
PY
}

# synthetic recordings
for shape in "40 16" "300 2"; do
	# shellcheck disable=SC2086
	"$G" "$M" "$T/s.pmt" $shape >/dev/null 2>&1 || bad "bench_stat_trace $shape"
	# shellcheck disable=SC2086
	PMT_CTR_TEST_NO_COUNTS=1 "$G" "$M" "$T/s.pmt.old" $shape >/dev/null 2>&1
	zstd -qdc "$T/s.pmt" >"$T/a.data"
	zstd -qdc "$T/s.pmt.old" >"$T/b.data"
	cmp -s "$T/a.data" "$T/b.data" || bad "$shape: zstd -dc differs with counts frames"
	n=$(used "$T/s.pmt" "$M" tma_retiring)
	[ "${n:-0}" -gt 0 ] || bad "$shape: -v does not say counts frames were read"
	[ "$(used "$T/s.pmt.old" "$M" tma_retiring)" = "" ] || bad "$shape: counts frames in a file without them"
	same "$shape --csv" "$T/s.pmt" "$M" --csv
	same "$shape --jsonl" "$T/s.pmt" "$M" --jsonl
	same "$shape --global --csv" "$T/s.pmt" "$M" --global --csv
	same "$shape -j 1 -M tma_retiring" "$T/s.pmt" "$M" -j 1 -M tma_retiring --csv
	# -j 2 and 3 evaluate and print each interval on a thread of their own while the next
	# one is summed (into two counts in turn); -j 1 does both on one thread
	for a in --csv "--global --jsonl"; do
		# shellcheck disable=SC2086
		"$P" metrics "$T/s.pmt" --metrics "$M" -j 1 $a >"$T/j1.out" 2>"$T/j1.err"
		echo "exit $?" >>"$T/j1.err"
		for j in 2 3; do
			# shellcheck disable=SC2086
			"$P" metrics "$T/s.pmt" --metrics "$M" -j $j $a >"$T/j.out" 2>"$T/j.err"
			echo "exit $?" >>"$T/j.err"
			cmp -s "$T/j1.out" "$T/j.out" || bad "$shape $a: stdout of -j $j != -j 1"
			cmp -s "$T/j1.err" "$T/j.err" || bad "$shape $a: stderr/exit of -j $j != -j 1"
		done
	done
done

# the counts frames' layouts: version 3 as written now, version 1 as files written before it
# (the writer's test hook) still read by their columns, the same bytes as their records
"$G" "$M" "$T/v1.pmt" 40 16 >/dev/null 2>&1 || bad "bench_stat_trace 40 16"
PMT_CTR_TEST_COUNTS_VERSION=1 "$G" "$M" "$T/v1.pmt.old" 40 16 >/dev/null 2>&1
mv "$T/v1.pmt" "$T/v3.pmt"
mv "$T/v1.pmt.old" "$T/v1.pmt"
for v in 1 3; do
	got=$(versions "$T/v$v.pmt")
	[ "$got" = "$v" ] || bad "version $v: the counts frames' versions are '$got'"
	n=$(used "$T/v$v.pmt" "$M" tma_retiring)
	[ "${n:-0}" -gt 0 ] || bad "version $v: -v does not say counts frames were read"
	same "version $v --csv" "$T/v$v.pmt" "$M" --csv
	same "version $v -j 1 --global" "$T/v$v.pmt" "$M" -j 1 --global --csv
done
"$P" metrics "$T/v1.pmt" --metrics "$M" --csv >"$T/1.out" 2>&1
"$P" metrics "$T/v3.pmt" --metrics "$M" --csv 2>&1 | sed "s|v3.pmt|v1.pmt|g" >"$T/3.out"
cmp -s "$T/1.out" "$T/3.out" || bad "versions 1 and 3 of one recording differ"
rm -f "$T/v1.pmt" "$T/v3.pmt"

# samples between the counts: the synthetic MIX (gaps inside runs and before rounds)
"$G" "$M" "$T/x.pmt" 40 16 3 >/dev/null 2>&1 || bad "bench_stat_trace 40 16 3"
PMT_CTR_TEST_NO_COUNTS=1 "$G" "$M" "$T/x.pmt.old" 40 16 3 >/dev/null 2>&1
n=$(used "$T/x.pmt" "$M" tma_retiring)
[ "${n:-0}" -gt 0 ] || bad "mixed: -v does not say counts frames were read"
"$P" metrics "$T/x.pmt" --metrics "$M" --csv 2>&1 >/dev/null |
	grep -q "offset 0x[0-9a-f]*: STAT of id 999999999" || bad "mixed: no warning of the unknown id"
same "mixed --csv" "$T/x.pmt" "$M" --csv
same "mixed --global --jsonl" "$T/x.pmt" "$M" --global --jsonl
rm -f "$T/x.pmt.old"

# rounds a reader sums as their records come, except where they come out of order or
# repeated (bench_stat_trace's ODD: CPUs in reverse, a key twice, a key left out, multiplexed
# counts scaled): the same bytes as through the records, in 4 MiB frames and in 64 KiB
# frames whose rounds span frames
"$G" "$M" "$T/o.pmt" 60 32 0 1 >/dev/null 2>&1 || bad "bench_stat_trace 60 32 0 1"
conv64 "odd 64k" "$T/o.pmt" "$T/o64.pmt"
rm -f "$T/o64.pmt.old"
for f in "$T/o.pmt" "$T/o64.pmt"; do
	same "odd --global --csv" "$f" "$M" --global --csv
	same "odd --csv" "$f" "$M" --csv
	same "odd -j 1 --global -M tma_retiring,tma_frontend_bound" "$f" "$M" -j 1 --global \
		-M tma_retiring,tma_frontend_bound --csv
done
rm -f "$T/o.pmt" "$T/o64.pmt"

# damage: a flipped byte in a counts frame in the middle (frames by columns before and
# after the one read as records); the file cut inside the last counts frame
rm -f "$T/s.pmt.old"
"$G" "$M" "$T/s.pmt" 60 32 >/dev/null 2>&1 || bad "bench_stat_trace 60 32"
at=$(frame_at "$T/s.pmt" middle)
[ -n "$at" ] || bad "no counts frame found in the synthetic file"
cp "$T/s.pmt" "$T/d.pmt"
printf '\377' | dd of="$T/d.pmt" bs=1 seek=$((at + 100)) conv=notrunc 2>/dev/null
"$P" metrics "$T/d.pmt" --metrics "$M" -M tma_retiring --csv -v 2>&1 >/dev/null |
	grep -q "counts frame of data frame [0-9]* (at offset $at) is not used: its checksum fails" ||
	bad "a flipped byte in a counts frame: -v does not name it"
same "flipped --csv" "$T/d.pmt" "$M" --csv
last=$(frame_at "$T/s.pmt" last)
head -c $((last + 40)) "$T/s.pmt" >"$T/cut.pmt"
"$P" metrics "$T/cut.pmt" --metrics "$M" -M tma_retiring --csv -v 2>&1 >/dev/null |
	grep -q "(at offset $last) is not used: the file ends inside it" ||
	bad "a file cut inside a counts frame: -v does not name it"
same "cut --csv" "$T/cut.pmt" "$M" --csv
# a counts frame whose checksum holds and whose columns do not decode (a writer's bug:
# every third one made so by the writer's test hook): its data frame's records are read,
# so the rows are those of the records, at -j 1 and with the frames decoded on a thread,
# and a warning names each such frame and its data frame with their offsets
PMT_CTR_TEST_BAD_COLUMNS=3 "$G" "$M" "$T/b.pmt" 60 32 >/dev/null 2>&1 || bad "bench_stat_trace 60 32 (bad columns)"
PMT_TEST_COUNTS_RECORDS=1 "$P" metrics "$T/b.pmt" --metrics "$M" --csv >"$T/r.out" 2>/dev/null
for j in 1 2; do
	"$P" metrics "$T/b.pmt" --metrics "$M" --csv -j $j -v >"$T/c.out" 2>"$T/c.err"
	st=$?
	cmp -s "$T/c.out" "$T/r.out" || bad "bad columns -j $j: rows != the records' (counts lost?)"
	[ "$st" -eq 2 ] || bad "bad columns -j $j: exit $st, not 2 (the writer's bug is warned of)"
	nw=$(grep -c "the counts frame at offset [0-9]* does not decode (a column holds more than its records): the counts of data frame [0-9]* are read from its records (at offset [0-9]*)" "$T/c.err")
	[ "$nw" -gt 0 ] || bad "bad columns -j $j: no warning names the frame: $(head -2 "$T/c.err")"
	n=$(sed -n 's/.*the STAT records of \([0-9]*\) data frames read from their counts frames.*/\1/p' "$T/c.err")
	[ "${n:-0}" -gt "$nw" ] || bad "bad columns -j $j: no counts frame decoded ($n frames, $nw bad)"
done

# the kernel's counts
cat >"$T/k.json" <<'J'
[{"MetricName": "faults_per_switch", "MetricExpr": "page\\-faults / context\\-switches"},
 {"MetricName": "clock", "MetricExpr": "task\\-clock + cpu\\-clock"},
 {"MetricName": "migr", "MetricExpr": "cpu\\-migrations + minor\\-faults"}]
J
EV=task-clock,context-switches,page-faults,cpu-migrations,minor-faults,cpu-clock
if ! "$P" stat -e task-clock -- true 2>"$T/err"; then
	echo "note: no perf_event_open here ($(head -1 "$T/err")): the kernel's counts left out"
else
	# 64 KiB frames hold ~110 rounds of 2 CPUs' 6 counters, ~210 of one thread's: 6 s of
	# -I 10 fill several, also when a loaded machine reads fewer than 100 a second
	for opts in "-a -A" ""; do
		# shellcheck disable=SC2086
		"$P" stat $opts -I 10 -e $EV -o "$T/k.pmt" -- sleep 6 >/dev/null 2>&1 ||
			bad "stat $opts -I 10 -o"
		conv64 "stat $opts" "$T/k.pmt" "$T/k64.pmt"
		n=$(used "$T/k64.pmt" "$T/k.json" clock)
		[ "${n:-0}" -gt 0 ] || bad "stat $opts: -v does not say counts frames were read"
		same "stat $opts --csv" "$T/k64.pmt" "$T/k.json" --csv
		same "stat $opts --jsonl" "$T/k64.pmt" "$T/k.json" --jsonl
	done
fi
# the kernel's samples and counts in one recording (record --count-events): the rounds
# stand between the samples, so its frames get counts frames of version 2
if "$P" record -q -e cpu-clock -c 100000 -a --count-events "$EV" --count-interval 10 \
	--count-per-cpu -o "$T/m.pmt" -- sleep 3 >/dev/null 2>"$T/err"; then
	conv64 "record --count-events" "$T/m.pmt" "$T/m64.pmt"
	n=$(used "$T/m64.pmt" "$T/k.json" migr)
	[ "${n:-0}" -gt 0 ] || bad "record --count-events: -v does not say counts frames were read"
	same "record --count-events --csv" "$T/m64.pmt" "$T/k.json" --csv
	same "record --count-events --global --jsonl" "$T/m64.pmt" "$T/k.json" --global --jsonl
	if command -v perf >/dev/null; then
		perf stat report -i "$T/a.data" >"$T/rep.txt" 2>&1 || bad "perf stat report of zstd -dc: exit $?"
		grep -q context-switches "$T/rep.txt" || bad "perf stat report of zstd -dc: no counts"
		[ "$(perf script -i - <"$T/a.data" 2>/dev/null | wc -l)" -gt 100 ] ||
			bad "perf script of zstd -dc of the mixed recording: no samples"
	fi
else
	echo "note: record --count-events failed here ($(head -1 "$T/err")): left out"
fi
# record --tpebs on the simulated PEBS PMU: its :R events sampled, the rest counted per CPU
if command -v cc >/dev/null &&
	cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/../pmusim/pmusim.c" -ldl -lpthread; then
	sh "$HERE/../oracles/fake_intel_sysfs.sh" "$T/gnr" gnr
	TM=$HERE/../../fixtures/metrics/tpebs-raw-metrics.json
	env SYSFS_PATH="$T/gnr" PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_PEBS_SAMPLES=20000 PMUSIM_PEBS_RATE=10000 PMUSIM_PEBS_SEED=11 \
		PMUSIM_LOG="$T/sim.log" PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$T/sim.so" \
		"$P" record -q --tpebs -M tma_L4_group --metrics "$TM" -a --count-per-cpu \
		--count-interval 10 --duration 30 -o "$T/tp.pmt" 2>"$T/err" ||
		bad "record --tpebs on pmusim: $(head -2 "$T/err")"
	conv64 "record --tpebs" "$T/tp.pmt" "$T/tp64.pmt"
	n=$(used "$T/tp64.pmt" "$TM" tma_L4_group)
	[ "${n:-0}" -gt 0 ] || bad "record --tpebs: -v does not say counts frames were read"
	same "record --tpebs --csv" "$T/tp64.pmt" "$TM" -M tma_L4_group --csv
	same "record --tpebs --per-cpu --csv" "$T/tp64.pmt" "$TM" -M tma_L4_group --csv --retire-latency-per-cpu
else
	echo "note: no cc for the pmusim preload: record --tpebs left out"
fi

# perf's own recording (perf 6.1 stat record, file mode) converted to a container: the
# rows of its counts frames are those of the perf.data itself. Its last frame holds an
# MMAP record (no counts frame), and a loaded machine gives fewer than 100 intervals a
# second: 6 s make frames of STAT records alone between the first and the last
if command -v perf >/dev/null &&
	perf stat record -o "$T/ps.data" -a -A -I 10 -e "$EV" -- sleep 6 >/dev/null 2>&1; then
	"$P" convert "$T/ps.data" --container --frame-size 64k -o "$T/ps.pmt" || bad "convert of perf's stat record"
	n=$(used "$T/ps.pmt" "$T/k.json" clock)
	[ "${n:-0}" -gt 0 ] || bad "perf stat record: -v does not say counts frames were read"
	same "perf stat record --csv" "$T/ps.pmt" "$T/k.json" --csv
	"$P" metrics "$T/ps.data" --metrics "$T/k.json" --csv >"$T/p.out" 2>/dev/null
	cmp -s "$T/c.out" "$T/p.out" || bad "perf stat record: the container's rows != the perf.data's"
else
	echo "note: no perf 6.1 stat record here: perf's own recording left out"
fi
[ "$fail" -eq 0 ] && echo "ok: counts frames read as the records"
exit $((fail > 0))
