#!/bin/sh
# report --sort srcline / srcfile vs perf 7.3 report --stdio on the same perf.data: ls -lR
# /usr sampled every PERIOD ns of cpu-clock:u (default 10000; ~500k samples, most in libc,
# whose lines come from this machine's debug files). The outputs are compared first (perf's
# closing tip dropped); then wall, CPU and peak RSS, median of 3.
#   sh bench/report_srcline.sh build/cli/pmutrace [PERF73]
set -eu
P=$1
PERF73=${2:-/var/cache/pmutrace-oracles/bin/perf-7.3}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PERIOD=${PERIOD:-10000}
perf record -q -e cpu-clock:u -c "$PERIOD" -o "$T/ls.data" sh -c 'ls -lR /usr >/dev/null 2>&1' \
	>/dev/null 2>&1
echo "file: $(stat -c %s "$T/ls.data") bytes, $("$P" report "$T/ls.data" --sort dso | sed -n "s/^# Samples: \(.*\) of.*/\1/p") samples"
for k in srcline srcfile sym,srcline; do
	"$P" report "$T/ls.data" --sort $k >"$T/ours"
	"$PERF73" report --stdio -i "$T/ls.data" --sort $k 2>/dev/null | sed '/^# (Tip/,$d' | sed '${/^#$/d}' >"$T/theirs"
	echo "--sort $k: output lines: $(wc -l <"$T/ours"); differing from perf 7.3's: $(diff "$T/theirs" "$T/ours" | grep -c '^>' || true)"
done
. "$HERE/measure_lib.sh"
for k in srcline srcfile sym,srcline; do
	measure "pmutrace report --sort $k" "$P" report --sort $k "$T/ls.data"
	measure "perf 7.3 report --sort $k" "$PERF73" report --stdio --sort $k -i "$T/ls.data"
done
