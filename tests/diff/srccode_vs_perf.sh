#!/bin/sh
# -F srccode against perf on the same file: SPE traces whose PCs fall in the .text of the
# project's AArch64 fixtures (their DWARF names the sources in fixtures/symbols, which both
# tools read), byte for byte: "|LINE     TEXT" under a sample whose line differs from its
# thread's last printed one. Also perf's refusal of srccode and srcline without ip, in its
# words. (Data symbols are left out: perf's binutils gives a variable's declaration line,
# decode/symbols' libdw line table has no row for them.)
#   [PERF=CMD] [COMPAT=VER] srccode_vs_perf.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
. "$SRC/tests/tools/symbols_fixture.sh"
perf_oracle
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_build "$T/fx"
text_trace "$T/fx" 71 6000 "$T/t.data"
n=0
for f in ip,srccode ip,sym,srccode event,ip,sym,symoff,dso,srccode tid,time,ip,srccode; do
	$PERF script -i "$T/t.data" --symfs "$T/fx/fs" -F "$f" >"$T/perf.txt" 2>/dev/null
	"$P" script "$T/t.data" --symfs "$T/fx/fs" --perf-compat="$COMPAT" -F "$f" >"$T/pmt.txt"
	grep -q '^|[0-9]' "$T/perf.txt" || { echo "FAIL: perf printed no source line for -F $f"; exit 1; }
	if ! cmp -s "$T/perf.txt" "$T/pmt.txt"; then
		echo "FAIL: -F $f differs (perf < > pmutrace)"
		diff "$T/perf.txt" "$T/pmt.txt" | head -6
		exit 1
	fi
	n=$((n + $(grep -c '^|' "$T/perf.txt")))
done
for f in tid,srccode event,srcline; do
	want=$($PERF script -i "$T/t.data" -F "$f" 2>&1 >/dev/null | head -2)
	"$P" script "$T/t.data" -F "$f" >/dev/null 2>"$T/err" && { echo "FAIL: -F $f accepted"; exit 1; }
	grep -qF "$(echo "$want" | head -1)" "$T/err" ||
		{ echo "FAIL: -F $f: not perf's words '$want': $(cat "$T/err")"; exit 1; }
done
echo "OK: $n source lines identical to $($PERF version)"
