#!/bin/sh
# stat -M on a hybrid part in perf 7.3's layout (issue 11, item 5): x86 perf 7.3's `stat -M X
# -a` with its built-in Alder Lake table (PERF_CPUID=GenuineIntel-6-97-0) and pmutrace's
# with that table as perf's -vv prints it (fixtures/metrics/adl-hybrid-metrics.json,
# fixtures/events/adl_hybrid.json) on the simulated PMU of the fake hybrid tree (cpu_core:
# CPUs 0-7, cpu_atom: 8-11) print the same output byte for byte (elapsed time aside). A
# table with a metric per core PMU (its Unit) gives one `#` line per PMU: tma_retiring on
# cpu_core/topdown-retiring/ (its slots group, slots named cpu_core/slots/ as perf names an
# event of one of several core PMUs) and on cpu_atom/TOPDOWN_RETIRING.ALL/, each PMU's
# events a {...}:W group of their own; tma_info_thread_ipc (cpu_core's alone) and
# tma_info_core_ipc (cpu_atom's alone); the TopdownL1 group (in its MetricgroupNoGroup:
# both PMUs' events ungrouped in the order of perf's hash map of their names, the table's
# TOPDOWN.SLOTS taken for slots by its encoding as perf does, so no slots added, and two
# metrics on it). In text, -A, -I, -r 2, -x, -x -A (a metric that
# cannot be computed: perf's empty field), -j and -j -A, with the cpu_atom counters read
# (PMUSIM_PEBS_TYPE=4,10) and unreadable (4: <not counted>, nan). The same tree named as
# Meteor Lake (6-AA: cpu_atom's tma_retiring from TOPDOWN_RETIRING.ALL_P over 6 slots a
# cycle; fixtures/metrics/mtl-hybrid-metrics.json, fixtures/events/mtl_hybrid.json) in
# text, -A, -x and -j. With -e before -M; several grouped metrics at once;
# --topdown with the Alder Lake table (both PMUs' columns, as perf 7.3's --topdown).
#   metric_hybrid.sh PMUTRACE ORACLES_DIR SOURCE_DIR
set -u
P=$1 X=${2:-}/bin/perf-7.3 SRC=$3
. "$SRC/tests/stat/sim_oracle_setup.sh"
sim_oracle_setup adl hybrid
run() { # OUT TYPES CMD...: on the tree named $CPUID
	out=$1 types=$2
	shift 2
	SYSFS_PATH=$T/${TREE:-adl} PERF_CPUID=$CPUID PMUSIM_PEBS_TYPE=$types \
		PMUSIM_RATES=0x10ad:0,0x400:1000000 LD_PRELOAD=$T/sim.so timeout 60 "$@" 2>&1 \
		>/dev/null | first_interval >"$out"
}
fail=0 n=0
cmp_model() { # the tree named $CPUID with $TABLE: $metrics with option sets $opt_sets
	for types in 4,10 4; do
		for m in $metrics; do
			for o in $opt_sets; do
				n=$((n + 1))
				opts=$(echo "$o" | sed 's/_\([-0-9]\)/ \1/g; s/^-$//')
				# shellcheck disable=SC2086
				run "$T/perf" $types "$X" stat -M $m -a $opts -- sleep 0.2
				grep -q "tma_" "$T/perf" || {
					echo "FAIL: perf 7.3 printed: $(cat "$T/perf")"
					fail=$((fail + 1))
					continue
				}
				# shellcheck disable=SC2086
				run "$T/pmt" $types "$P" stat -M $m $TABLE -a $opts -- sleep 0.2
				same_as_perf "$CPUID -M $m $opts (PMUSIM_PEBS_TYPE=$types)"
			done
		done
	done
}
for model in adl mtl; do
	CPUID=GenuineIntel-6-97-0 opt_sets="- -A -I_150 -r_2 -x, -x,_-A -j -j_-A"
	metrics="tma_retiring tma_info_thread_ipc tma_info_core_ipc TopdownL1"
	[ $model = mtl ] && CPUID=GenuineIntel-6-AA-0 opt_sets="- -A -x, -j" \
		metrics="tma_retiring tma_info_thread_ipc tma_info_core_ipc"
	TABLE="--metrics $SRC/fixtures/metrics/$model-hybrid-metrics.json"
	TABLE="$TABLE --events $SRC/fixtures/events/${model}_hybrid.json"
	cmp_model
