# Differential tests: pmutrace script/report against Linux perf (tests/diff/*.sh) on
# synthetic corpora, and against perf 6.1's recorded output for the shared real buffers.
set(PMT_DIFF_DIR ${CMAKE_CURRENT_SOURCE_DIR}/diff)

# pmt_spe_diff(TEST SCRIPT "name|seed|mix|records|midr|synth options...|ENV=VALUE[+ENV=VALUE]"
#              [ENV=VALUE...])
# The last field holds environment settings for the script, joined with '+' (empty: none);
# further arguments add settings common to a group of cases (the perf to compare with).
function(pmt_spe_diff prefix script case)
  string(REPLACE "|" ";" args "${case}")
  list(GET args 0 name)
  list(REMOVE_AT args 0)
  list(POP_BACK args env)
  string(REPLACE "+" ";" env "${env}")
  add_test(NAME diff.${prefix}.${name}
    COMMAND sh ${PMT_DIFF_DIR}/${script} $<TARGET_FILE:pmutrace> ${args})
  set_tests_properties(diff.${prefix}.${name} PROPERTIES LABELS differential
    SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "${env};${ARGN}")
endfunction()

# script samples, field by field (spe_vs_perf.sh lists the perf 6.1 quirks it handles)
foreach(case
    "n1_ts|1|n1|1500|0x410fd0c0|CORRUPT=0"
    "n1_timeless_ctx|2|n1|1500|0x410fd0c0|--no-timestamps|--context|CORRUPT=0"
    "n1_ctx_pa|3|n1|1000|0x410fd0c0|--context|--pa|CORRUPT=0"
    "nomidr_ts|4|n1|1500|0|CORRUPT=0"
    "nomidr_timeless|5|loads|1000|0|--no-timestamps|CORRUPT=0"
    "v2_on_61|6|v2|1000|0x410fd4f0|--context|CORRUPT=0"
    "stores_n1|7|stores|800|0x410fd0c0|CORRUPT=0"
    "branches_other|8|branches|800|0x410fd0c0|--no-timestamps|CORRUPT=0"
    "other_nomidr|9|other|600|0|--context|CORRUPT=0"
    # bad bytes: perf's resync and partial-record samples
    "n1_ctx_bad|31|n1|1000|0x410fd0c0|--context|CORRUPT=40"
    "v2_timeless_bad|32|v2|1000|0|--no-timestamps|CORRUPT=25"
    # AUX data split into AUXTRACE records (packets straddle chunks, zero padding between)
    "chunk333_v2|12|v2|800|0x410fd0c0|--context|CHUNK=333"
    "chunk1000_timeless|11|n1|800|0|--no-timestamps|CHUNK=1000"
    # SVE operations, TIME_CONV
    "sve_other|21|other|400|0x410fd0c0|--sve|CORRUPT=0"
    "sve_n1_nomidr|22|n1|400|0|--sve|CORRUPT=0"
    "timeconv|3|n1|500|0x410fd0c0|--context|TIMECONV=10,1000,5000")
  pmt_spe_diff(spe_perf spe_vs_perf.sh "${case}")
endforeach()

