#!/bin/sh
# report of a call-chain recording (perf record -g) vs perf report --stdio on the same
# perf.data: Children, Self and the call graph (perf's defaults). The workload: recursion,
# qsort callbacks and a hashing loop built with frame pointers, sampled every PERIOD ns of
# cpu-clock:u (default 10000: 100k samples/s, ~670k samples for ROUNDS=300). The outputs
# are compared first (perf's closing tip dropped); then wall, CPU and peak RSS, median of 3,
# for perf's defaults, -g's fractal and folded print types and the srcline key. BASE=another pmutrace (the
# tree before a change) is measured on the same file, before each of this one's figures.
#   [BASE=/tmp/base/build/cli/pmutrace] sh bench/report_callchain.sh build/cli/pmutrace [PERF73]
set -eu
P=$1
PERF73=${2:-/var/cache/pmutrace-oracles/bin/perf-7.3}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PERIOD=${PERIOD:-10000}
ROUNDS=${ROUNDS:-300}
cat >"$T/wl.c" <<'C'
#include <stdlib.h>
#include <string.h>
static volatile long sink;
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) static int cmp(const void *a, const void *b)
{ long x = *(const long *)a, y = *(const long *)b; return (x > y) - (x < y); }
__attribute__((noinline)) void sorter(int n)
{ long *v = malloc(n * sizeof(*v)); for (int i = 0; i < n; i++) v[i] = (i * 2654435761u) % 100003;
  qsort(v, n, sizeof(*v), cmp); sink += v[n / 2]; free(v); }
__attribute__((noinline)) void hasher(int n)
{ char buf[4096]; for (int i = 0; i < n; i++) { memset(buf, i, sizeof buf);
  for (int j = 0; j < 4096; j++) sink = sink * 31 + buf[j]; } }
__attribute__((noinline)) void work(int r) { for (int i = 0; i < r; i++) { sink += fib(24); sorter(20000); hasher(50); } }
int main(int argc, char **argv) { work(argc > 1 ? atoi(argv[1]) : 50); return 0; }
C
cc -O2 -g -fno-omit-frame-pointer -o "$T/wl" "$T/wl.c"
perf record -q -g -e cpu-clock:u -c "$PERIOD" -o "$T/g.data" "$T/wl" "$ROUNDS" >/dev/null 2>&1
echo "file: $(stat -c %s "$T/g.data") bytes, $(perf report -i "$T/g.data" --stdio -g none 2>/dev/null | sed -n "s/^# Samples: \(.*\) of.*/\1/p") samples"
"$P" report "$T/g.data" >"$T/ours"
"$PERF73" report --stdio -i "$T/g.data" 2>/dev/null | sed '/^# (Tip/,$d' | sed '${/^#$/d}' >"$T/theirs"
echo "output lines: $(wc -l <"$T/ours"); lines differing from perf 7.3's: $(diff "$T/theirs" "$T/ours" | grep -c '^>' || true)"
for m in fractal folded srcline; do
	"$P" report "$T/g.data" -g $m >"$T/ours"
	"$PERF73" report --stdio -i "$T/g.data" -g $m 2>/dev/null | sed '/^# (Tip/,$d' | sed '${/^#$/d}' >"$T/theirs"
	echo "-g $m: output lines: $(wc -l <"$T/ours"); differing from perf 7.3's: $(diff "$T/theirs" "$T/ours" | grep -c '^>' || true)"
done
. "$HERE/measure_lib.sh"
if [ -n "${BASE:-}" ]; then
	measure "BASE pmutrace report" "$BASE" report "$T/g.data"
	measure "this pmutrace report" "$P" report "$T/g.data"
	measure "BASE pmutrace report --no-children" "$BASE" report --no-children "$T/g.data"
	measure "this pmutrace report --no-children" "$P" report --no-children "$T/g.data"
fi
measure "pmutrace report -g fractal" "$P" report -g fractal "$T/g.data"
measure "perf 7.3 report -g fractal" "$PERF73" report --stdio -g fractal -i "$T/g.data"
measure "pmutrace report -g folded" "$P" report -g folded "$T/g.data"
measure "perf 7.3 report -g folded" "$PERF73" report --stdio -g folded -i "$T/g.data"
measure "pmutrace report -g srcline" "$P" report -g srcline "$T/g.data"
measure "perf 7.3 report -g srcline" "$PERF73" report --stdio -g srcline -i "$T/g.data"
measure "pmutrace report" "$P" report "$T/g.data"
measure "perf 7.3 report --stdio" "$PERF73" report --stdio -i "$T/g.data"
measure "pmutrace report --perf-compat=6.1" "$P" report --perf-compat=6.1 "$T/g.data"
measure "perf 6.1 report --stdio" perf report --stdio -i "$T/g.data"
measure "pmutrace report --no-children" "$P" report --no-children "$T/g.data"
measure "perf 7.3 report --no-children" "$PERF73" report --stdio --no-children -i "$T/g.data"
