# Issue 15, perf's command-line habits and "Done when": pmutrace used as a perf user uses
# perf, against perf 7.3 on the same files
add_test(NAME cli.perf_habits73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/perf_habits73.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(cli.perf_habits73 PROPERTIES LABELS "cli;perf73" TIMEOUT 180
  SKIP_RETURN_CODE 77)

# item 8: perf 7.3's topdown-* counts (stat -M TopdownL1 on the simulated Intel PMU) through
# perf's and Intel's GNR tables and --topdown give perf's tma_* values
add_test(NAME metrics.topdown_perf73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/topdown_perf73.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PMT_SHARED_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(metrics.topdown_perf73 PROPERTIES LABELS "metrics;perf73" TIMEOUT 120
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# the options perf users reach for: bare --itrace, c/r letters, -v, dump --midr/--cpu/--tid,
# --perf-compat X.Y, -i everywhere (perf 7.3's counts when the oracle is there)
add_test(NAME cli.habits COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/habits.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(cli.habits PROPERTIES LABELS cli TIMEOUT 120)

# item 9: perf 6.1's and 7.3's own stat -x, outputs (plain, -I, -A, --per-core, -A -I)
# made on this machine, read row for row as perf's count columns give them
add_test(NAME metrics.counts_perf_stat COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/counts_perf_stat.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR} ${PMT_ORACLES_DIR})
set_tests_properties(metrics.counts_perf_stat PROPERTIES LABELS "metrics;perf73" TIMEOUT 120
  SKIP_RETURN_CODE 77)

# cmake --install: binary, a manual page per command, bash completion that completes
add_test(NAME cli.install COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/install.sh ${PROJECT_BINARY_DIR})
set_tests_properties(cli.install PROPERTIES LABELS cli TIMEOUT 120)
