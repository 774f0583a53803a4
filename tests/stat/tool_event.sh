#!/bin/sh
# perf's duration_time tool event (issue 11, item 5): x86 perf 7.3's `stat` and pmutrace's on
# the simulated Intel core PMU of a fake Granite Rapids sysfs tree (one socket, four cores of
# two CPUs; the msr PMU's tsc simulated too) print the same output, byte for byte once the
# tool event's count (the wall-clock ns from its open, different in every run) and the value
# of a metric on its line are masked (tests/stat/mask_tool_event.py, which checks that count
# and tma_info_system_time = it in seconds first): -e duration_time with slots in text, -A
# (perf's tool/duration_time/ on the first CPU alone), -x, -j, --per-core (ctrs 1), -I, -C;
# and -M metrics reading it (tma_info_system_time shown on the duration_time line,
# tma_info_system_core_frequency on another: duration_time opened after the metric's
# events, as perf's metricgroup does); and groups with it, which perf sorts as a software
# event's, then takes it out of (its CPUs are not the leader's), with its two warnings;
# without -a, counting a workload with kernel events, 0 as perf 7.3 reads it;
# #num_cpus_online from the tree; and -o FILE read back by perf 7.3's stat report and by
# metrics FILE; user_time and system_time on this machine, on the fake tree (CPUs the host
# lacks), and of a workload.
#   tool_event.sh PMUTRACE ORACLES_DIR SHARED_DIR SOURCE_DIR
set -u
P=$1 X=${2:-}/bin/perf-7.3 D=${3:-}/data/tpebs SRC=$4
. "$SRC/tests/stat/sim_oracle_setup.sh"
sim_oracle_setup gnr gnr "$D/gnr-metrics.json"
sim_gnr_topology gnr
mkdir -p "$T/gnr/bus/event_source/devices/msr/events" "$T/gnr/bus/event_source/devices/msr/format"
echo 9 >"$T/gnr/bus/event_source/devices/msr/type"
echo event=0x00 >"$T/gnr/bus/event_source/devices/msr/events/tsc"
echo config:0-63 >"$T/gnr/bus/event_source/devices/msr/format/event"
fail=0 n=0
run() { # OUT CMD...
	out=$1
	shift
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4,9 \
		PMUSIM_RATES=0x10ad:0,0x400:1000000 LD_PRELOAD=$T/sim.so timeout 60 "$@" \
		2>&1 >/dev/null | first_interval >"$out"
}
# -A's other events: perf 7.3 names a PMU's event after it there (cpu/slots/), pmutrace
# does not yet: cycles (not simulated: <not counted> in both) stands beside it
for o in -e_duration_time,slots -A_-e_duration_time,cycles -x,_-e_duration_time,slots \
	-x,_-A_-e_duration_time,cycles -j_-e_duration_time,slots -j_-A_-e_duration_time,cycles \
	--per-core_-e_duration_time,slots -x,_--per-core_-e_duration_time,slots \
	-j_--per-core_-e_duration_time,slots -I_150_-e_duration_time,slots \
	-I_150_-x,_-e_duration_time,slots -I_150_-A_-e_duration_time,cycles \
	-e_slots,duration_time,slots -M_tma_info_system_time -x,_-M_tma_info_system_time \
	-j_-M_tma_info_system_time -M_tma_info_system_core_frequency -I_150_-M_tma_info_system_time \
	--per-core_-M_tma_info_system_time -e_{duration_time,slots} -e_{slots,duration_time} \
	-e_{duration_time,task-clock} -e_{task-clock,duration_time,slots}; do
	n=$((n + 1))
	opts=$(echo "$o" | tr _ ' ' | sed 's/duration time/duration_time/g; s/tma info system /tma_info_system_/g')
	opts=$(echo "$opts" | sed 's/core frequency/core_frequency/g')
	# shellcheck disable=SC2086
	run "$T/perf" "$X" stat -a $opts -- sleep 0.2
	case "$o" in *-M*) set -- --metrics "$D/gnr-metrics.json" \
		--events "$SRC/fixtures/events/gnr_topdown.json" ;; *) set -- ;; esac
	# shellcheck disable=SC2086
	run "$T/pmt" "$P" stat "$@" -a $opts -- sleep 0.2
	for f in perf pmt; do
		python3 "$SRC/tests/stat/mask_tool_event.py" "$T/$f" >"$T/why" ||
			{ echo "FAIL: $opts ($f)"; cat "$T/why"; fail=$((fail + 1)); }
		mv "$T/$f.masked" "$T/$f"
	done
	same_as_perf "$opts"
