# PINNED mode with no tuner at hand (none given, installed or built; PINNED mode builds none): the
# module reads each pinned header's machine line itself (string(JSON)) and checks it against the
# call; the tuner is never run. A header that does not fit is an error naming it.
set(ADAEXPLORE_TUNER_EXECUTABLE "")
set(ADAEXPLORE_MODE PINNED)
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned")
adaexplore_tune_kernel(pinned_kernel TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
expect_equal("${ADAEXPLORE_pinned_kernel_ORIGIN}" "PINNED" "pinned_kernel")
expect_file_matches("${ADAEXPLORE_pinned_kernel_HEADER}" "inline constexpr int TILE = 32;")
fake_tuner_calls(calls)
expect_equal("${calls}" "" "tuner calls in PINNED mode without a tuner")
set(ADAEXPLORE_PINNED_DIR "${CMAKE_CURRENT_SOURCE_DIR}/pinned-bad")
adaexplore_tune_kernel(out_of_space TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
