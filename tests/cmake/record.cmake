# The recorder on the real kernel: software events through open, mmap, drain and container
add_test(NAME record.kernel_sw COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/kernel_sw.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(record.kernel_sw PROPERTIES LABELS "record" TIMEOUT 120
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# SPE capture on the simulated PMU (steady, storms, overflow, workload exit) and against
# arm64 perf 7.3 recording the same simulated hardware
add_test(NAME record.pmusim_spe COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/pmusim_spe.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
# (a sanitizer build is preloaded after the simulator: asan must not insist on coming first)
set_tests_properties(record.pmusim_spe PROPERTIES LABELS "record;perf73" TIMEOUT 300
  RUN_SERIAL TRUE ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# groups on the real kernel (software events): group_fd, leader sampling read by perf
add_test(NAME record.kernel_groups COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/kernel_groups.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(record.kernel_groups PROPERTIES LABELS "record" TIMEOUT 120
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
