#!/bin/sh
# Branch stacks (--itrace=l, perf >= 6.15) against perf 7.3: every branch and instruction
# sample's event, ip and brstack entries (TGT then PBT: from/to/flags/cycles/type) as
# `perf script -F event,ip,brstack` prints them, on branch-heavy and mixed corpora.
#   [PERF=CMD] spe_brstack_vs_perf.sh PMUTRACE SEED MIX RECORDS [synth options...]
set -eu
P=$1 SEED=$2 MIX=$3 RECORDS=$4
shift 4
PERF=${PERF:-perf}
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
$PERF version | grep -q 'version [7-9]\|version 6\.1[5-9]' ||
	{ echo "SKIP: $($PERF version) has no SPE branch stacks (perf >= 6.15)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$P" synth --records "$RECORDS" --seed "$SEED" --mix "$MIX" "$@" -o "$T/a.spe"
"$P" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.data"
$PERF script -i "$T/a.data" --itrace=bi1il -F event,ip,brstack 2>/dev/null |
	awk '{ ev = $1; sub(/:$/, "", ev); b = ""; for (i = 3; i <= NF; i++) b = b (b == "" ? "" : " ") $i
	       printf "%s,%s,%s\n", ev, $2, b }' >"$T/perf.txt"
"$P" script "$T/a.data" --itrace=bi1il --csv |
	awk -F, 'NR > 1 { ip = $6; sub(/^0x/, "", ip); printf "%s,%s,%s\n", $1, ip, $21 }' >"$T/pmt.txt"
n=$(wc -l <"$T/perf.txt")
[ "$n" -gt 0 ] || { echo "FAIL: perf printed no samples"; exit 1; }
if ! cmp -s "$T/perf.txt" "$T/pmt.txt"; then
	echo "FAIL: branch stacks differ (perf < > pmutrace)"
	diff "$T/perf.txt" "$T/pmt.txt" | head -10
	exit 1
fi
echo "OK: $n samples with identical branch stacks to $($PERF version)"
