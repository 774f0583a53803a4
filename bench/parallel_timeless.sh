#!/bin/sh
# What -j N gives a timeless SPE trace (no timestamps to merge CPUs by: perf decodes it
# queue after queue) against the same bytes with timestamps, both one CPU's AUX data in 1
# MiB AUXTRACE records of a synth N1 stream, as containers (4 MiB frames). RUNS interleaved
# rounds of `script --csv -j 1` and `-j 2` on both: best wall time, median CPU time (user +
# sys); the rows of -j 1 and -j 2 are cmp'd equal; then the CPU time by thread at -j 2
# (perf record -s), each thread named by its hottest symbol.
# Usage: sh bench/parallel_timeless.sh BUILD_DIR [RECORDS] [RUNS]
set -eu
build=$1
records=${2:-1000000}
runs=${3:-7}
pmt=$build/cli/pmutrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$pmt" synth --records "$records" --seed 7 -o "$tmp/x.spe"
"$pmt" convert --raw "$tmp/x.spe" --midr 0x410fd0c0 --chunk 1048576 --timeless --container -o "$tmp/timeless.pmt"
"$pmt" convert --raw "$tmp/x.spe" --midr 0x410fd0c0 --chunk 1048576 --container -o "$tmp/timed.pmt"
echo "trace: $records SPE records, $(wc -c <"$tmp/x.spe") AUX bytes; containers $(wc -c <"$tmp/timeless.pmt") (timeless), $(wc -c <"$tmp/timed.pmt") (timed); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in timeless timed; do
	"$pmt" script "$tmp/$f.pmt" --csv -j 1 >"$tmp/want"
	"$pmt" script "$tmp/$f.pmt" --csv -j 2 | cmp -s - "$tmp/want" || { echo "$f -j 2: rows differ"; exit 1; }
done
: >"$tmp/times"
for i in $(seq "$runs"); do
	for f in timeless timed; do
		for j in 1 2; do
			/usr/bin/time -f '%e %U %S' -o "$tmp/t" "$pmt" script "$tmp/$f.pmt" --csv -j $j >/dev/null 2>&1
			read -r w u s <"$tmp/t"
			echo "$f $j $w $(echo "$u + $s" | bc)" >>"$tmp/times"
		done
	done
done
echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in timeless timed; do
	for j in 1 2; do
		awk -v f=$f -v j=$j '$1 == f && $2 == j' "$tmp/times" >"$tmp/tj"
		best=$(cut -d' ' -f3 "$tmp/tj" | sort -n | head -1)
		med=$(cut -d' ' -f4 "$tmp/tj" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		echo "$f script --csv -j $j: best $best s wall, median CPU $med s"
	done
done
command -v perf >/dev/null 2>&1 || exit 0
for f in timeless timed; do
	perf record -q -e cpu-clock -F 4000 -s -o "$tmp/p.data" -- "$pmt" script "$tmp/$f.pmt" --csv -j 2 >/dev/null 2>&1 || continue
	perf report -i "$tmp/p.data" --stdio --no-children -s pid,sym 2>/dev/null |
		awk -v f="$f" '/%/ { sub("%", "", $1); t[$2] += $1; if (!(($2) in top)) top[$2] = $NF }
			END { printf "%s -j 2, CPU time by thread:", f
			      for (p in t) if (t[p] >= 1) printf " %.0f%% (%s)", t[p], top[p]; print "" }'
done
