#!/bin/sh
# Measure (issue 11): every GNR metric from a recording of INTERVALS x NCPUS (default
# 3,600 intervals x 64 CPUs, -a -A -I 1000 for an hour): the recording is made by
# bench_stat_trace from SHARED_DIR/data/tpebs/gnr-metrics.json's count events, then
# `pmutrace metrics TRACE` is timed with /usr/bin/time -v (wall time, max RSS).
#   sh bench/stat_metrics.sh BUILD_DIR [INTERVALS] [NCPUS] [SHARED_DIR] (default $PMT_SHARED_DIR)
set -eu
B=$1 N=${2:-3600} C=${3:-64} S=${4:-${PMT_SHARED_DIR:-}}
M=$S/data/tpebs/gnr-metrics.json
[ -f "$M" ] || { echo "SKIP: no $M"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/bench/bench_stat_trace" "$M" "$T/stat.pmt" "$N" "$C"
ls -l "$T/stat.pmt" | awk '{ printf "container: %.1f MB\n", $5 / 1e6 }'
for fmt in --csv; do
	/usr/bin/time -v "$B/cli/pmutrace" metrics "$T/stat.pmt" --metrics "$M" $fmt \
		>"$T/out" 2>"$T/time" || true
	printf "metrics %s: %s rows, " "$fmt" "$(($(wc -l <"$T/out") - 1))"
	awk -F': ' '/Elapsed \(wall clock\)/ { printf "wall %s, ", $2 }
		/Maximum resident/ { printf "max RSS %.0f MB\n", $2 / 1024 }' "$T/time"
done
# the loader alone: one metric, so printing and evaluation are small
/usr/bin/time -v "$B/cli/pmutrace" metrics "$T/stat.pmt" --metrics "$M" -M tma_retiring --csv \
	>"$T/out" 2>"$T/time" || true
printf "metrics -M tma_retiring: %s rows, " "$(($(wc -l <"$T/out") - 1))"
awk -F': ' '/Elapsed \(wall clock\)/ { printf "wall %s, ", $2 }
	/Maximum resident/ { printf "max RSS %.0f MB\n", $2 / 1024 }' "$T/time"
