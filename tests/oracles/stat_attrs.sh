#!/bin/sh
# Attr oracle for counting (issue 11 a, stat half): `pmutrace stat --dry-run -v` prints the
# perf_event_attrs x86 perf 7.3's `perf stat -vv` opens for the same command line, on the
# host's software PMU and on a fake Granite Rapids 'cpu' PMU (tests/oracles/fake_intel_sysfs.sh)
# with perf's feature probes answered by tests/pmusim/probe_ok.c. perf gives up on an event
# after its first failed open (the fake PMU has no kernel driver), so attrs are compared
# with repeats collapsed, and where every open succeeds (software events) the open lines'
# pid, cpu and group leader too.
#   stat_attrs.sh PMUTRACE ORACLES_DIR [SHARED_DIR]
set -eu
P=$1 ORC=$2 SHARED=${3:-}
. "$(dirname "$0")/x86_perf73_setup.sh"
# a live process of known threads for -p/-t (tests/stat/thread_work.c: the main thread and
# three that wait), whose tids the open lines keep
cc -O2 -pthread -o "$T/tw" "$HERE/../stat/thread_work.c"
"$T/tw" 3 >"$T/ready" &
LIVE=$!
trap 'kill $LIVE 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 100); do grep -q ready "$T/ready" && break; sleep 0.1; done
LIVE_TIDS=$(ls /proc/$LIVE/task | sort -n | tr '\n' ' ')

