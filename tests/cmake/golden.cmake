# Golden SPE vectors: fixtures/spe/*.vec (annotated hex + expected perf -D text), compiled by
# tests/golden/spe_vec.c. One ctest test per vector file.
add_executable(spe_vec ${CMAKE_CURRENT_SOURCE_DIR}/golden/spe_vec.c)
target_link_libraries(spe_vec PRIVATE pmutrace_spe pmutrace_options)
file(GLOB PMT_SPE_VECTORS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fixtures/spe/*.vec)
foreach(vec ${PMT_SPE_VECTORS})
  get_filename_component(name ${vec} NAME_WE)
  add_test(NAME golden.spe.${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/golden/run_vec.sh $<TARGET_FILE:spe_vec>
      $<TARGET_FILE:pmutrace> ${vec} ${CMAKE_CURRENT_BINARY_DIR}/golden)
  set_tests_properties(golden.spe.${name} PROPERTIES LABELS golden)
endforeach()

# fixtures/spe/synth-n1-small.spe is `pmutrace synth --records 64 --context --seed 1`: the
# generator must stay deterministic (same seed, same bytes on every build and host).
add_test(NAME golden.synth_fixture
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/golden/synth_fixture.sh
    $<TARGET_FILE:pmutrace> ${PROJECT_SOURCE_DIR}/fixtures/spe/synth-n1-small.spe)
set_tests_properties(golden.synth_fixture PROPERTIES LABELS golden)
