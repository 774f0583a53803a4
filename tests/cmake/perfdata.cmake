# perf.data reader/writer: differential tests against Debian's perf 6.1 and perf 7.3.
add_test(NAME perfdata.perf61_spe
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/perf61_spe.sh $<TARGET_FILE:pmutrace>
    ${PMT_SHARED_DIR})
set_tests_properties(perfdata.perf61_spe PROPERTIES LABELS "perfdata;realdata" SKIP_RETURN_CODE 77)
add_test(NAME perfdata.convert_perf
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/convert_perf.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(perfdata.convert_perf PROPERTIES LABELS "perfdata" SKIP_RETURN_CODE 77)
add_test(NAME perfdata.auxtrace_feature
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/auxtrace_feature.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(perfdata.auxtrace_feature PROPERTIES LABELS "perfdata" SKIP_RETURN_CODE 77
  TIMEOUT 60)
# the same two against perf 7.3 reading (perf 6.1 records: the 7.3 wrapper cannot start a
# host workload)
add_test(NAME perfdata.convert_perf73
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/convert_perf.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(perfdata.convert_perf73 PROPERTIES LABELS "perfdata;perf73" SKIP_RETURN_CODE 77
  ENVIRONMENT "PERF=${PMT_PERF73};RECPERF=perf;COMPAT=7.3")
add_test(NAME perfdata.auxtrace_feature73
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/auxtrace_feature.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(perfdata.auxtrace_feature73 PROPERTIES LABELS "perfdata;perf73" SKIP_RETURN_CODE 77
  TIMEOUT 60 ENVIRONMENT "PERF=${PMT_PERF73};COMPAT=7.3")
add_test(NAME perfdata.stdin_stream
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/stdin_stream.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(perfdata.stdin_stream PROPERTIES LABELS "perfdata" TIMEOUT 120)
add_test(NAME cli.safe_output
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/safe_output.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.safe_output PROPERTIES LABELS cli TIMEOUT 120)
add_test(NAME cli.exit_status
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/exit_status.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.exit_status PROPERTIES LABELS cli TIMEOUT 120)
add_test(NAME cli.damaged_inputs
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/damaged_inputs.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.damaged_inputs PROPERTIES LABELS cli TIMEOUT 300)
add_test(NAME cli.time_conv_shift
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/time_conv_shift.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.time_conv_shift PROPERTIES LABELS cli TIMEOUT 60)
add_test(NAME cli.truncated_file
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/truncated_file.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.truncated_file PROPERTIES LABELS cli TIMEOUT 60)
add_test(NAME cli.man_pages COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/man_pages.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/cli/man)
set_tests_properties(cli.man_pages PROPERTIES LABELS cli TIMEOUT 60)
add_test(NAME cli.readme_usage COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/readme_usage.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.readme_usage PROPERTIES LABELS cli TIMEOUT 60)
add_test(NAME cli.container COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/container.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.container PROPERTIES LABELS cli TIMEOUT 120)
add_test(NAME cli.export_sqlite COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/export_sqlite.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.export_sqlite PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
add_test(NAME cli.export_sqlite_symbols COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/export_sqlite_symbols.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.export_sqlite_symbols PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
add_test(NAME cli.export_pprof COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/export_pprof.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.export_pprof PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
add_test(NAME cli.export_postgresql COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/export_postgresql.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.export_postgresql PROPERTIES LABELS cli TIMEOUT 180 SKIP_RETURN_CODE 77)
add_test(NAME cli.lazy_libs COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/lazy_libs.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.lazy_libs PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
# a PEBS-shaped perf.data (WEIGHT_STRUCT ins_lat/retire_lat, ADDR, DATA_SRC, several events
# and CPUs out of time order) made with the writer, read by perf 6.1 and 7.3 as the oracle
add_executable(pebs_like ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/pebs_like.c)
target_link_libraries(pebs_like PRIVATE pmutrace_perfdata pmutrace_options)
add_test(NAME diff.pebs_like COMMAND sh ${PMT_DIFF_DIR}/pebs_vs_perf.sh $<TARGET_FILE:pmutrace>
  $<TARGET_FILE:pebs_like> ${PMT_PERF73})
set_tests_properties(diff.pebs_like PROPERTIES LABELS differential SKIP_RETURN_CODE 77 TIMEOUT 60)
# SPE AUX data and a cpu-clock event's samples in one file, merged in time order as perf does
add_executable(spe_mix ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/spe_mix.c)
target_link_libraries(spe_mix PRIVATE pmutrace_perfdata pmutrace_spe pmutrace_options)
add_test(NAME diff.spe_mix COMMAND sh ${PMT_DIFF_DIR}/spe_mix_vs_perf.sh $<TARGET_FILE:pmutrace>
  $<TARGET_FILE:spe_mix> ${PMT_PERF73})
set_tests_properties(diff.spe_mix PROPERTIES LABELS differential SKIP_RETURN_CODE 77 TIMEOUT 60)
# report --html: the page's figures against the report's text outputs, and Chromium's
# rendering of it with the network cut
foreach(mode content render)
  add_test(NAME html.${mode} COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/report_html.sh
    $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR} ${mode})
  # (the recordings preload the simulated PMU before a sanitizer build's runtime)
  set_tests_properties(html.${mode} PROPERTIES LABELS html SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
endforeach()
add_test(NAME cli.progress COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/progress.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.progress PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME cli.container_columns COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/container_columns.sh
  $<TARGET_FILE:pmutrace> ${PMT_SHARED_DIR})
set_tests_properties(cli.container_columns PROPERTIES LABELS cli TIMEOUT 180)
add_test(NAME cli.export_losses COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/export_losses.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.export_losses PROPERTIES LABELS cli TIMEOUT 180 SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
add_test(NAME cli.export_metrics COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/export_metrics.sh
  $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR} ${PMT_SHARED_DIR})
set_tests_properties(cli.export_metrics PROPERTIES LABELS cli TIMEOUT 180 SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
# --cpu and --time slices of a container read only the frames they need and print what
# filtering the whole file prints (perf 7.3's script --cpu/--time through zstd -dc too)
add_executable(spe_cpus ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/spe_cpus.c)
target_link_libraries(spe_cpus PRIVATE pmutrace_perfdata pmutrace_spe pmutrace_options)
add_test(NAME cli.container_slice COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/container_slice.sh
  $<TARGET_FILE:pmutrace> $<TARGET_FILE:spe_cpus> ${PMT_PERF73})
set_tests_properties(cli.container_slice PROPERTIES LABELS cli TIMEOUT 300
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
# dump's record offsets against perf 6.1's and 7.3's report -D (pipe mode counts from after
# the header), kept by dump --cpu/--time slices of containers, old frame infos and damage
add_test(NAME cli.dump_offsets COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/dump_offsets.sh
  $<TARGET_FILE:pmutrace> $<TARGET_FILE:spe_cpus> ${PMT_PERF73})
set_tests_properties(cli.dump_offsets PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 300)
# -j N: script, report and dump print what -j 1 prints, on containers, perf.data, slices,
# damaged files and the shared real buffers
add_test(NAME cli.parallel_decode COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/parallel_decode.sh
  $<TARGET_FILE:pmutrace> $<TARGET_FILE:spe_cpus> ${PROJECT_SOURCE_DIR} ${PMT_SHARED_DIR})
set_tests_properties(cli.parallel_decode PROPERTIES LABELS cli TIMEOUT 600)
# large AUX chunks: the decode window sized from them keeps whole-file time order, the
# samples perf 6.1 and 7.3 print
add_test(NAME cli.spe_window COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/spe_window.sh
  $<TARGET_FILE:pmutrace> $<TARGET_FILE:spe_cpus> ${PMT_PERF73})
set_tests_properties(cli.spe_window PROPERTIES LABELS cli TIMEOUT 300)
# report --c2c against perf 7.3 c2c report --stdio on a 4-CPU, 2-node SPE trace whose loads
# and stores share cache lines between threads and CPUs (tests/perfdata/c2c_trace.c)
add_executable(c2c_trace ${CMAKE_CURRENT_SOURCE_DIR}/perfdata/c2c_trace.c)
target_link_libraries(c2c_trace PRIVATE pmutrace_perfdata pmutrace_spe pmutrace_options)
add_test(NAME diff.c2c73 COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/diff/c2c_vs_perf.sh $<TARGET_FILE:pmutrace>
  $<TARGET_FILE:c2c_trace> ${PROJECT_SOURCE_DIR} ${PMT_PERF73})
set_tests_properties(diff.c2c73 PROPERTIES LABELS differential SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME diff.c2c COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/diff/c2c_vs_perf.sh $<TARGET_FILE:pmutrace>
  $<TARGET_FILE:c2c_trace> ${PROJECT_SOURCE_DIR} perf)
set_tests_properties(diff.c2c PROPERTIES LABELS differential SKIP_RETURN_CODE 77 TIMEOUT 300)
# record --writer-policy: block, drop and lower with a compressor made slow on purpose
# (PMT_CTR_TEST_COMPRESS_RATE), the counts in the summary, info and script
add_test(NAME cli.writer_policy COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/writer_policy.sh
  $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.writer_policy PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 300
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
# AUX offsets in the frame infos (pmutrace info) against perf 6.1's report -D of zstd -dc
add_test(NAME cli.container_aux COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/container_aux.sh
  $<TARGET_FILE:pmutrace> $<TARGET_FILE:spe_cpus>)
set_tests_properties(cli.container_aux PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 180)
# info lists counts frames: each frame's STAT and STAT_ROUND records against perf 6.1's
# report -D of zstd -dc (records in the frame's stream range), a flipped byte named
if(PMUTRACE_BENCH)
  add_test(NAME cli.info_counts COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/info_counts.sh
    $<TARGET_FILE:pmutrace> $<TARGET_FILE:bench_stat_trace> ${PMT_SHARED_DIR})
  set_tests_properties(cli.info_counts PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 180)
endif()
# a file cut inside a data frame: info's readable and lost AUX offsets, records and SPE
# times of that frame against zstd -dc | perf 6.1 report -D of the cut file
add_test(NAME cli.container_cut COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/container_cut.sh
  $<TARGET_FILE:pmutrace> $<TARGET_FILE:spe_cpus>)
set_tests_properties(cli.container_cut PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 180)
# perf.data -> container -> perf.data prints as the original with perf 6.1 and 7.3, and
# zstd -dc | perf script -i - as its pipe form: synth mixes, a PEBS-shaped file, a 4-CPU
# trace in small frames, the shared real buffers
add_test(NAME cli.container_roundtrip COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/container_roundtrip.sh
  $<TARGET_FILE:pmutrace> $<TARGET_FILE:pebs_like> $<TARGET_FILE:spe_cpus> ${PMT_PERF73} ${PMT_SHARED_DIR})
set_tests_properties(cli.container_roundtrip PROPERTIES LABELS "cli;perf73" SKIP_RETURN_CODE 77 TIMEOUT 300)
