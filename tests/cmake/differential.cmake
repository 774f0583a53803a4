# Differential tests: pmutrace script against Linux perf script (tests/diff/spe_vs_perf.sh)
# on synthetic corpora, and against perf 6.1's recorded output for the shared real buffers.
set(PMT_DIFF_DIR ${CMAKE_CURRENT_SOURCE_DIR}/diff)
# name seed mix records midr synth-options...
set(PMT_SPE_DIFF_CASES
  "n1_ts|1|n1|1500|0x410fd0c0"
  "n1_timeless_ctx|2|n1|1500|0x410fd0c0|--no-timestamps|--context"
  "n1_ctx_pa|3|n1|1000|0x410fd0c0|--context|--pa"
  "nomidr_ts|4|n1|1500|0"
  "nomidr_timeless|5|loads|1000|0|--no-timestamps"
  "v2_on_61|6|v2|1000|0x410fd4f0|--context"
  "stores_n1|7|stores|800|0x410fd0c0"
  "branches_other|8|branches|800|0x410fd0c0|--no-timestamps"
  "other_nomidr|9|other|600|0|--context")
foreach(case ${PMT_SPE_DIFF_CASES})
  string(REPLACE "|" ";" args "${case}")
  list(GET args 0 name)
  list(REMOVE_AT args 0)
  add_test(NAME diff.spe_perf.${name}
    COMMAND sh ${PMT_DIFF_DIR}/spe_vs_perf.sh $<TARGET_FILE:pmutrace> ${args})
  set_tests_properties(diff.spe_perf.${name} PROPERTIES LABELS differential
    SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()

add_test(NAME diff.spe_perf61_expected
  COMMAND sh ${PMT_DIFF_DIR}/spe_vs_expected.sh $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR}/../shared)
set_tests_properties(diff.spe_perf61_expected PROPERTIES LABELS differential
  SKIP_RETURN_CODE 77 TIMEOUT 60)

# pmutrace report group counts vs perf report, default --itrace
foreach(case "n1_ctx|21|n1|3000|0x410fd0c0|--context" "v2_nomidr_timeless|22|v2|3000|0|--no-timestamps")
  string(REPLACE "|" ";" args "${case}")
  list(GET args 0 name)
  list(REMOVE_AT args 0)
  add_test(NAME diff.spe_report.${name}
    COMMAND sh ${PMT_DIFF_DIR}/spe_report_vs_perf.sh $<TARGET_FILE:pmutrace> ${args})
  set_tests_properties(diff.spe_report.${name} PROPERTIES LABELS differential
    SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()

# bad bytes in the stream: perf 6.1's resync and partial-record samples, reproduced
foreach(case "n1_ctx_bad|31|n1|1000|0x410fd0c0|--context|40" "v2_timeless_bad|32|v2|1000|0|--no-timestamps|25")
  string(REPLACE "|" ";" args "${case}")
  list(GET args 0 name)
  list(REMOVE_AT args 0)
  list(POP_BACK args ncorrupt)
  add_test(NAME diff.spe_perf.${name}
    COMMAND sh ${PMT_DIFF_DIR}/spe_vs_perf.sh $<TARGET_FILE:pmutrace> ${args})
  set_tests_properties(diff.spe_perf.${name} PROPERTIES LABELS differential
    SKIP_RETURN_CODE 77 TIMEOUT 60 ENVIRONMENT "CORRUPT=${ncorrupt}")
endforeach()

# AUX data split into AUXTRACE records (packets straddle chunks, zero padding between),
# SVE operations, TIME_CONV
foreach(case "chunk333_v2|12|v2|800|0x410fd0c0|--context|CHUNK=333"
             "chunk1000_timeless|11|n1|800|0|--no-timestamps|CHUNK=1000"
             "sve_other|21|other|400|0x410fd0c0|--sve|CHUNK="
             "sve_n1_nomidr|22|n1|400|0|--sve|CHUNK="
             "timeconv|3|n1|500|0x410fd0c0|--context|TIMECONV=10,1000,5000")
  string(REPLACE "|" ";" args "${case}")
  list(GET args 0 name)
  list(REMOVE_AT args 0)
  list(POP_BACK args env)
  add_test(NAME diff.spe_perf.${name}
    COMMAND sh ${PMT_DIFF_DIR}/spe_vs_perf.sh $<TARGET_FILE:pmutrace> ${args})
  set_tests_properties(diff.spe_perf.${name} PROPERTIES LABELS differential
    SKIP_RETURN_CODE 77 TIMEOUT 60 ENVIRONMENT "${env}")
endforeach()
