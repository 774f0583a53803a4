#!/bin/sh
# Issue 15, perf's command-line habits, each against what perf does (perf 7.3 where it runs):
#  - bare --itrace is perf's default (the same samples as none);
#  - --itrace=c and r make branch samples as b, as perf 7.3's SPE decoder does (the same
#    counts as perf 7.3 on the file, when the oracle is there); other decoders' letters are
#    accepted as perf accepts them (s with its count), silently, and -v names them;
#  - dump --midr of a Neoverse N1 names EVENTS bit 12 LATE-PREFETCH (as --n1; the vector is
#    fixtures/spe/events-n1.vec's), another MIDR does not; dump --cpu/--tid pick chunks;
#  - dump --pid shows the chunks of that process's threads (learned from COMM) and its
#    records, --time the chunks with a timestamp in the window (worked out from the full
#    dump's TS packets; with the oracle, every sample time perf 7.3's script --time prints is
#    a TS of a shown chunk), both refused with --raw;
#  - --perf-compat (script, dump) takes any X.Y (and X.Y.Z) and refuses junk with the list of models;
#  - calibrate and metrics take -i TRACE; calibrate defaults to ./perf.data.
#   habits.sh PMUTRACE [ORACLES_DIR]
set -u
P=$1 X=${2:-}/bin/perf-7.3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cd "$T" || exit 1
"$P" synth --records 3000 --mix n1 --seed 3 -o a.spe && "$P" convert --raw a.spe --midr 0x410fd0c0 -o a.data ||
	{ echo "FAIL: making the trace"; exit 1; }
count() { "$@" -F event 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ';'; }

# bare --itrace
"$P" script a.data >none.txt 2>&1
"$P" script a.data --itrace >bare.txt 2>&1 || bad "--itrace without letters: exit $?: $(head -2 bare.txt)"
[ -s none.txt ] && cmp -s none.txt bare.txt || bad "bare --itrace differs from no --itrace"

# c, r as b; others' letters ignored, and named with -v only
b=$(count "$P" script a.data --itrace=b)
[ -n "$b" ] || bad "--itrace=b made no samples"
for l in c r cr; do
	[ "$(count "$P" script a.data --itrace=$l)" = "$b" ] || bad "--itrace=$l: $(count "$P" script a.data --itrace=$l), b gives $b"
	if [ -x "$X" ]; then
		[ "$(count "$X" script -i a.data --itrace=$l)" = "$b" ] || bad "perf 7.3 --itrace=$l: $(count "$X" script -i a.data --itrace=$l)"
	fi
done
"$P" script a.data --itrace=bxwpoedgGLs5qZATI >o.txt 2>e.txt; rc=$?
[ $rc = 0 ] && [ ! -s e.txt ] || bad "other decoders' letters: exit $rc, stderr $(cat e.txt)"
"$P" script a.data --itrace=bxwZ -v >/dev/null 2>e.txt
grep -qx -- "--itrace letters for other decoders, ignored by Arm SPE: xwZ" e.txt || bad "-v: $(cat e.txt)"
# perf's s (initial skip) needs its count: "Bad Instruction Tracing options 'bs'"
"$P" script a.data --itrace=bs >/dev/null 2>e.txt && bad "--itrace=bs accepted"
grep -q "s needs the number of events to skip" e.txt || bad "--itrace=bs: $(cat e.txt)"
if [ -x "$X" ]; then
	"$X" script -i a.data --itrace=bs >/dev/null 2>&1 && bad "perf 7.3 takes --itrace=bs"
	"$X" script -i a.data --itrace=bxwpoedgGLs5qZAT >/dev/null 2>&1 || bad "perf 7.3 refuses the other decoders' letters"
fi
"$P" report a.data --itrace=bq -v --stdio >/dev/null 2>e.txt
grep -q "ignored by Arm SPE: q$" e.txt || bad "report -v: $(cat e.txt)"