done
# -C 2-3: on the first CPU of the list
n=$((n + 1))
run "$T/perf" "$X" stat -C 2-3 -A -e duration_time,cycles -- sleep 0.2
run "$T/pmt" "$P" stat -C 2-3 -A -e duration_time,cycles -- sleep 0.2
for f in perf pmt; do
	python3 "$SRC/tests/stat/mask_tool_event.py" "$T/$f" >/dev/null; mv "$T/$f.masked" "$T/$f"
done
grep -q "^CPU2 .*tool/duration_time/" "$T/pmt" || { echo "FAIL: -C 2-3: $(cat "$T/pmt")"; fail=$((fail + 1)); }
same_as_perf "-C 2-3 -A"
# a workload without -a: perf 7.3 starts the tool's clock when it enables the counters
# itself, which it leaves to enable_on_exec when there are kernel events, so it reads 0
# (enabled and running 1) in every layout and interval; perf's warning about a workload
# without -a and the workload's user and sys times (they differ run to run) left out
for o in -x,_-e_duration_time,slots -e_duration_time,slots -j_-e_duration_time,slots \
	-I_150_-x,_-e_duration_time,slots -I_150_-e_duration_time,slots; do
	n=$((n + 1))
	opts=$(echo "$o" | tr _ ' ' | sed 's/duration time/duration_time/g')
	# shellcheck disable=SC2086
	run "$T/perf" "$X" stat $opts -- sleep 0.2
	# shellcheck disable=SC2086
	run "$T/pmt" "$P" stat $opts -- sleep 0.2
	for f in perf pmt; do
		grep -v "^Warning:\|^workload '.*' specified" "$T/$f" |
			sed 's/^ *[0-9.]* seconds \(user\|sys\)$/T seconds \1/' >"$T/$f.kept"
		mv "$T/$f.kept" "$T/$f"
	done
	grep -q "^0,,duration_time,1,\| 0      duration_time\|\"counter-value\" : \"0.000000\", \"unit\" : \"\", \"event\" : \"duration_time\"\|^TIME,0,,duration_time" "$T/pmt" ||
		{ echo "FAIL: $opts: duration_time not 0: $(cat "$T/pmt")"; fail=$((fail + 1)); }
	same_as_perf "$opts (workload)"
done
# #num_cpus_online (perf's tool PMU) from the tree's devices/system/cpu/online (8 CPUs),
# not the host's, in tma_info_system_cpu_utilization (CPU_CLK_UNHALTED.REF_TSC / msr/tsc/
# / #num_cpus_online): 4x the value with a 2-CPU host's count
for o in -M_tma_info_system_cpu_utilization -x,_-M_tma_info_system_cpu_utilization \
	-j_-M_tma_info_system_cpu_utilization; do
	n=$((n + 1))
	opts=$(echo "$o" | sed 's/^-M_/-M /; s/_-M_/ -M /; s/^-x,_/-x, /; s/^-j_/-j /')
	# shellcheck disable=SC2086
	run "$T/perf" "$X" stat -a $opts -- sleep 0.2
	# shellcheck disable=SC2086
	run "$T/pmt" "$P" stat --metrics "$D/gnr-metrics.json" \
		--events "$SRC/fixtures/events/gnr_topdown.json" -a $opts -- sleep 0.2
	same_as_perf "$opts"
