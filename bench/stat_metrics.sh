#!/bin/sh
# Measure (issue 11): every GNR metric from a recording of INTERVALS x NCPUS (default
# 3,600 intervals x 64 CPUs, -a -A -I 1000 for an hour): the recording is made by
# bench_stat_trace from SHARED_DIR/data/tpebs/gnr-metrics.json's count events, then
# `pmutrace metrics TRACE` is timed with /usr/bin/time -v (wall and CPU time, max RSS).
# The rows are counted through a pipe (the CSV of every metric is 4.5 GB). PMUTRACE (a
# path) times another build's pmutrace on the same recording, for before/after figures.
#   sh bench/stat_metrics.sh BUILD_DIR [INTERVALS] [NCPUS] [SHARED_DIR] (default $PMT_SHARED_DIR)
set -eu
B=$1 N=${2:-3600} C=${3:-64} S=${4:-${PMT_SHARED_DIR:-}}
P=${PMUTRACE:-$B/cli/pmutrace}
M=$S/data/tpebs/gnr-metrics.json
[ -f "$M" ] || { echo "SKIP: no $M"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/bench/bench_stat_trace" "$M" "$T/stat.pmt" "$N" "$C"
ls -l "$T/stat.pmt" | awk '{ printf "container: %.1f MB\n", $5 / 1e6 }'
# NAME ARGS...: one run, its rows, wall and CPU time, max RSS
timed() {
	name=$1
	shift
	rows=$( (/usr/bin/time -v "$P" metrics "$T/stat.pmt" --metrics "$M" "$@" 2>"$T/time" ||
		true) | wc -l)
	printf "metrics %s: %s rows, " "$name" "$((rows - 1))"
	awk -F': ' '/Elapsed \(wall clock\)/ { printf "wall %s, ", $2 }
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident/ { printf "CPU %.2f s, max RSS %.0f MB\n", u + s, $2 / 1024 }' \
		"$T/time"
}
timed --csv --csv
timed --jsonl --jsonl
# the loader alone: one metric, so printing and evaluation are small
timed "-M tma_retiring" -M tma_retiring --csv
