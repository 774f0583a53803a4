#!/bin/sh
# GCC's clones (f.constprop.0, f.isra.0, f.part.0, f.cold) in --call-graph dwarf chains:
# fixtures/symbols/clones.c built with -O2 without frame pointers, recorded by perf 7.3
# and by pmutrace. perf 7.3 prints a clone whose inlined calls binutils' addr2line gives
# (an address below where libdwfl places the file offline, most of a small executable's)
# as its DWARF name with "(inlined)" in place of the symbol's entry ("spin+0x17
# (inlined)"), and by the symbol table's name where libdw gives them (pmt_inline_frame):
# pmutrace's script (default, -F ip,sym,dso, -G) equals perf 7.3's on every sample,
# start-up included, and report (--children -g graph,5, -g caller) on the workload's.
# export pprof names a clone's location by its symbol still: a location's Lines serve
# samples with a chain and without one, which perf names by the symbol (script -F sym).
#   unwind_clones.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/dwarf_callgraph.sh"
mkdir "$T/home"
export HOME="$T/home"
gcc -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -o "$T/clones" \
	"$SRC/fixtures/symbols/clones.c" || fail "fixture build"
for c in spin.constprop.0 field_sum.isra.0 slow_path.part.0 rare_work.cold; do
	nm "$T/clones" | grep -q " $c\$" || { echo "SKIP: this gcc makes no $c"; exit 77; }
done
"$PERF73" record -q -e cpu-clock:u -c 100000 --call-graph dwarf -o "$T/p.data" "$T/clones" 100 \
	>/dev/null 2>&1 || { echo "SKIP: perf 7.3 record cannot record here"; exit 77; }
rc=0
"$P" record -e cpu-clock:u -c 100000 --call-graph dwarf -o "$T/m.pmt" "$T/clones" 100 \
	>/dev/null 2>"$T/err" || rc=$?
[ $rc = 0 ] || [ $rc = 2 ] || { cat "$T/err"; fail "pmutrace record --call-graph dwarf"; }
zstd -qdc "$T/m.pmt" >"$T/m.data"
# the oracle names clones as inlined functions, in leaves and callers: else the fixture
# lost its point
"$PERF73" script -i "$T/p.data" -F ip,sym 2>/dev/null >"$T/names"
awk '/ step$/ { s = 1; next } s && / spin \(inlined\)$/ { ok = 1 } { s = 0 } END { exit !ok }' \
	"$T/names" || fail "perf 7.3 shows no 'spin (inlined)' frame calling step"
grep -Eq ' (slow_path|field_sum) \(inlined\)$' "$T/names" || fail "perf 7.3 shows no other clone"
untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}'; }
# report compares the workload's samples (from the first to the last under clone_round):
# the loader's start-up entries of equal percentage come in perf's order of its own
window() {
	"$PERF73" script -i "$1" -F time,ip,sym 2>/dev/null | awk '
		/^ *[0-9]+\.[0-9]+: *$/ { t = $1; sub(":", "", t) }
		/clone_round/ { if (s == "") s = t; e = t } END { print s "," e }'
}
checked=0
same() {
	cmp -s "$T/theirs" "$T/ours" || {
		echo "FAIL: $1 differs (perf 7.3 < > pmutrace)"
		diff "$T/theirs" "$T/ours" | head -20
		exit 1
	}
	checked=$((checked + 1))
}
for f in p m; do
	in=$T/$f.data
	[ $f = m ] && in=$T/m.pmt
	for a in "" "-F ip,sym,dso" "-G"; do
		# shellcheck disable=SC2086
		"$PERF73" script -i "$T/$f.data" $a >"$T/theirs" 2>/dev/null
		# shellcheck disable=SC2086
		"$P" script "$in" $a >"$T/ours" 2>/dev/null || [ $? = 2 ] || fail "script $a of $f"
		same "script $a of $f"
	done
	w=$(window "$T/$f.data")
	[ "$w" != , ] || fail "no sample of $f under clone_round"
	for a in "--children -g graph,5" "-g caller,5"; do
		# shellcheck disable=SC2086
		"$PERF73" report --stdio -i "$T/$f.data" --time "$w" $a 2>/dev/null | untip >"$T/theirs"
		# shellcheck disable=SC2086
		"$P" report "$in" --time "$w" $a >"$T/ours" 2>/dev/null || [ $? = 2 ] || fail "report $a of $f"
		drop_raw_inline_graphs
		same "report $a of $f"
	done
done
echo "OK: $checked outputs of call chains through GCC's clones equal perf 7.3's"
