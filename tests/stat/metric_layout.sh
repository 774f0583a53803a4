#!/bin/sh
# stat -M in perf 7.3's layout (issue 11, item 5): x86 perf 7.3's `stat -M X -a` and
# pmutrace's with perf's GNR tables (--metrics, --events) on the simulated Intel core PMU
# (tests/pmusim/pmusim.c: slots 1e6 per CPU, a fixed PERF_METRICS, INT_MISC.UOP_DROPPING
# nothing) of a fake Granite Rapids sysfs tree print the same output byte for byte (elapsed
# time aside): each metric a `#` value (-x: its two fields, -j: its keys) on the line of
# the event perf displays it on (its pick_display_evsel(): the first of the metric's
# events the fewest selected metrics read), an event's later metrics on lines of their
# own, the events of the metrics' thresholds counted too, in perf's order. Single metrics
# (perf groups their events), the TopdownL1 group, and IPC and CPI (INST_RETIRED.ANY and
# CPU_CLK_UNHALTED.THREAD as perf's table encodes them: fixtures/events/gnr_info_thread.json)
# in text, -A, -I, -I -A, -r 2, -x (perf opens no threshold events there: its
# metric_no_threshold), -x -r 2 and -j (the threshold's class, "metric-threshold"); with
# --per-core, --per-die and --per-socket (the tree given a topology) and --per-thread -p;
# with -e EVENTS too.
#   metric_layout.sh PMUTRACE ORACLES_DIR SHARED_DIR SOURCE_DIR
set -u
P=$1 X=${2:-}/bin/perf-7.3 D=${3:-}/data/tpebs SRC=$4
. "$SRC/tests/stat/sim_oracle_setup.sh"
sim_oracle_setup gnr gnr "$D/gnr-metrics.json"
sim_gnr_topology gnr
norm() { first_interval; }
run() { # OUT CMD...
	out=$1
	shift
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_PERF_METRICS=0x40300C085F501040 PMUSIM_RATES=0x10ad:0,0x400:1000000 \
		LD_PRELOAD=$T/sim.so timeout 60 "$@" 2>&1 >/dev/null | norm >"$out"
}
fail=0 n=0
cmp_metric() { # METRIC TARGET OPTION_SETS...: perf 7.3's and pmutrace's stat -M METRIC TARGET
	m=$1 tgt=$2
	shift 2
	ev=$D/GNR_events_graniterapids_core.EXCERPT.json
	case $m in tma_info_*) ev=$SRC/fixtures/events/gnr_info_thread.json ;; esac
	for o in "$@"; do
		n=$((n + 1))
		opts=$(echo "$o" | sed 's/_\([-0-9]\)/ \1/g; s/^-$//')
		# shellcheck disable=SC2086
		run "$T/perf" "$X" stat -M $m $tgt $opts -- sleep 0.2
		grep -q "tma_" "$T/perf" ||
			{ echo "FAIL: perf 7.3 printed: $(cat "$T/perf")"; fail=$((fail + 1)); continue; }
		# shellcheck disable=SC2086
		run "$T/pmt" "$P" stat -M $m --metrics "$D/gnr-metrics.json" \
			--events "$ev" $tgt $opts -- sleep 0.2
		same_as_perf "-M $m $tgt $opts"
	done
}
for m in tma_retiring tma_frontend_bound tma_backend_bound tma_bad_speculation TopdownL1 \
	tma_info_thread_ipc tma_info_thread_cpi; do
	cmp_metric $m -a - -A -I_150 -I_150_-A -r_2 -x, -x,_-A -x\;_-A -x,_-I_150 -x,_-r_2 \
		-j -j_-A -j_-I_150_-A
done
# per core, die and socket of the tree's topology (four cores of two CPUs, one die and
# socket): each unit's lines and its metrics ("counters" also on -j's metric-only lines);
# per thread of a process of three threads besides its main one (tests/stat/thread_work.c)
for m in tma_retiring TopdownL1 tma_info_thread_ipc; do
	cmp_metric $m -a --per-core --per-core_-x, --per-core_-j --per-core_-I_150 \
		--per-core_-r_2 --per-die --per-die_-x, --per-die_-j --per-socket \
		--per-socket_-x, --per-socket_-j
