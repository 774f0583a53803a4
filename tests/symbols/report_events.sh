#!/bin/sh
# report of a -g recording with two events (cpu-clock and task-clock of ls -lR), each
# event's table as perf 7.3 prints it: perf's hists are per event, so each event's entries
# are the nodes of its own entry tree (hist_perftree.c: the sym key with inlined frames,
# srcline and srcfile before their merge), and perf's files, whose line lookups it stops
# after 123 failures in a row, are shared: the second event's merge starts with the files
# the first one's cut off (a libc function's own and caller entries, one source file
# apart in the first event, are one row of no file in the second). Byte for byte but rows
# of equal shares in one order (equal_rows_sorted.py); perf's closing tip dropped.
#   report_events.sh PMUTRACE SOURCE_DIR PERF73
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: no perf to record with"; exit 77; }
# perf record exits with ls's status (1 when a file goes away meanwhile): the recording
# itself is what is checked
perf record -q -g -e cpu-clock:u,task-clock:u -c 50000 -o "$T/ev2.data" ls -lR /usr/share \
	>/dev/null 2>&1 || :
[ -s "$T/ev2.data" ] || { echo "SKIP: perf record -g of two events failed here"; exit 77; }
untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }
"$PERF73" report --stdio -i "$T/ev2.data" --sort sym -g none 2>/dev/null >"$T/p"
[ "$(grep -c '^# Samples: .* of event' "$T/p")" = 2 ] || fail "perf 7.3 shows no two events"
checked=0
for keys in sym comm,dso,sym sym,srcfile srcline srcfile comm,srcfile; do
	for g in "-g none" ""; do
		# shellcheck disable=SC2086
		"$PERF73" report --stdio -i "$T/ev2.data" --sort "$keys" $g 2>/dev/null | untip \
			>"$T/theirs.raw"
		# shellcheck disable=SC2086
		"$P" report "$T/ev2.data" --sort "$keys" $g >"$T/ours.raw" ||
			fail "pmutrace report --sort $keys $g failed"
		for f in theirs ours; do
			# ld.so's dl-find_object header rows (perf 7.3 named one by its
			# unit's file once): left out on both sides
			grep -v -e 'dl-find_object\.[ch]' "$T/$f.raw" >"$T/$f.f"
			python3 "$SRC/tests/tools/equal_rows_sorted.py" "$T/$f.f" >"$T/$f"
		done
		cmp -s "$T/theirs" "$T/ours" || {
			diff "$T/theirs" "$T/ours" | head -20
			fail "report --sort $keys $g of two events differs (perf 7.3 < > pmutrace)"
		}
		checked=$((checked + 1))
	done
done
echo "OK: $checked reports of two events equal to perf 7.3's"
