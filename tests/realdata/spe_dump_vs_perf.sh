#!/bin/sh
# Usage: spe_dump_vs_perf.sh PMUTRACE SPE_VEC INPUT [DUMP_OPTION...]
# INPUT: a raw SPE file, a golden .vec file (compiled with SPE_VEC), or "synth:OPTIONS"
# (a stream made by `pmutrace synth OPTIONS`).
# Differential test against the installed perf: wrap a raw SPE buffer in a perf.data with
# `pmutrace convert --raw`, then compare the SPE packet lines of `perf report -D` with those
# of `pmutrace dump` on the same file. Debian's perf is 6.1, so pass --legacy61 for buffers
# whose OP_TYPE/EVENTS text differs between perf versions (--perf-compat=6.1 does the same). Exit 77 (skipped) without perf
# or when convert cannot wrap the buffer.
# PERF=CMD picks the perf (default: perf on PATH; the 7.3 oracles: see tests/oracles/setup).
set -u
pmt=$1 vec=$2 raw=$3
shift 3
PERF=${PERF:-perf}
$PERF version > /dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
case $raw in
synth:*)
	# shellcheck disable=SC2086
	"$pmt" synth ${raw#synth:} -o "$tmp/in.spe" || exit 1
	raw=$tmp/in.spe ;;
*.vec)
	"$vec" compile "$raw" "$tmp/in.spe" "$tmp/in.exp" > /dev/null || exit 1
	raw=$tmp/in.spe ;;
esac
[ -f "$raw" ] || { echo "SKIP: $raw not found"; exit 77; }
if ! "$pmt" convert --raw "$raw" -o "$tmp/perf.data" > "$tmp/convert.log" 2>&1; then
	echo "SKIP: pmutrace convert --raw failed:"; cat "$tmp/convert.log"
	exit 77
fi
# Only the SPE lines: the buffer header and one line per packet (8-digit offsets).
filter() { grep -E '^\. \.\.\. ARM SPE data|^\.  [0-9a-f]{8}: '; }
$PERF report -D -i "$tmp/perf.data" 2> "$tmp/perf.err" | filter > "$tmp/perf.txt"
"$pmt" dump "$@" "$tmp/perf.data" | filter > "$tmp/pmt.txt"
if [ ! -s "$tmp/perf.txt" ]; then
	echo "FAIL: perf printed no SPE packets"; cat "$tmp/perf.err"; exit 1
fi
if ! diff -u "$tmp/perf.txt" "$tmp/pmt.txt" > "$tmp/diff"; then
	head -40 "$tmp/diff"
	echo "FAIL: pmutrace dump $* differs from perf report -D (-perf +pmutrace)"
	exit 1
fi
echo "OK: $(basename "$raw"): $(wc -l < "$tmp/pmt.txt") SPE lines identical to $($PERF version)"
