# pmutrace stat (issue 11 c): software events on the real kernel against perf 7.3's layouts
# and perf 6.1's columns, the counts of -o read back by both perfs' stat report, and
# pmutrace metrics on a recording equal to metrics on the same counts as CSV
add_test(NAME stat.kernel COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/kernel_stat.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(stat.kernel PROPERTIES LABELS "record;perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# stat --dry-run -v against x86 perf 7.3's stat -vv: software events and a fake GNR PMU
add_test(NAME oracle.stat_attrs73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/oracles/stat_attrs.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PMT_SHARED_DIR})
set_tests_properties(oracle.stat_attrs73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# stat --topdown against x86 perf 7.3's on the simulated Intel PMU (fake GNR sysfs): text, -A,
# -x, -j and -I layouts byte for byte, with perf's GNR tables and with the built-in group
add_test(NAME stat.topdown73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/topdown_stat.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PMT_SHARED_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.topdown73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# stat --per-thread with -p, -t and -a (every thread of /proc) against x86 perf 7.3 on a
# process of known work (tests/stat/thread_work.c): layouts, rows, order, page-faults, -o
add_test(NAME stat.per_thread COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/per_thread.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73} ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.per_thread PROPERTIES LABELS "record;perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# stat on a fake hybrid tree (cpu_core + cpu_atom) against x86 perf 7.3 on the simulated PMU:
# each event on its own PMU's CPUs, an unreadable counter <not counted>
add_test(NAME stat.hybrid73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/hybrid_stat.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.hybrid73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# perf's duration_time tool event against x86 perf 7.3 on the simulated PMU (fake GNR sysfs):
# -e in every layout and -M metrics reading it, the wall-clock counts masked and checked
add_test(NAME stat.tool73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/tool_event.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PMT_SHARED_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.tool73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# -M of metrics reading user_time and system_time (a table the test makes; perf 7.3's have
# none): the tool events in perf's order, the values against the counts printed and against
# metrics FILE on the run's -o recording
add_test(NAME stat.tool_metric COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/tool_metric.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.tool_metric PROPERTIES TIMEOUT 120
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# --topdown's event order against x86 perf 7.3's "found event" lines on seven CPU models
# (its built-in tables through perf list -j): perf's hash map of metric IDs reproduced
add_test(NAME oracle.topdown_order73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/oracles/topdown_order.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(oracle.topdown_order73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# stat -M's `#` column against x86 perf 7.3 on the simulated Intel PMU (fake GNR sysfs):
# single metrics and TopdownL1 in text, -x and -j, with -A and -I, byte for byte
add_test(NAME stat.metric_layout73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/metric_layout.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PMT_SHARED_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.metric_layout73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# stat -M's `#` column on a hybrid part against x86 perf 7.3 on the simulated PMU (fake Alder
# Lake tree): a metric per core PMU, each on its own PMU's event, text, -x and -j
add_test(NAME stat.metric_hybrid73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/metric_hybrid.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.metric_hybrid73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# :R events without --record-tpebs against x86 perf 7.3 on the simulated PMU (fake GNR
# sysfs): the table's value on the first CPU alone, -e and -M in every aggregation
add_test(NAME stat.retlat73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stat/retlat_stat.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PMT_SHARED_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(stat.retlat73 PROPERTIES LABELS "perf73" TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