# attr blocks, one "--" after each, consecutive repeats collapsed; the numbers are compared,
# not the annotations in parentheses (pmutrace names a PMU type by its PERF_TYPE_*)
blocks() {
	awk '/^perf_event_attr:/ { p = 1; b = ""; next }
	     /^-----/ { if (p) { if (b != last) printf "%s--\n", b; last = b } p = 0; next }
	     p { sub(/ \(.*\)$/, ""); b = b $0 "\n" }' "$1"
}
# perf's probes of the kernel (an attr opened with pid 0 and cpu -1: the hybrid extended
# type; perf opens a workload's events with its pid) left out; a probe perf makes while it
# prints an attr (its first event's type and size, then the probes, then the rest) is cut
# out of that attr
drop_probes() {
	awk '/^perf_event_attr:/ { if (held && b != "") { outer = b; sub(/-+\n$/, "", outer) }
				   else if (b != "") printf "%s", b
				   b = $0 "\n"; held = 1; next }
	     held { b = b $0 "\n"
		    if (/^sys_perf_event_open: pid 0  cpu -1 /) {
			b = outer; held = outer != ""; outer = "" }
		    else if (/^sys_perf_event_open/) { printf "%s", b; b = ""; held = 0 }
		    next }
	     { print }
	     END { printf "%s", b }' "$1"
}
# the open lines: pid (a workload's is PID: pmutrace --dry-run forks none and prints 0;
# the live process's threads are kept), cpu, and whether a group member
opens() {
	sed -n 's/^sys_perf_event_open: pid \([-0-9]*\)  cpu \([-0-9]*\)  group_fd \([-0-9A-Z]*\).*/\1 \2 \3/p' "$1" |
		awk -v live="$LIVE_TIDS" 'BEGIN { split(live, l, " "); for (i in l) tid[l[i]] = 1 }
		     { pid = ($1 > 0 && !($1 in tid)) || $1 == "0" ? "PID" : $1; print pid, $2, ($3 == "-1" ? "leader" : "member") }'
}
# --per-thread -a: the threads of /proc differ between two runs (each tool's own, a thread
# perf found gone and left out before it opened the event again), so the open lines are
# compared on the threads both listed: "BLOCK PID cpu group" per distinct attr, a repeated
# attr's earlier lines dropped (perf's retry without a vanished thread)
thread_opens() {
	awk '/^perf_event_attr:/ { p = 1; b = ""; next }
	     /^-----/ { if (p) { if (b != last) k++; else { for (i = 1; i <= n[k]; i++) delete seen[k, i]; n[k] = 0 }
			 last = b } p = 0; next }
	     p { sub(/ \(.*\)$/, ""); b = b $0 "\n"; next }
	     /^sys_perf_event_open: pid/ { seen[k, ++n[k]] = k " " $3 " " $5 " " $7 }
	     END { for (j = 1; j <= k; j++) for (i = 1; i <= n[j]; i++) print seen[j, i] }' "$1"
}
n=0 fail=0
check() { # FS OPENS ARGS...: FS host or gnr; OPENS yes to compare the open lines, threads
	# on the threads both tools listed (--per-thread -a)
	fs=$1 cmp_opens=$2
	shift 2
	args=$(echo "$*" | sed "s/@PID/$LIVE/g")
	# without a workload perf stat counts until interrupted: a short one bounds it
	case " $args " in *" -- "*) ;; *) args="$args -- /bin/sleep 0.1" ;; esac
	n=$((n + 1))
	sysfs=/sys cpuid=
	[ "$fs" = gnr ] && sysfs=$T/gnr cpuid=GenuineIntel-6-AD-0
	# (the fake PMUs' opens answered too, so perf opens every event on every CPU)
	ok=
	[ "$fs" = arlh ] && sysfs=$T/arlh cpuid=GenuineIntel-6-C5-0 ok=3,4,10,11
	[ "$fs" = adl ] && sysfs=$T/adl cpuid=GenuineIntel-6-97-0 ok=4,10
	[ "$fs" = mtl ] && sysfs=$T/adl cpuid=GenuineIntel-6-AA-0 ok=4,10
	# shellcheck disable=SC2086
	env SYSFS_PATH="$sysfs" ${cpuid:+PERF_CPUID=$cpuid} ${ok:+PROBE_OK_TYPES=$ok} LD_PRELOAD="$T/probe.so" timeout 60 \
		"$X86" stat -vv $(echo "$args" | sed 's/ *--metrics [^ ]*//; s/ *--events [^ ]*//') \
		>"$T/perf.out" 2>&1 || true
	# shellcheck disable=SC2086
	# (the preload answers both tools' extended-type probe on a hybrid tree)
	if ! SYSFS_PATH=$sysfs LD_PRELOAD="$T/probe.so" "$P" stat --dry-run -v $args >"$T/pmt.out" \
		2>"$T/pmt.err"; then
		echo "FAIL [$fs] $args: pmutrace refused it:"; cat "$T/pmt.err"
		fail=$((fail + 1))
		return
	fi
	if [ "$fs" = arlh ] || [ "$fs" = adl ] || [ "$fs" = mtl ]; then
		drop_probes "$T/perf.out" >"$T/perf.noprobe"
		mv "$T/perf.noprobe" "$T/perf.out"
	fi
	blocks "$T/perf.out" >"$T/perf.attrs"
	blocks "$T/pmt.out" | grep -v '^  config[34] ' >"$T/pmt.attrs"
	if [ "$cmp_opens" = order ]; then
		# perf gives up on an event after its first failed open, pmutrace prints the
		# attrs of every CPU: each distinct attr once, in the order it first appears
		for f in perf pmt; do
			awk 'BEGIN { RS = "--\n"; ORS = "--\n" } !seen[$0]++' "$T/$f.attrs" >"$T/$f.first"
			mv "$T/$f.first" "$T/$f.attrs"
		done
	fi
	if [ ! -s "$T/perf.attrs" ]; then
		echo "FAIL [$fs] $args: perf printed no attrs:"; grep -v "^ *-\|^$" "$T/perf.out" | head -5
		fail=$((fail + 1))
	elif ! cmp -s "$T/perf.attrs" "$T/pmt.attrs"; then
		echo "FAIL [$fs] $args: attrs differ (perf < > pmutrace)"
		diff "$T/perf.attrs" "$T/pmt.attrs" | head -20
		fail=$((fail + 1))
	elif [ "$cmp_opens" = threads ]; then
		thread_opens "$T/perf.out" >"$T/perf.opens"
		thread_opens "$T/pmt.out" >"$T/pmt.opens"
		# each tool's lines of the threads both opened, in its own order
		grep -xFf "$T/pmt.opens" "$T/perf.opens" >"$T/perf.both" || true
		grep -xFf "$T/perf.opens" "$T/pmt.opens" >"$T/pmt.both" || true
		nb=$(grep -c '^perf_event_attr:' "$T/pmt.out")
		for tid in $LIVE_TIDS; do
			if [ "$(grep -c "^[0-9]* $tid -1 -1\$" "$T/pmt.both")" != "$nb" ]; then
				echo "FAIL [$fs] $args: thread $tid of the live process not opened once per attr by both"
				fail=$((fail + 1))
				return
			fi
		done
		if awk '$3 != -1 || $4 != -1 { bad = 1 } END { exit !bad }' "$T/pmt.opens"; then
			echo "FAIL [$fs] $args: an open not on cpu -1 without a group"
			fail=$((fail + 1))
		elif ! cmp -s "$T/perf.both" "$T/pmt.both"; then
			echo "FAIL [$fs] $args: the threads both listed opened in another order (perf < > pmutrace)"
			diff "$T/perf.both" "$T/pmt.both" | head -10
			fail=$((fail + 1))
		elif [ "$(wc -l <"$T/pmt.both")" -lt $(($(wc -l <"$T/pmt.opens") * 3 / 4)) ]; then
			# most of /proc outlives both runs: a list mostly of other threads is not /proc's
			echo "FAIL [$fs] $args: perf opened few of pmutrace's threads:"
			grep -vxFf "$T/perf.opens" "$T/pmt.opens" | head -5
			fail=$((fail + 1))
		fi
	elif [ "$cmp_opens" = yes ]; then
		opens "$T/perf.out" >"$T/perf.opens"
		opens "$T/pmt.out" >"$T/pmt.opens"
		if ! cmp -s "$T/perf.opens" "$T/pmt.opens"; then
			echo "FAIL [$fs] $args: opens differ (perf < > pmutrace)"
			diff "$T/perf.opens" "$T/pmt.opens" | head -10
			fail=$((fail + 1))
		fi
	fi
}

