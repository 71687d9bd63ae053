# AUTO without a GPU, calls with SIZES (or without): a pinned header fits only when its // Sizes:
# line is the call's sizes, in the call's order, and every kSizes entry's values are among PARAMS.
# One that fits is used (the tuner checking its top-level values, the first size's); one tuned for
# other sizes, for the same sizes in another order, without a // Sizes: line (pinned without
# SIZES), with sizes for a call without SIZES, or with an entry outside PARAMS is not: a warning
# each, and the DEFAULTS.
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-sizes")
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
set(sizes SIZES "M=512 N=256" "M=4096 N=4096")
adaexplore_tune_kernel(sizes_ok ${args} ${sizes})
adaexplore_tune_kernel(sizes_other ${args} ${sizes})
adaexplore_tune_kernel(sizes_reordered ${args} ${sizes})
adaexplore_tune_kernel(sizes_missing ${args} ${sizes})
adaexplore_tune_kernel(sizes_unexpected ${args})
adaexplore_tune_kernel(sizes_entry_outside ${args} ${sizes})

expect_equal("${ADAEXPLORE_sizes_ok_ORIGIN}" "PINNED" "sizes_ok (its pinned header fits)")
file(READ "${CMAKE_CURRENT_SOURCE_DIR}/pinned-sizes/sizes_ok.hpp" pinned)
file(READ "${ADAEXPLORE_sizes_ok_HEADER}" copied)
expect_equal("${copied}" "${pinned}" "sizes_ok's header copied from the pinned one")
foreach(kernel sizes_other sizes_reordered sizes_missing sizes_unexpected sizes_entry_outside)
  expect_equal("${ADAEXPLORE_${kernel}_ORIGIN}" "DEFAULTS" "${kernel} (its pinned header does not fit)")
  expect_file_matches("${ADAEXPLORE_${kernel}_HEADER}" "kTuned = false")
endforeach()
expect_fake_tuner_calls("check --spec [^ ]*/sizes_ok/spec.json --config TILE=32,UNROLL=2 --config-from the pinned header [^ ]*/pinned-sizes/sizes_ok.hpp harness" 1)
expect_fake_tuner_calls("check .*--config" 1)
expect_fake_tuner_calls(defaults 5)