# The same against perf 7.3 (the newest release): pmutrace's default model where it equals
# perf 7.3, --perf-compat=7.3 where perf's quirks differ from the default (README
# "Compatibility"): the timeless artefact, partial records at bad bytes, the SIMD-alias
# memory samples of call/return branches (V2-shaped data).
foreach(case
    "n1_ts|1|n1|1500|0x410fd0c0|COMPAT=newest"
    "n1_ctx_pa|3|n1|1000|0x410fd0c0|--context|--pa|COMPAT=newest"
    "nomidr_ts|4|n1|1500|0|COMPAT=newest"
    "stores_n1|7|stores|800|0x410fd0c0|COMPAT=newest"
    "other_nomidr|9|other|600|0|--context|COMPAT=newest"
    "hip12|3|hip12|800|0x480fd060|COMPAT=newest"
    "ampereone|13|n1|800|0xc00fac30|--context|COMPAT=newest"
    "sve_other|21|other|400|0x410fd0c0|--sve|COMPAT=newest"
    "sve_n1_nomidr|22|n1|400|0|--sve|COMPAT=newest"
    "timeconv|3|n1|500|0x410fd0c0|--context|COMPAT=newest+TIMECONV=10,1000,5000"
    "v2_midr|6|v2|1000|0x410fd4f0|--context|COMPAT=7.3"
    "v2_seed77_20k|77|v2|20000|0|--context|COMPAT=7.3"
    "n1_timeless_ctx|2|n1|1500|0x410fd0c0|--no-timestamps|--context|COMPAT=7.3"
    "nomidr_timeless|5|loads|1000|0|--no-timestamps|COMPAT=7.3"
    "branches_other|8|branches|800|0x410fd0c0|--no-timestamps|COMPAT=7.3"
    "n1_ctx_bad|31|n1|1000|0x410fd0c0|--context|COMPAT=7.3+CORRUPT=40"
    "v2_timeless_bad|32|v2|1000|0|--no-timestamps|COMPAT=7.3+CORRUPT=25"
    "chunk333_v2|12|v2|800|0x410fd0c0|--context|COMPAT=7.3+CHUNK=333"
    "chunk1000_timeless|11|n1|800|0|--no-timestamps|COMPAT=7.3+CHUNK=1000"
    # the file layouts convert writes: AUXTRACE_INFO v2 (with caps/event_filter), pipe
    # mode, the other byte order
    "auxinfo_v2|14|n1|1000|0x410fd0c0|--context|COMPAT=newest+CONVERT_OPTS=--spe-v2"
    "auxinfo_v2_caps|15|n1|1000|0x410fd0c0|--context|COMPAT=newest+CONVERT_OPTS=--spe-v2:--event-filter:0x7fffff"
    "pipe|16|v2|1000|0|--context|COMPAT=7.3+CONVERT_OPTS=--pipe"
    "swapped|17|n1|1000|0x410fd0c0|COMPAT=newest+CONVERT_OPTS=--swap"
    "v2_swapped_timeless|18|v2|800|0|--no-timestamps|COMPAT=7.3+CONVERT_OPTS=--spe-v2:--swap")
  pmt_spe_diff(spe_perf73 spe_vs_perf.sh "${case}" PERF=${PMT_PERF73})
endforeach()
foreach(case "n1_ctx|21|n1|3000|0x410fd0c0|--context|COMPAT=newest"
             "v2_nomidr_timeless|22|v2|3000|0|--no-timestamps|COMPAT=7.3")
  pmt_spe_diff(spe_report73 spe_report_vs_perf.sh "${case}" PERF=${PMT_PERF73})
endforeach()

# report group counts, perf's default --itrace
foreach(case "n1_ctx|21|n1|3000|0x410fd0c0|--context|CORRUPT=0"
             "v2_nomidr_timeless|22|v2|3000|0|--no-timestamps|CORRUPT=0")
  pmt_spe_diff(spe_report spe_report_vs_perf.sh "${case}")
endforeach()

add_test(NAME diff.spe_perf61_expected
  COMMAND sh ${PMT_DIFF_DIR}/spe_vs_expected.sh $<TARGET_FILE:pmutrace> ${PMT_SHARED_DIR})
set_tests_properties(diff.spe_perf61_expected PROPERTIES LABELS differential
  SKIP_RETURN_CODE 77 TIMEOUT 60)

