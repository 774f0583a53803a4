# CLI tests of pmutrace metrics / calibrate. Expected outputs are independent: the
# per-CPU values are perf 6.1's own "metric-value" figures (2.027403 K/sec = 24 / 11.837807
# msec, 759.376977 /sec) from fixtures/metrics/perf-percpu.jsonl; topdown is tpebs.md §4.
set(PMT_MFIX ${PROJECT_SOURCE_DIR}/fixtures/metrics)
set(PMT_TPEBS ${PMT_SHARED_DIR}/data/tpebs)

add_test(NAME metrics.cli_percpu_csv COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh percpu_csv
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})

# tpebs.md worked example through the CLI: 3.2 % with the table default 64 and a warning
# naming the event (no samples); a substituted value makes the exit status 2
add_test(NAME metrics.cli_lock_latency_table_default COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh lock_latency_table_default
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})

add_test(NAME metrics.cli_topdown_json COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh topdown_json
  $<TARGET_FILE:pmutrace>)

# errors: a message naming the problem; usage errors exit 129 as perf's do, others 1
add_test(NAME metrics.cli_errors COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh errors
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_percpu_csv metrics.cli_lock_latency_table_default
  metrics.cli_topdown_json metrics.cli_errors PROPERTIES LABELS metrics)

# Every upstream GNR metric through the CLI with the event JSON defaults (exit 0, 325 rows).
add_test(NAME metrics.cli_gnr_all COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh gnr_all
  $<TARGET_FILE:pmutrace> ${PMT_TPEBS})
set_tests_properties(metrics.cli_gnr_all PROPERTIES LABELS "metrics;realdata" SKIP_RETURN_CODE 77)

# perf stat --record-tpebs puts the :R value on CPU0 only; it applies to every CPU here:
# CPU0 1e6 * 64 / 2e9 = 3.2 %, CPU1 1e6 * 64 / 1e9 = 6.4 % (perf itself would print 0).
add_test(NAME metrics.cli_counts_retlat_every_cpu COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh counts_retlat_every_cpu
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_counts_retlat_every_cpu PROPERTIES LABELS metrics)

add_test(NAME metrics.cli_json COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh json
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_json PROPERTIES LABELS metrics)

# --retire-latency: one parser; percentiles outside (0, 100] and names that are neither a
# statistic nor a file are errors naming the problem (issue 15 item 3)
add_test(NAME metrics.cli_retlat_arg COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh retlat_arg
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_retlat_arg PROPERTIES LABELS metrics)

# A metric whose events the counts lack prints "<not counted>" and a warning names the
# event, never a number (perf-percpu.jsonl has no MEM_INST_RETIRED.LOCK_LOADS); exit 2
add_test(NAME metrics.cli_not_counted COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh not_counted
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_not_counted PROPERTIES LABELS metrics)

# Hybrid tables: each row is labelled with its PMU and computed from that PMU's counts
# (perf stat's cpu_atom row divides cpu_atom/instructions/ by cpu_atom/cycles/: 300/600 =
# 0.5; the counts' PMU-less msr/tsc/ still binds); the cpu_atom rows took cpu_core's counts
add_test(NAME metrics.cli_hybrid COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/metrics.sh hybrid
  $<TARGET_FILE:pmutrace> ${PMT_MFIX})
set_tests_properties(metrics.cli_hybrid PROPERTIES LABELS metrics)

# Counts frames (formats/container/FORMAT.md): metrics of a counting recording print the
# same bytes read by counts frames, through the records, and from a file without counts
# frames (synthetic GNR recordings and the kernel's software counts, every metric, --csv
# and --jsonl); a damaged or cut counts frame falls back to the records, named under -v
# (its synthetic recordings are bench_stat_trace's, built with the benchmarks)
if(PMUTRACE_BENCH)
  add_test(NAME metrics.counts_columns COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/counts_columns.sh
    $<TARGET_FILE:pmutrace> $<TARGET_FILE:bench_stat_trace> ${PMT_SHARED_DIR})
  set_tests_properties(metrics.counts_columns PROPERTIES LABELS "metrics;record" TIMEOUT 300
    SKIP_RETURN_CODE 77)
endif()
