#!/bin/sh
# report --comms/--dsos/--symbols vs perf 7.3 report --stdio with the same lists on the same
# perf.data: two processes of the call-chain fixture (fixtures/symbols/callchain.c) and
# their shell, perf record -g of cpu-clock:u every PERIOD ns (default 20000: ~150k samples).
# The outputs are compared first (perf's closing tip dropped); then wall, CPU and peak RSS,
# median of 3, with and without the lists (--no-inline: perf 7.3 splits entries with
# inlined frames of two processes, see pmutrace-report(1)).
#   sh bench/report_filters.sh build/cli/pmutrace [PERF73]
set -eu
P=$1
PERF73=${2:-/var/cache/pmutrace-oracles/bin/perf-7.3}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PERIOD=${PERIOD:-20000}
. "$SRC/tests/tools/callchain_fixture.sh"
callchain_fixture "$T"
perf record -q -g -e cpu-clock:u -c "$PERIOD" -o "$T/two.data" -- \
	sh -c "'$T/fx/callchain' 6000000 & '$T/fx/callchain' 3000000; wait" >/dev/null 2>&1
echo "file: $(stat -c %s "$T/two.data") bytes, $("$P" report "$T/two.data" --sort pid -g none | sed -n "s/^# Samples: \(.*\) of.*/\1/p") samples"
LISTS="--comms callchain --dsos callchain,libc.so.6 --no-inline"
for a in "$LISTS" "--symbols level_mid --percentage relative" "--no-inline"; do
	# shellcheck disable=SC2086
	"$P" report "$T/two.data" $a >"$T/ours"
	# shellcheck disable=SC2086
	"$PERF73" report --stdio -i "$T/two.data" $a 2>/dev/null | sed '/^# (Tip/,$d' | sed '${/^#$/d}' >"$T/theirs"
	echo "$a: output lines: $(wc -l <"$T/ours"); differing from perf 7.3's: $(diff "$T/theirs" "$T/ours" | grep -c '^>' || true)"
done
. "$HERE/measure_lib.sh"
for a in "$LISTS" "--no-inline"; do
	# shellcheck disable=SC2086
	measure "pmutrace report $a" "$P" report $a "$T/two.data"
	# shellcheck disable=SC2086
	measure "perf 7.3 report $a" "$PERF73" report --stdio $a -i "$T/two.data"
done
