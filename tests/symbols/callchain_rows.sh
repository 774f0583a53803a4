#!/bin/sh
# script --csv's callchain column and --jsonl's "callchain" array against perf 7.3's chain
# lines (script -F ip,sym,symoff,dso, its "(inlined)" lines left out: a chain entry is an
# address) of real -g recordings of fixtures/symbols/callchain.c: perf 6.1's file and
# pmutrace record -g's container (read by perf 7.3 through zstd -dc). The CSV is read with
# Python's csv module, the JSON with its json module (tests/tools/chain_rows.py). Without
# chains (-G) there is no column.   callchain_rows.sh PMUTRACE SOURCE_DIR PERF73
set -eu
P=$1 SRC=$2 PERF73=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: no zstd"; exit 77; }
. "$SRC/tests/tools/callchain_fixture.sh"
callchain_fixture "$T"
"$P" record -q --no-bundle -g -e cpu-clock:u -c 200000 -o "$T/own.pmt" -- \
	"$T/fx/callchain" 1000000 || fail "pmutrace record -g failed where perf record -g worked"
zstd -q -dc "$T/own.pmt" >"$T/own.data"
rows() { python3 "$SRC/tests/tools/chain_rows.py" "$@"; }
n=0
for tr in cc own; do
	"$PERF73" script -i "$T/$tr.data" -F ip,sym,symoff,dso >"$T/p73" 2>/dev/null
	rows script "$T/p73" >"$T/want"
	grep -q 'level_leaf+0x[0-9a-f]* (.*) | [0-9a-f]* level_' "$T/want" ||
		fail "$tr: perf 7.3 shows no chain through level_leaf: the fixture lost its frames"
	"$P" script --csv "$T/$tr.data" >"$T/m.csv"
	"$P" script --jsonl "$T/$tr.data" >"$T/m.jsonl"
	head -1 "$T/m.csv" | grep -q ',callchain$' || fail "$tr: no callchain column: $(head -1 "$T/m.csv")"
	for f in csv:m.csv json:m.jsonl; do
		rows "${f%%:*}" "$T/${f#*:}" >"$T/got"
		cmp -s "$T/want" "$T/got" || {
			echo "FAIL: $tr: script --${f%%:*}'s chains differ from perf 7.3's (perf < > pmutrace)"
			diff "$T/want" "$T/got" | head -6
			exit 1
		}
	done
	n=$((n + $(wc -l <"$T/want")))
done
"$P" script --csv -G "$T/cc.data" | head -1 | grep -q callchain && fail "-G: a callchain column"
"$P" script --jsonl -G "$T/cc.data" | grep -q callchain && fail "-G: callchain arrays"
echo "OK: the call chains of $n samples in script --csv and --jsonl equal perf 7.3's"