done
# -o FILE keeps the tool's count (a STAT record under an id of pmutrace's own): zstd -dc
# FILE | perf 7.3 stat report prints what it prints for its own stat record's stream (text,
# -A, -I; the counts masked after the check, as above), and metrics FILE computes
# tma_info_system_time as that count in seconds. perf 7.3 writes its tool event's STAT with
# id 0, which its report gives to the first event: with duration_time not first its own
# file reads wrong (slots' line renamed duration_time with the tool's count, the tool's
# own <not counted>), so that order is checked apart.
for o in -e_duration_time,slots -A_-e_duration_time,slots -I_150_-e_duration_time,slots \
	-e_slots,duration_time; do
	n=$((n + 1))
	opts=$(echo "$o" | tr _ ' ' | sed 's/duration time/duration_time/g')
	# shellcheck disable=SC2086
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4,9 \
		PMUSIM_RATES=0x10ad:0,0x400:1000000 LD_PRELOAD=$T/sim.so timeout 60 \
		"$X" stat record -o - -a $opts -- sleep 0.2 2>/dev/null >"$T/perf.data"
	rm -f "$T/f.pmt"
	# shellcheck disable=SC2086
	run "$T/pmt" "$P" stat -o "$T/f.pmt" -a $opts -- sleep 0.2
	zstd -qdc "$T/f.pmt" >"$T/pmt.data"
	for f in perf pmt; do
		SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 "$X" stat report -i - \
			<"$T/$f.data" 2>&1 >/dev/null | first_interval >"$T/$f"
		cp "$T/$f" "$T/$f.counts"
		python3 "$SRC/tests/stat/mask_tool_event.py" "$T/$f" >"$T/why" ||
			{ echo "FAIL: -o $opts ($f)"; cat "$T/why"; fail=$((fail + 1)); }
		mv "$T/$f.masked" "$T/$f"
	done
	case "$o" in
	-e_slots*)
		grep -q "^ *8000000 *slots" "$T/pmt" ||
			{ echo "FAIL: -o $opts: $(cat "$T/pmt")"; fail=$((fail + 1)); } ;;
	*) same_as_perf "-o FILE $opts, perf stat report" ;;
	esac
	case "$o" in -e_duration*)
		ns=$(awk '$2 == "duration_time" { print $1 }' "$T/pmt.counts")
		"$P" metrics "$T/f.pmt" --metrics "$D/gnr-metrics.json" \
			--events "$SRC/fixtures/events/gnr_topdown.json" -M tma_info_system_time \
			--csv >"$T/m" 2>&1
		python3 -c "import sys; v = float(sys.argv[2].split(',')[4]);
sys.exit(abs(v - int(sys.argv[1]) / 1e9) > 5e-7)" "${ns:-0}" "$(grep ',tma_info_system_time,' "$T/m")" ||
			{ echo "FAIL: metrics -o FILE: ${ns:-no count} ns: $(cat "$T/m")"; fail=$((fail + 1)); } ;;
	esac
done
# user_time and system_time on this machine's own CPUs (no fake tree: perf 7.3 reads the
# host's /proc/stat per CPU the tree lists): with -a per CPU (text, -x, -A, -j, -I,
# --per-core), for a workload 0 (perf reads its /proc/PID/stat after it was reaped);
# the counts masked after checking them (whole ticks, at most the run's time x CPUs)
# shellcheck disable=SC2016
W='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
# shellcheck disable=SC2258
for o in -a -a_-x, -a_-A_-x, -a_-A -a_-j -a_-I_100_-x, -a_--per-core_-x, -x, -j; do
	n=$((n + 1))
	opts=$(echo "$o" | tr _ ' ')
	for f in perf pmt; do
		case $f in perf) cmd=$X ;; *) cmd=$P ;; esac
		t0=$(date +%s%N)
		# shellcheck disable=SC2086
		timeout 60 "$cmd" stat $opts -e user_time,system_time -- sh -c "$W" 2>&1 \
			>/dev/null | first_interval |
			sed 's/^ *[0-9.]* seconds \(user\|sys\)$/T seconds \1/' >"$T/$f"
		max=$((($(date +%s%N) - t0) * $(nproc)))
		case "$o" in -a*) ;; *)
			grep -q '^0,,user_time,1,100.00,,$\|"counter-value" : "0.000000", "unit" : "", "event" : "user_time"' "$T/$f" ||
				{ echo "FAIL: $opts ($f): user_time not 0"; fail=$((fail + 1)); } ;;
		esac
		python3 "$SRC/tests/stat/mask_cpu_time.py" "$T/$f" "$max" >"$T/why" ||
			{ echo "FAIL: $opts ($f)"; cat "$T/why"; fail=$((fail + 1)); }
		mv "$T/$f.masked" "$T/$f"
	done
	same_as_perf "$opts -e user_time,system_time"
