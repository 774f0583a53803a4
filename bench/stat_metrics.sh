#!/bin/sh
# Measure (issue 11): every GNR metric from a recording of INTERVALS x NCPUS (default
# 3,600 intervals x 64 CPUs, -a -A -I 1000 for an hour): the recording is made by
# bench_stat_trace from SHARED_DIR/data/tpebs/gnr-metrics.json's count events (with the
# counts frames of FORMAT.md, as every writer now writes them), then `pmutrace metrics
# TRACE` is timed with /usr/bin/time -v (wall and CPU time, max RSS), each case read by
# the counts frames ("columns") and through the STAT records of the same file ("records":
# PMT_TEST_COUNTS_RECORDS=1), at -j 1 and the default -j. The rows are counted through a
# pipe (the CSV of every metric is 4.5 GB); one run writes it to /dev/null instead, to see
# what the pipe and its reader cost. PMUTRACE (a path) times another build's pmutrace on
# the same recording, for before/after figures (its reader ignores the counts frames if
# it predates them). --per-socket and --per-core need the recording's CPU topology, which
# bench_stat_trace does not write: --global stands for the aggregated cases.
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
# NAME ENV ARGS...: one run (ENV: a VAR=VALUE or ""), its rows, wall and CPU time, max RSS
timed() {
	name=$1 e=$2
	shift 2
	# shellcheck disable=SC2086
	rows=$( (env $e /usr/bin/time -v "$P" metrics "$T/stat.pmt" --metrics "$M" "$@" \
		2>"$T/time" || true) | wc -l)
	printf "metrics %s: %s rows, " "$name" "$((rows - 1))"
	report
}
report() {
	awk -F': ' '/Elapsed \(wall clock\)/ { printf "wall %s, ", $2 }
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident/ { printf "CPU %.2f s (user %.2f), max RSS %.0f MB\n", u + s, u, $2 / 1024 }' \
		"$T/time"
}
for path in columns records; do
	e=
	[ "$path" = records ] && e=PMT_TEST_COUNTS_RECORDS=1
	for j in "-j1" ""; do
		# the counts alone: one metric, so printing and evaluation are small
		timed "$path $j -M tma_retiring" "$e" $j -M tma_retiring --csv
		timed "$path $j --csv" "$e" $j --csv
		# every metric summed over the CPUs (perf stat report's default without -A):
		# the counts and 3,600 units of evaluation, no 4.5 GB of text
		timed "$path $j --global --csv" "$e" $j --global --csv
		timed "$path $j --jsonl" "$e" $j --jsonl
	done
done
# every metric's CSV into /dev/null: no pipe, no reader of 4.5 GB on the other core
/usr/bin/time -v "$P" metrics "$T/stat.pmt" --metrics "$M" -j1 --csv >/dev/null 2>"$T/time" || true
printf "metrics columns -j1 --csv >/dev/null: "
report
