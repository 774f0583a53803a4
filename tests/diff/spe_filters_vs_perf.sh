#!/bin/sh
# perf's sample filters on an SPE trace: --tid LIST, --cpu LIST and --time START,STOP keep
# the samples perf script keeps (counted per event against PERF, with the matching compat
# level); --time percentages, which perf cannot apply to a file without its first/last
# sample time feature, slice the span of the decoded samples: 0%-100% keeps all, and
# 10%-20% equals the absolute window it stands for.
#   [PERF=CMD] [COMPAT=VER] spe_filters_vs_perf.sh PMUTRACE
set -eu
P=$1
PERF=${PERF:-perf}
COMPAT=${COMPAT:-6.1}
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$P" synth --records 20000 --context --seed 7 -o "$T/a.spe"
"$P" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.data"
"$P" script "$T/a.data" --itrace=bfmtaMi1i --perf-compat="$COMPAT" --csv >"$T/all.csv"
first=$(awk -F, 'NR == 2 { print $5 }' "$T/all.csv")
last=$(awk -F, 'END { print $5 }' "$T/all.csv")
tids=$(awk -F, 'NR > 1 { print $4 }' "$T/all.csv" | sort -u | head -2 | tr '\n' ',' | sed 's/,$//')
secs() { awk -v ns="$1" 'BEGIN { printf "%d.%09d", ns / 1e9, ns % 1e9 }'; }
lo=$(secs $((first + (last - first) * 3 / 10)))
hi=$(secs $((first + (last - first) * 6 / 10)))
counts() { sort | uniq -c | awk '{ print $2, $1 }'; }
for args in "--tid $tids" "--cpu 0" "--time $lo,$hi" "--time $lo," "--time ,$hi"; do
	# shellcheck disable=SC2086
	$PERF script -i "$T/a.data" --itrace=bfmtaMi1i -F event $args 2>/dev/null |
		sed 's/^ *//; s/:.*//' | counts >"$T/perf.cnt"
	# shellcheck disable=SC2086
	"$P" script "$T/a.data" --itrace=bfmtaMi1i --perf-compat="$COMPAT" --csv $args |
		tail -n +2 | cut -d, -f1 | counts >"$T/pmt.cnt"
	[ -s "$T/perf.cnt" ] || fail "$args: perf kept no sample"
	cmp -s "$T/perf.cnt" "$T/pmt.cnt" || { diff "$T/perf.cnt" "$T/pmt.cnt"; fail "$args: per-event counts differ (perf < > pmutrace)"; }
done
n_all=$(($(wc -l <"$T/all.csv") - 1))
n_100=$(($("$P" script "$T/a.data" --itrace=bfmtaMi1i --perf-compat="$COMPAT" --csv --time 0%-100% | wc -l) - 1))
[ "$n_100" = "$n_all" ] || fail "--time 0%-100% kept $n_100 of $n_all samples"
lo=$(secs $((first + (last - first) / 10)))
hi=$(secs $((first + (last - first) * 2 / 10)))
"$P" script "$T/a.data" --itrace=bfmtaMi1i --perf-compat="$COMPAT" --csv --time 10%-20% >"$T/pct.csv"
"$P" script "$T/a.data" --itrace=bfmtaMi1i --perf-compat="$COMPAT" --csv --time "$lo,$hi" >"$T/abs.csv"
n=$(($(wc -l <"$T/pct.csv") - 1))
[ "$n" -gt 0 ] && [ "$n" -lt "$n_all" ] || fail "--time 10%-20% kept $n of $n_all"
# the same window up to the nanosecond the printed seconds round away
m=$(($(wc -l <"$T/abs.csv") - 1))
[ $((n - m)) -le 2 ] && [ $((m - n)) -le 2 ] || fail "--time 10%-20% kept $n, its window $lo,$hi $m"
echo "OK: --tid/--cpu/--time keep what $($PERF version) keeps; --time 10%-20% keeps $n of $n_all"
