# AUTO without a GPU: a pinned header whose machine line is malformed (not JSON; JSON whose "config"
# is a list) is not used: a warning naming the header and what is wrong with its line, then the
# DEFAULTS, checked like any defaults.
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-malformed")
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(not_json ${args})
adaexplore_tune_kernel(config_list ${args})
foreach(kernel not_json config_list)
  expect_equal("${ADAEXPLORE_${kernel}_ORIGIN}" "DEFAULTS" "${kernel} (its pinned header's machine line is malformed)")
  expect_file_matches("${ADAEXPLORE_${kernel}_HEADER}" "kTuned = false")
endforeach()
expect_fake_tuner_calls("check --spec [^ ]*/not_json/spec.json" 1)
expect_fake_tuner_calls("check --spec [^ ]*/config_list/spec.json" 1)
