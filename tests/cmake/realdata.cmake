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

# Differential: the installed perf (Debian: 6.1) and `pmutrace dump --legacy61` print the same
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
      $<TARGET_FILE:spe_vec> "${input}" --legacy61)
  set_tests_properties(realdata.dump_vs_perf.${name} PROPERTIES LABELS "realdata;perf"
    SKIP_RETURN_CODE 77)
endforeach()
