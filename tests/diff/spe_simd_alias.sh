#!/bin/sh
# The one place pmutrace's default model departs from perf 7.3 on V2-shaped data: perf
# 6.19+ takes a record for a SIMD memory operation by its op bits alone, and a branch's
# call/return hint bits sit where SIMD_FP/SVE do, so perf makes a "memory" sample (and a
# data source on the instructions sample) for call/return branches. --perf-compat=7.3
# reproduces that (diff.spe_perf73.v2_* compare it with perf 7.3); the default does not.
# This checks that the two models differ in exactly those samples and nowhere else.
#   spe_simd_alias.sh PMUTRACE
set -eu
P=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$P" synth --records 20000 --mix v2 --context --seed 77 -o "$T/a.spe"
"$P" convert --raw "$T/a.spe" -o "$T/a.data"
"$P" script "$T/a.data" --csv >"$T/newest.csv"
"$P" script "$T/a.data" --csv --perf-compat=7.3 >"$T/p73.csv"
diff "$T/newest.csv" "$T/p73.csv" | grep '^[<>]' >"$T/d" || true
# every differing row is a branch record (op column "BR...")
awk -F, '$18 !~ /^BR/ { bad++ } END { exit bad > 0 }' "$T/d" ||
	{ echo "FAIL: rows other than branch records differ:"; grep -v ',BR' "$T/d" | head -5; exit 1; }
mem=$(grep -c '^> memory,' "$T/d" || true)
old=$(grep -c '^< instructions,' "$T/d" || true)
new=$(grep -c '^> instructions,' "$T/d" || true)
[ "$mem" -gt 0 ] && [ "$old" = "$mem" ] && [ "$new" = "$mem" ] ||
	{ echo "FAIL: expected one memory sample and one changed instructions sample per record ($mem/$old/$new)"; exit 1; }
# and the 7.3 memory samples of those records say OP N/A
awk -F, '/^> memory,/ && $14 != "N/A" { bad++ } END { exit bad > 0 }' "$T/d" ||
	{ echo "FAIL: alias memory samples with an op other than N/A"; exit 1; }
echo "OK: default and --perf-compat=7.3 differ only in the $mem call/return branch records perf 7.3 takes for SIMD memory ops"
