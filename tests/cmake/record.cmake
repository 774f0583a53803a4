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
set_tests_properties(record.pmusim_spe PROPERTIES LABELS "record;perf73" TIMEOUT 900
  RUN_SERIAL TRUE ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# groups on the real kernel (software events): group_fd, leader sampling read by perf
add_test(NAME record.kernel_groups COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/kernel_groups.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(record.kernel_groups PROPERTIES LABELS "record" TIMEOUT 120
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# --pfm-events through libpfm4 (knl model) on the command line: attrs, order, refusals
add_test(NAME record.pfm_events COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/pfm_events.sh
  $<TARGET_FILE:pmutrace>)
# (a sanitizer build runs under fail_open.c's preload: asan must not insist on coming first)
set_tests_properties(record.pfm_events PROPERTIES LABELS "record" TIMEOUT 60
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0")

# perf_event_open refusals (errno chosen by tests/pmusim/fail_open.c): event and reason named
add_test(NAME record.open_errors COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/open_errors.sh
  $<TARGET_FILE:pmutrace>)
set_tests_properties(record.open_errors PROPERTIES LABELS "record" TIMEOUT 120
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0")

# --pfm-events attrs against x86 perf 7.3 given the same encodings as raw events (fake GNR)
add_test(NAME oracle.pfm_attrs73 COMMAND sh ${PROJECT_SOURCE_DIR}/tests/oracles/pfm_attrs.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(oracle.pfm_attrs73 PROPERTIES LABELS "differential;perf73;record"
  TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# counting events beside the samples (record --count-events) on the real kernel: perf's
# readings of the same container, task-clock against time and samples
add_test(NAME record.kernel_counts COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/kernel_counts.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR}/fixtures/metrics ${PMT_PERF73})
set_tests_properties(record.kernel_counts PROPERTIES LABELS "record" TIMEOUT 120
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# the simulated SPE PMU leaves unmapped rings alone, as the kernel does (a recorder unmaps
# before it closes, and an event may still be enabled then)
add_test(NAME record.pmusim_unmap COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/pmusim_unmap.sh
  $<TARGET_FILE:pmutrace>)
set_tests_properties(record.pmusim_unmap PROPERTIES LABELS "record" TIMEOUT 60
  SKIP_RETURN_CODE 77 ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# the locked-memory limit (kernel.perf_event_mlock_kb, RLIMIT_MEMLOCK) on the real kernel,
# as an unprivileged user: pmutrace's message against perf 6.1 and 7.3 seeing the limit
add_test(NAME record.mlock_limit COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/mlock_limit.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(record.mlock_limit PROPERTIES LABELS "record" TIMEOUT 60
  SKIP_RETURN_CODE 77)

# a recording whose workload ends by a signal (SIGINT/TERM/HUP to the recorder: SIGTERM to
# the workload, file finished, 128+N), exit statuses and exec failure, against perf 7.3
add_test(NAME record.workload_signals COMMAND sh ${PROJECT_SOURCE_DIR}/tests/record/workload_signals.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(record.workload_signals PROPERTIES LABELS "record;perf73" TIMEOUT 180
  SKIP_RETURN_CODE 77)
