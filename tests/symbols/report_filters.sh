#!/bin/sh
# report --comms, --dsos, --symbols (-c, -d, -S) on a recording of two processes and their
# shell, byte for byte as perf 7.3 report --stdio prints them: which samples an entry
# keeps (the sample's own thread, file and symbol decide, and its callers' Children
# follow), the header's counts and the percentages of the whole file (--percentage
# absolute, perf's default) or of what is shown (relative), a list of one name leaving its
# column out and naming it in the header (all of them shown again when every key would
# go), a file by its long name, an empty word, with --pid/--tid, Children and call graphs
# on and off, --sort keys without the filtered one; --json and --csv with the text's totals
# and percentages (tests/tools/report_rows_check.py). A name given twice is a usage error
# (perf 7.3 prints "problems parsing comm list" and an empty report).
#   report_filters.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF73=${3:-}
. "$SRC/tests/tools/two_procs_fixture.sh" && two_procs

# the lists must leave samples out, else nothing here tells filtered from whole
"$PERF73" report --stdio -i "$T/two.data" --comms sh --percentage relative 2>/dev/null |
	grep -q "^# Samples: [0-9]*  of event" || fail "perf 7.3 keeps 1000 samples or more of sh"
# A list (any of the three) with Children on and the sym key shown is compared with
# --no-inline only: with inlined frames (its default) perf 7.3 resolves some chains of
# these two processes of one program in the other's maps, splits the sample's symbol's
# entry per caller address and counts Children above 100%; perf 6.1, and perf 7.3 with
# --no-inline or --no-children, keep one entry.
for pct in "" "--percentage relative"; do
	for args in "--comms sh" "--comms callchain --sort dso" \
		"--comms sh,callchain --sort sym --no-children" "--dsos libc.so.6" \
		"--dsos callchain --no-children" "--dsos ld-linux-x86-64.so.2 --sort comm" \
		"--dsos $T/fx/callchain --sort sym,comm --no-children -g caller" \
		"--symbols level_mid" "--symbols level_mid,level_leaf --sort dso -g flat" \
		"--symbols level_mid --no-children" "-S level_top -g fractal --sort dso,sym" \
		"--comms callchain --dsos callchain --symbols level_leaf -g none --no-children" \
		"--pid $big --symbols level_mid" "--tid $small --comms callchain --sort dso,sym --no-children" \
		"--pid $small -c callchain -d callchain,libc.so.6 --sort dso -G" \
		"--comms , --sort comm --no-children" "--comms callchain, --sort comm --no-children" \
		"--comms ,sh --no-children" "--comms= --sort comm,sym --no-children" \
		"--comms sh,callchain --sort sym -g none --no-inline" "--dsos callchain --no-inline" \
		"--symbols level_leaf,level_mid --no-inline -g caller" \
		"--dsos callchain,libc.so.6 --no-inline -g flat"; do
		# shellcheck disable=SC2086
		same $args $pct
	done
done

# --json and --csv: the text's totals and percentages (compared with perf 7.3 above), for
# each --percentage, with the lists and --pid/--tid
for pct in "" "--percentage relative"; do
	for args in "--comms callchain --sort dso,sym" "--pid $small --sort sym --no-children -g none" \
		"-S level_mid,level_top --sort comm,dso,sym" "--tid $big -d libc.so.6,callchain --sort dso"; do
		for f in "" --json --csv; do
			# shellcheck disable=SC2086
			"$P" report "$T/two.data" $args $pct $f >"$T/rows$f" || fail "report $args $pct $f failed"
		done
		python3 "$SRC/tests/tools/report_rows_check.py" "$T/rows" "$T/rows--json" "$T/rows--csv" ||
			fail "report $args $pct: --json or --csv differ from the text"
		checked=$((checked + 1))
	done
done

# a name twice: perf's words, a usage error here; an empty word after the last comma is none
for bad in "--comms sh,callchain,sh" "-d ,,libc.so.6" "--symbols=a,b,a,"; do
	rc=0
	# shellcheck disable=SC2086
	"$P" report "$T/two.data" $bad >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" = 129 ] || fail "report $bad: exit status $rc, not 129"
	grep -q "^pmutrace report: problems parsing .* list: '.*' is given twice" "$T/err" ||
		fail "report $bad: $(head -1 "$T/err")"
done
echo "OK: report --comms/--dsos/--symbols equal perf 7.3's in $checked comparisons"
