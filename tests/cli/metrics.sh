#!/bin/sh
# CLI cases of pmutrace metrics / calibrate (tests/cmake/metrics.cmake says what each checks
# against). Usage: metrics.sh CASE PMUTRACE [DATA_DIR]: DATA_DIR is fixtures/metrics, or
# the shared tpebs folder for gnr_all. Exit 0 pass, 1 fail, 77 skip.
set -u
case=$1 P=$2 D=${3:-}
case $case in
percpu_csv)
	"$P" metrics --metrics "$D/tiny-metrics.json" --counts "$D/perf-percpu.jsonl" -M cs_per_msec --csv |
		diff -u "$D/expected-cs-percpu.csv" - ;;
lock_latency_table_default)
	out=$("$P" metrics --metrics "$D/tiny-metrics.json" --retire-latency "$D/retlat-intel.json" \
		--counts "$D/counts-lock.csv" -M tma_lock_latency --csv 2>&1)
	[ $? = 2 ] || exit 1
	echo "$out"
	echo "$out" | grep -qx ',,,tma_lock_latency,3.200000,%,no' &&
		echo "$out" | grep -q 'warning: no retire-latency samples for mem_inst_retired.lock_loads' ;;
topdown_json)
	"$P" metrics --topdown --slots 1000000 --perf-metrics 0x40300C085F501040 --jsonl |
		grep -qx '{"metric":"tma_retiring","level":1,"value":25.098025,"unit":"%"}' &&
		"$P" metrics --topdown --slots 1000000 --perf-metrics 0x40300C085F501040 --json |
		python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (len(d) == 12 and d[0] == {"metric": "tma_retiring", "level": 1, "value": 25.098025, "unit": "%"}))' ;;
errors)
	"$P" metrics --counts x 2>/dev/null
	[ $? = 129 ] || exit 1
	"$P" metrics --metrics "$D/nope.json" 2>/dev/null
	[ $? = 1 ] || exit 1
	"$P" metrics --metrics "$D/cycle-metrics.json" -M m_a 2>&1 |
		grep -q 'metric m_a: refers to itself: m_a -> m_b -> m_c -> m_a' || exit 1
	"$P" metrics --metrics "$D/tiny-metrics.json" -M nope 2>&1 |
		grep -q "no metric or metric group named 'nope'" || exit 1
	"$P" calibrate 2>/dev/null
	[ $? = 129 ] ;;
gnr_all)
	[ -r "$D/gnr-metrics.json" ] || { echo "SKIP: no $D/gnr-metrics.json"; exit 77; }
	n=$("$P" metrics --metrics "$D/gnr-metrics.json" --events "$D/gnr-events-with-RetirementLatency.json" \
		--csv 2>/dev/null | wc -l) || exit 1
	[ "$n" = 326 ] ;;
counts_retlat_every_cpu)
	"$P" metrics --metrics "$D/tiny-metrics.json" --counts "$D/counts-tpebs-percpu.csv" \
		-M tma_lock_latency --csv 2>/dev/null |
		grep -c -e '^,CPU0,,tma_lock_latency,3.200000,%,no$' -e '^,CPU1,,tma_lock_latency,6.400000,%,no$' |
		grep -qx 2 ;;
json)
	"$P" metrics --metrics "$D/tiny-metrics.json" --retire-latency "$D/retlat-intel.json" \
		--counts "$D/counts-lock.csv" -M tma_lock_latency --jsonl 2>/dev/null |
		grep -qx '{"interval":"","aggr":"","pmu":"","metric":"tma_lock_latency","value":3.200000,"counted":true,"unit":"%","threshold":false}' ;;
hybrid)
	# each row labelled with its PMU and computed from that PMU's counts (perf stat's
	# cpu_atom row divides cpu_atom/instructions/ by cpu_atom/cycles/: 300/600 = 0.5; the
	# counts' PMU-less msr/tsc/ still binds)
	out=$("$P" metrics --metrics "$D/hybrid-metrics.json" --counts "$D/counts-hybrid.csv" --csv) || exit 1
	echo "$out" | grep -qx ',,cpu_core,ipc,2.000000,,' &&
		echo "$out" | grep -qx ',,cpu_atom,ipc,0.500000,,' &&
		echo "$out" | grep -qx ',,cpu_atom,atom_tsc_ratio,0.500000,,' ;;
retlat_arg)
	for a in p0 p101; do
		"$P" metrics --metrics "$D/tiny-metrics.json" --counts "$D/counts-lock.csv" --retire-latency $a 2>&1 >/dev/null |
			grep -q 'percentile must be above 0 and at most 100' || exit 1
	done
	"$P" metrics --metrics "$D/tiny-metrics.json" --counts "$D/counts-lock.csv" --retire-latency px 2>&1 >/dev/null |
		grep -q 'px: No such file or directory, and not a statistic' || exit 1
	for a in p100 p99.9999 median; do
		"$P" metrics --metrics "$D/tiny-metrics.json" --counts "$D/counts-lock.csv" --retire-latency $a \
			-M tma_lock_latency --csv >/dev/null 2>&1
		[ $? = 2 ] || exit 1
	done ;;
not_counted)
	out=$("$P" metrics --metrics "$D/tiny-metrics.json" --counts "$D/perf-percpu.jsonl" -M tma_lock_latency --csv 2>&1)
	[ $? = 2 ] || exit 1
	echo "$out" | grep -qx ',CPU0,,tma_lock_latency,<not counted>,%,' &&
		echo "$out" | grep -q 'metric tma_lock_latency: event MEM_INST_RETIRED.LOCK_LOADS not counted' ;;
*)
	echo "metrics.sh: unknown case $case"; exit 2 ;;
esac