done
cc -O2 -pthread -o "$T/tw" "$SRC/tests/stat/thread_work.c" || exit 1
"$T/tw" 3 >"$T/ready" &
W=$!
trap 'kill $W; rm -rf "$T"' EXIT
for i in $(seq 100); do grep -q ready "$T/ready" && break; sleep 0.1; done
for m in tma_retiring TopdownL1; do
	cmp_metric $m "-p $W" --per-thread --per-thread_-x, --per-thread_-j
done
# -e with -M: -e's events first, counted apart, then the metric's as without -e (an event
# of both opened twice, the metric shown on its own copy; -e's topdown-retiring regrouped
# behind a slots of its own, with perf's warning)
cmp_metric tma_info_thread_ipc -a --event=instructions --event=INST_RETIRED.ANY --event=INST_RETIRED.ANY_-x, \
	--event=instructions_-j
cmp_metric tma_retiring -a --event=instructions --event=instructions_-A --event=instructions_-x, \
	--event=topdown-retiring --event=topdown-retiring_-j --event=instructions_--per-core
cmp_metric TopdownL1 -a --event=instructions --event=topdown-retiring,instructions_-x,
# several grouped metrics: perf 7.3's parse_groups() layout (a {...}:W group per metric, an
# event in each group reading it, each metric on its own group's display event)
cmp_metric tma_retiring,tma_frontend_bound -a - -A -x, -j
cmp_metric tma_backend_bound,tma_retiring,tma_bad_speculation -a - -x, -j_-A
# -M given twice: perf 7.3's builtin-stat.c joins the two with a comma and parse_groups()
# adds each name's metrics, so a metric two names choose is in its list twice: ungrouped
# through a group whose MetricgroupNoGroup holds it, as its own {...}:W group through its
# name (TopdownL1 and tma_retiring), shown twice when named twice
cmp_metric "TopdownL1 -M tma_retiring" -a - -x, -j -A
cmp_metric "tma_retiring -M TopdownL1" -a - -x,
cmp_metric "tma_retiring -M tma_retiring" -a - -x, -j
cmp_metric "TopdownL1 -M tma_backend_bound" -a - -j
cmp_metric "tma_info_thread_ipc -M tma_info_thread_ipc,tma_info_thread_cpi" -a - -x,
cmp_metric "tma_retiring -M tma_frontend_bound" -a - -x, -j
# -M takes perf's comma-separated list: the same as the metrics given one by one (not
# through norm, which takes a "25.10 %" metric-only line for an interval's time)
n=$((n + 1))
run_raw() { # OUT CMD...
	out=$1
	shift
	SYSFS_PATH=$T/gnr LD_PRELOAD=$T/sim.so PMUSIM_PEBS_TYPE=4 timeout 60 "$@" 2>&1 >/dev/null |
		sed '/seconds time elapsed/d' >"$out"
}
run_raw "$T/list" "$P" stat -M tma_retiring,tma_frontend_bound --metrics "$D/gnr-metrics.json" \
	--events "$D/GNR_events_graniterapids_core.EXCERPT.json" -a -- sleep 0.2
run_raw "$T/each" "$P" stat -M tma_retiring -M tma_frontend_bound --metrics "$D/gnr-metrics.json" \
	--events "$D/GNR_events_graniterapids_core.EXCERPT.json" -a -- sleep 0.2
if ! grep -q tma_frontend_bound "$T/list" || ! grep -q tma_retiring "$T/list" ||
	! cmp -s "$T/list" "$T/each"; then
	echo "FAIL: -M a,b is not -M a -M b:"
	diff "$T/list" "$T/each" | head -10
	fail=$((fail + 1))
fi
echo "$n outputs compared, $fail differ"
[ $fail = 0 ]
