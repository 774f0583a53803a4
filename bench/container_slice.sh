#!/bin/sh
# Time to print a 1% --time slice of an SPE container against the whole file (issue 9):
# a per-CPU SPE trace of ROUNDS x 4 CPUs x 1000 records (tests/perfdata/spe_cpus.c; 256
# rounds = 1.02M records, 65 MB), as a container with 4 MiB and with 1 MiB frames, the
# perf.data it came from, and perf 7.3 reading the container through zstd -dc. Best of 3
# wall-clock runs each; the rows printed are the same for every reader of one slice. The
# same for dump (every SPE packet), against perf 7.3's report -D of the whole file.
# Usage: sh bench/container_slice.sh BUILD_DIR [ROUNDS] [PERF73]
set -eu
build=$1
rounds=${2:-256}
p73=${3:-/var/cache/pmutrace-oracles/bin/perf-7.3}
pmt=$build/cli/pmutrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/tests/spe_cpus" "$tmp/x.data" whole "$rounds"
"$pmt" convert "$tmp/x.data" --container -o "$tmp/x4m.pmt"
"$pmt" convert "$tmp/x.data" --container --frame-size 1M -o "$tmp/x1m.pmt"
best() { # best of 3, seconds, of the command line "$@" (stdout to /dev/null)
	b=
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		sh -c "$*" >/dev/null 2>&1
		t=$(echo "$(date +%s.%N) - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	printf '%.3f' "$b"
}
# the window: 1% of the span from the first to the last sample, in the middle
"$pmt" script "$tmp/x4m.pmt" --csv | awk -F, 'NR > 1 { print $5 }' | sort -n | sed -n '1p;$p' >"$tmp/span"
first=$(sed -n 1p "$tmp/span")
last=$(sed -n 2p "$tmp/span")
lo=$((first + (last - first) / 2))
hi=$((lo + (last - first) / 100))
sec() { echo "$1" | sed 's/\(.........\)$/.\1/'; }
w="--time=$(sec $lo),$(sec $hi)"
echo "trace: $(wc -c <"$tmp/x.data") bytes of perf.data; containers $(wc -c <"$tmp/x4m.pmt") (4 MiB frames), $(wc -c <"$tmp/x1m.pmt") (1 MiB); slice $w"
for f in x4m.pmt x1m.pmt x.data; do
	"$pmt" script "$tmp/$f" --csv -v $w 2>&1 >/dev/null | sed "s|$tmp/||"
	echo "$f: whole $(best "$pmt" script "$tmp/$f" --csv) s, 1% slice $(best "$pmt" script "$tmp/$f" --csv $w) s"
done
# dump prints every packet: its slice reads the frames of those chunks only, and prints
# them at their offsets in the whole stream
for f in x4m.pmt x1m.pmt x.data; do
	"$pmt" dump "$tmp/$f" -v $w 2>&1 >/dev/null | sed "s|$tmp/||"
	echo "dump $f: whole $(best "$pmt" dump "$tmp/$f") s, 1% slice $(best "$pmt" dump "$tmp/$f" $w) s"
done
if [ -x "$p73" ] && command -v zstd >/dev/null 2>&1; then
	F=tid,cpu,time,event,ip,addr
	echo "perf 7.3 (zstd -dc | perf script -F $F): whole $(best "zstd -dcq $tmp/x4m.pmt | $p73 script -i - --itrace=bfmtaM -F $F") s, 1% slice $(best "zstd -dcq $tmp/x4m.pmt | $p73 script -i - --itrace=bfmtaM -F $F $w") s"
	echo "perf 7.3 report -D (zstd -dc | perf report -D -i -, no slice there): $(best "zstd -dcq $tmp/x4m.pmt | $p73 report -D -i -") s"
	echo "pmutrace -F $F: whole $(best "$pmt" script "$tmp/x4m.pmt" --itrace=bfmtaM -F $F) s, 1% slice $(best "$pmt" script "$tmp/x4m.pmt" --itrace=bfmtaM -F $F $w) s"
fi
