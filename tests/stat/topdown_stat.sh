#!/bin/sh
# stat --topdown (issue 11, item 5): x86 perf 7.3's `stat --topdown` and pmutrace's on the
# simulated Intel core PMU (tests/pmusim/pmusim.c: slots counts 1e6 per CPU, PERF_METRICS
# fixed, INT_MISC.UOP_DROPPING nothing) of a fake Granite Rapids sysfs tree print the same
# text, -A, -x, (with and without -A), -j, -I (time column blanked, first interval) and -r
# output, and --per-core/--per-die/--per-socket in text, -x and -j (the tree given a topology:
# one socket and die, four cores of two CPUs), byte for byte: with perf's GNR tables (--metrics, --events: the TopdownL1 group
# perf opens) and without a table (pmutrace's own slots + topdown-* group, the topdown.txt
# fractions: equal here as UOP_DROPPING counts 0). Two PERF_METRICS values: the seed's
# vector and one whose level-1 bytes add up past 0xff. --td-level 6 with the table too.
#   topdown_stat.sh PMUTRACE ORACLES_DIR SHARED_DIR SOURCE_DIR
set -u
P=$1 X=${2:-}/bin/perf-7.3 D=${3:-}/data/tpebs SRC=$4
. "$SRC/tests/stat/sim_oracle_setup.sh"
sim_oracle_setup gnr gnr "$D/gnr-metrics.json" "$D/gnr-events-with-RetirementLatency.json"
sim_gnr_topology gnr
fail=0 n=0
norm() { first_interval | head -4; }
run() { # PM OUT CMD...
	pm=$1 out=$2
	shift 2
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=${PEBS_TYPE:-4} \
		PMUSIM_PERF_METRICS=$pm PMUSIM_RATES=0x10ad:0,0x400:1000000 LD_PRELOAD=$T/sim.so \
		timeout 60 "$@" 2>&1 >/dev/null | tee "$out.raw" | norm >"$out"
}
# --td-level 2: the eight level-2 columns in perf's order (fewer option sets: the same code
# prints them); 0 and 1 are level 1
L1="- -A -x, -x,_-A -j -j_-A -I_150 -I_150_-A -I_150_-x, -I_150_-j -r_2 --per-core -x,_--per-core"
L1="$L1 -j_--per-core -j_--per-die -j_--per-socket --td-level_0 --td-level_1_-x,"
L2="- -A -x, -j -I_150 -I_150_-x, --per-core -j_--per-core"
for pm in 0x40300C085F501040 0x80808080A0A0A0A0; do
	for o in $L1 $(echo " $L2" | sed 's/ / --td-level_2_/g'); do
		opts=$(echo "$o" | tr _ ' ' | sed 's/^-$//; s/ -$//')
		# shellcheck disable=SC2086
		run $pm "$T/perf" "$X" stat --topdown -a $opts -- sleep 0.2
		grep -q "tma_retiring\|tma_memory_bound" "$T/perf" || { echo "FAIL: perf 7.3 printed: $(cat "$T/perf")"; fail=$((fail + 1)); continue; }
		for table in yes no; do
			n=$((n + 1))
			set -- "$P" stat --topdown
			[ $table = yes ] && set -- "$@" --metrics "$D/gnr-metrics.json" \
				--events "$D/GNR_events_graniterapids_core.EXCERPT.json"
			# shellcheck disable=SC2086
			run $pm "$T/pmt" "$@" -a $opts -- sleep 0.2
			if ! cmp -s "$T/perf" "$T/pmt"; then
				echo "FAIL: $pm --topdown $opts (table: $table): perf 7.3 < > pmutrace"
				diff "$T/perf" "$T/pmt" | head -10
				fail=$((fail + 1))
			fi
		done
	done