# software events: every target, inherit, intervals, aggregation, modifiers
check host yes -e task-clock -- /bin/true
check host yes -e task-clock,page-faults,context-switches,cpu-migrations -- /bin/true
check host yes -e cpu-clock -e page-faults -a
check host yes -e task-clock -a -- /bin/true
check host yes -e page-faults -C 1
check host yes -e page-faults,context-switches -C 0,1 -A
check host yes -e task-clock -t @PID -- /bin/sleep 0.1
check host yes -e context-switches -t @PID -- /bin/sleep 0.1
check host yes -i -e task-clock -- /bin/true
check host yes --no-inherit -e page-faults -a
check host yes -I 100 -a -e cpu-clock
check host yes -I 100 -e task-clock,page-faults -- /bin/true
check host yes -a --per-core -e task-clock
check host yes -a --per-socket -e task-clock
check host yes -x, -e task-clock -- /bin/true
check host yes -e cpu-clock:u -- /bin/true
check host yes -e task-clock:k -a
check host yes -e page-faults:uk -t @PID -- /bin/sleep 0.1
# -p and --per-thread: the attr once per event, then an open per thread of the process
check host yes -e task-clock,page-faults -p @PID -- /bin/sleep 0.1
check host yes --per-thread -e task-clock,context-switches -p @PID -- /bin/sleep 0.1
check host yes --per-thread -e {task-clock,page-faults} -p @PID -- /bin/sleep 0.1
check host yes --per-thread -e page-faults -t @PID -- /bin/sleep 0.1
# --per-thread -a: every thread of /proc in its order for each event
check host threads --per-thread -a -e task-clock,page-faults
check host yes -e dummy -- /bin/true
check host yes -e minor-faults,major-faults -- /bin/true
# groups: members on their leader's fd, ID|GROUP, only the leader disabled
check host yes -e {task-clock,page-faults} -- /bin/true
check host yes -e {cpu-clock,context-switches,page-faults} -a
check host yes -e {task-clock,page-faults},context-switches -C 1 -- /bin/true
# a raw event of the fake Granite Rapids core PMU through its format files
check gnr no -e cpu/event=0xc0,umask=0x1/ -a
check gnr no -e cpu/event=0xc0,umask=0x1/ -- /bin/true
check gnr no -e cpu/event=0xa3,umask=0x14,cmask=0x14/ -C 2
check gnr no -e cpu/event=0xc2,umask=0x2,inv,cmask=1/u -a
check gnr no -e cpu/event=0x3c,edge/k -- /bin/true
# Arrow Lake-H's three core PMUs (cpu_core 4, cpu_atom 10, cpu_lowpower 11): a hardware
# event once per PMU with its type in config[63:32], --cputype lowpower (perf 7.3 takes a
# core PMU's name without its "cpu_")
sh "$HERE/fake_intel_sysfs.sh" "$T/arlh" hybrid arrowlake_h_hybrid lowpower
check arlh yes -e cycles -a
check arlh yes -e instructions,LLC-loads -C 11-13
check arlh yes --cputype lowpower -e cycles -a
check arlh yes --cputype lowpower -e instructions,LLC-loads -C 12
check arlh yes --cputype atom -e cycles -a
# --topdown: perf's TopdownL1 group (GNR pmu-events table): slots leading topdown-retiring,
# -fe-bound, -be-bound and -bad-spec, INT_MISC.UOP_DROPPING (0x10ad) outside; the
# threshold's topdown-heavy-ops is not opened. The attrs in perf's order, which follows its
# hash map of the metrics' event names (pmt_metric_set_perf_events)
if [ -r "$SHARED/data/tpebs/gnr-metrics.json" ]; then
	TD="--metrics $SHARED/data/tpebs/gnr-metrics.json --events $SHARED/data/tpebs/GNR_events_graniterapids_core.EXCERPT.json"
	check gnr order --topdown $TD -- /bin/true
	check gnr order --topdown $TD -a
	check gnr order --topdown $TD -C 1 -A
	check gnr order --topdown $TD -I 100 -a
	# --td-level 2: the TopdownL2 group adds topdown-heavy-ops, -br-mispredict, -fetch-lat
	# and -mem-bound to the slots group
	check gnr order --topdown --td-level 2 $TD -a
	check gnr order --topdown --td-level 2 $TD -- /bin/true
	# -M: the events of each metric's threshold too (tma_retiring's names
	# tma_heavy_operations: topdown-heavy-ops), in the order of perf's hash map of them;
	# one metric outside its MetricgroupNoGroup parsed as perf's {...}:W group
	# (INT_MISC.UOP_DROPPING after topdown-retiring), a group's metrics merged
	check gnr order -M tma_retiring $TD -a
	check gnr order -M tma_frontend_bound $TD -a
	check gnr order -M tma_bad_speculation $TD -- /bin/true
	check gnr order -M TopdownL1 $TD -a
	check gnr order -M TopdownL1 $TD -A -C 0-1
	# -x: perf's metric_no_threshold, no topdown-heavy-ops
	check gnr order -M tma_retiring -x, $TD -a
	check gnr order -M TopdownL1 -x, $TD -a
	check gnr order -M tma_info_thread_ipc --metrics $SHARED/data/tpebs/gnr-metrics.json \
		--events "$HERE/../../fixtures/events/gnr_info_thread.json" -a
