#!/bin/sh
# --call-graph dwarf (user registers and stack copy, unwound at decode time with libdw's
# CFI): fixtures/symbols/unwind.c and its shared library, built without frame pointers
# (-O2 -fomit-frame-pointer), recorded on this kernel with cpu-clock:u by perf 7.3 itself
# (default and a 1024-byte stack copy, where unwinding stops early) and by pmutrace record.
# pmutrace script (default fields, -F comm,tid,ip,sym,dso, -G) and report (--children,
# --sort sym, -g caller; branches of 5% and more) equal perf 7.3's on every file; perf 7.3 reads pmutrace's
# container through zstd -dc; without the fixture's files both end the chains before them
# (pmutrace says so and exits 2). perf 6.1 is not an oracle here: its dwarf chains name
# inlined frames in a way of its own (pmutrace-script(1), "Call graphs").
#   unwind_dwarf.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: the fixture is recorded natively on x86-64"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no compiler"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: no zstd"; exit 77; }
mkdir "$T/fx" "$T/home" "$T/empty"
# perf record copies the files into $HOME/.debug, which both read first: a home of the
# test's own, not one other tests change at the same time
export HOME="$T/home"
CF="-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls"
# shellcheck disable=SC2086
gcc $CF -shared -fPIC -o "$T/fx/libunw.so" "$SRC/fixtures/symbols/unwind_lib.c" &&
	gcc $CF -o "$T/fx/unwind" "$SRC/fixtures/symbols/unwind.c" -L"$T/fx" -lunw \
		-Wl,-rpath,'$ORIGIN' || fail "fixture build"
objdump -d "$T/fx/unwind" "$T/fx/libunw.so" | awk '/<(unw_|main)/ { f = 1 } /^$/ { f = 0 } f' |
	grep -q 'mov  *%rsp,%rbp' && fail "the fixture has frame pointers"
"$PERF73" record -q -e cpu-clock:u -c 200000 --call-graph dwarf -o "$T/p.data" \
	"$T/fx/unwind" 30 >/dev/null 2>&1 || { echo "SKIP: perf 7.3 record cannot record here"; exit 77; }
"$PERF73" record -q -e cpu-clock:u -c 200000 --call-graph dwarf,1024 -o "$T/small.data" \
	"$T/fx/unwind" 10 >/dev/null 2>&1 || fail "perf 7.3 record --call-graph dwarf,1024"
"$P" record -e cpu-clock:u -c 200000 --call-graph dwarf -o "$T/m.pmt" "$T/fx/unwind" 30 \
	>/dev/null 2>&1 || fail "pmutrace record --call-graph dwarf"
zstd -qdc "$T/m.pmt" >"$T/m.data"

# the oracle must have unwound the whole way: from the qsort callback through libc and
# the library back to main, else the fixture lost its point
"$PERF73" script -i "$T/p.data" -F ip,sym 2>/dev/null | awk '
	/unw_cmp/ { s = "c" } /msort/ && s == "c" { s = "cq" } /unw_lib_sort/ && s == "cq" { s = "cql" }
	/unw_level3/ && s == "cql" { s = "cql3" } /unw_level1/ && s == "cql3" { s = "cql31" }
	/main/ && s == "cql31" { ok = 1 } /^$/ { s = "" } END { exit !ok }' ||
	fail "perf 7.3 shows no chain unw_cmp < qsort < unw_lib_sort < unw_level3 < main"

untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}'; }
checked=0
for f in p small m; do
	in=$T/$f.data
	[ $f = m ] && in=$T/m.pmt
	for a in "" "-F comm,tid,ip,sym,dso" "-G"; do
		# shellcheck disable=SC2086
		"$PERF73" script -i "$T/$f.data" $a >"$T/theirs" 2>/dev/null
		# shellcheck disable=SC2086
		"$P" script "$in" $a >"$T/ours" || fail "pmutrace script $a $f failed"
		cmp -s "$T/theirs" "$T/ours" || {
			echo "FAIL: script $a of $f differs (perf 7.3 < > pmutrace)"
			diff "$T/theirs" "$T/ours" | head -20
			exit 1
		}
		checked=$((checked + 1))
	done
	# branches under 5%: a few samples each, where equal branches of different files
	# come in the order of perf's heap addresses of its dso objects (decode/output's
	# frame_cmp takes its own file order), so a live recording's ties would make the
	# test flaky; --no-children: see the report's "left alone" note in README
	for a in "--children -g graph,5" "--children --sort sym -g graph,5" "-g caller,5"; do
		# shellcheck disable=SC2086
		"$PERF73" report --stdio -i "$T/$f.data" $a 2>/dev/null | untip >"$T/theirs"
		# shellcheck disable=SC2086
		"$P" report "$in" $a >"$T/ours" || fail "pmutrace report $a $f failed"
		cmp -s "$T/theirs" "$T/ours" || {
			echo "FAIL: report $a of $f differs (perf 7.3 < > pmutrace)"
			diff "$T/theirs" "$T/ours" | head -20
			exit 1
		}
		checked=$((checked + 1))
	done
done
grep -q unw_lib_sort "$T/ours" || fail "pmutrace's report shows no unw_lib_sort"

# the fixture's files gone (and no build-id cache): chains end before a frame in them, as
# perf's do, and the samples whose pc was in them are said to have lost their user chain
mv "$T/fx" "$T/fx.gone"
HOME=$T/empty "$PERF73" script -i "$T/p.data" >"$T/theirs" 2>/dev/null
rc=0
HOME=$T/empty "$P" script "$T/p.data" >"$T/ours" 2>"$T/err" || rc=$?
[ $rc = 2 ] || fail "script without the fixture's files: exit $rc, not 2"
grep -q "samples' user stacks not unwound" "$T/err" || fail "no word of the stacks not unwound"
cmp -s "$T/theirs" "$T/ours" || {
	echo "FAIL: script without the fixture's files differs (perf 7.3 < > pmutrace)"
	diff "$T/theirs" "$T/ours" | head -20
	exit 1
}
checked=$((checked + 1))
echo "OK: $checked outputs of dwarf call graphs equal perf 7.3's (perf's and pmutrace's recordings)"
