# AUTO without a GPU: a pinned header that does not fit the call (another kernel's, a value outside
# PARAMS, another parameter set, a multi-device entry outside PARAMS, values the tuner's check
# rejects) is not used: a warning each, and the DEFAULTS. A fitting multi-device header is used, the
# entry of the target architecture checked by the tuner.
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-bad")
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(gemm ${args} PINNED_HEADER pinned-bad/someone_else.hpp)
adaexplore_tune_kernel(out_of_space ${args})
adaexplore_tune_kernel(missing_param ${args})
adaexplore_tune_kernel(multi_device ${args})
adaexplore_tune_kernel(multi_ok ${args} ARCH sm_80)
set(ENV{FAKE_TUNER_CHECK_RC} 4)
set(ENV{FAKE_TUNER_CHECK_MESSAGE} "the pinned header X: TILE=32,UNROLL=2 violates the constraint \"TILE * UNROLL <= 32\"")
adaexplore_tune_kernel(pinned_kernel ${args} PINNED_HEADER pinned/pinned_kernel.hpp CONSTRAINTS "TILE * UNROLL <= 32")

foreach(kernel gemm out_of_space missing_param multi_device pinned_kernel)
  expect_equal("${ADAEXPLORE_${kernel}_ORIGIN}" "DEFAULTS" "${kernel} (its pinned header does not fit)")
  expect_file_matches("${ADAEXPLORE_${kernel}_HEADER}" "kTuned = false")
endforeach()
expect_equal("${ADAEXPLORE_multi_ok_ORIGIN}" "PINNED" "multi_ok")
expect_fake_tuner_calls("check --spec [^ ]*/multi_ok/spec.json --arch sm_80 --config TILE=16,UNROLL=1 --config-from the pinned header [^ ]*/pinned-bad/multi_ok.hpp harness" 1)
expect_fake_tuner_calls("check --spec [^ ]*/pinned_kernel/spec.json --config TILE=32,UNROLL=2 --config-from the pinned header" 1)
