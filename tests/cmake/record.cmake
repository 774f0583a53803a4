# The recorder on the real kernel: software events through open, mmap, drain and container
add_test(NAME record.kernel_sw COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/kernel_sw.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(record.kernel_sw PROPERTIES LABELS "record" TIMEOUT 120
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
