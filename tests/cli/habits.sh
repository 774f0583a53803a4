#!/bin/sh
# Issue 15, perf's command-line habits, each against what perf does (perf 7.3 where it runs):
#  - bare --itrace is perf's default (the same samples as none);
#  - --itrace=c and r make branch samples as b, as perf 7.3's SPE decoder does (the same
#    counts as perf 7.3 on the file, when the oracle is there); other decoders' letters are
#    accepted as perf accepts them (s with its count), silently, and -v names them;
#  - dump --midr of a Neoverse N1 names EVENTS bit 12 LATE-PREFETCH (as --n1; the vector is
#    fixtures/spe/events-n1.vec's), another MIDR does not; dump --cpu/--tid pick chunks;
#  - --perf-compat takes any X.Y (and X.Y.Z) and refuses junk with the list of models;
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
echo "OK: bare --itrace, c/r, -v, dump --midr/--cpu, --perf-compat, -i"