done
# --td-level 3 to 6 with perf's GNR table: its columns in perf's order (the rule of
# decode/metrics/src/metric_perf_topdown.c), the events from fixtures/events/gnr_topdown.json
# (tests/stat/gnr_topdown_events.py); #SMT_on from the tree's topology (two CPUs a core).
# perf 7.3 needs more of the machine there: #has_pmem (an ACPI NFIT table in sysfs), else
# tma_cxl_mem_bound has no events and perf dies of SIGSEGV at level 3; the msr PMU's tsc
# (level 4); and more descriptors than the simulator had (pmusim.h's MAX_EV)
mkdir -p "$T/gnr/firmware/acpi/tables" "$T/gnr/bus/event_source/devices/msr/events" \
	"$T/gnr/bus/event_source/devices/msr/format"
touch "$T/gnr/firmware/acpi/tables/NFIT"
echo 9 >"$T/gnr/bus/event_source/devices/msr/type"
echo event=0x00 >"$T/gnr/bus/event_source/devices/msr/events/tsc"
echo config:0-63 >"$T/gnr/bus/event_source/devices/msr/format/event"
# (the :R events of levels 4 and 5: perf's table's mean, the same numbers as
# gnr-events-with-RetirementLatency.json's, given by --retire-latency)
L36="3_- 3_-A 3_-x, 3_-j 3_-I_150 3_--per-core 3_-j_--per-core 5_- 5_-A 5_-x, 5_-j 5_-I_150"
L36="$L36 5_--per-core 6_- 6_-A 6_-x, 6_-j 6_-I_150 6_--per-core 6_-j_--per-core 6_-j_--per-socket"
for o in $L36; do
	n=$((n + 1))
	lv=${o%%_*}
	opts=$(echo "${o#*_}" | tr _ ' ' | sed 's/^-$//')
	# shellcheck disable=SC2086
	run 0x40300C085F501040 "$T/perf" "$X" stat --topdown --td-level $lv -a $opts -- sleep 0.2
	grep -q "tma_" "$T/perf" || { echo "FAIL: perf 7.3 printed: $(cat "$T/perf")"; fail=$((fail + 1)); continue; }
	# shellcheck disable=SC2086
	run 0x40300C085F501040 "$T/pmt" "$P" stat --topdown --td-level $lv --metrics "$D/gnr-metrics.json" \
		--events "$SRC/fixtures/events/gnr_topdown.json" \
		--retire-latency "$D/gnr-events-with-RetirementLatency.json" -a $opts -- sleep 0.2
	cmp -s "$T/perf" "$T/pmt" || { echo "FAIL: --topdown --td-level $lv $opts: perf 7.3 < > pmutrace"; diff "$T/perf" "$T/pmt" | head -10; fail=$((fail + 1)); }
