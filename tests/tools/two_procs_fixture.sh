# Sourced by the report tests on two processes (SRC: the source tree, PERF73: perf 7.3):
# two_procs ends the test with 77 without perf 7.3, makes the folder T (removed at the end
# unless KEEP is set) and fail, builds the call-chain fixture (callchain_fixture.sh) there
# and records T/two.data, perf 6.1's perf record -g of two fx/callchain processes of unequal
# length (about 2:1) and their shell; sets big and small to the two processes' pids, most
# samples first. same ARGS... compares report ARGS of pmutrace ($P) and perf 7.3 on it byte
# for byte (perf's closing tip dropped, its inlined "--[...]" named as pmutrace's; runs
# of entries of equal percentages in one order: tests/tools/equal_rows_sorted.py),
# counting them in checked, or fails.
fail() { echo "FAIL: $*"; exit 1; }
two_procs() {
	[ -x "$PERF73" ] || { echo "SKIP: no perf 7.3"; exit 77; }
	T=$(mktemp -d)
	trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
	set -- "$T"
	. "$SRC/tests/tools/callchain_fixture.sh"
	callchain_fixture "$1"
	perf record -q -g -e cpu-clock:u -c 200000 -o "$1/two.data" -- \
		sh -c "'$1/fx/callchain' 3000000 & '$1/fx/callchain' 1500000; wait" \
		>/dev/null 2>&1 || { echo "SKIP: perf record -g cannot record here"; exit 77; }
	"$PERF73" report --stdio -i "$1/two.data" --sort pid -g none 2>/dev/null |
		awk '/%.*:callchain *$/ { sub(/:.*/, "", $3); print $3 }' >"$1/pids"
	[ "$(wc -l <"$1/pids")" = 2 ] ||
		{ echo "FAIL: perf 7.3 shows not two callchain processes: $(cat "$1/pids")"; exit 1; }
	# shellcheck disable=SC2034 # the sourcing test's
	big=$(sed -n 1p "$1/pids")
	# shellcheck disable=SC2034
	small=$(sed -n 2p "$1/pids")
}

untip() { sed '/^# (Tip/,$d' | sed '${/^#$/d}' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }
checked=0
same() {
	"$PERF73" report --stdio -i "$T/two.data" "$@" 2>/dev/null | untip >"$T/theirs"
	"$P" report "$T/two.data" "$@" >"$T/ours" || fail "pmutrace report $* failed"
	cmp -s "$T/theirs" "$T/ours" || {
		# entries of equal percentages: perf 7.3 orders them by inserting them one by
		# one into its output tree with a depth rule for entries of one thread, not a
		# total order, so theirs is its insertion order (not reproduced: README's
		# report_filters row); the rest must still be byte for byte
		python3 "$SRC/tests/tools/equal_rows_sorted.py" "$T/theirs" >"$T/theirs.sorted"
		python3 "$SRC/tests/tools/equal_rows_sorted.py" "$T/ours" >"$T/ours.sorted"
		cmp -s "$T/theirs.sorted" "$T/ours.sorted" || {
			echo "FAIL: report $* differs (perf 7.3 < > pmutrace)"
			diff "$T/theirs" "$T/ours" | head -20
			exit 1
		}
		echo "note: report $*: equal once the entries of equal percentages are in one order"
	}
	checked=$((checked + 1))
}
