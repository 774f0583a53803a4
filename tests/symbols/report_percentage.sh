#!/bin/sh
# report --pid/--tid on a recording of two processes, byte for byte as perf 7.3 report
# --stdio prints it: the header's sample count and event count of the whole file and the
# entries' percentages of it (--percentage absolute, perf's default), or of the entries
# shown (--percentage relative); the call graphs' percentages of the whole file in either
# mode, their threshold of what the percentages are of; --children, --no-children, -g
# flat/folded/fractal, -G, --percent-limit, --time beside them, a pid with no samples. A
# bad --percentage is perf 7.3's usage error.
#   report_percentage.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF73=${3:-}
. "$SRC/tests/tools/two_procs_fixture.sh"
two_procs

# the filtered report must not be the whole one: else nothing here tells the modes apart
"$PERF73" report --stdio -i "$T/two.data" --pid "$small" -g none 2>/dev/null |
	grep -q "^# Samples: .*K of event" || fail "perf 7.3 counts under 1000 samples in the file"
for pct in "" "--percentage absolute" "--percentage relative"; do
	for args in "--pid $small" "--pid $big --no-children" "--tid $small -g none" \
		"--pid $small -g fractal" "--pid $big -G" "--pid $small --percent-limit 20" \
		"--pid $small --sort sym" "--pid $small,$big --sort comm,dso" \
		"--pid $small --time 10%-60%" "--pid 999999999"; do
		# shellcheck disable=SC2086
		same $args $pct
	done
done
# flat and folded: the chains' percentages of the whole file; with a lower threshold
# (relative's, or 0) chains of equal period, printed in perf's order (the dsos' order
# perf made them in: unit.hist_chain_ties; before it pmutrace's differed 1 recording in 8)
for args in "--pid $small -g flat" "--pid $small -g folded" "--pid $big -g flat" \
	"--pid $small -g folded,0" "--pid $big -g flat,0,callee" "--pid $small -g flat,0 --no-children"; do
	for pct in "" "--percentage absolute" "--percentage relative"; do
		# shellcheck disable=SC2086
		same $args $pct
	done
done
# the option's last word wins, as perf's
same --pid "$small" --percentage relative --percentage absolute

# each event's totals of its own samples (two events), and a pipe-mode file (no Children)
perf record -q -g -e cpu-clock:u -e task-clock:u -c 200000 -o "$T/ev2.data" -- \
	sh -c "'$T/fx/callchain' 2000000 & '$T/fx/callchain' 1000000; wait" >/dev/null 2>&1 ||
	fail "perf record of two events failed where one worked"
perf record -q -g -e cpu-clock:u -c 200000 -o - -- \
	sh -c "'$T/fx/callchain' 2000000 & '$T/fx/callchain' 1000000; wait" \
	>"$T/pipe.data" 2>/dev/null || fail "perf record -o - failed where -o FILE worked"
for f in ev2.data pipe.data; do
	cp "$T/$f" "$T/two.data"
	pid=$("$PERF73" report --stdio -i "$T/two.data" --sort pid -g none 2>/dev/null |
		awk '/%.*:callchain *$/ { sub(/:.*/, "", $(NF)); print $(NF) }' | tail -1)
	[ -n "$pid" ] || fail "$f: perf 7.3 shows no callchain process"
	for pct in "" "--percentage relative"; do
		for args in "--pid $pid" "--tid $pid --no-children -g callee" "--pid $pid -g fractal"; do
			# shellcheck disable=SC2086
			same $args $pct
		done
	done
done

for bad in "--percentage foo" "--percentage=rel" "--percentage Relative"; do
	# shellcheck disable=SC2086
	"$PERF73" report --stdio -i "$T/two.data" $bad >/dev/null 2>"$T/perr" && fail "perf 7.3 took $bad"
	prc=$?
	rc=0
	# shellcheck disable=SC2086
	"$P" report "$T/two.data" $bad >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" = "$prc" ] || fail "report $bad: exit status $rc, perf 7.3's $prc"
	sed -n '/^ Usage:/,$p' "$T/perr" | sed 's/perf report/pmutrace report/' >"$T/perr.help"
	sed -n '/^ Usage:/,$p' "$T/err" | cmp -s - "$T/perr.help" ||
		fail "report $bad: usage differs from perf 7.3's: $(cat "$T/err")"
	grep -q "^pmutrace report: --percentage: '" "$T/err" || fail "report $bad: no word named: $(head -1 "$T/err")"
done
echo "OK: report --pid/--tid with --percentage equals perf 7.3's in $checked comparisons"
