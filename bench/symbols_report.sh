#!/bin/sh
# Symbolized report: pmutrace report --sort sym,dso vs perf report --stdio --sort sym,dso on
# the same SPE perf.data with the same --symfs (not a test; prints figures). The PCs fall in
# the AArch64 fixtures (an executable and a shared library, build-id MMAP2 records) and the
# kernel; the outputs are checked to be identical, and the fixtures' functions to be found.
# The records carry no CONTEXT packets: synth's are random thread ids, whose samples (pid -1)
# no process's maps hold, which left every address unresolved (so it was before 2026-11-26).
#   bench/symbols_report.sh [PMUTRACE] [RECORDS] [PERF...]
#   (defaults: build/cli/pmutrace, 1000000, perf and the perf 7.3 oracle when present)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
P=${1:-build/cli/pmutrace}
N=${2:-1000000}
shift $(($# > 2 ? 2 : $#))
PERFS=${*:-perf /var/cache/pmutrace-oracles/bin/perf-7.3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sh "$HERE/../fixtures/symbols/build.sh" aarch64 "$T/fx" >/dev/null
RE=aarch64-linux-gnu-readelf
bid() { $RE -nW "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p'; }
tlen() { $RE -lW "$1" | awk '$1 == "LOAD" && / E / { print $5; exit }'; }
"$P" synth --records $((N * 7 / 10)) --seed 5 --kernel-pct 5 \
	--text 0xaaaad0000000,$(($(tlen "$T/fx/app"))) -o "$T/app.spe"
"$P" synth --records $((N - N * 7 / 10)) --seed 6 --kernel-pct 5 \
	--text 0xffff80000000,$(($(tlen "$T/fx/libfix.so"))) -o "$T/lib.spe"
cat "$T/app.spe" "$T/lib.spe" >"$T/all.spe"
"$P" convert --raw "$T/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
	--mmap "0xaaaad0000000,0x10000,0,/usr/bin/app,$(bid "$T/fx/app")" \
	--mmap "0xffff80000000,0x10000,0,/usr/lib/libfix.so,$(bid "$T/fx/libfix.so")" \
	-o "$T/a.data"
mkdir -p "$T/symfs/usr/bin" "$T/symfs/usr/lib"
cp "$T/fx/app" "$T/symfs/usr/bin/app"
cp "$T/fx/libfix.so" "$T/symfs/usr/lib/libfix.so"
echo "input: $N SPE records ($(wc -c <"$T/all.spe") bytes), $(stat -c %s "$T/a.data") bytes of perf.data"
# median of 3 runs by wall: "wall user sys maxrss"; CPU (user + sys) is shown too since the
# machine is often loaded
measure() {
	out=$1
	shift
	for r in 1 2 3; do
		python3 "$HERE/rusage.py" "$T/t$r" "$@" >"$out" 2>/dev/null
	done
	cat "$T/t1" "$T/t2" "$T/t3" | sort -n | sed -n 2p
}
set -- $(measure "$T/pmt.txt" "$P" report "$T/a.data" --symfs "$T/symfs" --sort sym,dso)
grep -q '\[\.\] work_.* app ' "$T/pmt.txt" && grep -q '\[\.\] lib_part_.* libfix\.so ' "$T/pmt.txt" ||
	{ echo "the fixtures' functions were not found: no symbolized report to measure" >&2; exit 1; }
pw=$1 prss=$4 pcpu=$(echo "$2 $3" | awk '{ print $1 + $2 }')
printf '%-34s %7.2f s  CPU %6.2f s  peak RSS %6d MB\n' "pmutrace report --sort sym,dso" "$pw" \
	"$pcpu" $((prss / 1024))
for perf in $PERFS; do
	$perf version >/dev/null 2>&1 || continue
	v=$($perf version | awk '{ print $3 }')
	set -- $(measure "$T/perf.txt" $perf report -i "$T/a.data" --symfs "$T/symfs" --stdio \
		--sort sym,dso)
	sed -i '/^# (Tip/,$d' "$T/perf.txt"
	sed -i '$d' "$T/perf.txt"
	case $v in 6.1*) compat=6.1 ;; *) compat=7.3 ;; esac
	"$P" report "$T/a.data" --symfs "$T/symfs" --sort sym,dso --perf-compat=$compat >"$T/pmt.txt"
	cmp -s "$T/perf.txt" "$T/pmt.txt" && same="same output" || same="OUTPUT DIFFERS"
	awk -v l="perf $v report --sort sym,dso" -v w="$1" -v u="$2" -v y="$3" -v r="$4" -v p="$pw" \
		-v pc="$pcpu" -v s="$same" 'BEGIN { c = u + y; printf "%-34s %7.2f s  CPU %6.2f s  " \
		"peak RSS %6d MB  pmutrace %.1fx faster (CPU %.1fx), %s\n", l, w, c, r / 1024, w / p,
		c / pc, s }'
done
