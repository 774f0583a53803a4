# Real SPE buffers from ../shared/data/spe (never copied into the repository): `pmutrace dump`
# must print what perf 6.1's report -D printed. One test per buffer; skipped when absent.
set(PMT_SHARED_SPE ${PMT_SHARED_DIR}/data/spe)
foreach(name hiperf_TestSpeDecoder quipper_SampleSPEPackets spe_parser_test_get_frame
    wperf_spe-b1-ts0 wperf_spe-b1-ts1)
  add_test(NAME realdata.dump.${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/realdata/spe_dump_vs_perf61.sh
      $<TARGET_FILE:pmutrace> ${PMT_SHARED_SPE} ${name})
  set_tests_properties(realdata.dump.${name} PROPERTIES LABELS realdata SKIP_RETURN_CODE 77)
endforeach()

# Differential: the installed perf (Debian: 6.1) and `pmutrace dump --perf-compat=6.1` print the same
# SPE lines for the same perf.data (made by `pmutrace convert --raw`). Skipped without perf.
set(PMT_SPE_DIFF_INPUTS
  "synth-n1-small=${PROJECT_SOURCE_DIR}/fixtures/spe/synth-n1-small.spe"
  "synth-v2-sve=synth:--mix v2 --sve --context --records 500 --seed 3"
  "synth-branches-nots=synth:--mix branches --no-timestamps --records 300 --seed 4"
  "synth-n1-sve-20k=synth:--context --sve --pa --records 20000 --seed 9")
# the shared real buffers through the perf.data path (skipped when ../shared is absent)
foreach(f hiperf_TestSpeDecoder.bin quipper_SampleSPEPackets.bin spe_parser_test_get_frame.bin
    wperf_spe-b1-ts0.data wperf_spe-b1-ts1.data)
  string(REGEX REPLACE "\\.[a-z]+$" "" n ${f})
  list(APPEND PMT_SPE_DIFF_INPUTS "shared-${n}=${PMT_SHARED_SPE}/${f}")
endforeach()
foreach(v basic garbage optype-legacy61 events-legacy61 misc-legacy61)
  list(APPEND PMT_SPE_DIFF_INPUTS "vec-${v}=${PROJECT_SOURCE_DIR}/fixtures/spe/${v}.vec")
endforeach()
foreach(item ${PMT_SPE_DIFF_INPUTS})
  string(REGEX REPLACE "=.*" "" name "${item}")
  string(REGEX REPLACE "^[^=]*=" "" input "${item}")
  add_test(NAME realdata.dump_vs_perf.${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/realdata/spe_dump_vs_perf.sh $<TARGET_FILE:pmutrace>
      $<TARGET_FILE:spe_vec> "${input}" --perf-compat=6.1)
  set_tests_properties(realdata.dump_vs_perf.${name} PROPERTIES LABELS "realdata;perf"
    SKIP_RETURN_CODE 77)
endforeach()

# The same SPE lines against perf 7.3 (newest text, no --legacy61), and the shared real
# buffers through the arm64 build of perf 7.3 under qemu-user: the oracle pair agrees with
# itself and with pmutrace (the recorder's tests need the arm64 one). Skipped without the
# oracles (tests/oracles/setup).
foreach(item ${PMT_SPE_DIFF_INPUTS})
  string(REGEX REPLACE "=.*" "" name "${item}")
  string(REGEX REPLACE "^[^=]*=" "" input "${item}")
  if(name MATCHES "legacy61")
    continue()
  endif()
  add_test(NAME realdata.dump_vs_perf73.${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/realdata/spe_dump_vs_perf.sh $<TARGET_FILE:pmutrace>
      $<TARGET_FILE:spe_vec> "${input}")
  set_tests_properties(realdata.dump_vs_perf73.${name} PROPERTIES LABELS "realdata;perf73"
    SKIP_RETURN_CODE 77 ENVIRONMENT "PERF=${PMT_PERF73}")
  if(name MATCHES "^shared-")
    add_test(NAME realdata.dump_vs_perf73_arm64.${name}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/realdata/spe_dump_vs_perf.sh
        $<TARGET_FILE:pmutrace> $<TARGET_FILE:spe_vec> "${input}")
    set_tests_properties(realdata.dump_vs_perf73_arm64.${name} PROPERTIES
      LABELS "realdata;perf73" SKIP_RETURN_CODE 77 ENVIRONMENT "PERF=${PMT_PERF73_ARM64}")
  endif()
endforeach()
# samples through the arm64 perf: a small corpus (qemu-user runs it about 50x slower)
add_test(NAME diff.spe_perf73_arm64.n1_ctx
  COMMAND sh ${PMT_DIFF_DIR}/spe_vs_perf.sh $<TARGET_FILE:pmutrace> 41 n1 300 0x410fd0c0 --context)
set_tests_properties(diff.spe_perf73_arm64.n1_ctx PROPERTIES LABELS "differential;perf73"
  SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "PERF=${PMT_PERF73_ARM64};COMPAT=newest")
add_test(NAME diff.spe_perf73_arm64.v2
  COMMAND sh ${PMT_DIFF_DIR}/spe_vs_perf.sh $<TARGET_FILE:pmutrace> 42 v2 300 0 --context)
set_tests_properties(diff.spe_perf73_arm64.v2 PROPERTIES LABELS "differential;perf73"
  SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "PERF=${PMT_PERF73_ARM64};COMPAT=7.3")
