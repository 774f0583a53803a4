# Issue 15, perf's command-line habits and "Done when": pmutrace used as a perf user uses
# perf, against perf 7.3 on the same files
add_test(NAME cli.perf_habits73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/perf_habits73.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(cli.perf_habits73 PROPERTIES LABELS "cli;perf73" TIMEOUT 180
  SKIP_RETURN_CODE 77)
