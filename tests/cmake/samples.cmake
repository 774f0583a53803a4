# Sample-layer checks through the CLI (tests/samples/*.sh).
add_test(NAME samples.hisi_csv
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/samples/hisi_csv.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(samples.hisi_csv PROPERTIES LABELS cli TIMEOUT 60)
add_test(NAME samples.brstack_csv
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/samples/brstack_csv.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(samples.brstack_csv PROPERTIES LABELS cli TIMEOUT 60)
add_test(NAME samples.itrace_msgs
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/samples/itrace_msgs.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(samples.itrace_msgs PROPERTIES LABELS cli TIMEOUT 60)
add_test(NAME samples.caps_csv
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/samples/caps_csv.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(samples.caps_csv PROPERTIES LABELS cli TIMEOUT 60)
