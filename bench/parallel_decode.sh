#!/bin/sh
# script --csv -j N against -j 1 (issue 9, goal: -j 2 >= 1.7x on 2 cores): a per-CPU SPE
# trace of ROUNDS x 4 CPUs x 1000 records (tests/perfdata/spe_cpus.c; 256 rounds = 1.02M
# records) as a container with 4 MiB frames and as the perf.data it came from, and perf
# 7.3 printing the same samples' fields from the perf.data. Best of RUNS wall-clock runs
# each, with the CPU time (user + sys) of that run; the rows are the same for every -j
# (cmp'd here too). Usage: sh bench/parallel_decode.sh BUILD_DIR [ROUNDS] [RUNS] [PERF73]
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
best() { # best wall time of RUNS runs of "$@" (stdout to /dev/null), and its CPU time
	b=
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" >/dev/null 2>&1
		read -r w u s <"$tmp/t"
		if [ -z "$b" ] || [ "$(echo "$w < $b" | bc)" = 1 ]; then
			b=$w
			c=$(echo "$u + $s" | bc)
		fi
	done
	echo "$b $c"
}
echo "trace: $("$pmt" script "$tmp/x.pmt" --csv -j 1 | tail -n +2 | wc -l) samples, $(wc -c <"$tmp/x.data") bytes of perf.data, $(wc -c <"$tmp/x.pmt") of container; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in x.pmt x.data; do
	"$pmt" script "$tmp/$f" --csv -j 1 >"$tmp/want"
	set -- $(best "$pmt" script "$tmp/$f" --csv -j 1)
	w1=$1
	echo "$f script --csv -j 1: $1 s wall, $2 s CPU"
	for j in 2 3 4; do
		"$pmt" script "$tmp/$f" --csv -j $j | cmp -s - "$tmp/want" || { echo "-j $j: rows differ"; exit 1; }
		set -- $(best "$pmt" script "$tmp/$f" --csv -j $j)
		echo "$f script --csv -j $j: $1 s wall, $2 s CPU, $(echo "scale=2; $w1 / $1" | bc)x"
	done
done
# where the CPU time goes by thread: the main thread (read, decode, merge) bounds the wall
# time of -j N on an idle machine, whatever the load of this one
if command -v perf >/dev/null 2>&1 &&
   perf record -q -e cpu-clock -F 4000 -o "$tmp/p.data" -- "$pmt" script "$tmp/x.pmt" --csv -j 3 >/dev/null 2>&1; then
	echo "x.pmt -j 3, CPU time by thread (perf record -e cpu-clock): $(perf report -i "$tmp/p.data" --stdio -s pid 2>/dev/null | awk '/%.*:/ { printf "%s%s", sep, $1; sep = ", " }') (main thread first: the largest)"
fi
if [ -x "$p73" ]; then
	set -- $(best "$p73" script -i "$tmp/x.data" --itrace=bfmtaM -F tid,cpu,time,event,ip,addr)
	echo "perf 7.3 script -F tid,cpu,time,event,ip,addr (x.data): $1 s wall, $2 s CPU"
fi
