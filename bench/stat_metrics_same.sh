#!/bin/sh
# Before a speed change to `pmutrace metrics TRACE` (issue 11): BASE's and NEW's stdout
# (md5), stderr and exit status on one counting recording (bench_stat_trace's, e.g. 360 x
# 64) for the cases README's metrics row names: --global, -M tma_retiring (CSV, text,
# JSONL), every metric per CPU, -A two metrics, -j 1/2/3. Exit 1 when any differ.
#   sh bench/stat_metrics_same.sh BASE NEW TRACE METRICS.json
set -u
B=$1 N=$2 F=$3 M=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ok=0
for args in "--global --csv" "--global" "-M tma_retiring --csv" "-M tma_retiring" \
	"-M tma_retiring --jsonl" "--csv" "-j1 --global --csv" "-j2 --global --csv" \
	"-j3 --global --csv" "-j1 --csv" "-j3 --csv" "-j1 -M tma_retiring --csv" \
	"-A -M tma_retiring,tma_frontend_bound --csv" \
	"--global -M tma_retiring,tma_frontend_bound --json"; do
	for w in base new; do
		p=$B
		[ $w = new ] && p=$N
		# shellcheck disable=SC2086
		{ "$p" metrics "$F" --metrics "$M" $args 2>"$T/err.$w"; echo "exit $?" >>"$T/err.$w"; } |
			md5sum >"$T/out.$w"
	done
	if cmp -s "$T/out.base" "$T/out.new" && cmp -s "$T/err.base" "$T/err.new"; then
		echo "same: $args"
	else
		echo "DIFFER: $args"
		ok=1
	fi
done
exit $ok
