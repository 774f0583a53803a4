#!/bin/sh
# script --itrace=bl --csv: a brstack column (perf >= 6.15) whose TGT entry is the sample's
# own ip -> addr with perf's "/P|M[N]/-/-/CYC/TYPE/-" flags; no column before 6.15.
#   brstack_csv.sh PMUTRACE
set -eu
PMUTRACE=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records 500 --seed 7 --mix v2 -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd4f0 -o "$T/a.data"
"$PMUTRACE" script "$T/a.data" --itrace=bl --csv >"$T/new.csv"
"$PMUTRACE" script "$T/a.data" --itrace=bl --csv --perf-compat=6.14 >"$T/old.csv"
head -1 "$T/new.csv" | grep -q ',offset,brstack$' || { echo "FAIL: no brstack column"; exit 1; }
head -1 "$T/old.csv" | grep -q ',offset$' || { echo "FAIL: brstack column at 6.14"; exit 1; }
# event,cpu,pid,tid,time,ip($6),addr($7),... weight($10) ... brstack($21)
awk -F, 'NR > 1 {
	n++
	split($21, e, "/")
	if (e[1] != $6 || e[2] != $7 || e[3] !~ /^[PM]N?$/ || e[4] != "-" || e[5] != "-" ||
	    e[6] != $10 || e[8] != "-" || $21 ~ / /) {
		print "FAIL: line " NR ": " $0; bad = 1; exit 1
	}
} END { if (!bad && n < 50) { print "FAIL: only " n " branch samples"; exit 1 } }' \
	"$T/new.csv"
echo "OK: brstack column consistent with ip/addr/weight"
