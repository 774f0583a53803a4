#!/bin/sh
# script -F misc,tod,insnlen (a trace's own samples) against perf on the same perf.data: a
# cpu-clock recording made with -k mono (clock data for tod) of a shell busy loop, every
# PERIOD ns (default 10000 = 100k samples/s). Wall, CPU and peak RSS, median of 3, with the
# outputs checked identical first.
#   sh bench/script_fields.sh build/cli/pmutrace [PERF]
set -eu
P=$1
PERF=${2:-perf}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PERIOD=${PERIOD:-10000}
W='i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done'
$PERF record -q -k mono -e cpu-clock -c "$PERIOD" -o "$T/c.data" -- sh -c "$W" >/dev/null 2>&1
F=comm,tid,misc,tod,time,ip,dso,insnlen
TZ=UTC $PERF script -i "$T/c.data" -F $F >"$T/want" 2>/dev/null
TZ=UTC "$P" script "$T/c.data" -F $F >"$T/got"
cmp -s "$T/want" "$T/got" || { echo "outputs differ"; diff "$T/want" "$T/got" | head; exit 1; }
echo "file: $(stat -c %s "$T/c.data") bytes, $(wc -l <"$T/want") samples, -F $F identical"
. "$HERE/measure_lib.sh"
measure "pmutrace script -F $F" TZ=UTC "$P" script "$T/c.data" -F $F
measure "$(basename "$PERF") script -F $F" TZ=UTC "$PERF" script -i "$T/c.data" -F $F
