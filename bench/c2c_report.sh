#!/bin/sh
# report --c2c vs perf c2c report --stdio on the same SPE perf.data (not a test; prints
# figures): tests/perfdata/c2c_trace.c's 4-CPU, 2-node trace with RECORDS SPE records per
# CPU, PCs in the AArch64 fixture executable found through perf's build-id cache (in a
# temporary $HOME). The outputs are checked to be identical before anything is timed.
#   bench/c2c_report.sh [PMUTRACE] [C2C_TRACE] [RECORDS_PER_CPU] [PERF...]
#   (defaults: build/cli/pmutrace, build/tests/c2c_trace, 250000, perf and the perf 7.3
#   oracle when present)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
P=${1:-build/cli/pmutrace}
GEN=${2:-build/tests/c2c_trace}
N=${3:-250000}
shift $(($# > 3 ? 3 : $#))
PERFS=${*:-perf /var/cache/pmutrace-oracles/bin/perf-7.3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sh "$HERE/../fixtures/symbols/build.sh" aarch64 "$T/fx" >/dev/null
RE=aarch64-linux-gnu-readelf
bid=$($RE -nW "$T/fx/app" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
set -- $($RE -SW "$T/fx/app" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print "0x" $3, "0x" $5 }')
work=0x$(aarch64-linux-gnu-nm "$T/fx/app" | awk '$3 == "work_01" { print $1 }')
"$GEN" "$T/a.data" "$work" $(($1 + $2 - work)) "$bid" 3 "$N"
export HOME="$T/home"
mkdir -p "$HOME"
# perf c2c has no --symfs: the executable goes into the build-id cache both read
for perf in $PERFS; do
	$perf buildid-cache -a "$T/fx/app" 2>/dev/null && break
done
echo "input: $((N * 4)) SPE records, $(stat -c %s "$T/a.data") bytes of perf.data"
# median of 3 runs by wall: "wall user sys maxrss"
measure() {
	out=$1
	shift
	for r in 1 2 3; do
		python3 "$HERE/rusage.py" "$T/t$r" "$@" >"$out" 2>/dev/null
	done
	cat "$T/t1" "$T/t2" "$T/t3" | sort -n | sed -n 2p
}
set -- $(measure "$T/pmt.txt" "$P" report --c2c "$T/a.data")
pw=$1 prss=$4 pcpu=$(echo "$2 $3" | awk '{ print $1 + $2 }')
printf '%-30s %7.2f s  CPU %6.2f s  peak RSS %6d MB\n' "pmutrace report --c2c" "$pw" "$pcpu" \
	$((prss / 1024))
for perf in $PERFS; do
	$perf version >/dev/null 2>&1 || continue
	v=$($perf version | awk '{ print $3 }')
	set -- $(measure "$T/perf.txt" $perf c2c report -i "$T/a.data" --stdio)
	cmp -s "$T/perf.txt" "$T/pmt.txt" && same="same output" || same="OUTPUT DIFFERS"
	awk -v l="perf $v c2c report" -v w="$1" -v u="$2" -v y="$3" -v r="$4" -v p="$pw" \
		-v pc="$pcpu" -v s="$same" 'BEGIN { c = u + y; printf "%-30s %7.2f s  CPU %6.2f s  " \
		"peak RSS %6d MB  pmutrace %.1fx faster (CPU %.1fx), %s\n", l, w, c, r / 1024, w / p,
		c / pc, s }'
done
