#!/bin/sh
# A caller frame in a function's .cold part, at an address without a line (libc's
# __vsyslog_internal.cold+5): perf 7.3 finds no line there with libdw, asks binutils'
# addr2line, which names the DWARF function holding the part, "__vsyslog_internal", not
# the symbol: an inlined frame, "__vsyslog_internal (inlined)" in the sym column, where
# the build before printed the symbol "__vsyslog_internal.cold". A recorded libc caller
# (one that is never a sample's own address) is moved there (its 8 bytes rewritten, as
# report_unnamed_callers.sh does) so the case is there every run; report --sort sym,
# comm,dso,sym and srcline, with and without graphs, equal perf 7.3's, byte for byte but
# rows of equal shares in one order (ld.so's dl-find_object header rows, README's known
# difference, left out on both sides).
#   report_cold_callers.sh PMUTRACE SOURCE_DIR PERF73
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: no perf to record with"; exit 77; }
. "$SRC/tests/tools/libc_callers.sh"
libc_debug_file
cold=$(nm "$dbg" | awk '$3 == "__vsyslog_internal.cold" { print $1; exit }')
[ -n "$cold" ] || { echo "SKIP: this libc has no __vsyslog_internal.cold"; exit 77; }
libc_record
caller=$(libc_callers callers | tail -1)
[ -n "$caller" ] || fail "no libc caller in the recording"
libc_move "$caller=0x$(printf %x $((0x$cold + 5)))"
"$PERF73" report --stdio -i "$T/u.data" --sort sym -g none 2>/dev/null >"$T/p"
grep -q '\[\.\] __vsyslog_internal (inlined)$' "$T/p" ||
	fail "perf 7.3 shows no __vsyslog_internal (inlined) row for the moved caller"

untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }
checked=0
for keys in sym comm,dso,sym srcline; do
	for g in "-g none" ""; do
		# shellcheck disable=SC2086
		"$PERF73" report --stdio -i "$T/u.data" --sort "$keys" $g 2>/dev/null | untip \
			>"$T/theirs.raw"
		# shellcheck disable=SC2086
		"$P" report "$T/u.data" --sort "$keys" $g >"$T/ours.raw" ||
			fail "pmutrace report --sort $keys $g failed"
		for f in theirs ours; do
			grep -v 'dl-find_object\.[ch]' "$T/$f.raw" >"$T/$f.f"
			python3 "$SRC/tests/tools/equal_rows_sorted.py" "$T/$f.f" >"$T/$f"
		done
		cmp -s "$T/theirs" "$T/ours" || {
			diff "$T/theirs" "$T/ours" | head -20
			fail "report --sort $keys $g of a caller in __vsyslog_internal.cold differs (perf 7.3 < > pmutrace)"
		}
		checked=$((checked + 1))
	done
done
echo "OK: $checked reports with a caller in a .cold part equal to perf 7.3's"
