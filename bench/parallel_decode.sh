#!/bin/sh
# script --csv -j N against -j 1 (issue 9, goal: -j 2 >= 1.7x on 2 cores): a per-CPU SPE
# trace of ROUNDS x 4 CPUs x 1000 records (tests/perfdata/spe_cpus.c; 256 rounds = 1.02M
# records) as a container with 4 MiB frames and as the perf.data it came from, and perf
# 7.3 printing the same samples' fields from the perf.data. RUNS interleaved rounds of
# -j 1, 2, 3 on both files: best wall time, the CPU time (user + sys) of that run and the
# median CPU time; the rows are the same for every -j (cmp'd here too); then the CPU time
# by thread. Usage: sh bench/parallel_decode.sh BUILD_DIR [ROUNDS] [RUNS] [PERF73]
set -eu
build=$1
rounds=${2:-256}
runs=${3:-5}
p73=${4:-/var/cache/pmutrace-oracles/bin/perf-7.3}
pmt=$build/cli/pmutrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/tests/spe_cpus" "$tmp/x.data" whole "$rounds"
"$pmt" convert "$tmp/x.data" --container -o "$tmp/x.pmt"
# RUNS rounds, each running every -j in turn on both files (interleaved, so the machine's
# load changes hit every -j alike); per file and -j the best wall time and the CPU time
# (user + sys) of that run, and the median CPU time
echo "trace: $("$pmt" script "$tmp/x.pmt" --csv -j 1 | tail -n +2 | wc -l) samples, $(wc -c <"$tmp/x.data") bytes of perf.data, $(wc -c <"$tmp/x.pmt") of container; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in x.pmt x.data; do
	"$pmt" script "$tmp/$f" --csv -j 1 >"$tmp/want"
	for j in 2 3 4; do
		"$pmt" script "$tmp/$f" --csv -j $j | cmp -s - "$tmp/want" || { echo "$f -j $j: rows differ"; exit 1; }
	done
done
: >"$tmp/times"
for i in $(seq "$runs"); do
	for f in x.pmt x.data; do
		for j in 1 2 3; do
			/usr/bin/time -f '%e %U %S' -o "$tmp/t" "$pmt" script "$tmp/$f" --csv -j $j >/dev/null 2>&1
			read -r w u s <"$tmp/t"
			echo "$f $j $w $(echo "$u + $s" | bc)" >>"$tmp/times"
		done
	done
done
echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in x.pmt x.data; do
	w1=$(awk -v f=$f '$1 == f && $2 == 1' "$tmp/times" | sort -k3,3n | head -1 | cut -d' ' -f3)
	for j in 1 2 3; do
		awk -v f=$f -v j=$j '$1 == f && $2 == j' "$tmp/times" | sort -k3,3n >"$tmp/tj"
		set -- $(head -1 "$tmp/tj")
		med=$(cut -d' ' -f4 "$tmp/tj" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		echo "$f script --csv -j $j: best $3 s wall (CPU $4 s), median CPU $med s, $(echo "scale=2; $w1 / $3" | bc)x"
	done
done
# where the CPU time goes by thread (perf record -s: per-thread counts), each thread named
# by its hottest symbol: the main thread (read, merge, samples) and the busiest helper
# bound -j N's wall time; their sum over the cores bounds it too
profile() { # FILE J
	perf record -q -e cpu-clock -F 4000 -s -o "$tmp/p.data" -- "$pmt" script "$tmp/$1" --csv -j $2 >/dev/null 2>&1 || return 0
	perf report -i "$tmp/p.data" --stdio --no-children -s pid,sym 2>/dev/null |
		awk -v f="$1" -v j="$2" '/%/ { sub("%", "", $1); t[$2] += $1; if (!(($2) in top)) top[$2] = $NF }
			END { printf "%s -j %s, CPU time by thread (perf record -s):", f, j
			      for (p in t) printf " %.0f%% (%s)", t[p], top[p]; print "" }'
}
if command -v perf >/dev/null 2>&1; then
	profile x.pmt 1
	profile x.pmt 2
	profile x.pmt 3
	profile x.data 2
fi
if [ -x "$p73" ]; then
	b=
	for i in 1 2; do # perf 7.3 takes seconds: best of two
		/usr/bin/time -f '%e %U %S' -o "$tmp/t" "$p73" script -i "$tmp/x.data" --itrace=bfmtaM \
			-F tid,cpu,time,event,ip,addr >/dev/null 2>&1
		read -r w u s <"$tmp/t"
		if [ -z "$b" ] || [ "$(echo "$w < $b" | bc)" = 1 ]; then
			b=$w
			c=$(echo "$u + $s" | bc)
		fi
	done
	set -- $b $c
	echo "perf 7.3 script -F tid,cpu,time,event,ip,addr (x.data): $1 s wall, $2 s CPU"
fi
