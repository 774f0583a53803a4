# CLI tests of pmutrace metrics / calibrate. Expected outputs are independent: the
# per-CPU values are perf 6.1's own "metric-value" figures (2.027403 K/sec = 24 / 11.837807
# msec, 759.376977 /sec) from fixtures/metrics/perf-percpu.jsonl; topdown is tpebs.md §4.
set(PMT_MFIX ${PROJECT_SOURCE_DIR}/fixtures/metrics)
set(PMT_TPEBS ${PMT_SHARED_DIR}/data/tpebs)

add_test(NAME metrics.cli_percpu_csv
  COMMAND sh -c "$0 metrics --metrics $1/tiny-metrics.json --counts $1/perf-percpu.jsonl -M cs_per_msec --csv | diff -u $1/expected-cs-percpu.csv -"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})

# tpebs.md worked example through the CLI: 3.2 % with the table default 64 and a warning
# naming the event (no samples); a substituted value makes the exit status 2
add_test(NAME metrics.cli_lock_latency_table_default
  COMMAND sh -c "out=$($0 metrics --metrics $1/tiny-metrics.json --retire-latency $1/retlat-intel.json --counts $1/counts-lock.csv -M tma_lock_latency --csv 2>&1); [ $? = 2 ] || exit 1; echo \"$out\"; echo \"$out\" | grep -qx ',,,tma_lock_latency,3.200000,%,no' && echo \"$out\" | grep -q 'warning: no retire-latency samples for mem_inst_retired.lock_loads'"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})

add_test(NAME metrics.cli_topdown_json
  COMMAND sh -c "$0 metrics --topdown --slots 1000000 --perf-metrics 0x40300C085F501040 --jsonl | grep -qx '{\"metric\":\"tma_retiring\",\"level\":1,\"value\":25.10,\"unit\":\"%\"}' && $0 metrics --topdown --slots 1000000 --perf-metrics 0x40300C085F501040 --json | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (len(d) == 12 and d[0] == {\"metric\": \"tma_retiring\", \"level\": 1, \"value\": 25.1, \"unit\": \"%\"}))'"
  $<TARGET_FILE:pmutrace>)

# errors: a message naming the problem; usage errors exit 129 as perf's do, others 1
add_test(NAME metrics.cli_errors
  COMMAND sh -c "$0 metrics --counts x 2>/dev/null; [ $? = 129 ] || exit 1; $0 metrics --metrics $1/nope.json 2>/dev/null; [ $? = 1 ] || exit 1; $0 metrics --metrics $1/cycle-metrics.json -M m_a 2>&1 | grep -q 'metric m_a: refers to itself: m_a -> m_b -> m_c -> m_a' || exit 1; $0 metrics --metrics $1/tiny-metrics.json -M nope 2>&1 | grep -q \"no metric or metric group named 'nope'\" || exit 1; $0 calibrate 2>/dev/null; [ $? = 129 ]"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_percpu_csv metrics.cli_lock_latency_table_default
  metrics.cli_topdown_json metrics.cli_errors PROPERTIES LABELS metrics)

# Every upstream GNR metric through the CLI with the event JSON defaults (exit 0, 325 rows).
add_test(NAME metrics.cli_gnr_all
  COMMAND sh -c "[ -r $1/gnr-metrics.json ] || exit 77; n=$($0 metrics --metrics $1/gnr-metrics.json --events $1/gnr-events-with-RetirementLatency.json --csv 2>/dev/null | wc -l) || exit 1; [ \"$n\" = 326 ]"
  $<TARGET_FILE:pmutrace> ${PMT_TPEBS})
set_tests_properties(metrics.cli_gnr_all PROPERTIES LABELS "metrics;realdata" SKIP_RETURN_CODE 77)

# perf stat --record-tpebs puts the :R value on CPU0 only; it applies to every CPU here:
# CPU0 1e6 * 64 / 2e9 = 3.2 %, CPU1 1e6 * 64 / 1e9 = 6.4 % (perf itself would print 0).
add_test(NAME metrics.cli_counts_retlat_every_cpu
  COMMAND sh -c "$0 metrics --metrics $1/tiny-metrics.json --counts $1/counts-tpebs-percpu.csv -M tma_lock_latency --csv 2>/dev/null | grep -c -e '^,CPU0,,tma_lock_latency,3.200000,%,no$' -e '^,CPU1,,tma_lock_latency,6.400000,%,no$' | grep -qx 2"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_counts_retlat_every_cpu PROPERTIES LABELS metrics)

add_test(NAME metrics.cli_json
  COMMAND sh -c "$0 metrics --metrics $1/tiny-metrics.json --retire-latency $1/retlat-intel.json --counts $1/counts-lock.csv -M tma_lock_latency --jsonl 2>/dev/null | grep -qx '{\"interval\":\"\",\"aggr\":\"\",\"pmu\":\"\",\"metric\":\"tma_lock_latency\",\"value\":3.200000,\"counted\":true,\"unit\":\"%\",\"threshold\":false}'"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_json PROPERTIES LABELS metrics)

# --retire-latency: one parser; percentiles outside (0, 100] and names that are neither a
# statistic nor a file are errors naming the problem (issue 15 item 3)
add_test(NAME metrics.cli_retlat_arg
  COMMAND sh -c "for a in p0 p101; do $0 metrics --metrics $1/tiny-metrics.json --counts $1/counts-lock.csv --retire-latency $a 2>&1 >/dev/null | grep -q 'percentile must be above 0 and at most 100' || exit 1; done; $0 metrics --metrics $1/tiny-metrics.json --counts $1/counts-lock.csv --retire-latency px 2>&1 >/dev/null | grep -q 'px: No such file or directory, and not a statistic' || exit 1; for a in p100 p99.9999 median; do $0 metrics --metrics $1/tiny-metrics.json --counts $1/counts-lock.csv --retire-latency $a -M tma_lock_latency --csv >/dev/null 2>&1; [ $? = 2 ] || exit 1; done"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_retlat_arg PROPERTIES LABELS metrics)

# A metric whose events the counts lack prints "<not counted>" and a warning names the
# event, never a number (perf-percpu.jsonl has no MEM_INST_RETIRED.LOCK_LOADS); exit 2
add_test(NAME metrics.cli_not_counted
  COMMAND sh -c "out=$($0 metrics --metrics $1/tiny-metrics.json --counts $1/perf-percpu.jsonl -M tma_lock_latency --csv 2>&1); [ $? = 2 ] || exit 1; echo \"$out\" | grep -qx ',CPU0,,tma_lock_latency,<not counted>,%,' && echo \"$out\" | grep -q 'metric tma_lock_latency: event MEM_INST_RETIRED.LOCK_LOADS not counted'"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_not_counted PROPERTIES LABELS metrics)

# Hybrid tables: each row is labelled with its PMU and computed from that PMU's counts
# (perf stat's cpu_atom row divides cpu_atom/instructions/ by cpu_atom/cycles/: 300/600 =
# 0.5; the counts' PMU-less msr/tsc/ still binds); the cpu_atom rows took cpu_core's counts
add_test(NAME metrics.cli_hybrid
  COMMAND sh -c "out=$($0 metrics --metrics $1/hybrid-metrics.json --counts $1/counts-hybrid.csv --csv) || exit 1; echo \"$out\" | grep -qx ',,cpu_core,ipc,2.000000,,' && echo \"$out\" | grep -qx ',,cpu_atom,ipc,0.500000,,' && echo \"$out\" | grep -qx ',,cpu_atom,atom_tsc_ratio,0.500000,,'"
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_hybrid PROPERTIES LABELS metrics)
