#!/bin/sh
# script --csv's callchain column and --jsonl's "callchain" array against perf 7.3's chain
# lines (script -F ip,sym,symoff,dso, its "(inlined)" lines included; with --no-inline
# against perf 7.3's --no-inline) of real -g recordings of fixtures/symbols/callchain.c:
# perf 6.1's file and pmutrace record -g's container (read by perf 7.3 through zstd -dc),
# and of fixtures/symbols/inline.c (-O2: functions inlined two deep). The CSV is read with
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
perf record -q -g -e cpu-clock:u -c 200000 -o "$T/inl.data" "$T/fx/inline" 30000000 \
	>/dev/null 2>&1 || fail "perf record -g of the inline fixture"
rows() { python3 "$SRC/tests/tools/chain_rows.py" "$@"; }
n=0 inl=0
for tr in cc own inl; do
	for opt in --inline --no-inline; do
		"$PERF73" script -i "$T/$tr.data" -F ip,sym,symoff,dso $opt >"$T/p73" 2>/dev/null
		rows script "$T/p73" >"$T/want"
		case $tr in
		inl) [ $opt = --no-inline ] || grep -q ' (inlined) | ' "$T/want" ||
			fail "$tr: perf 7.3 shows no inlined function: the fixture inlines nothing" ;;
		*) grep -q 'level_leaf+0x[0-9a-f]* (.*) | [0-9a-f]* level_' "$T/want" ||
			fail "$tr: perf 7.3 shows no chain through level_leaf: the fixture lost its frames" ;;
		esac
		# the default is perf 7.3's, --inline
		o=$opt
		[ $opt = --inline ] && o=
		"$P" script --csv $o "$T/$tr.data" >"$T/m.csv"
		"$P" script --jsonl $o "$T/$tr.data" >"$T/m.jsonl"
		head -1 "$T/m.csv" | grep -q ',callchain$' || fail "$tr: no callchain column: $(head -1 "$T/m.csv")"
		for f in csv:m.csv json:m.jsonl; do
			rows "${f%%:*}" "$T/${f#*:}" >"$T/got"
			cmp -s "$T/want" "$T/got" || {
				echo "FAIL: $tr $opt: script --${f%%:*}'s chains differ from perf 7.3's (perf < > pmutrace)"
				diff "$T/want" "$T/got" | head -6
				exit 1
			}
		done
		n=$((n + $(wc -l <"$T/want")))
		inl=$((inl + $(grep -o ' (inlined)' "$T/want" | wc -l)))
	done
done
"$P" script --csv -G "$T/cc.data" | head -1 | grep -q callchain && fail "-G: a callchain column"
"$P" script --jsonl -G "$T/cc.data" | grep -q callchain && fail "-G: callchain arrays"
echo "OK: the call chains of $n samples ($inl inlined frames) in script --csv and --jsonl, with and without --no-inline, equal perf 7.3's"