done
# --td-level 4: its 45 columns, five of which read duration_time (tma_data_sharing,
# tma_contested_accesses, tma_l3_hit_latency, tma_l2_hit_latency, tma_false_sharing, through
# tma_info_system_core_frequency): the wall-clock time from the tool event's open, which
# differs run to run, so those cells are masked (tests/stat/mask_duration.py) and checked
# apart: perf's over pmutrace's one ratio in every cell (within a factor 50: perf's own
# runs, which count the opens' time, differ by up to 2.5 on a loaded machine; a unit off
# would be 1000x). The rest byte for byte: the whole
# first interval where the unit is the total; with -A CPU 0's line (text: the heads) and with
# --per-core the heads: perf 7.3 reads an :R event on CPU 0 alone there (nan in the other
# CPUs' and every core's tma_lock_latency and the FRONTEND_RETIRED ones; not reproduced).
# The simulator counts the msr PMU too (type 9), as perf puts msr/tsc/ in a group of the
# core PMU's and pmutrace does not.
DUR="tma_data_sharing tma_contested_accesses tma_l3_hit_latency tma_l2_hit_latency"
DUR="$DUR tma_false_sharing"
for o in - -x, -j -I_150 -I_150_-x, -I_150_-j -A -x,_-A -j_-A --per-core; do
	n=$((n + 1))
	opts=$(echo "$o" | tr _ ' ' | sed 's/^-$//')
	# shellcheck disable=SC2086
	PEBS_TYPE=4,9 run 0x40300C085F501040 "$T/perf" "$X" stat --topdown --td-level 4 -a $opts \
		-- sleep 0.2
	grep -q "tma_" "$T/perf" || { echo "FAIL: perf 7.3 printed: $(cat "$T/perf")"; fail=$((fail + 1)); continue; }
	# shellcheck disable=SC2086
	PEBS_TYPE=4,9 run 0x40300C085F501040 "$T/pmt" "$P" stat --topdown --td-level 4 \
		--metrics "$D/gnr-metrics.json" --events "$SRC/fixtures/events/gnr_topdown.json" \
		--retire-latency "$D/gnr-events-with-RetirementLatency.json" -a $opts -- sleep 0.2
	# shellcheck disable=SC2086
	python3 "$SRC/tests/stat/mask_duration.py" "$T/perf.raw" "$T/pmt.raw" $DUR >"$T/why" ||
		{ echo "FAIL: --td-level 4 $opts: duration columns"; cat "$T/why"; fail=$((fail + 1)); }
	case "$o" in -A | --per-core) lines=4 ;; -x,_-A) lines=2 ;; -j_-A) lines=1 ;; *) lines=100 ;; esac
	first_interval <"$T/perf.raw.masked" | head -$lines >"$T/perf"
	first_interval <"$T/pmt.raw.masked" | head -$lines >"$T/pmt"
	same_as_perf "--td-level 4 $opts"
done
# --td-level past the deepest level: perf's words (the GNR table has TopdownL1..L6; the PMU
# alone gives level 2); a value that is no number: perf's parse-options text; exit 129
for args in "--td-level 7 --metrics $D/gnr-metrics.json" "--td-level 3"; do
	n=$((n + 1))
	# (perf's built-in GNR table has level 3, which it crashes on under the simulator)
	case "$args" in *metrics*) run 0x40300C085F501040 "$T/perf" "$X" stat --topdown --td-level 7 -a -- true ;; esac
	# shellcheck disable=SC2086
	SYSFS_PATH=$T/gnr "$P" stat --topdown $args -a -- true 2>"$T/err"
	st=$?
	case "$args" in *metrics*) grep -qF "$(cat "$T/perf")" "$T/err" ;; *) grep -q "Invalid top-down metrics level. The max level is 2.$" "$T/err" ;; esac &&
		[ $st = 129 ] || { echo "FAIL: --topdown $args: exit $st, '$(cat "$T/err")' (perf 7.3: '$(cat "$T/perf")')"; fail=$((fail + 1)); }
done
for v in x 2.5 -1; do
	n=$((n + 1))
	run 0x40300C085F501040 "$T/perf" "$X" stat --topdown --td-level "$v" -a -- true
	SYSFS_PATH=$T/gnr "$P" stat --topdown --td-level "$v" -a -- true 2>"$T/err"
	st=$?
	perr=$(sed -n 's/^ Error: //p' "$T/perf")
	[ $st = 129 ] && [ -n "$perr" ] && grep -qF "$perr" "$T/err" ||
		{ echo "FAIL: --td-level '$v': exit $st, '$(cat "$T/err")' (perf 7.3: '$perr')"; fail=$((fail + 1)); }
done
# no PERF_METRICS PMU: perf's words, and which sysfs folder was looked at
cp -r "$T/gnr" "$T/old"
rm "$T/old/bus/event_source/devices/cpu/events/slots" "$T/old/bus/event_source/devices/cpu/events/topdown-"*
SYSFS_PATH=$T/old "$P" stat --topdown -a -- true 2>"$T/err"
grep -q "Topdown requested but the topdown events aren't present.*$T/old/bus" "$T/err" ||
	{ echo "FAIL: no topdown PMU: $(cat "$T/err")"; fail=$((fail + 1)); }
echo "$n outputs compared, $fail differ"
[ $fail = 0 ]