fi
# -M on Alder Lake (hybrid): one copy of a metric per core PMU (the table's Unit), each
# metric's events a {...}:W group of its own PMU's: cpu_core's slots group (slots added
# as its leader) then cpu_atom's TOPDOWN_RETIRING.ALL and CPU_CLK_UNHALTED.CORE; the
# table: perf 7.3's built-in one as its -vv prints it (fixtures/metrics/adl-hybrid-metrics.json)
sh "$HERE/fake_intel_sysfs.sh" "$T/adl" hybrid
ADL="--metrics $HERE/../../fixtures/metrics/adl-hybrid-metrics.json --events $HERE/../../fixtures/events/adl_hybrid.json"
check adl yes -M tma_retiring $ADL -a
check adl yes -M tma_retiring -x, $ADL -a
check adl yes -M tma_info_thread_ipc $ADL -a
check adl yes -M tma_info_core_ipc $ADL -A -C 7-8
# TopdownL1: ungrouped, both PMUs' events in perf's hash order, TOPDOWN.SLOTS as slots
check adl yes -M TopdownL1 $ADL -a
check adl yes -M TopdownL1 -x, $ADL -a
# the tree named as Meteor Lake: cpu_atom's TOPDOWN_RETIRING.ALL_P (0x72)
check mtl yes -M tma_retiring --metrics "$HERE/../../fixtures/metrics/mtl-hybrid-metrics.json" \
	--events "$HERE/../../fixtures/events/mtl_hybrid.json" -a

echo "$n command lines, $fail differ"
[ "$fail" = 0 ]
