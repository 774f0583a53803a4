#!/bin/sh
# script -F ip,sym,srcline on a trace whose PCs fall in the x86-64 fixture app's
# executable sections, a third of them in code without line rows (crtstuff, _start,
# .init, .plt), against perf 7.3 on the same file: perf runs binutils' addr2line for each
# address libdw has no row for; pmutrace reads the symbol table once (srcline_a2l.c).
#   [OLD=PMUTRACE2] sh bench/srcline_fallback.sh PMUTRACE [RECORDS] [PERF73]
set -eu
P=$1
N=${2:-200000}
PERF73=${3:-/var/cache/pmutrace-oracles/bin/perf-7.3}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/..
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$HERE/measure_lib.sh"
sh "$SRC/fixtures/symbols/build.sh" x86_64 "$T/fx" >/dev/null
BASE=0x555500000000
mkdir -p "$T/fs/usr/bin"
cp "$T/fx/app" "$T/fs/usr/bin/app"
# .init up to work_01 (no rows) for a third, all of .text for the rest
start=0x$(nm "$T/fx/app" | awk '$3 == "work_01" { print $1 }')
set -- $(readelf -SW "$T/fx/app" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".init" || $1 == ".text" { print "0x" $3, "0x" $5 }')
"$P" synth --records $((N / 3)) --seed 1 --kernel-pct 0 --text $((BASE + $1)),$((start - $1)) -o "$T/a.spe"
"$P" synth --records $((N - N / 3)) --seed 2 --kernel-pct 0 --text $((BASE + $3)),$(($4)) -o "$T/b.spe"
cat "$T/a.spe" "$T/b.spe" >"$T/all.spe"
"$P" convert --raw "$T/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
	--mmap $BASE,0x100000,0,/usr/bin/app -o "$T/t.data"
"$P" script "$T/t.data" --symfs "$T/fs" -F ip,sym,srcline >"$T/pmt.txt"
echo "$N records, $(($(wc -l <"$T/pmt.txt") / 2)) samples, $(grep -c ':0$' "$T/pmt.txt") srclines from the symbol table"
measure "pmutrace script -F ip,sym,srcline" "$P" script "$T/t.data" --symfs "$T/fs" -F ip,sym,srcline -j 1
# OLD=another build's pmutrace: the same run (before the fallback: DSO[ADDR] there)
[ -z "${OLD:-}" ] || measure "OLD script -F ip,sym,srcline" "$OLD" script "$T/t.data" --symfs "$T/fs" -F ip,sym,srcline -j 1
if "$PERF73" version >/dev/null 2>&1; then
	"$PERF73" script -i "$T/t.data" --symfs "$T/fs" -F ip,sym,srcline 2>/dev/null >"$T/perf.txt"
	cmp -s "$T/perf.txt" "$T/pmt.txt" && echo "outputs identical" || echo "outputs DIFFER"
	measure "perf 7.3 script -F ip,sym,srcline" "$PERF73" script -i "$T/t.data" --symfs "$T/fs" -F ip,sym,srcline
fi
