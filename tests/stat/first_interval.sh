# Sourced by the stat oracle tests: first_interval reads perf stat's output (text, -x or -j)
# and keeps what does not change run to run. The interval lines' time and the elapsed time
# differ run to run. With -I only the first interval's lines are kept: how many intervals
# `sleep 0.2` spans depends on scheduling (two when idle, a third when a loaded machine
# holds the tool or sleep past 300 ms; the count differed between perf and pmutrace in CI's
# parallel runs), and with the simulator's fixed rates every interval prints the same values.
first_interval() { awk '{ t = "" }
	match($0, /^ *[0-9]+\.[0-9]+[ ,]/) { t = substr($0, 1, RLENGTH - 1) }
	match($0, /"interval" : [0-9.]+/) { t = substr($0, RSTART, RLENGTH) }
	t != "" && first == "" { first = t }
	t != "" && t != first { next }
	{ print }' | sed -e 's/^ *[0-9]*\.[0-9]\{9\} /TIME /' -e 's/^[0-9]*\.[0-9]\{9\},/TIME,/' \
	-e 's/"interval" : [0-9.]*/"interval" : T/' -e '/seconds time elapsed/d'; }
# same_as_perf LABEL: $T/perf and $T/pmt equal, else a FAIL line with LABEL, the first lines
# of their diff and $fail counted
same_as_perf() {
	cmp -s "$T/perf" "$T/pmt" && return 0
	echo "FAIL: $1: perf 7.3 < > pmutrace"
	diff "$T/perf" "$T/pmt" | head -10
	fail=$((fail + 1))
}