done
# -e with -M: -e's events (each core PMU's copy of instructions) first, then the metrics'
CPUID=GenuineIntel-6-97-0
opt_sets="--event=instructions --event=instructions_-x, --event=cpu_core/topdown-retiring/"
metrics="tma_retiring tma_info_core_ipc TopdownL1"
TABLE="--metrics $SRC/fixtures/metrics/adl-hybrid-metrics.json"
TABLE="$TABLE --events $SRC/fixtures/events/adl_hybrid.json"
cmp_model
# --topdown with the table (its TopdownL1 group): perf 7.3's --topdown columns of both PMUs,
# each a copy of the metric for its PMU (cpu_atom's from TOPDOWN_*.ALL), -A's lines with
# their own PMU's columns, -C and --cputype of one PMU that PMU's columns only (perf's -C
# warnings for its events of the other PMU left out: pmutrace opens none there); on the
# tree given Alder Lake's topology, --per-core prints every column on every core, a P
# core's cpu_atom copies and an E core's cpu_core ones as computed without counts (nan, a
# max(..., 0) 0.0)
cp -r "$T/adl" "$T/adlt"
sim_hybrid_topology adlt
TREE=adlt
for types in 4,10 4; do
	for o in - -A -x, -x,_-A -j -j_-A -I_150 -I_150_-A -I_150_-x, -I_150_-j -r_2 -C_8 -C_0-3 \
		-C_6-9_-A -C_8_-A_-x, --cputype_atom_-a_-A --cputype_core_-a_-x,_-A --per-core \
		--per-core_-x, --per-core_-j; do
		n=$((n + 1))
		opts=$(echo "$o" | sed 's/_\([-0-9]\)/ \1/g; s/_/ /g; s/^-$//')
		case "$opts" in *-C*|*-a*) ;; *) opts="$opts -a" ;; esac
		# shellcheck disable=SC2086
		run "$T/perf" $types "$X" stat --topdown $opts -- sleep 0.2
		# shellcheck disable=SC2086
		run "$T/pmt" $types "$P" stat --topdown $TABLE $opts -- sleep 0.2
		sed -i "/^WARNING: A requested CPU in '.*' is not supported by PMU/d" "$T/perf"
		grep -q "tma_" "$T/perf" || {
			echo "FAIL: perf 7.3 printed: $(cat "$T/perf")"
			fail=$((fail + 1))
			continue
		}
		same_as_perf "--topdown $TABLE $opts (PMUSIM_PEBS_TYPE=$types)"
	done
done
TREE=adl
# several grouped metrics (perf's parse_groups(): -M's names taken one by one, each name's
# metrics put first, sorted by their IDs; a {...}:W group per grouped metric, an event in
# every group that reads it; the ungrouped metrics' combined list first; each metric shown
# on the event of its own list the fewest metrics read) in perf 7.3's layout
CPUID=GenuineIntel-6-97-0 opt_sets="- -A -x, -x,_-A -j -j_-A -I_150 -r_2"
metrics="tma_retiring,tma_info_core_ipc tma_retiring,tma_frontend_bound TopdownL1,tma_info_core_ipc
	tma_info_thread_ipc,tma_info_core_ipc,tma_retiring tma_frontend_bound,tma_backend_bound,tma_retiring"
cmp_model
# metrics TRACE of such a recording (-o): an event opened in two metrics' groups is one
# count, not their sum; each metric's value as perf 7.3's -x prints it (to its decimals)
for m in tma_retiring,tma_info_core_ipc tma_info_thread_ipc,tma_info_core_ipc,tma_retiring; do
	n=$((n + 1))
	run "$T/perf" 4,10 "$X" stat -M $m -a -x, -- sleep 0.2
	run "$T/pmt" 4,10 "$P" stat -M $m $TABLE -a -o "$T/rec.pmt" -- sleep 0.2
	# shellcheck disable=SC2086
	"$P" metrics "$T/rec.pmt" -M $m $TABLE >"$T/pmt.m" 2>&1
	awk -F, 'FNR == NR { if ($7 != "") { split($3, p, "/"); k = split($7, w, " ")
			d = index($6, ".") ? length($6) - index($6, ".") : 0
			want[p[1] " " w[k]] = $6; dec[p[1] " " w[k]] = d }; next }
		{ split($1, p, "[/ ]+"); key = p[1] " " p[2]
		  if (key in want) { got = sprintf("%.*f", dec[key], $2); seen++
			if (got != want[key]) { print key ": perf 7.3 " want[key] ", pmutrace " got; bad = 1 } } }
		END { if (seen != length(want)) { print seen " of " length(want) " metrics"; bad = 1 }
		      exit bad }' "$T/perf" FS=' +' "$T/pmt.m" || {
		echo "FAIL: metrics TRACE of stat -M $m -o"
		fail=$((fail + 1))
	}
done
echo "$n outputs compared, $fail differ"
[ $fail = 0 ]