# damaged input: decodable samples plus a one-line summary on stderr
add_test(NAME cli.spe_bad_input COMMAND sh ${PMT_DIFF_DIR}/spe_bad_input.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(cli.spe_bad_input PROPERTIES LABELS cli TIMEOUT 30)

# timeless traces with --itrace periods: --perf-compat=7.3 is perf 7.3; the default is perf
# 7.3 without the zeroed record's samples, in the same period phase (issue 15 item 5)
add_test(NAME diff.spe_timeless_newest
  COMMAND sh ${PMT_DIFF_DIR}/spe_timeless_newest.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.spe_timeless_newest PROPERTIES LABELS differential
  SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "PERF=${PMT_PERF73}")
# random bytes: every sample of the default model is one of perf 7.3's, in its order
add_test(NAME diff.spe_random_bytes
  COMMAND sh ${PMT_DIFF_DIR}/spe_random_bytes.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.spe_random_bytes PROPERTIES LABELS differential
  SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "PERF=${PMT_PERF73}")
add_test(NAME diff.spe_simd_alias COMMAND sh ${PMT_DIFF_DIR}/spe_simd_alias.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.spe_simd_alias PROPERTIES LABELS differential TIMEOUT 60)

# perf's sample filters (--tid, --cpu, --time) against perf 6.1 and perf 7.3
add_test(NAME diff.spe_filters COMMAND sh ${PMT_DIFF_DIR}/spe_filters_vs_perf.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.spe_filters PROPERTIES LABELS differential TIMEOUT 60 SKIP_RETURN_CODE 77)
add_test(NAME diff.spe_filters73 COMMAND sh ${PMT_DIFF_DIR}/spe_filters_vs_perf.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.spe_filters73 PROPERTIES LABELS "differential;perf73" TIMEOUT 60
  SKIP_RETURN_CODE 77 ENVIRONMENT "PERF=${PMT_PERF73};COMPAT=7.3")

# --itrace=l branch stacks against perf 7.3 (perf 6.1 has none)
foreach(case "branches|9|branches|2000|--context" "v2|10|v2|2000|--context" "n1_timeless|11|n1|2000|--no-timestamps")
  string(REPLACE "|" ";" args "${case}")
  list(GET args 0 name)
  list(REMOVE_AT args 0)
  add_test(NAME diff.spe_brstack73.${name}
    COMMAND sh ${PMT_DIFF_DIR}/spe_brstack_vs_perf.sh $<TARGET_FILE:pmutrace> ${args})
  set_tests_properties(diff.spe_brstack73.${name} PROPERTIES LABELS "differential;perf73"
    TIMEOUT 60 SKIP_RETURN_CODE 77 ENVIRONMENT "PERF=${PMT_PERF73}")
endforeach()

# script -F field lists, byte for byte, against perf 6.1 and perf 7.3 (with brstack)
add_test(NAME diff.spe_fields COMMAND sh ${PMT_DIFF_DIR}/spe_fields_vs_perf.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.spe_fields PROPERTIES LABELS differential TIMEOUT 120 SKIP_RETURN_CODE 77)
add_test(NAME diff.spe_fields73 COMMAND sh ${PMT_DIFF_DIR}/spe_fields_vs_perf.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.spe_fields73 PROPERTIES LABELS "differential;perf73" TIMEOUT 120
  SKIP_RETURN_CODE 77 ENVIRONMENT "PERF=${PMT_PERF73};COMPAT=7.3")

# record --dry-run -v against perf 7.3's record -vv (arm64 under qemu-user for SPE, x86 for
# software events) on fake sysfs PMUs: 45 command lines and 7 refusals
add_test(NAME oracle.record_attrs73 COMMAND sh ${CMAKE_SOURCE_DIR}/tests/oracles/record_attrs.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR})
set_tests_properties(oracle.record_attrs73 PROPERTIES LABELS "differential;perf73;record"
  TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")
add_test(NAME oracle.intel_attrs73 COMMAND sh ${CMAKE_SOURCE_DIR}/tests/oracles/intel_attrs.sh
  $<TARGET_FILE:pmutrace> ${PMT_ORACLES_DIR} ${PMT_SHARED_DIR})
set_tests_properties(oracle.intel_attrs73 PROPERTIES LABELS "differential;perf73;record"
  TIMEOUT 600 SKIP_RETURN_CODE 77
  ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1")

# A script run against perf 6.1 (diff.NAME) and against perf 7.3 (diff.NAME73), on the
# project's fixtures (the script takes the pmutrace binary and the source folder).
function(pmt_perf_pair name script)
  add_test(NAME diff.${name} COMMAND sh ${PMT_DIFF_DIR}/${script} $<TARGET_FILE:pmutrace>
    ${PROJECT_SOURCE_DIR})
  set_tests_properties(diff.${name} PROPERTIES LABELS differential SKIP_RETURN_CODE 77 TIMEOUT 300)
  add_test(NAME diff.${name}73 COMMAND sh ${PMT_DIFF_DIR}/${script} $<TARGET_FILE:pmutrace>
    ${PROJECT_SOURCE_DIR})
  set_tests_properties(diff.${name}73 PROPERTIES LABELS differential SKIP_RETURN_CODE 77
    TIMEOUT 300 ENVIRONMENT "PERF=${PMT_PERF73};COMPAT=7.3")
endfunction()
# symbolized script fields and report --sort against perf on AArch64 fixtures, with the files
# found under --symfs, by debuglink, in the debug directory, in the build-id cache
pmt_perf_pair(symbols symbols_vs_perf.sh)
# report --mem against perf mem report (memory-access, snoop and TLB columns)
pmt_perf_pair(mem mem_vs_perf.sh)
# -F srccode on the AArch64 symbol fixtures, whose sources are in the tree
pmt_perf_pair(srccode srccode_vs_perf.sh)
# a trace's own samples (cpu-clock, task-clock; no SPE data): script and report against
# perf 6.1 and 7.3 on a pmutrace record container and a perf 6.1 perf.data (8 s of CPU;
# 39-76 s wall at load 7-19, timed out at 120 s at load 31, 60 s under ASan at load 28)
add_test(NAME diff.plain COMMAND sh ${PMT_DIFF_DIR}/plain_vs_perf.sh $<TARGET_FILE:pmutrace>
  ${PMT_PERF73})
set_tests_properties(diff.plain PROPERTIES LABELS differential SKIP_RETURN_CODE 77 TIMEOUT 300)

# -F misc and tod on a trace's own samples: perf 6.1 and 7.3 recordings made with -k mono
add_test(NAME diff.own_fields COMMAND sh ${PMT_DIFF_DIR}/own_fields_vs_perf.sh
  $<TARGET_FILE:pmutrace> ${PMT_PERF73})
set_tests_properties(diff.own_fields PROPERTIES LABELS differential SKIP_RETURN_CODE 77 TIMEOUT 120)
# -F brstacksym, brstackoff and brstack with dso/dsoff on the AArch64 symbol fixtures
add_test(NAME diff.brstack_sym73 COMMAND sh ${PMT_DIFF_DIR}/brstack_sym_vs_perf.sh
  $<TARGET_FILE:pmutrace> ${CMAKE_SOURCE_DIR})
set_tests_properties(diff.brstack_sym73 PROPERTIES LABELS "differential;perf73" SKIP_RETURN_CODE 77
  TIMEOUT 120 ENVIRONMENT "PERF=${PMT_PERF73}")
# -F brstackinsn, brstackinsnlen, insn and insnlen: AArch64 (--perf-compat) and x86-64 fixtures
add_test(NAME diff.brstackinsn73 COMMAND sh ${PMT_DIFF_DIR}/brstackinsn_vs_perf.sh
  $<TARGET_FILE:pmutrace> ${CMAKE_SOURCE_DIR})
set_tests_properties(diff.brstackinsn73 PROPERTIES LABELS "differential;perf73" SKIP_RETURN_CODE 77
  TIMEOUT 300 ENVIRONMENT "PERF=${PMT_PERF73}")
add_test(NAME diff.export_sqlite61 COMMAND sh ${PMT_DIFF_DIR}/export_sqlite_vs_perf.sh $<TARGET_FILE:pmutrace>)
set_tests_properties(diff.export_sqlite61 PROPERTIES LABELS differential TIMEOUT 120 SKIP_RETURN_CODE 77)

# call_paths of -g recordings against perf 6.1's and 7.3's export-to-sqlite.py; PostgreSQL
# against SQLite
add_test(NAME diff.export_callpaths COMMAND sh ${PMT_DIFF_DIR}/export_callpaths_vs_perf.sh
  $<TARGET_FILE:pmutrace> ${CMAKE_SOURCE_DIR} ${PMT_PERF73})
set_tests_properties(diff.export_callpaths PROPERTIES LABELS differential TIMEOUT 240 SKIP_RETURN_CODE 77)