# dump --midr: EVENTS 0x1000 (2-byte payload)
printf '\122\000\020' >ev.spe
"$P" dump --raw ev.spe --midr 0x410fd0c0 | grep -q 'EV LATE-PREFETCH$' || bad "dump --midr N1: $("$P" dump --raw ev.spe --midr 0x410fd0c0)"
"$P" dump --raw ev.spe --midr 0x410fd400 | grep -q 'LATE-PREFETCH' && bad "dump --midr V1 names LATE-PREFETCH"
"$P" dump --raw ev.spe --midr 0x410fd400 | grep -q 'IMPDEF:12' || bad "dump --midr V1: $("$P" dump --raw ev.spe --midr 0x410fd400)"
"$P" dump --raw ev.spe --midr nope >/dev/null 2>&1; [ $? = 129 ] || bad "dump --midr nope: not a usage error"
[ "$("$P" dump a.data --cpu 0 | grep -c 'PERF_RECORD_AUXTRACE size')" -ge 1 ] || bad "dump --cpu 0 shows no chunk"
[ "$("$P" dump a.data --cpu 1 | grep -c 'PERF_RECORD_AUXTRACE size')" = 0 ] || bad "dump --cpu 1 shows CPU 0's chunks"
"$P" dump a.data --cpu 1 | grep -q PERF_RECORD_AUXTRACE_INFO || bad "dump --cpu 1 dropped other records"

# dump --pid/--time on 8 KiB chunks of process 77 (thread 78); identity TIME_CONV: TS = ns
"$P" convert --raw a.spe --midr 0x410fd0c0 --pid 77 --tid 78 --comm foo --chunk 8192 -o b.data ||
	bad "making the chunked trace"
