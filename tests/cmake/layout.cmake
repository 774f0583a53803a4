# The layering rules (tests/tools/layers.txt) hold without anyone remembering them.
add_test(NAME layout.includes COMMAND sh ${PROJECT_SOURCE_DIR}/tests/tools/check_includes.sh
  ${PROJECT_SOURCE_DIR})
set_tests_properties(layout.includes PROPERTIES LABELS layout)
# ... and cli/ stays a thin layer over the libraries, naming none of perf's ABI.
add_test(NAME layout.cli_abi COMMAND sh ${PROJECT_SOURCE_DIR}/tests/tools/check_cli_abi.sh
  ${PROJECT_SOURCE_DIR})
set_tests_properties(layout.cli_abi PROPERTIES LABELS layout)
