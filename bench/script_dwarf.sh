#!/bin/sh
# script -g of a --call-graph dwarf recording vs perf 7.3 script on the same perf.data:
# fixtures/symbols/unwind.c (no frame pointers, a shared library, qsort's callbacks)
# recorded by perf 7.3 with cpu-clock:u every PERIOD ns (default 20000) and the default
# 8192-byte stack copies, each sample's user stack unwound with libdw by both. The outputs
# are compared first; then wall, CPU and peak RSS, median of 3.
#   sh bench/script_dwarf.sh build/cli/pmutrace [PERF73]
set -eu
P=$1
PERF73=${2:-/var/cache/pmutrace-oracles/bin/perf-7.3}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/..
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PERIOD=${PERIOD:-20000}
ROUNDS=${ROUNDS:-60}
export HOME="$T" # perf's build-id cache: this run's own
CF="-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls"
# shellcheck disable=SC2086
gcc $CF -shared -fPIC -o "$T/libunw.so" "$SRC/fixtures/symbols/unwind_lib.c"
# shellcheck disable=SC2086
gcc $CF -o "$T/unwind" "$SRC/fixtures/symbols/unwind.c" -L"$T" -lunw -Wl,-rpath,'$ORIGIN'
"$PERF73" record -q -e cpu-clock:u -c "$PERIOD" --call-graph dwarf -o "$T/d.data" \
	"$T/unwind" "$ROUNDS" >/dev/null 2>&1
echo "file: $(stat -c %s "$T/d.data") bytes, $("$P" script "$T/d.data" -G | grep -c cpu-clock) samples"
"$P" script "$T/d.data" >"$T/ours"
"$PERF73" script -i "$T/d.data" >"$T/theirs" 2>/dev/null
echo "output lines: $(wc -l <"$T/ours"); lines differing from perf 7.3's: $(diff "$T/theirs" "$T/ours" | grep -c '^>' || true)"
. "$HERE/measure_lib.sh"
measure "pmutrace script" "$P" script "$T/d.data"
measure "perf 7.3 script" "$PERF73" script -i "$T/d.data"
measure "pmutrace script -F ip,sym" "$P" script -F ip,sym "$T/d.data"
measure "perf 7.3 script -F ip,sym" "$PERF73" script -F ip,sym -i "$T/d.data"
measure "pmutrace report --children" "$P" report --children "$T/d.data"
measure "perf 7.3 report --children" "$PERF73" report --stdio --children -i "$T/d.data"
