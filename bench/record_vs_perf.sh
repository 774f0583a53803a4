#!/bin/sh
# pmutrace record vs perf record of the same software-event workload, same run: the
# workload's wall time (overhead on it), CPU used by recorder + workload, output size.
# cpu-clock every PERIOD ns (default 10000: 100k samples/s) of a shell busy loop, per task, 3 runs each
# (median).   sh bench/record_vs_perf.sh build/cli/pmutrace [PERF...]
# (x86 perf 7.3: tests/oracles/setup's wrapper of this tree, else its workload never runs)
set -eu
P=$1
shift
PERFS=${*:-perf}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PERIOD=${PERIOD:-10000}
W='i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done'
measure() { # LABEL OUTFILE CMD...
	label=$1 out=$2
	shift 2
	for r in 1 2 3; do
		rm -f "$out"
		python3 "$HERE/rusage.py" "$T/t$r" "$@" >/dev/null 2>&1 || true
	done
	size=0
	[ -n "$out" ] && [ -f "$out" ] && size=$(stat -c %s "$out")
	cat "$T/t1" "$T/t2" "$T/t3" | sort -n | sed -n 2p | {
		read -r wall user sys _rss
		awk -v l="$label" -v w="$wall" -v c="$(echo "$user $sys" | awk '{print $1 + $2}')" \
			-v s="$size" 'BEGIN { printf "%-28s wall %6.2f s  CPU %6.2f s  output %7.2f MB\n", l, w, c, s / 1e6 }'
	}
}
measure "workload alone" "" sh -c "$W"
for perf in $PERFS; do
	measure "$($perf version | head -1)" "$T/p.data" $perf record -q -e cpu-clock -c $PERIOD -o "$T/p.data" -- sh -c "$W"
done
measure "pmutrace record (-z 3)" "$T/m.data" "$P" record -q -e cpu-clock -c $PERIOD -o "$T/m.data" -- sh -c "$W"
measure "pmutrace record (-z 1)" "$T/m.data" "$P" record -q -z 1 -e cpu-clock -c $PERIOD -o "$T/m.data" -- sh -c "$W"
# perf's file carries no binaries: the same without the symbol tables record bundles
measure "pmutrace record --no-bundle" "$T/m.data" "$P" record -q --no-bundle -e cpu-clock -c $PERIOD -o "$T/m.data" -- sh -c "$W"
