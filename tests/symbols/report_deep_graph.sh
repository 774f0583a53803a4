#!/bin/sh
# report's call graphs deeper than 32 levels (fixtures/symbols/deep_chain.c, a 40-deep
# recursion working at every level, frame pointers, perf record -g): perf's depth mask is
# an int set with 1 << level, which x86-64 and AArch64 take mod 32, so from level 32 on
# its pipes reappear at the left margin; every graph form equals perf 7.3's (and perf
# 6.1's under --perf-compat=6.1) byte for byte. (symbols.unwind_dwarf's msort recursion
# reached such a level in one recording of ten.)
#   report_deep_graph.sh PMUTRACE SOURCE_DIR PERF73
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
gcc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$T/deep" \
	"$SRC/fixtures/symbols/deep_chain.c" || fail "fixture build"
"$PERF73" record -q -g -e cpu-clock:u -c 100000 -o "$T/d.data" "$T/deep" 400 >/dev/null 2>&1 ||
	{ echo "SKIP: perf 7.3 record -g cannot record here"; exit 77; }
# the premise: a node 33 levels down (11 columns a level after the 12 of the margin)
"$PERF73" report --stdio -i "$T/d.data" --children -g graph,1 2>/dev/null |
	awk 'match($0, /--[0-9.]+%--deep_level/) && RSTART >= 366 { ok = 1 } END { exit !ok }' ||
	fail "perf 7.3's graph is not 33 levels deep"
# (a fractal graph's "[...]" is perf's symbol of malloc'd memory, whose "inlined" flag is
# what the heap held: " (inlined)" or not, run to run)
untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }
checked=0
for a in "--children -g graph,5" "--no-children -g graph,2" "-g caller,5" \
	"--children -g fractal,5" "--children -g graph,0.5,callee"; do
	# shellcheck disable=SC2086
	"$PERF73" report --stdio -i "$T/d.data" $a 2>/dev/null | untip >"$T/theirs"
	# shellcheck disable=SC2086
	"$P" report "$T/d.data" $a >"$T/ours" || fail "pmutrace report $a failed"
	cmp -s "$T/theirs" "$T/ours" || {
		diff "$T/theirs" "$T/ours" | head -10 | cut -c1-160
		fail "report $a of a 40-deep graph differs (perf 7.3 < > pmutrace)"
	}
	checked=$((checked + 1))
done
# perf 6.1 on its own recording (it reads no file of perf 7.3's)
if perf --version 2>/dev/null | grep -q '^perf version 6\.1\.'; then
	perf record -q -g -e cpu-clock:u -c 100000 -o "$T/d.data" "$T/deep" 400 >/dev/null 2>&1 ||
		fail "perf 6.1 record -g"
	for a in "--children -g graph,5" "-g caller,5"; do
		# shellcheck disable=SC2086
		perf report --stdio -i "$T/d.data" $a 2>/dev/null | untip >"$T/theirs"
		# shellcheck disable=SC2086
		"$P" report --perf-compat=6.1 "$T/d.data" $a >"$T/ours" ||
			fail "pmutrace report --perf-compat=6.1 $a failed"
		cmp -s "$T/theirs" "$T/ours" || {
			diff "$T/theirs" "$T/ours" | head -10 | cut -c1-160
			fail "report --perf-compat=6.1 $a of a 40-deep graph differs (perf 6.1 < > pmutrace)"
		}
		checked=$((checked + 1))
	done
fi
echo "OK: $checked reports of a 40-deep call graph equal to perf's"
