#!/bin/sh
# Timeless traces (no PERF_SAMPLE_TIME) against perf 7.3 with several --itrace periods
# (issue 15 item 5). perf decodes each queue's zeroed record once before its data and
# counts it in the --itrace period. --perf-compat=7.3 gives perf's samples line for line;
# the default (newest) model drops the all-zero samples of that record but keeps its place
# in the period, so its samples are perf's minus exactly those (README "Compatibility").
# Before, the default started the period one record later: a different sample every
# period (--itrace=i3ib: 194 instructions samples where perf 7.3 makes 177).
#   PERF=perf-7.3 spe_timeless_newest.sh PMUTRACE
set -eu
P=$1
. "$(dirname "$0")/perf_oracle.sh"
fields=tid,period,event,addr,ip
lines=0
# n1 and loads: no call/return branches whose SIMD-alias memory samples the newest model
# also leaves out (diff.spe_simd_alias); traces of CPU 0 and of CPU 1 with another thread
for mix in n1 loads; do
	"$P" synth --records 3000 --seed 2 --mix $mix --no-timestamps --context -o "$T/c0.spe"
	"$P" synth --records 2000 --seed 3 --mix $mix --no-timestamps -o "$T/c1.spe"
	"$P" convert --raw "$T/c0.spe" --midr 0x410fd0c0 --timeless --cpu 0 -o "$T/c0.data"
	"$P" convert --raw "$T/c1.spe" --midr 0x410fd0c0 --timeless --cpu 1 --tid 99 -o "$T/c1.data"
	for f in c0 c1; do
		for it in "" --itrace=i10i --itrace=i3ib --itrace=bfmtaMi7i --itrace=bl --itrace=i5il; do
			# shellcheck disable=SC2086
			$PERF script -i "$T/$f.data" $it -F $fields 2>/dev/null |
				awk '{ $1 = $1; print }' >"$T/perf.txt"
			# shellcheck disable=SC2086
			"$P" script "$T/$f.data" $it --perf-compat=7.3 -F $fields 2>/dev/null |
				awk '{ $1 = $1; print }' >"$T/p73.txt"
			# shellcheck disable=SC2086
			"$P" script "$T/$f.data" $it -F $fields 2>/dev/null |
				awk '{ $1 = $1; print }' >"$T/new.txt"
			lines=$((lines + $(wc -l <"$T/perf.txt")))
			cmp -s "$T/perf.txt" "$T/p73.txt" ||
				{ echo "FAIL: --perf-compat=7.3 differs from perf 7.3 ($mix $f $it):"
				  diff "$T/perf.txt" "$T/p73.txt" | head -5; exit 1; }
			# perf's zeroed-record samples: ip 0 and addr 0 before the first real record
			awk 'NR == 1 || z { z = ($(NF) == 0 || $(NF) == "0" ) && $(NF - 1) == 0
			      if (z) next } { z = 0; print }' "$T/perf.txt" >"$T/perf-real.txt"
			[ "$(wc -l <"$T/perf-real.txt")" -lt "$(wc -l <"$T/perf.txt")" ] ||
				[ -n "$it" ] || { echo "FAIL: no zeroed-record sample in perf's output"; exit 1; }
			cmp -s "$T/perf-real.txt" "$T/new.txt" ||
				{ echo "FAIL: the default differs from perf 7.3 beyond the zeroed record ($mix $f $it):"
				  diff "$T/perf-real.txt" "$T/new.txt" | head -5; exit 1; }
		done
	done
done
[ "$lines" -gt 10000 ] || { echo "FAIL: perf printed only $lines samples"; exit 1; }
echo "OK: $lines samples of timeless traces: --perf-compat=7.3 equals perf 7.3, the default equals it without the zeroed record's samples"
