#!/bin/sh
# :R (retire latency) events in `stat` without --record-tpebs (issue 11): x86 perf 7.3 opens
# nothing for one and reads its table's RetirementLatencyMean, rounded, on the first CPU of
# the counted ones alone (enabled and running 1); the other CPUs' counters never ran, so
# -A prints <not counted> for them and --per-core/--per-socket every unit <not counted>
# (perf's evsel__count_has_error(): a unit with a counter that never ran fails), the total
# the value. A metric reading it is that on CPU 0 and nan on the other CPUs and on every
# core. pmutrace, given the same table (--retire-latency), prints the same bytes on the
# simulated Intel core PMU of a fake Granite Rapids tree: -e EVENT:R in text, -A, -x, -j,
# --per-core, --per-socket, -I, -C; -M of an ungrouped metric (tma_lock_latency:
# MetricConstraint NO_GROUP_EVENTS, so its topdown events form the slots group alone) and of
# grouped ones (tma_code_l2_miss, tma_dtlb_load: the :R event, read from no counter, out of
# the group the kernel reads); and --dry-run -v with no attr for the :R event. -j of a NaN
# tma_lock_latency (-A, --per-core) prints perf 7.3's "metric-threshold" : "good": its
# threshold's '&' with a finite 0 (tma_l1_bound > 0.1 is 0 here) is 0 whatever NaN is
# beside it, where tma_code_l2_miss's NaN (its other side 1) gets no class. With -r N the
# :R event's run time is N (perf 7.3 keeps its count's times between runs), its value 64.
#   retlat_stat.sh PMUTRACE ORACLES_DIR SHARED_DIR SOURCE_DIR
set -u
P=$1 X=${2:-}/bin/perf-7.3 D=${3:-}/data/tpebs SRC=$4
. "$SRC/tests/stat/sim_oracle_setup.sh"
sim_oracle_setup gnr gnr "$D/gnr-metrics.json" "$D/gnr-events-with-RetirementLatency.json"
sim_gnr_topology gnr
fail=0 n=0
run() { # OUT CMD...
	out=$1
	shift
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_RATES=0x10ad:0,0x400:1000000 LD_PRELOAD=$T/sim.so timeout 60 "$@" \
		2>&1 >/dev/null | first_interval >"$out"
}
# each option set with + for its spaces
E=-e+MEM_INST_RETIRED.LOCK_LOADS:R
L=-M+tma_lock_latency C=-M+tma_code_l2_miss S=-M+tma_dtlb_load
for o in $E -A+$E -x,+-A+$E -j+-A+$E --per-core+$E -x,+--per-core+$E -j+--per-core+$E \
	--per-socket+$E -I+150+-A+$E -x,+$E -C+2-3+-A+-x,+$E \
	$L -x,+$L -j+$L -A+$L -x,+-A+$L --per-core+$L -I+150+$L -j+-A+$L -j+--per-core+$L \
	$C -x,+$C -A+$C --per-core+$C -j+-A+$C -x,+--per-core+$C \
	$S -A+$S --per-core+$S -j+--per-core+$S \
	-r+3+-x,+$E -r+2+-j+-A+$E -r+2+-x,+--per-core+$E -r+2+-x,+$L -r+2+-j+$L; do
	n=$((n + 1))
	opts=$(echo "$o" | tr + ' ')
	case "$opts" in *-C*) ;; *) opts="-a $opts" ;; esac
	# shellcheck disable=SC2086
	run "$T/perf" "$X" stat $opts -- sleep 0.2
	grep -q "LOAD\|MISS" "$T/perf" || { echo "FAIL: perf 7.3 printed: $(cat "$T/perf")"; fail=$((fail + 1)); continue; }
	# shellcheck disable=SC2086
	run "$T/pmt" "$P" stat --metrics "$D/gnr-metrics.json" \
		--events "$SRC/fixtures/events/gnr_topdown.json" \
		--retire-latency "$D/gnr-events-with-RetirementLatency.json" $opts -- sleep 0.2
	same_as_perf "$opts"
done
# -vv: no attr for the :R event (nothing opened), cycles' as perf's (the numbers:
# the annotations in parentheses differ)
n=$((n + 1))
SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 "$X" stat -vv -C 0 \
	-e MEM_INST_RETIRED.LOCK_LOADS:R,cycles -- true 2>&1 |
	sed -n '/^perf_event_attr/,/^---/p' | sed 's/ *(.*)$//' >"$T/perf"
SYSFS_PATH=$T/gnr "$P" stat --dry-run -v --events "$SRC/fixtures/events/gnr_topdown.json" \
	-C 0 -e MEM_INST_RETIRED.LOCK_LOADS:R,cycles -- true 2>&1 |
	sed -n '/^perf_event_attr/,/^---/p' | sed 's/ *(.*)$//' >"$T/pmt"
[ "$(grep -c perf_event_attr "$T/pmt")" = 1 ] ||
	{ echo "FAIL: -v: $(cat "$T/pmt")"; fail=$((fail + 1)); }
same_as_perf "--dry-run -v -e MEM_INST_RETIRED.LOCK_LOADS:R,cycles"
echo "$n outputs compared, $fail differ"
[ $fail = 0 ]
