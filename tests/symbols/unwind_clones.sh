#!/bin/sh
# GCC's clones (f.constprop.0, f.isra.0, f.part.0, f.cold) in --call-graph dwarf chains:
# fixtures/symbols/clones.c built with -O2 without frame pointers, recorded by perf 7.3
# and by pmutrace. perf 7.3 prints a clone whose inlined calls binutils' addr2line gives
# (an address below where libdwfl places the file offline, most of a small executable's)
# as its DWARF name with "(inlined)" in place of the symbol's entry ("spin+0x17
# (inlined)"), and by the symbol table's name where libdw gives them (pmt_inline_frame):
# pmutrace's script (default, -F ip,sym,dso, -G) equals perf 7.3's on every sample,
# start-up included, and report (--children -g graph,5, -g caller) on the workload's.
# export pprof's stacks and export sqlite's call paths name them as perf 7.3's chains do
# (perf 7.3 script's chains folded; its export-to-sqlite.py's call_paths).
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
# perf's fractal remainder "[...]" carries " (inlined)" in some runs (its symbol is malloc'ed
# and its inlined bit never set: ui/stdio/hist.c init_rem_hits): dropped on perf's side only
untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }
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
# the exports name a clone as perf 7.3's chains do ("spin" where script prints "spin
# (inlined)"): export pprof's stacks are perf 7.3 script's chains (folded), export
# sqlite's call paths perf 7.3's export-to-sqlite.py's (its trixie root's script, with
# tests/tools/qtsql_shim for the PySide2 it lacks)
for f in p m; do
	in=$T/$f.data
	[ $f = m ] && in=$T/m.pmt
	command -v protoc >/dev/null 2>&1 || break
	"$P" export pprof "$in" -o "$T/$f.pb.gz" 2>/dev/null || [ $? = 2 ] || fail "export pprof of $f"
	gunzip -c "$T/$f.pb.gz" | protoc --decode=perftools.profiles.Profile \
		-I"$SRC/decode/export/proto" profile.proto >"$T/pb.txt" || fail "protoc of $f"
	"$PERF73" script -i "$T/$f.data" >"$T/p73" 2>/dev/null
	python3 "$SRC/tests/tools/folded_stacks.py" pprof "$T/pb.txt" >"$T/ours"
	python3 "$SRC/tests/tools/folded_stacks.py" script "$T/p73" >"$T/theirs"
	grep -q ';spin;step ' "$T/theirs" || fail "perf 7.3's chains of $f hold no spin;step"
	same "export pprof of $f (folded stacks)"
done
root73=$(cd "$(dirname "$PERF73")/../trixie" 2>/dev/null && pwd) || root73=""
exp73=$root73/usr/lib/perf-core/scripts/python/export-to-sqlite.py
if [ -n "$root73" ] && [ -f "$exp73" ] && command -v sqlite3 >/dev/null &&
	ls -d "$root73"/usr/lib/python3*/sqlite3 >/dev/null 2>&1; then
	q() { sqlite3 -batch -noheader -list -separator , "$@"; }
	# every node below ROOT as "parent path,name" (a frame without a symbol: its address)
	paths() {
		q "$1" "WITH RECURSIVE t(id, path) AS (
			SELECT c.id, coalesce(y.name, printf('0x%x', c.ip)) FROM call_paths c
				LEFT JOIN symbols y ON y.id = c.symbol_id AND c.symbol_id > 0
				WHERE c.parent_id = $2 AND c.id != $2
			UNION ALL
			SELECT c.id, t.path || ';' || coalesce(y.name, printf('0x%x', c.ip))
				FROM call_paths c JOIN t ON c.parent_id = t.id
				LEFT JOIN symbols y ON y.id = c.symbol_id AND c.symbol_id > 0)
			SELECT id, path FROM t ORDER BY id"
	}
	PYTHONHOME=$root73/usr PYTHONPATH=$SRC/tests/tools/qtsql_shim "$PERF73" script \
		-i "$T/p.data" -s "$exp73" "$T/p73.db" all calls callchains >"$T/perf.out" 2>&1 ||
		fail "perf 7.3's export: $(tail -3 "$T/perf.out")"
	"$P" export sqlite "$T/p.data" -o "$T/m.db" 2>/dev/null || [ $? = 2 ] || fail "export sqlite"
	paths "$T/p73.db" 1 >"$T/theirs"
	paths "$T/m.db" "(SELECT id FROM call_paths WHERE parent_id IS NULL)" >"$T/ours"
	grep -q ';clone_round;spin$' "$T/theirs" || fail "perf 7.3's call paths hold no clone_round;spin"
	same "export sqlite's call paths"
else
	echo "note: no perf 7.3 export-to-sqlite.py with sqlite3 in its root: call paths not checked"
fi
echo "OK: $checked outputs of call chains through GCC's clones equal perf 7.3's"
