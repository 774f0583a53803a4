# PEBS sampling (issue 11 item 4): record --dry-run -v against x86 perf 7.3's record -vv on a
# fake Granite Rapids sysfs tree (precise levels, -W, periods, per CPU and per task)
add_test(NAME oracle.pebs_attrs73 COMMAND sh ${CMAKE_SOURCE_DIR}/tests/oracles/pebs_attrs.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(oracle.pebs_attrs73 PROPERTIES LABELS "differential;perf73;record"
  TIMEOUT 300 SKIP_RETURN_CODE 77)