done
nonzero='[ ,][1-9][0-9]*[ ,]+(user|system)_time|"counter-value" : "[1-9]'
# on the fake tree's 8 CPUs, 2 to 7 without a line in a 2-CPU host's /proc/stat: perf 7.3
# reads them as a counted 0 at the end of a run (the total's run time 8, a core's 2; their
# -A lines left out as zero), and its reads at -I's intervals fail on them, every
# interval's line <not counted>; -C 2-3 reads 0, run time 2 (the checks below need a host
# of fewer than 8 CPUs)
if [ "$(nproc)" -lt 8 ]; then
	# shellcheck disable=SC2258
	for o in -a_-x, -a -a_-j -a_--per-core_-x, -a_-A_-x, -C_2-3_-x, -a_-I_100_-x, \
		-a_-I_100_-A_-x, -a_-I_100_-j; do
		n=$((n + 1))
		opts=$(echo "$o" | tr _ ' ')
		for f in perf pmt; do
			case $f in perf) cmd=$X ;; *) cmd=$P ;; esac
			t0=$(date +%s%N)
			# shellcheck disable=SC2086
			run "$T/$f" "$cmd" stat $opts -e user_time,system_time -- sleep 0.2
			max=$((($(date +%s%N) - t0) * $(nproc)))
			case "$o" in
			*-I*) grep -q 'not counted' "$T/$f" && ! grep -Eq "$nonzero" "$T/$f" ||
				{ echo "FAIL: $opts ($f): $(cat "$T/$f")"; fail=$((fail + 1)); } ;;
			*) python3 "$SRC/tests/stat/mask_cpu_time.py" "$T/$f" "$max" >"$T/why" ||
				{ echo "FAIL: $opts ($f)"; cat "$T/why"; fail=$((fail + 1)); }
				mv "$T/$f.masked" "$T/$f" ;;
			esac
		done
		case "$o" in -a_-x,) grep -q '^N,,user_time,8,' "$T/pmt" ||
			{ echo "FAIL: $opts: run time not 8: $(cat "$T/pmt")"; fail=$((fail + 1)); } ;;
		esac
		same_as_perf "$opts -e user_time,system_time on the 8-CPU tree"
	done
fi
# a workload's user_time and system_time: perf 7.3 reads 0 at every read while it runs, in
# every interval too (its -vv: "-1: 0 N N" a read), in the live output and in -o's stream
# read back by its stat report (as its report of its own stat record -I); the workload
# runs past the first interval, so that /proc/PID/stat would count there
# shellcheck disable=SC2016
B='i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done'
# shellcheck disable=SC2258
for o in -I_100_-x, -I_100 -I_100_-j -o; do
	n=$((n + 1))
	opts=$(echo "$o" | tr _ ' ')
	for f in perf pmt; do
		rm -f "$T/f.pmt"
		case $f$o in
		perf-o) timeout 60 "$X" stat record -o - -I 100 -e user_time -- sh -c "$B" \
			2>/dev/null >"$T/perf.data" ;;
		pmt-o) timeout 60 "$P" stat -o "$T/f.pmt" -I 100 -e user_time -- sh -c "$B" \
			2>/dev/null && zstd -qdc "$T/f.pmt" >"$T/pmt.data" ;;
		esac
		case $f$o in
		*-o) "$X" stat report -i - <"$T/$f.data" 2>"$T/$f.all" >/dev/null ;;
		perf*) # shellcheck disable=SC2086
			timeout 60 "$X" stat $opts -e user_time,system_time -- sh -c "$B" \
				2>"$T/$f.all" >/dev/null ;;
		*) # shellcheck disable=SC2086
			timeout 60 "$P" stat $opts -e user_time,system_time -- sh -c "$B" \
				2>"$T/$f.all" >/dev/null ;;
		esac
		first_interval <"$T/$f.all" |
			sed 's/^ *[0-9.]* seconds \(user\|sys\)$/T seconds \1/' >"$T/$f"
	done
	! grep -Eq "$nonzero" "$T/pmt.all" && grep -Eq '(user|system)_time' "$T/pmt.all" ||
		{ echo "FAIL: $opts: a workload's time not 0: $(cat "$T/pmt.all")"; fail=$((fail + 1)); }
	same_as_perf "$opts: user_time, system_time of a workload"
done
# -vv: perf's tool attr (type 0xfffffffe, config 1) and no open line for it
n=$((n + 1))
SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 "$X" stat -vv -e duration_time -a -- true 2>&1 |
	sed -n '/^perf_event_attr/,/^---/p' | sed 's/ *(.*)$//' >"$T/perf"
SYSFS_PATH=$T/gnr "$P" stat --dry-run -v -e duration_time -a -- true 2>&1 |
	sed -n '/^perf_event_attr/,/^---/p' >"$T/pmt"
grep -q "type *4294967294" "$T/pmt" && ! grep -q sys_perf_event_open "$T/pmt" ||
	{ echo "FAIL: -v: $(cat "$T/pmt")"; fail=$((fail + 1)); }
same_as_perf "--dry-run -v -e duration_time"
echo "$n outputs compared, $fail differ"
[ $fail = 0 ]