chunks() { grep 'PERF_RECORD_AUXTRACE size' | cut -d' ' -f1 | tr '\n' ' '; }
all=$("$P" dump b.data | chunks)
[ "$("$P" dump b.data --pid 77 | chunks)" = "$all" ] || bad "dump --pid 77 lost chunks"
"$P" dump b.data --pid 77 | grep -q PERF_RECORD_COMM || bad "dump --pid 77 dropped its COMM"
[ -z "$("$P" dump b.data --pid 5 | chunks)" ] || bad "dump --pid 5 shows process 77's chunks"
"$P" dump b.data --pid 5 | grep -q PERF_RECORD_AUXTRACE_INFO || bad "dump --pid 5 dropped AUXTRACE_INFO"
lo=13196305000000 hi=13196306000000
want=$("$P" dump b.data | awk -v lo=$lo -v hi=$hi '/PERF_RECORD_AUXTRACE size/ { c = $1 }
	$NF ~ /^[0-9]+$/ && $(NF-1) == "TS" && $NF >= lo && $NF <= hi && !seen[c]++ { printf "%s ", c }')
got=$("$P" dump b.data --time 13196.305,13196.306 | chunks)
[ -n "$want" ] && [ "$want" != "$all" ] && [ "$got" = "$want" ] ||
	bad "dump --time: chunks '$got', their timestamps say '$want'"
"$P" dump b.data --time 13196.305,13196.306 --pid 5 | grep -q 'AUXTRACE size' && bad "dump --time --pid 5 shows chunks"
[ "$("$P" dump b.data --time 0%-100% | chunks)" = "$all" ] || bad "dump --time 0%-100% lost chunks"
[ "$("$P" dump b.data --time 0%-10% | chunks)" = "$(echo "$all" | cut -d' ' -f1-3) " ] ||
	bad "dump --time 0%-10%: $("$P" dump b.data --time 0%-10% | chunks)"
"$P" dump --raw a.spe --time 1,2 >/dev/null 2>&1; [ $? = 129 ] || bad "dump --raw --time: not a usage error"
"$P" dump b.data --pid x >/dev/null 2>&1; [ $? = 129 ] || bad "dump --pid x: not a usage error"
if [ -x "$X" ]; then
	"$P" dump b.data --time 13196.305,13196.306 | awk '/PERF_RECORD_AUXTRACE size/ { c = 1 }
		c && NF > 1 && $(NF-1) == "TS" { print $NF }' | sort -u >ts.txt
	"$X" script -i b.data --ns -F time --time 13196.305,13196.306 2>/dev/null |
		tr -d ' .:' | grep -E '^[0-9]+$' | sort -u >perf_ts.txt
	[ -s perf_ts.txt ] && [ -z "$(comm -13 ts.txt perf_ts.txt)" ] ||
		bad "dump --time hides chunks of perf 7.3's samples: $(comm -13 ts.txt perf_ts.txt | head -3)"
fi

# --perf-compat
for v in 6.14 5.10 7.3.4 8.0 newest; do
	"$P" script a.data --perf-compat=$v >/dev/null 2>e.txt || bad "--perf-compat=$v: $(cat e.txt)"
done
[ "$("$P" script a.data --perf-compat=6.14 | md5sum)" = "$("$P" script a.data --perf-compat=6.13 | md5sum)" ] ||
	bad "--perf-compat=6.14 is not 6.13's model"
for v in junk 7 6.1x 6.1. ' 6.1'; do
	"$P" script a.data --perf-compat="$v" >/dev/null 2>e.txt; rc=$?
	[ $rc = 129 ] && grep -q "6.1 6.13 6.15 6.16 6.18 6.19 7.3, or newest" e.txt ||
		bad "--perf-compat='$v': exit $rc, $(cat e.txt)"
done
# dump takes it too: releases before 6.13 print perf 6.1's packet text (--legacy61's, which
# realdata.dump_vs_perf.* checks against perf 6.1), later ones the newest (perf 7.3's)
legacy=$("$P" dump a.data --legacy61 | md5sum) newest=$("$P" dump a.data | md5sum)
[ "$legacy" != "$newest" ] && [ "$("$P" dump a.data --perf-compat=6.12 | md5sum)" = "$legacy" ] &&
	[ "$("$P" dump a.data --perf-compat=6.1 | md5sum)" = "$legacy" ] &&
	[ "$("$P" dump a.data --perf-compat=6.13 | md5sum)" = "$newest" ] &&
	[ "$("$P" dump a.data --perf-compat=7.3.4 | md5sum)" = "$newest" ] ||
	bad "dump --perf-compat: 6.1/6.12 are not --legacy61's text or 6.13/7.3.4 not the newest"
"$P" dump a.data --perf-compat=6.1x >/dev/null 2>e.txt; rc=$?
[ $rc = 129 ] && grep -q "6.1 6.13 6.15 6.16 6.18 6.19 7.3, or newest" e.txt ||
	bad "dump --perf-compat=6.1x: exit $rc, $(cat e.txt)"

# -i on calibrate and metrics; calibrate's ./perf.data
"$P" calibrate -i a.data -o c.json 2>e.txt; rc=$?
[ $rc = 1 ] && grep -q "a.data has no samples with a retire latency" e.txt || bad "calibrate -i: exit $rc, $(cat e.txt)"
cp a.data perf.data
"$P" calibrate -o c.json 2>e.txt; rc=$?
[ $rc = 1 ] && grep -q "perf.data has no samples with a retire latency" e.txt || bad "calibrate without TRACE: exit $rc, $(cat e.txt)"
printf '1,,cycles,1,100.00,,\n' >c.csv
echo '[{"MetricName": "m", "MetricExpr": "cycles * 2"}]' >m.json
"$P" metrics -i c.csv --metrics m.json --csv >/dev/null 2>e.txt
grep -q "c.csv: offset 0: not a perf.data file" e.txt || bad "metrics -i does not read the trace: $(cat e.txt)"
[ $fail = 0 ] || exit 1
echo "OK: bare --itrace, c/r, -v, dump --midr/--cpu/--pid/--time, --perf-compat (script, dump), -i"
