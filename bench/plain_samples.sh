#!/bin/sh
# A trace's own samples: pmutrace script/report vs perf script/report on the same perf.data,
# a cpu-clock recording of a shell busy loop (perf 6.1's perf record, every PERIOD ns,
# default 10000 = 100k samples/s). Wall, CPU and peak RSS, median of 3.
#   sh bench/plain_samples.sh build/cli/pmutrace [PERF]
set -eu
P=$1
PERF=${2:-perf}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PERIOD=${PERIOD:-10000}
W='i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done'
perf record -q -e cpu-clock -c "$PERIOD" -o "$T/c.data" -- sh -c "$W" >/dev/null 2>&1
n=$(perf script -i "$T/c.data" -F event 2>/dev/null | wc -l)
echo "file: $(stat -c %s "$T/c.data") bytes, $n samples"
. "$HERE/measure_lib.sh"
measure "pmutrace script" "$P" script "$T/c.data"
measure "$PERF script" "$PERF" script -i "$T/c.data"
measure "pmutrace report --sort sym,dso" "$P" report "$T/c.data" --stdio --sort sym,dso
measure "$PERF report --sort sym,dso" "$PERF" report -i "$T/c.data" --stdio --sort sym,dso
