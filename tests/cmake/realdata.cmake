# Real SPE buffers from ../shared/data/spe (never copied into the repository): `pmutrace dump`
# must print what perf 6.1's report -D printed. One test per buffer; skipped when absent.
set(PMT_SHARED_SPE ${PROJECT_SOURCE_DIR}/../shared/data/spe)
foreach(name hiperf_TestSpeDecoder quipper_SampleSPEPackets spe_parser_test_get_frame
    wperf_spe-b1-ts0 wperf_spe-b1-ts1)
  add_test(NAME realdata.dump.${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/realdata/spe_dump_vs_perf61.sh
      $<TARGET_FILE:pmutrace> ${PMT_SHARED_SPE} ${name})
  set_tests_properties(realdata.dump.${name} PROPERTIES LABELS realdata SKIP_RETURN_CODE 77)
endforeach()
