# PEBS sampling (issue 11 item 4): record --dry-run -v against x86 perf 7.3's record -vv on a
# fake Granite Rapids sysfs tree (precise levels, -W, periods, per CPU and per task)
add_test(NAME oracle.pebs_attrs73 COMMAND sh ${CMAKE_SOURCE_DIR}/tests/oracles/pebs_attrs.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(oracle.pebs_attrs73 PROPERTIES LABELS "differential;perf73;record"
  TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# test b: PEBS samples with retire latency and counting reads on the simulated Intel core
# PMU (tests/pmusim/pebs.c), recorded by pmutrace and by x86 perf 7.3; calibrate against
# perf script's statistics of the same samples
add_test(NAME record.pmusim_pebs COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/pmusim_pebs.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(record.pmusim_pebs PROPERTIES LABELS "record;perf73" TIMEOUT 300
  RUN_SERIAL TRUE SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# item 6: :R per core, socket and interval from one recording (HEADER_CPU_TOPOLOGY as perf
# 7.3 reads it; counts from perf 7.3's stat report, samples from its script, in python)
add_test(NAME record.pmusim_pebs_units COMMAND sh
  ${PROJECT_SOURCE_DIR}/tests/record/pmusim_pebs_units.sh $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(record.pmusim_pebs_units PROPERTIES LABELS "record;perf73" TIMEOUT 300
  RUN_SERIAL TRUE SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
