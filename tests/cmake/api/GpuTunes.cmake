# With a GPU every cuda kernel is tuned: the GPU is asked for once, the tuner runs per kernel
# with the spec, the database (ADAEXPLORE_DATABASE's default), the header and the device index
# (ADAEXPLORE_DEVICE's default), and its progress reaches the terminal.
set(ENV{FAKE_TUNER_GPU} 1)
set(args TEMPLATE kernel.cu.in BENCHMARK bench.cu PARAMS TILE 16 32 UNROLL 1 2)
adaexplore_tune_kernel(first ${args} PINNED_HEADER pinned/pinned_kernel.hpp)
adaexplore_tune_kernel(second ${args})

expect_equal("${ADAEXPLORE_first_ORIGIN}" "TUNED" "first (a pinned header does not stop tuning)")
expect_equal("${ADAEXPLORE_second_ORIGIN}" "TUNED" "second")
expect_file_matches("${ADAEXPLORE_first_HEADER}" "kTuned = true")
expect_file_matches("${ADAEXPLORE_second_HEADER}" "kTuned = true")
expect_fake_tuner_calls("device --index 0 harness" 1)
expect_fake_tuner_calls("tune --spec ${CMAKE_BINARY_DIR}/_adaexplore/kernels/second/spec.json --database ${CMAKE_BINARY_DIR}/_adaexplore/database --header ${CMAKE_BINARY_DIR}/adaexplore/include/adaexplore/second.hpp --generated ${CMAKE_BINARY_DIR}/adaexplore/include/adaexplore --report [^ ]*/report\\.html --device 0 harness <${ADAEXPLORE_HARNESS_INCLUDE_DIR}>$" 1)
expect_fake_tuner_calls(tune 2)
expect_fake_tuner_calls(defaults 0)
