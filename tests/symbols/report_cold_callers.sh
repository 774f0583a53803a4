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
for t in nm readelf python3; do
	command -v $t >/dev/null || { echo "SKIP: no $t"; exit 77; }
done
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null) || libc=
[ -f "$libc" ] || { echo "SKIP: no x86-64 libc.so.6"; exit 77; }
id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -f "$dbg" ] || { echo "SKIP: no libc6-dbg (libc's .cold symbols and lines)"; exit 77; }
cold=$(nm "$dbg" | awk '$3 == "__vsyslog_internal.cold" { print $1; exit }')
[ -n "$cold" ] || { echo "SKIP: this libc has no __vsyslog_internal.cold"; exit 77; }
perf record -q -g -e cpu-clock:u -c 50000 -o "$T/r.data" ls -lR /usr/share >/dev/null 2>&1 || :
[ -s "$T/r.data" ] || { echo "SKIP: perf record -g failed here"; exit 77; }

map=$("$PERF73" script -i "$T/r.data" --show-mmap-events 2>/dev/null |
	awk '/PERF_RECORD_MMAP2/ && / r-xp / && /libc\.so\.6$/ { print $6, "@", $8; exit }')
[ -n "$map" ] || fail "no libc r-xp map in the recording"
# a sample's block: its own address first, then its callers
caller=$("$PERF73" script -i "$T/r.data" -F ip,dso 2>/dev/null |
	awk 'NF == 0 { first = 1; next } first { first = 0; self[$1] = 1; next }
	     /libc\.so\.6\)$/ { n[$1]++ } END { for (a in n) if (!(a in self)) print n[a], a }' |
	sort -n | tail -1 | awk '{ print $2 }')
[ -n "$caller" ] || fail "no libc caller in the recording"
python3 - "$T/r.data" "$T/u.data" "$map" "$cold" "$caller" <<'PY'
import re, struct, sys
src, dst, mapdesc, cold, caller = sys.argv[1:6]
start, pgoff = re.match(r'\[(0x[0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+)', mapdesc).groups()
new = int(start, 16) + int(cold, 16) + 5 - int(pgoff, 16)
data = open(src, 'rb').read()
open(dst, 'wb').write(data.replace(struct.pack('<Q', int(caller, 16)), struct.pack('<Q', new)))
PY
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
